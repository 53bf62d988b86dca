/*
 * The replay backend, a test instrument: it runs a job's schedule without a
 * GPU by sleeping, for each point, the wall time that point took in an
 * earlier result file (durations.h), divided by --replay-speed. Its rows
 * say backend "replay", carry no timings and are never measurements; what
 * they show is where a schedule spends its time (start_unix, end_unix).
 * Points the file lacks are skipped with that reason. A sleep that overruns
 * (a loaded machine wakes a process late) is paid back from the next
 * point's sleep, so a rank's busy time matches the recording; the time
 * between points, the schedule's own cost, is never paid back. A run that
 * stops (SIGINT, SIGTERM: backend.h's stop) ends a sleep within 50 ms and
 * gives its point up, so an hours-long point stops as any run does.
 * With --replay-devices each rank is an emulated device of a class: its
 * own name and UUID, its class's recording (CLASS:COUNT=FILE, else
 * --backend replay=FILE's), that recording's device (emulates, CC, SMs,
 * memory, bandwidth), and a speed that divides its sleeps and the recorded
 * raw samples its rows carry; of a recording of several classes, a class
 * replays the rows of its own name (own_rows). Every row of a result
 * file's recording carries the model's columns for the recorded GPU, as a
 * measured row would.
 */
#define _POSIX_C_SOURCE 200809L
#include "backend/backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/durations.h"
#include "core/stats.h"
#include "h5/h5replay.h"
#include "job/replay_spec.h"
#include "model/gpus.h"

struct replay_state {
	struct sw_durations d; /* sorted by point id */
	double speed;
	double overrun_s; /* how late the last sleep woke, still to pay back */
	char file[256];   /* the replayed file's name, for messages */
	/* --replay-devices: this rank's emulated device; dev_speed 0 without */
	double dev_speed;
	char dev_name[SW_REPLAY_CLASS_LEN];
	char own[SW_DURATION_CLASS_LEN];   /* the recording's class replayed; "": all */
	struct sw_replay_file rf;          /* the recorded samples (empty from a .csv) */
	const volatile sig_atomic_t *stop; /* the run is stopping: give the point up */
	/* the recorded GPU, whose model columns the rows carry */
	double peak_gbps;
	const struct sw_gpu *gpu; /* its entry in the time model's table; NULL: none */
	const struct sw_time_plan *time;
	char note[320]; /* said once: rows without a device to model (a .csv) */
};

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct sw_duration *)a)->point_id;
	uint64_t y = ((const struct sw_duration *)b)->point_id;
	return x < y ? -1 : x > y;
}

/* The counts of --replay-devices against the ranks: every rank finds the
 * same, so rank 0 alone says it (setup.c). */
static enum sw_status check_devices(const struct sw_backend_args *a, struct sw_err *err)
{
	const struct sw_options *o = a->opt;

	if (!o->n_replay_devices || o->n_replay_devices == a->size)
		return SW_OK;
	return sw_fail(err, SW_EINVAL,
		       "--replay-devices %s makes %d device%s, but the run has %d rank%s: the "
		       "counts must add up to the number of ranks",
		       o->replay_devices, o->n_replay_devices, o->n_replay_devices == 1 ? "" : "s",
		       a->size, a->size == 1 ? "" : "s");
}

static int is_csv(const char *path)
{
	size_t len = strlen(path);
	return len > 4 && strcmp(path + len - 4, ".csv") == 0;
}

/* The option that names rank's recording path, for messages. */
static void origin(const struct sw_options *o, int rank, const char *path, char *buf, size_t len)
{
	int index;
	const struct sw_replay_class *c = sw_replay_spec_device(o, rank, &index);
	if (c && c->file)
		snprintf(buf, len, "--replay-devices %s:...=%s", c->name, path);
	else
		snprintf(buf, len, "--backend replay=%s", path);
}

/* The recorded device d into dev, whose host fields are filled: what the
 * rank stands for (docs/hdf5-schema.md lists the columns). */
static void take_device(const struct sw_replay_device *d, struct replay_state *s,
			struct sw_device_info *dev)
{
	snprintf(dev->emulates, sizeof dev->emulates, "%s", sw_replay_device_gpu(d));
	dev->cc = d->cc;
	dev->sm_count = d->sm_count;
	dev->mem_bytes = d->mem_bytes;
	dev->mem_clock_khz = d->mem_clock_khz;
	dev->mem_bus_width_bits = d->mem_bus_width_bits;
	dev->peak_gbps = d->peak_gbps;
	dev->l2_bytes = d->l2_bytes;
	s->peak_gbps = d->peak_gbps;
	s->gpu = dev->emulates[0] ? sw_gpu_of_driver_name(dev->emulates) : NULL;
}

