/*
 * What a dry run prints (setup.h, sw_setup_print_plan): the points by family
 * and variant with their expected times, the ranks' shares, where the
 * estimates come from, the placement, and with --points every point. Rank
 * 0 only; it reads the rank's context and changes nothing.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "run/comm.h"
#include "run/cost.h"
#include "run/dry_classes.h"
#include "core/durations.h"
#include "h5/h5out.h"
#include "job/plugin.h"
#include "job/replay_spec.h"
#include "backend/measure.h"
#include "run/progress.h"
#include "core/safe_open.h"
#include "run/sched.h"
#include "run/setup.h"
#include "run/time_setup.h"
#include "version.h"

/* "8.41 s" under a minute, else "12:03" or "1:02:03". */
static void say_s(char *buf, size_t len, double s)
{
	if (s < 59.995)
		snprintf(buf, len, "%.2f s", s);
	else
		sw_progress_format_duration(buf, len, s);
}

/* Points of variant v of family index fam, and their expected seconds. */
static size_t variant_points(const struct sw_rank_ctx *r, int fam, int v, double *expected_s)
{
	size_t k = 0;
	*expected_s = 0;
	for (size_t i = 0; i < r->plan.n; i++)
		if (r->plan.points[i].family == fam && r->plan.points[i].p.variant == v) {
			k++;
			*expected_s += r->cost_s[i];
		}
	return k;
}

/* The job's j-th family (its families, then its calibrate), or -1 for a
 * calibrate family that families already lists. */
static int job_family(const struct sw_job *job, int j)
{
	if (j < job->n_families)
		return job->families[j].index;
	int fam = job->calibrate[j - job->n_families].index;
	for (int i = 0; i < job->n_families; i++)
		if (job->families[i].index == fam)
			return -1;
	return fam;
}

static void print_variants(const struct sw_rank_ctx *r)
{
	char t[32];
	for (int j = 0; j < r->job.n_families + r->job.n_calibrate; j++) {
		int fam = job_family(&r->job, j);
		const struct sw_family *f = fam < 0 ? NULL : sw_family_at(fam);
		for (int v = 0; f && v < f->n_variants; v++) {
			double s;
			size_t k = variant_points(r, fam, v, &s);
			say_s(t, sizeof t, s);
			if (k)
				printf("  %-14s %-14s %6zu points, expected %s\n", f->name,
				       f->variants[v].name, k, t);
		}
	}
}

/* Static: each rank's points and expected seconds (a replayed rank's
 * over its rate: --replay-speed and its device's SPEED); the largest, the
 * makespan the split expects. */
static double print_ranks(const struct sw_rank_ctx *r, const int *owner)
{
	double makespan = 0;
	char t[32];
	for (int k = 0; k < r->size; k++) {
		size_t c = 0;
		double s = 0;
		for (size_t i = 0; i < r->plan.n; i++)
			if (owner[i] == k) {
				c++;
				s += r->cost_s[i];
			}
		s /= sw_replay_spec_rate(r->opt, k);
		say_s(t, sizeof t, s);
		printf("  rank %d runs %zu points, expected %s\n", k, c, t);
		makespan = s > makespan ? s : makespan;
	}
	return makespan;
}

/* Where the expected times came from: one source, or each with its count. */
static void print_sources(const struct sw_rank_ctx *r)
{
	int kinds = 0;
	for (int s = 0; s < SW_COST_N_SOURCES; s++)
		kinds += r->cost_sources[s] > 0;
	printf("expected times: ");
	for (int s = SW_COST_N_SOURCES - 1, said = 0; s >= 0; s--) {
		if (!r->cost_sources[s])
			continue;
		printf("%s%s", said++ ? ", " : "", sw_cost_source_name((enum sw_cost_source)s));
		if (kinds > 1)
			printf(" (%zu points)", r->cost_sources[s]);
	}
	printf("%s\n", kinds ? "" : "none (no points)");
}

/* The dynamic schedule's bound, max(T1/N, longest point), on ranks that
 * replay at rates of their own: T1 over the sum of the rates, the longest
 * point over the fastest rank's. */
static double replay_bound_s(const struct sw_rank_ctx *r)
{
	double t1 = 0, longest = 0, sum = 0, fastest = 0;
	for (size_t i = 0; i < r->plan.n; i++) {
		t1 += r->cost_s[i];
		longest = r->cost_s[i] > longest ? r->cost_s[i] : longest;
	}
	for (int k = 0; k < r->size; k++) {
		double rate = sw_replay_spec_rate(r->opt, k);
		sum += rate;
		fastest = rate > fastest ? rate : fastest;
	}
	return fmax(t1 / sum, longest / fastest);
}

