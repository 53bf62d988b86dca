/*
 * --dry-run's lines of each replayed class (dry_classes.h): the estimate a
 * class's dispenser works to, max(T1_C / its devices' summed rates, its
 * longest point / its fastest device's rate), a rate being --replay-speed x
 * SPEED; under every_gpu each device runs every point, so the slowest one
 * ends the class.
 */
#include "run/dry_classes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/class_cost.h"
#include "run/progress.h"
#include "run/recordings.h"
#include "run/time_setup.h"

/* The devices of class name in o's SPEC: how many, their summed rate,
 * the fastest and the slowest. */
static int class_rates(const struct sw_options *o, const char *name, double *sum, double *fastest,
		       double *slowest)
{
	int n = 0;
	*sum = *fastest = 0;
	*slowest = 0;
	for (int i = 0; i < o->n_replay_classes; i++) {
		const struct sw_replay_class *c = &o->replay_classes[i];
		double rate = o->replay_speed * c->speed;
		if (strcmp(c->name, name))
			continue;
		n += c->count;
		*sum += c->count * rate;
		*fastest = rate > *fastest ? rate : *fastest;
		*slowest = !*slowest || rate < *slowest ? rate : *slowest;
	}
	return n;
}

/* "8.41 s" under a minute, else "12:03" or "1:02:03". */
static void say_s(char *buf, size_t len, double s)
{
	if (s < 59.995)
		snprintf(buf, len, "%.2f s", s);
	else
		sw_progress_format_duration(buf, len, s);
}

/* Where class cls's times came from, into buf. */
static void say_basis(const struct sw_class_basis *b, const struct sw_gpu *gpu,
		      const struct sw_gpu *table_gpu, char *buf, size_t len)
{
	size_t used = 0;
	if (b->own)
		used += (size_t)snprintf(buf + used, len - used, "%zu from --costs, ", b->own);
	if (b->carried && used < len)
		used += (size_t)snprintf(buf + used, len - used,
					 "%zu carried from %s to %s by the time model, ",
					 b->carried, table_gpu->name, gpu->name);
	if (used < len)
		snprintf(buf + used, len - used, "%zu as estimated for every class%s", b->kept,
			 !gpu               ? " (no GPU the time model knows)"
			 : gpu == table_gpu ? " (on its own GPU)"
			 : !table_gpu       ? " (the estimates' GPU unknown)"
			 : b->carried       ? " (not in the time model)"
					    : "");
}

static void print_class(const struct sw_rank_ctx *r, const struct sw_time_plan *tp,
			const struct sw_h5_recording *rows, int n_rows, const char *name, double *t)
{
	double sum, fastest, slowest, t1 = 0, longest = 0, est;
	int n = class_rates(r->opt, name, &sum, &fastest, &slowest);
	const struct sw_h5_recording *rec = sw_recording_of_class(rows, n_rows, name);
	const struct sw_gpu *gpu =
		rec && rec->emulates[0] ? sw_gpu_of_driver_name(rec->emulates) : NULL;
	struct sw_class_basis b;
	char when[32], how[320];

	sw_class_cost_times(r->costs, r->costs_gpu, tp, &r->plan, name, gpu, t, &b);
	for (size_t i = 0; i < r->plan.n; i++) {
		t1 += t[i];
		longest = t[i] > longest ? t[i] : longest;
	}
	est = r->placement == SW_PLACE_EVERY_GPU ? t1 / slowest
	      : t1 / sum > longest / fastest     ? t1 / sum
						 : longest / fastest;
	say_s(when, sizeof when, est);
	say_basis(&b, gpu, r->costs_gpu, how, sizeof how);
	printf("  %s: %d device%s, replays %s (%s)", name, n, n == 1 ? "" : "s",
	       rec ? rec->file : "nothing", rec && rec->emulates[0] ? rec->emulates : "no device");
	if (r->placement != SW_PLACE_ONCE)
		printf(": expected %s", when);
	printf("\n    times: %s\n", how);
}

void sw_dry_print_classes(const struct sw_rank_ctx *r)
{
	static struct sw_h5_recording rows[SW_MAX_RECORDINGS];
	const struct sw_options *o = r->opt;
	struct sw_time_plan tp;
	struct sw_err err = { 0 };
	double *t;

	if (r->backend != &sw_backend_replay || !o->n_replay_classes || !r->costs)
		return;
	t = malloc((r->plan.n ? r->plan.n : 1) * sizeof *t);
	if (!t)
		return;
	if (sw_time_setup(o, &tp, &err) != SW_OK) { /* the run says why, binding */
		printf("  (the time model: %s)\n", err.msg);
		sw_time_plan_build(NULL, NULL, 0, NULL, NULL, &tp, &err);
	}
	int n_rows = sw_recordings_of(o, r->size, rows);
	printf("classes (%s; each class's own expected times, over its devices' --replay-speed "
	       "x SPEED):\n",
	       r->placement == SW_PLACE_ONCE ? "placement once: they share the points"
	       : r->placement == SW_PLACE_PER_CLASS
		       ? "placement per_class: each point once on each class"
		       : "placement every_gpu: each point on every device");
	for (int i = 0; i < o->n_replay_classes; i++) {
		int first = 1;
		for (int k = 0; k < i && first; k++)
			first = strcmp(o->replay_classes[k].name, o->replay_classes[i].name) != 0;
		if (first)
			print_class(r, &tp, rows, n_rows, o->replay_classes[i].name, t);
	}
	sw_time_plan_fini(&tp);
	free(t);
}