/* This rank's emulated device into dev: its class as its name, a UUID no
 * GPU has, and its recording's samples and device (none from a .csv,
 * which records no device). */
static enum sw_status emulate(const struct sw_backend_args *a, const char *path,
			      struct replay_state *s, struct sw_device_info *dev,
			      struct sw_err *err)
{
	int index = 0;
	const struct sw_replay_class *c = sw_replay_spec_device(a->opt, a->rank, &index);
	enum sw_status st = SW_OK;
	char from[1200];

	if (!is_csv(path))
		st = sw_replay_file_read(path, s->own, &s->rf, err);
	if (st != SW_OK) {
		origin(a->opt, a->rank, path, from, sizeof from);
		return sw_wrap(err, "--replay-devices: %s", from);
	}
	s->dev_speed = c->speed;
	snprintf(s->dev_name, sizeof s->dev_name, "%s", c->name);
	snprintf(dev->name, sizeof dev->name, "%s", c->name);
	snprintf(dev->uuid, sizeof dev->uuid, "EMU-%s-%d", c->name, index);
	snprintf(dev->pci_bus_id, sizeof dev->pci_bus_id, "emulated");
	take_device(&s->rf.dev, s, dev);
	return SW_OK;
}

/* The note of rank, said by the first rank whose recording is a .csv: the
 * rows that name no device, so carry no model columns. Every rank finds the
 * same from the options, so one rank says it, once. */
static void csv_note(const struct sw_options *o, int rank, int size, char *buf, size_t len)
{
	int first = -1, classes = 0;
	size_t used = 0;
	char names[200] = "";
	for (int k = 0; k < size; k++) {
		const char *p = sw_replay_spec_recording(o, k);
		int index;
		const struct sw_replay_class *c = sw_replay_spec_device(o, k, &index);
		if (!p || !is_csv(p))
			continue;
		if (first < 0)
			first = k;
		if (c && index == 0 && used < sizeof names) /* each class once */
			used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
						 classes++ ? ", " : "", c->name);
	}
	buf[0] = '\0';
	if (first != rank)
		return;
	snprintf(buf, len,
		 "%s names no device (a .csv recording): the rows of %s%s carry no model "
		 "columns; replay a result file (CLASS:COUNT=FILE.h5) to have them",
		 sw_replay_spec_recording(o, rank),
		 classes ? (classes > 1 ? "classes " : "class ") : "every rank", names);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A recording of several classes' rows (a per_class run's, say): the
 * class cls replaying it takes the rows of its own name, as
 * --model-calibrate FILE:CLASS does, and d keeps only those; a recording
 * of one class is any class's. Refused, saying how to choose, where none
 * of its classes is cls. own: the class taken, "" for all. */
static enum sw_status own_rows(struct sw_durations *d, const char *cls, const char *from, char *own,
			       size_t own_len, struct sw_err *err)
{
	const char *names[4];
	int n = 0, has_own = 0;
	own[0] = '\0';
	for (size_t i = 0; i < d->n; i++) {
		const char *c = d->rows[i].device_class;
		int known = 0;
		has_own |= !strcmp(c, cls);
		for (int k = 0; k < n && !known; k++)
			known = !strcmp(names[k], c);
		if (!known && n < 4)
			names[n++] = c;
	}
	if (n < 2)
		return SW_OK;
	if (!has_own) {
		qsort(names, (size_t)n, sizeof *names, by_name);
		/* a real GPU's class ("NVIDIA H200") is no --replay-devices name */
		char how[160];
		size_t plain =
			strspn(names[0], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789_.-");
		if (names[0][0] && !names[0][plain] && strlen(names[0]) < SW_REPLAY_CLASS_LEN)
			snprintf(how, sizeof how,
				 "name the class as the recording does (%s:COUNT=FILE), or give a "
				 "recording of one class",
				 names[0]);
		else
			snprintf(how, sizeof how,
				 "its classes are no names --replay-devices takes, so give a "
				 "recording of one class");
		return sw_fail(err, SW_EINVAL,
			       "%s holds rows of %s device classes ('%s', '%s'%s), none of them "
			       "'%s': a class replays the rows of its own name from a recording of "
			       "several: %s",
			       from,
			       n > 3    ? "several"
			       : n == 3 ? "three"
					: "two",
			       names[0], names[1], n > 2 ? ", ..." : "", cls, how);
	}
	size_t k = 0;
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->rows[i].device_class, cls))
			d->rows[k++] = d->rows[i];
	d->n = k;
	snprintf(own, own_len, "%s", cls);
	return SW_OK;
}

