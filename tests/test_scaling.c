/*
 * The schedule at scale, by replay (the replay backend, a test instrument):
 * real mpirun runs at 2, 4, 8 and 16 ranks sleep each point's recorded wall
 * time from tests/data/replay/h200-full-durations.csv (jobs/full.yaml on one
 * H200) at --replay-speed 10, and a generated job of 103,200 points of 1 ms
 * each runs at 16 ranks. Each run's efficiency T1 / (N x TN), with TN from
 * the output file's first start_unix to its last end_unix (MPI start-up left
 * out), is compared with the bound T1 / (N x max(T1/N, longest point)): at
 * least 0.9 of it with --costs naming the replayed durations, 0.8 without,
 * and 0.8 outright for the short points, where rank 0 could be the limit.
 * Ratios with these margins hold on a loaded 2-core machine; the figures
 * themselves belong to scripts/replay-scaling.py and docs/results/scaling.md.
 */
#define _GNU_SOURCE
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "core/durations.h"
#include "job/job.h"
#include "launch.h"
#include "job/plan.h"

static char tmpdir[256], full_job[1024], fixture[1024];

struct replay_result {
	double t1_s, tn_s, longest_s, efficiency, bound;
	size_t replayed;
};

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct sw_duration *)a)->point_id;
	uint64_t y = ((const struct sw_duration *)b)->point_id;
	return x < y ? -1 : x > y;
}

/* One column of /measurements, n rows, into a new array. */
static void *column(hid_t d, const char *name, hid_t type, size_t size, hsize_t n)
{
	void *buf = malloc(n * size + 1);
	hid_t mt = H5Tcreate(H5T_COMPOUND, size);
	H5Tinsert(mt, name, 0, type);
	ck_assert_msg(buf && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0,
		      "cannot read column %s", name);
	H5Tclose(mt);
	return buf;
}

/* T1, TN and the bound of a finished replay run, from its file. */
static struct replay_result measure(const char *out, const struct sw_durations *d, double speed,
				    int np)
{
	struct replay_result r = { 0 };
	hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert_msg(f >= 0, "cannot open %s", out);
	hid_t ds = H5Dopen2(f, "/measurements", H5P_DEFAULT);
	hid_t space = H5Dget_space(ds);
	hsize_t n = 0;
	H5Sget_simple_extent_dims(space, &n, NULL);
	uint64_t *id = column(ds, "point_id", H5T_NATIVE_UINT64, 8, n);
	int32_t *status = column(ds, "status", H5T_NATIVE_INT32, 4, n);
	double *start = column(ds, "start_unix", H5T_NATIVE_DOUBLE, 8, n);
	double *end = column(ds, "end_unix", H5T_NATIVE_DOUBLE, 8, n);
	double first = INFINITY, last = -INFINITY;
	for (hsize_t i = 0; i < n; i++) {
		first = start[i] < first ? start[i] : first;
		last = end[i] > last ? end[i] : last;
		struct sw_duration key = { .point_id = id[i] };
		const struct sw_duration *hit = bsearch(&key, d->rows, d->n, sizeof key, cmp_id);
		if (status[i] != 0 || !hit)
			continue;
		r.t1_s += hit->wall_s / speed;
		r.longest_s = fmax(r.longest_s, hit->wall_s / speed);
		r.replayed++;
	}
	r.tn_s = last - first;
	r.efficiency = r.t1_s / (np * r.tn_s);
	r.bound = r.t1_s / (np * fmax(r.t1_s / np, r.longest_s));
	free(id);
	free(status);
	free(start);
	free(end);
	H5Sclose(space);
	H5Dclose(ds);
	H5Fclose(f);
	return r;
}

static struct replay_result replay(int np, const char *job, const char *durations, int with_costs,
				   double speed, const struct sw_durations *d)
{
	char out[512], log[512], backend[1100], speed_s[32];
	snprintf(out, sizeof out, "%s/replay-np%d-%s%s.h5", tmpdir, np, with_costs ? "c" : "n",
		 strrchr(job, '/') + 1);
	snprintf(log, sizeof log, "%s.log", out);
	snprintf(backend, sizeof backend, "replay=%s", durations);
	snprintf(speed_s, sizeof speed_s, "%g", speed);
	const char *args[] = { "-q",
			       "--backend",
			       backend,
			       "--replay-speed",
			       speed_s,
			       "-o",
			       out,
			       job,
			       with_costs ? "--costs" : NULL,
			       durations,
			       NULL };
	int code = launch_run(np, log, args);
	ck_assert_msg(code == 0, "replay on %d ranks exited %d:\n%s", np, code, launch_slurp(log));
	return measure(out, d, speed, np);
}

