/*
 * The CPU checks of measured points (measure.c): a queue of up to
 * SW_CHECKS_IN_FLIGHT points whose checks one thread beside the GPU runs in
 * the order they were queued, each across the host's cores (OpenMP), so
 * records complete in point order. Each queued point owns the host set its
 * outputs were copied into, so a set is reused only after its check has
 * returned.
 */
#ifndef SW_BACKEND_CHECKS_H
#define SW_BACKEND_CHECKS_H

#include <pthread.h>

#include "core/record.h"
#include "kernel.h"

/* Checks queued beside the GPU. One held the next point for the previous
 * one's recount (issue 22); twelve still held the H200 full job's 192 short
 * histogram points, whose recounts take 8.2 s of the checking thread
 * against 2.3 s of GPU time, for 5.4 s (7f19c55): a queue as deep as that
 * cluster lets the long points after it absorb the recounts. The host
 * copies the queue holds are bounded apart (measure.c's pinned pool); a
 * queued record costs about 5 KB. */
#define SW_CHECKS_IN_FLIGHT 256
/* Host sets: one per check queued, and the one the next point fills. */
#define SW_CHECK_SETS (SW_CHECKS_IN_FLIGHT + 1)

/* An output that came back in part (sw_sizes.sampled_elem): the sampled
 * elements, packed in pick order; the checking thread puts them back into
 * a full-size view of its own before the check reads them. */
struct packed_out {
	const void *packed; /* NULL: the whole output came back */
	size_t elem;
	uint64_t n;
};

/* A point's outputs on the host, as its check will read them. */
struct outcopy {
	struct sw_host_out out;
	struct packed_out part[SW_MAX_BUFFERS];
};

struct sw_check_slot {
	int active;                /* queued, its record not yet returned */
	int finished;              /* checked (or nothing to check): may be returned */
	const struct sw_family *f; /* NULL: nothing to check */
	struct sw_point p;
	struct outcopy oc;
	struct sw_record *rec;
};

struct sw_checks {
	struct sw_check_slot slot[SW_CHECK_SETS];
	int next;   /* the slot, and host set, of the next point */
	int head;   /* the checking thread's next slot */
	int oldest; /* the slot of the oldest record not yet returned */
	int queued; /* records not yet returned */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	pthread_t thread;
	int started, stop;
	int inline_only; /* no thread could be started: checks run when queued */
	/* called with a slot's index once its record is returned, so that the
	 * host copies it held can be reused (NULL: nothing to do) */
	void (*retired)(void *ctx, int slot);
	void *retired_ctx;
	/* the checking thread's full-size views of sampled outputs: pageable,
	 * so their pages cost nothing until the scattered elements touch them
	 * (pinning gigabytes took 1.5-2 s per buffer on the H200, issue 22) */
	void *view[SW_MAX_BUFFERS];
	size_t view_cap[SW_MAX_BUFFERS];
};

void sw_checks_init(struct sw_checks *c);
/* Stops the checking thread once every queued check has run, frees the
 * views. The records not yet returned are lost: settle them first. */
void sw_checks_fini(struct sw_checks *c);

/* Queues rec into slot c->next with the check of point p of f on oc (f
 * NULL: a record with nothing to check, returned in its turn), and moves
 * c->next on. The slot must be free (sw_checks_next_held). */
void sw_checks_queue(struct sw_checks *c, const struct sw_family *f, const struct sw_point *p,
		     const struct outcopy *oc, struct sw_record *rec);

/* Nonzero when slot c->next still holds a check: settle the oldest first. */
int sw_checks_next_held(struct sw_checks *c);

/* The oldest record queued, once its check has returned (waiting for it),
 * or NULL when none is queued. */
struct sw_record *sw_checks_settle(struct sw_checks *c);

/* The oldest record queued if its check has already returned, else NULL. */
struct sw_record *sw_checks_ready(struct sw_checks *c);

#endif