static void replay_close(void **state);

/* What a run refuses as it opens, the dry run too: the counts, and an
 * emulated device's recording that its reader refuses or that holds no
 * rows of its class. A recording not made yet is not looked at: a dry run
 * lists the points to record (--dry-run --points). */
static enum sw_status replay_dry_check(const struct sw_backend_args *a, struct sw_err *err)
{
	enum sw_status st = check_devices(a, err);
	const char *path = sw_replay_spec_recording(a->opt, a->rank);
	int index;
	const struct sw_replay_class *c = sw_replay_spec_device(a->opt, a->rank, &index);
	if (st != SW_OK || !c || !path || !*path || access(path, F_OK) != 0)
		return st;
	struct sw_durations d = { 0 };
	char from[1200], own[SW_DURATION_CLASS_LEN];
	origin(a->opt, a->rank, path, from, sizeof from);
	st = sw_durations_read(path, &d, err);
	if (st != SW_OK)
		sw_wrap(err, "%s", from);
	else
		st = own_rows(&d, c->name, from, own, sizeof own, err);
	sw_durations_fini(&d);
	return st;
}

static enum sw_status replay_open(const struct sw_backend_args *a, struct sw_device_info *dev,
				  void **state, struct sw_err *err)
{
	const char *path = sw_replay_spec_recording(a->opt, a->rank);
	char from[1200];
	if (!path || !*path)
		return sw_fail(err, SW_EINVAL,
			       "--backend replay=FILE: name the result file to replay");
	enum sw_status st = check_devices(a, err);
	if (st != SW_OK)
		return st;
	struct replay_state *s = calloc(1, sizeof *s);
	if (!s)
		return sw_fail(err, SW_ENOMEM, "no memory for the replay backend");
	origin(a->opt, a->rank, path, from, sizeof from);
	st = sw_durations_read(path, &s->d, err);
	if (st != SW_OK) {
		free(s);
		return sw_wrap(err, "%s", from);
	}
	if (s->d.n > 1) /* a recording of no rows has no array to sort */
		qsort(s->d.rows, s->d.n, sizeof *s->d.rows, cmp_id);
	s->stop = a->stop;
	s->time = a->time;
	s->speed = a->opt->replay_speed > 0 ? a->opt->replay_speed : 1.0;
	const char *base = strrchr(path, '/');
	snprintf(s->file, sizeof s->file, "%s", base ? base + 1 : path);
	sw_device_host_info(a->local_rank, dev);
	snprintf(dev->name, sizeof dev->name, "replay of %.52s", s->file);
	csv_note(a->opt, a->rank, a->size, s->note, sizeof s->note);
	if (a->opt->n_replay_devices) {
		int index;
		st = own_rows(&s->d, sw_replay_spec_device(a->opt, a->rank, &index)->name, from,
			      s->own, sizeof s->own, err);
		if (st == SW_OK)
			st = emulate(a, path, s, dev, err);
	} else if (!is_csv(path) &&
		   (st = sw_replay_device_read(path, NULL, &s->rf.dev, err)) == SW_OK)
		take_device(&s->rf.dev, s, dev);
	else if (st != SW_OK)
		sw_wrap(err, "%s", from);
	if (st != SW_OK) {
		void *p = s;
		replay_close(&p);
		return st;
	}
	*state = s;
	return SW_OK;
}