static void load_sorted(const char *path, struct sw_durations *d)
{
	struct sw_err err = { 0 };
	ck_assert_msg(sw_durations_read_csv(path, d, &err) == SW_OK, "%s", err.msg);
	qsort(d->rows, d->n, sizeof *d->rows, cmp_id);
}

START_TEST(test_full_job_scales)
{
	static const int nps[] = { 2, 4, 8, 16 };
	struct sw_durations d;
	load_sorted(fixture, &d);
	for (int with_costs = 1; with_costs >= 0; with_costs--)
		for (size_t k = 0; k < sizeof nps / sizeof nps[0]; k++) {
			struct replay_result r =
				replay(nps[k], full_job, fixture, with_costs, 10, &d);
			double need = with_costs ? 0.9 : 0.8;
			fprintf(stderr,
				"full job, %2d ranks, %s --costs: T1 %.2f s, TN %.2f s, "
				"efficiency %.3f, bound %.3f, ratio %.3f\n",
				nps[k], with_costs ? "with" : "without", r.t1_s, r.tn_s,
				r.efficiency, r.bound, r.efficiency / r.bound);
			ck_assert_uint_gt(r.replayed, 3000);
			ck_assert_msg(r.efficiency >= need * r.bound,
				      "%d ranks %s --costs: efficiency %.3f under %.1f of the "
				      "bound %.3f",
				      nps[k], with_costs ? "with" : "without", r.efficiency, need,
				      r.bound);
		}
	free(d.rows);
}
END_TEST

/* A job of 103,200 points and a durations table of 1 ms for each. */
static void make_short_job(char *job, size_t len, char *csv, size_t csv_len)
{
	snprintf(job, len, "%s/short.yaml", tmpdir);
	snprintf(csv, csv_len, "%s/short.csv", tmpdir);
	FILE *f = fopen(job, "w");
	ck_assert_ptr_nonnull(f);
	fputs("name: short\nfamilies:\n  strided_read:\n    axes:\n      stride: 1:128\n"
	      "      n: 1024:409600:1024\n",
	      f);
	fclose(f);
	struct sw_job j;
	struct sw_plan p;
	struct sw_err err = { 0 };
	ck_assert_msg(sw_job_load(job, &j, &err) == SW_OK, "%s", err.msg);
	ck_assert_msg(sw_plan_build(&j, 0, &p, &err) == SW_OK, "%s", err.msg);
	ck_assert_uint_ge(p.n, 100000);
	f = fopen(csv, "w");
	ck_assert_ptr_nonnull(f);
	fputs("point_id_hex,family,variant,seconds\n", f);
	for (size_t i = 0; i < p.n; i++) {
		const struct sw_family *fam = sw_family_at(p.points[i].family);
		fprintf(f, "%016" PRIx64 ",%s,%s,0.001\n", p.points[i].id, fam->name,
			fam->variants[p.points[i].p.variant].name);
	}
	fclose(f);
	sw_plan_fini(&p);
	sw_job_fini(&j);
}

START_TEST(test_short_points_scale)
{
	char job[512], csv[512];
	struct sw_durations d;
	make_short_job(job, sizeof job, csv, sizeof csv);
	load_sorted(csv, &d);
	struct replay_result r = replay(16, job, csv, 1, 1, &d);
	fprintf(stderr,
		"short points, 16 ranks: %zu replayed, T1 %.2f s, TN %.2f s, efficiency %.3f\n",
		r.replayed, r.t1_s, r.tn_s, r.efficiency);
	ck_assert_uint_ge(r.replayed, 100000);
	ck_assert_msg(r.efficiency >= 0.8, "16 ranks of 1 ms points: efficiency %.3f under 0.8",
		      r.efficiency);
	free(d.rows);
}
END_TEST

int main(void)
{
	const char *src = launch_env("SW_SOURCE_DIR");
	snprintf(full_job, sizeof full_job, "%s/jobs/full.yaml", src);
	snprintf(fixture, sizeof fixture, "%s/tests/data/replay/h200-full-durations.csv", src);
	if (launch_make_tmpdir(tmpdir, sizeof tmpdir, "scaling") != 0)
		return 1;
	Suite *s = suite_create("scaling");
	TCase *tc = tcase_create("replay");
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_full_job_scales);
	tcase_add_test(tc, test_short_points_scale);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
