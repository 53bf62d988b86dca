/*
 * The CPU checks of measured points, on threads beside the GPU (checks.h):
 * a ring of SW_CHECK_SETS slots taken in turn, so the oldest queued record
 * is always the first active slot after c->next.
 */
#define _GNU_SOURCE /* syscall(SYS_gettid) */
#include "backend/checks.h"

#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Checks running now, in this process: they share the host's cores. */
static atomic_int running;

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Puts the packed sampled elements where the check reads them. */
static void unpack(const struct outcopy *oc)
{
	for (int i = 0; i < SW_MAX_BUFFERS; i++)
		if (oc->part[i].packed)
			sw_scatter_sampled(oc->part[i].packed, oc->part[i].elem, oc->part[i].n,
					   oc->out.sample_seed, SW_CHECK_SAMPLES, oc->part[i].view);
}

void sw_check_copied(const struct sw_family *f, const struct sw_point *p, const struct outcopy *oc,
		     struct sw_record *rec)
{
	struct sw_check c = { 0 };
	if (!f->check) /* a plug-in's check is optional: the row says "none" */
		return;
	double t0 = mono_s();
	unpack(oc);
	f->check(p, &oc->out, &c);
	rec->check_cpu_s = mono_s() - t0;
	snprintf(rec->check_mode, sizeof rec->check_mode, "%s",
		 c.mode == SW_CHECK_FULL ? "full" : "sampled");
	rec->checked_elems = c.checked;
	rec->max_rel_err = c.max_rel_err;
	if (!c.ok) {
		/* recorded as such, and its timings do not count */
		rec->status = SW_ROW_INVALID;
		snprintf(rec->message, sizeof rec->message,
			 "output differs from the CPU reference: %s", c.msg);
		rec->median_ns = rec->min_ns = rec->mean_ns = rec->stddev_ns = rec->rse = NAN;
		rec->gbps = rec->gflops = NAN;
	}
}

/* A check thread yields to the thread that feeds the GPU, so that up to
 * SW_CHECKS_IN_FLIGHT checks never hold back a launch or a sample's events:
 * a lower priority (Linux's per-thread nice, which the OpenMP team it
 * starts inherits), and an even share of the cores less the feeder's among
 * the checks running now (this one included). */
static void yield_to_feeder(void)
{
#ifdef SYS_gettid
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
#endif
	int now = atomic_load(&running), cores = sw_check_cores() - 1;
	sw_check_use_threads(cores / (now > 0 ? now : 1));
}

static void *check_thread(void *arg)
{
	struct sw_check_slot *q = arg;
	yield_to_feeder();
	sw_check_copied(q->f, &q->p, &q->oc, q->rec);
	atomic_fetch_sub(&running, 1);
	atomic_store(&q->finished, 1);
	return NULL;
}

void sw_checks_queue(struct sw_checks *c, const struct sw_family *f, const struct sw_point *p,
		     const struct outcopy *oc, struct sw_record *rec)
{
	struct sw_check_slot *q = &c->slot[c->next];
	q->active = 1;
	q->threaded = 0;
	q->f = f;
	q->rec = rec;
	atomic_store(&q->finished, f == NULL);
	if (f) {
		q->p = *p;
		q->oc = *oc;
		atomic_fetch_add(&running, 1);
		q->threaded = pthread_create(&q->thread, NULL, check_thread, q) == 0;
		if (!q->threaded) { /* no thread: the check runs here, as fast as it can */
			sw_check_copied(f, &q->p, &q->oc, rec);
			atomic_fetch_sub(&running, 1);
			atomic_store(&q->finished, 1);
		}
	}
	c->next = (c->next + 1) % SW_CHECK_SETS;
}

int sw_checks_next_held(const struct sw_checks *c)
{
	return c->slot[c->next].active;
}

/* The oldest active slot, or NULL. */
static struct sw_check_slot *oldest(struct sw_checks *c)
{
	for (int i = 0; i < SW_CHECK_SETS; i++) {
		struct sw_check_slot *q = &c->slot[(c->next + i) % SW_CHECK_SETS];
		if (q->active)
			return q;
	}
	return NULL;
}

static struct sw_record *retire(struct sw_check_slot *q)
{
	if (q->threaded)
		pthread_join(q->thread, NULL);
	q->active = q->threaded = 0;
	return q->rec;
}

struct sw_record *sw_checks_settle(struct sw_checks *c)
{
	struct sw_check_slot *q = c ? oldest(c) : NULL;
	return q ? retire(q) : NULL;
}

struct sw_record *sw_checks_ready(struct sw_checks *c)
{
	struct sw_check_slot *q = oldest(c);
	return q && atomic_load(&q->finished) ? retire(q) : NULL;
}
