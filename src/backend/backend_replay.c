/*
 * The replay backend, a test instrument: it runs a job's schedule without a
 * GPU by sleeping, for each point, the wall time that point took in an
 * earlier result file (durations.h), divided by --replay-speed. Its rows
 * say backend "replay", carry no timings and are never measurements; what
 * they show is where a schedule spends its time (start_unix, end_unix).
 * Points the file lacks are skipped with that reason. A sleep that overruns
 * (a loaded machine wakes a process late) is paid back from the next
 * point's sleep, so a rank's busy time matches the recording; the time
 * between points, the schedule's own cost, is never paid back.
 */
#define _POSIX_C_SOURCE 200809L
#include "backend/backend.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/durations.h"

struct replay_state {
	struct sw_durations d; /* sorted by point id */
	double speed;
	double overrun_s; /* how late the last sleep woke, still to pay back */
	char file[256];   /* the replayed file's name, for messages */
};

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct sw_duration *)a)->point_id;
	uint64_t y = ((const struct sw_duration *)b)->point_id;
	return x < y ? -1 : x > y;
}

static enum sw_status replay_open(const struct sw_backend_args *a, struct sw_device_info *dev,
				  void **state, struct sw_err *err)
{
	if (!a->arg || !*a->arg)
		return sw_fail(err, SW_EINVAL,
			       "--backend replay=FILE: name the result file to replay");
	struct replay_state *s = calloc(1, sizeof *s);
	if (!s)
		return sw_fail(err, SW_ENOMEM, "no memory for the replay backend");
	enum sw_status st = sw_durations_read(a->arg, &s->d, err);
	if (st != SW_OK) {
		free(s);
		return sw_wrap(err, "--backend replay=%s", a->arg);
	}
	qsort(s->d.rows, s->d.n, sizeof *s->d.rows, cmp_id);
	s->speed = a->opt->replay_speed > 0 ? a->opt->replay_speed : 1.0;
	const char *base = strrchr(a->arg, '/');
	snprintf(s->file, sizeof s->file, "%s", base ? base + 1 : a->arg);
	sw_device_host_info(a->local_rank, dev);
	snprintf(dev->name, sizeof dev->name, "replay of %.52s", s->file);
	*state = s;
	return SW_OK;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Sleeps s less what the last sleep overran; keeps this sleep's overrun. */
static void sleep_s(struct replay_state *st, double s)
{
	double want = s - st->overrun_s;
	if (!(want > 0)) {
		st->overrun_s = want < 0 ? -want : 0;
		return;
	}
	double until = mono_s() + want;
	struct timespec ts = { (time_t)until, (long)((until - floor(until)) * 1e9) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	st->overrun_s = mono_s() - until;
}

static enum sw_status replay_run(void *state, const struct sw_plan_point *pt, struct sw_record *rec,
				 struct sw_record **done, int *n_done, struct sw_err *err)
{
	struct replay_state *s = state;
	struct sw_duration key = { .point_id = pt->id };
	const struct sw_duration *d = bsearch(&key, s->d.rows, s->d.n, sizeof key, cmp_id);
	(void)err;
	done[0] = rec;
	*n_done = 1;
	if (!d) {
		rec->status = SW_ROW_SKIPPED;
		snprintf(rec->message, sizeof rec->message, "replay: %.120s has no such point",
			 s->file);
		return SW_OK;
	}
	sleep_s(s, d->wall_s / s->speed);
	rec->status = d->status;
	snprintf(rec->message, sizeof rec->message, "replay of %.100s: %.6g s at speed %g", s->file,
		 d->wall_s, s->speed);
	return SW_OK;
}

static void replay_close(void **state)
{
	struct replay_state *s = *state;
	if (s)
		sw_durations_fini(&s->d);
	free(s);
	*state = NULL;
}

const struct sw_backend sw_backend_replay = {
	.name = "replay",
	.about = "a test instrument: sleeps each point's wall time from an earlier result file",
	.open = replay_open,
	.run = replay_run,
	.close = replay_close,
};