static const char *replay_note(void *state)
{
	const struct replay_state *s = state;
	return s->note[0] ? s->note : NULL;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Longest stretch slept without looking at the stop flag: a signal may
 * reach another thread (MPI's, the coordinator's), and then no sleep of this
 * one ends early with EINTR, so the flag is what tells. */
#define STOP_POLL_S 0.05

static int stopping(const struct replay_state *st)
{
	return st->stop && *st->stop;
}

/* Sleeps s less what the last sleep overran; keeps this sleep's overrun.
 * 1 when the run began to stop first (the sleep is cut short), else 0. No
 * length is too long: the wait is slept in stretches of STOP_POLL_S, so no
 * time converts to a timespec it does not fit (an hours-long point, or a
 * tiny --replay-speed, waits until the stop). */
static int sleep_s(struct replay_state *st, double s)
{
	double want = s - st->overrun_s;
	if (!(want > 0)) {
		st->overrun_s = want < 0 ? -want : 0;
		return 0; /* nothing left to wait: the point is done */
	}
	double until = mono_s() + want, left;
	while (!stopping(st) && (left = until - mono_s()) > 0) {
		double nap = left < STOP_POLL_S ? left : STOP_POLL_S;
		struct timespec ts = { 0, (long)(nap * 1e9) };
		nanosleep(&ts, NULL); /* EINTR: the loop looks at the flag again */
	}
	if (stopping(st)) {
		st->overrun_s = 0;
		return 1;
	}
	st->overrun_s = mono_s() - until;
	return 0;
}

/* The recorded raw samples of point id, divided by the device's speed, and
 * what they give (statistics, rates, timed time): an emulated device's
 * timing, made from a real one's. Nothing when the file has none. */
static void scaled_samples(const struct replay_state *s, uint64_t id, struct sw_record *rec)
{
	const struct sw_replay_row *row = sw_replay_file_find(&s->rf, id);
	struct sw_stats st;

	if (!row)
		return;
	for (uint32_t i = 0; i < row->n_samples; i++)
		rec->samples_ns[i] = s->rf.samples_ns[row->sample_offset + i] / s->dev_speed;
	sw_stats_compute(rec->samples_ns, row->n_samples, &st);
	rec->n_samples = row->n_samples;
	rec->launches_per_sample = row->launches_per_sample;
	rec->l2_flushed = row->l2_flushed;
	rec->median_ns = st.median;
	rec->min_ns = st.min;
	rec->mean_ns = st.mean;
	rec->stddev_ns = st.stddev;
	rec->rse = st.rse;
	rec->gbps = rec->useful_bytes / st.median; /* bytes per ns are GB/s */
	rec->gflops = rec->flops / st.median;
	rec->timed_s = row->timed_s / s->dev_speed;
}

/* The run stops during the point's sleep: no row, the point stays missing
 * for --resume (backend.h). */
static enum sw_status given_up(int *n_done)
{
	*n_done = 0;
	return SW_SKIP;
}

static enum sw_status replay_run(void *state, const struct sw_plan_point *pt, struct sw_record *rec,
				 struct sw_record **done, int *n_done, struct sw_err *err)
{
	struct replay_state *s = state;
	struct sw_duration key = { .point_id = pt->id };
	const struct sw_duration *d =
		s->d.n ? bsearch(&key, s->d.rows, s->d.n, sizeof key, cmp_id) : NULL;
	(void)err;
	double t0 = mono_s();
	done[0] = rec;
	*n_done = 1;
	/* the recorded GPU's model, as its measured row had it: counting it is
	 * part of the point's recorded time, so its sleep pays it back */
	sw_backend_add_gpu_model(pt, s->peak_gbps, s->gpu, s->time, rec);
	if (d)
		s->overrun_s += mono_s() - t0;
	if (!d) {
		rec->status = SW_ROW_SKIPPED;
		snprintf(rec->message, sizeof rec->message, "replay: %.120s has no such point",
			 s->file);
		return SW_OK;
	}
	if (!s->dev_speed) {
		if (sleep_s(s, d->wall_s / s->speed))
			return given_up(n_done);
		rec->status = d->status;
		snprintf(rec->message, sizeof rec->message, "replay of %.100s: %.6g s at speed %g",
			 s->file, d->wall_s, s->speed);
		return SW_OK;
	}
	if (sleep_s(s, d->wall_s / s->dev_speed / s->speed))
		return given_up(n_done);
	rec->status = d->status;
	if (d->status == SW_ROW_OK)
		scaled_samples(s, pt->id, rec);
	snprintf(rec->message, sizeof rec->message,
		 "replay of %.60s on emulated %s at device speed %g: %.6g s at speed %g", s->file,
		 s->dev_name, s->dev_speed, d->wall_s, s->speed);
	return SW_OK;
}

static void replay_close(void **state)
{
	struct replay_state *s = *state;
	if (s) {
		sw_durations_fini(&s->d);
		sw_replay_file_fini(&s->rf);
	}
	free(s);
	*state = NULL;
}

const struct sw_backend sw_backend_replay = {
	.name = "replay",
	.about = "a test instrument: sleeps each point's wall time from an earlier result file",
	.open = replay_open,
	.dry_check = replay_dry_check,
	.note = replay_note,
	.run = replay_run,
	.close = replay_close,
};