/* A replay whose ranks run faster or slower than recorded. */
static int replay_scaled(const struct sw_rank_ctx *r)
{
	for (int k = 0; k < r->size; k++)
		if (sw_replay_spec_rate(r->opt, k) != 1.0)
			return 1;
	return 0;
}

static void print_estimate(const struct sw_rank_ctx *r, double wall_s, const char *how)
{
	double t1 = 0, longest = 0;
	char w[32], a[32], b[32];
	for (size_t i = 0; i < r->plan.n; i++) {
		t1 += r->cost_s[i];
		longest = r->cost_s[i] > longest ? r->cost_s[i] : longest;
	}
	say_s(w, sizeof w, wall_s);
	say_s(a, sizeof a, t1);
	say_s(b, sizeof b, longest);
	printf("total: %zu points, expected %s on one rank, the longest %s\n", r->plan.n, a, b);
	printf("estimated time: %s on %d rank%s (%s)\n", w, r->size, r->size == 1 ? "" : "s", how);
	print_sources(r);
	if (replay_scaled(r))
		printf("  (replayed: each rank's time over --replay-speed %g%s)\n",
		       r->opt->replay_speed,
		       r->opt->n_replay_devices ? " and its device's SPEED" : "");
	else if (!r->backend->measures) /* the cost model knows GPU runs only */
		printf("  (the time of a GPU run: the %s backend measures nothing)\n",
		       r->backend->name);
}

static void print_points(const struct sw_rank_ctx *r, const int *owner)
{
	printf("%-6s %-16s %-6s %s\n", "index", "id", "rank", "point");
	for (size_t i = 0; i < r->plan.n; i++) {
		char label[256], who[8] = "any";
		sw_point_label(&r->plan.points[i], label, sizeof label);
		if (owner)
			snprintf(who, sizeof who, "%d", owner[i]);
		printf("%-6zu %016" PRIx64 " %-6s %s\n", i, r->plan.points[i].id, who, label);
	}
}

/* The runs (pairs) the bound ranks make of the whole plan; 0 without
 * memory. */
static size_t runs_of_plan(const struct sw_rank_ctx *r)
{
	uint64_t *gpu = malloc(r->size * sizeof *gpu), *cls = malloc(r->size * sizeof *cls);
	size_t n = 0;
	if (gpu && cls) {
		sw_place_hashes(r->devices, r->size, gpu, cls);
		n = sw_place_count(&r->plan, &r->place, gpu, cls, NULL, 0);
	}
	free(gpu);
	free(cls);
	return n;
}

/* Placement and calibration: the runs the ranks make, bound as the run
 * binds them (dry_run in run.c binds under a placement). */
static void print_placement(const struct sw_rank_ctx *r)
{
	size_t cal = 0;
	for (size_t i = 0; i < r->plan.n; i++)
		cal += r->plan.points[i].calibration != 0;
	if (!sw_setup_placed(r))
		return;
	printf("placement %s", sw_placement_name(r->placement));
	if (r->devices)
		printf(" on %d device class%s: %zu runs of the %zu points", r->place.n_classes,
		       r->place.n_classes == 1 ? "" : "es", runs_of_plan(r), r->plan.n);
	printf("; %zu calibration point%s, run first on every GPU; the estimate below is for "
	       "each point once\n",
	       cal, cal == 1 ? "" : "s");
}

void sw_setup_print_plan(const struct sw_rank_ctx *r)
{
	const char *sched = r->opt->schedule == SW_SCHED_STATIC ? "static" : "dynamic";
	printf("job %s (%s): backend %s, %d rank%s, schedule %s\n", r->job.name, r->job.path,
	       r->backend->name, r->size, r->size == 1 ? "" : "s", sched);
	printf("plan: %zu points, fingerprint %016" PRIx64 "\n", r->plan.n, r->plan.fingerprint);
	print_placement(r);
	print_variants(r);
	int *owner = NULL;
	if (r->opt->schedule == SW_SCHED_STATIC) {
		owner = malloc((r->plan.n ? r->plan.n : 1) * sizeof *owner);
		if (owner &&
		    sw_sched_lpt_todo(r->cost_s, NULL, r->plan.n, r->size, owner) != SW_OK) {
			free(owner);
			owner = NULL;
		}
	}
	if (owner) {
		print_estimate(r, print_ranks(r, owner), "the static split's busiest rank");
	} else {
		printf("  points are handed out on request, longest expected first; rank 0 "
		       "measures too\n");
		print_estimate(r,
			       replay_scaled(r) ? replay_bound_s(r)
						: sw_sched_bound_s(r->cost_s, r->plan.n, r->size),
			       "the bound max(T1/N, longest point)");
	}
	sw_dry_print_classes(r);
	if (r->opt->points)
		print_points(r, owner);
	free(owner);
}
