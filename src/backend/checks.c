/*
 * The CPU checks of measured points, on threads beside the GPU (checks.h):
 * a ring of SW_CHECK_SETS slots taken in turn, so the oldest queued record
 * is always the first active slot after c->next.
 */
#define _POSIX_C_SOURCE 200809L
#include "backend/checks.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

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

static void *check_thread(void *arg)
{
	struct sw_check_slot *q = arg;
	sw_check_copied(q->f, &q->p, &q->oc, q->rec);
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
		q->threaded = pthread_create(&q->thread, NULL, check_thread, q) == 0;
		if (!q->threaded) /* no thread: the check runs here */
			check_thread(q);
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
