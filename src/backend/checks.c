/*
 * The CPU checks of measured points, on one thread beside the GPU
 * (checks.h): a ring of SW_CHECK_SETS slots taken in turn, checked and
 * returned in that order, so the oldest queued record is at c->oldest.
 */
#define _GNU_SOURCE /* syscall(SYS_gettid) */
#include "backend/checks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void sw_checks_init(struct sw_checks *c)
{
	memset(c, 0, sizeof *c);
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->changed, NULL);
}

/* Puts the packed sampled elements of oc where its check reads them: into
 * the views, grown as needed. 0 without memory for a view. */
static int unpack(struct sw_checks *c, struct outcopy *oc)
{
	for (int i = 0; i < SW_MAX_BUFFERS; i++) {
		const struct packed_out *pk = &oc->part[i];
		if (!pk->packed)
			continue;
		size_t bytes = pk->n * pk->elem;
		if (c->view_cap[i] < bytes) {
			free(c->view[i]);
			c->view_cap[i] = 0;
			if (!(c->view[i] = malloc(bytes)))
				return 0;
			c->view_cap[i] = bytes;
		}
		sw_scatter_sampled(pk->packed, pk->elem, pk->n, oc->out.sample_seed,
				   SW_CHECK_SAMPLES, c->view[i]);
		oc->out.out[i] = c->view[i];
	}
	return 1;
}

/* Runs the CPU check of slot q into its record. */
static void run_check(struct sw_checks *c, struct sw_check_slot *q)
{
	struct sw_check chk = { 0 };
	struct sw_record *rec = q->rec;
	if (!q->f)
		return;
	if (!q->f->check) { /* a plug-in's check is optional: the row says so */
		snprintf(rec->message, sizeof rec->message, SW_NOT_CHECKED_NO_HOOK, q->f->name);
		return;
	}
	double t0 = mono_s();
	if (unpack(c, &q->oc))
		q->f->check(&q->p, &q->oc.out, &chk);
	else
		snprintf(chk.msg, sizeof chk.msg, "no host memory for the sampled output's view");
	rec->check_cpu_s = mono_s() - t0;
	snprintf(rec->check_mode, sizeof rec->check_mode, "%s",
		 chk.mode == SW_CHECK_FULL ? "full" : "sampled");
	rec->checked_elems = chk.checked;
	rec->max_rel_err = chk.max_rel_err;
	if (!chk.ok) {
		/* recorded as such, and its timings do not count */
		rec->status = SW_ROW_INVALID;
		snprintf(rec->message, sizeof rec->message,
			 "output differs from the CPU reference: %s", chk.msg);
		rec->median_ns = rec->min_ns = rec->mean_ns = rec->stddev_ns = rec->rse = NAN;
		rec->gbps = rec->gflops = NAN;
	}
}

/* The checking thread yields to the thread that feeds the GPU, so that it
 * never holds back a launch or a sample's events: a lower priority (Linux's
 * per-thread nice, which the OpenMP team it starts inherits), and the cores
 * less the feeder's for that team. */
static void yield_to_feeder(void)
{
#ifdef SYS_gettid
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
#endif
	sw_check_use_threads(sw_check_cores() - 1);
}

static void *checking_thread(void *arg)
{
	struct sw_checks *c = arg;
	yield_to_feeder();
	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct sw_check_slot *q = &c->slot[c->head];
		if (!q->active || q->finished) {
			if (c->stop)
				break;
			pthread_cond_wait(&c->changed, &c->lock);
			continue;
		}
		pthread_mutex_unlock(&c->lock);
		run_check(c, q);
		pthread_mutex_lock(&c->lock);
		q->finished = 1;
		c->head = (c->head + 1) % SW_CHECK_SETS;
		pthread_cond_broadcast(&c->changed);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

void sw_checks_fini(struct sw_checks *c)
{
	pthread_mutex_lock(&c->lock);
	c->stop = 1;
	pthread_cond_broadcast(&c->changed);
	pthread_mutex_unlock(&c->lock);
	if (c->started)
		pthread_join(c->thread, NULL);
	for (int i = 0; i < SW_MAX_BUFFERS; i++)
		free(c->view[i]);
	pthread_cond_destroy(&c->changed);
	pthread_mutex_destroy(&c->lock);
	memset(c, 0, sizeof *c);
}

void sw_checks_queue(struct sw_checks *c, const struct sw_family *f, const struct sw_point *p,
		     const struct outcopy *oc, struct sw_record *rec)
{
	struct sw_check_slot *q = &c->slot[c->next];
	if (!c->started && !c->inline_only) {
		c->started = pthread_create(&c->thread, NULL, checking_thread, c) == 0;
		c->inline_only = !c->started;
	}
	pthread_mutex_lock(&c->lock);
	q->f = f;
	q->rec = rec;
	if (f) {
		q->p = *p;
		q->oc = *oc;
	}
	q->finished = 0;
	q->active = 1;
	c->next = (c->next + 1) % SW_CHECK_SETS;
	c->queued++;
	if (c->inline_only) { /* no thread: the check runs here, in its turn */
		run_check(c, q);
		q->finished = 1;
		c->head = c->next;
	}
	pthread_cond_broadcast(&c->changed);
	pthread_mutex_unlock(&c->lock);
}

int sw_checks_next_held(struct sw_checks *c)
{
	pthread_mutex_lock(&c->lock);
	int held = c->slot[c->next].active;
	pthread_mutex_unlock(&c->lock);
	return held;
}

/* The oldest active slot, or NULL; under c->lock. */
static struct sw_check_slot *oldest(struct sw_checks *c)
{
	return c->queued ? &c->slot[c->oldest] : NULL;
}

/* Returns the oldest record once its check has returned, waiting for it
 * when wait is set; NULL when none is queued, or not yet checked. */
static struct sw_record *take_oldest(struct sw_checks *c, int wait)
{
	struct sw_record *rec = NULL;
	pthread_mutex_lock(&c->lock);
	struct sw_check_slot *q = oldest(c);
	while (q && wait && !q->finished)
		pthread_cond_wait(&c->changed, &c->lock);
	if (q && q->finished) {
		q->active = 0;
		rec = q->rec;
		c->oldest = (c->oldest + 1) % SW_CHECK_SETS;
		c->queued--;
	}
	pthread_mutex_unlock(&c->lock);
	if (rec && c->retired)
		c->retired(c->retired_ctx, (int)(q - c->slot));
	return rec;
}

struct sw_record *sw_checks_settle(struct sw_checks *c)
{
	return c ? take_oldest(c, 1) : NULL;
}

struct sw_record *sw_checks_ready(struct sw_checks *c)
{
	return take_oldest(c, 0);
}
