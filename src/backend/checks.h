/*
 * The CPU checks of measured points (measure.c): each runs on a thread
 * beside the GPU, up to SW_CHECKS_IN_FLIGHT at once, and their records
 * complete in the order their points were queued. Each slot owns the host
 * set its point's outputs were copied into, so a set is reused only after
 * its check has returned.
 */
#ifndef SW_BACKEND_CHECKS_H
#define SW_BACKEND_CHECKS_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/record.h"
#include "kernel.h"

/* Checks a rank runs beside its GPU. One held the next point for the
 * previous one's recount (issue 22); four still held the full job's 192
 * short histogram points, whose recounts outlast their samples, for 7 s
 * of 256. Bounded: each holds its host copies (sampled outputs come back
 * as 4096 elements, so most sets stay small). */
#define SW_CHECKS_IN_FLIGHT 12
/* Host sets: one per check in flight, and the one the next point fills. */
#define SW_CHECK_SETS (SW_CHECKS_IN_FLIGHT + 1)

/* An output that came back in part (sw_sizes.sampled_elem): the sampled
 * elements, packed in pick order, to put back into the full-size host view
 * the check reads before it runs. */
struct packed_out {
	const void *packed; /* NULL: the whole output came back */
	void *view;
	size_t elem;
	uint64_t n;
};

/* A point's outputs on the host, as its check will read them. */
struct outcopy {
	struct sw_host_out out;
	struct packed_out part[SW_MAX_BUFFERS];
};

struct sw_check_slot {
	int active;   /* queued, its record not yet returned */
	int threaded; /* a thread runs its check: join it */
	atomic_int finished;
	pthread_t thread;
	const struct sw_family *f; /* NULL: no check, complete when queued */
	struct sw_point p;
	struct outcopy oc;
	struct sw_record *rec;
};

struct sw_checks {
	struct sw_check_slot slot[SW_CHECK_SETS];
	int next; /* the slot, and host set, of the next point */
};

/* Queues rec into slot c->next with the check of point p of f on oc (f
 * NULL: a record with nothing to check, complete now but returned in its
 * turn), and moves c->next on. The slot must be free (sw_checks_free). */
void sw_checks_queue(struct sw_checks *c, const struct sw_family *f, const struct sw_point *p,
		     const struct outcopy *oc, struct sw_record *rec);

/* Nonzero when slot c->next still holds a check: settle the oldest first. */
int sw_checks_next_held(const struct sw_checks *c);

/* The oldest record queued, once its check has returned (waiting for it),
 * or NULL when none is queued. */
struct sw_record *sw_checks_settle(struct sw_checks *c);

/* The oldest record queued if its check has already returned, else NULL. */
struct sw_record *sw_checks_ready(struct sw_checks *c);

/* Runs f's CPU check on copies already on the host, into rec. */
void sw_check_copied(const struct sw_family *f, const struct sw_point *p, const struct outcopy *oc,
		     struct sw_record *rec);

#endif
