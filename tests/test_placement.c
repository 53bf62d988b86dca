/*
 * Placement and calibration end to end, through real mpirun launches on the
 * model backend: every_gpu puts each point on every rank once; per_class on
 * one class gives once's rows; calibration points run once on every rank
 * and the rest once, a point in both once per GPU; kill -9 midway then
 * --resume gives exactly the pairs of an uninterrupted run; a resume with
 * another placement is refused naming both.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "launch.h"

#include "job/job.h"
#include "job/plan.h"

static char tmpdir[256];
static char ci_job[1024];

/* One int column of /measurements (n rows), or NULL. */
static int32_t *int_column(const char *path, const char *name, hssize_t n)
{
	int32_t *v = malloc((n ? n : 1) * sizeof *v);
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t d = H5Dopen2(f, "measurements", H5P_DEFAULT);
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof *v);
	H5Tinsert(t, name, 0, H5T_NATIVE_INT32);
	ck_assert_msg(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "%s: no %s", path,
		      name);
	H5Tclose(t);
	H5Dclose(d);
	H5Fclose(f);
	return v;
}

static void plan_of(const char *job_path, const char *const *sets, struct sw_plan *plan)
{
	struct sw_job job;
	struct sw_err err = { 0 };
	ck_assert_msg(sw_job_load(job_path, &job, &err) == SW_OK, "%s", err.msg);
	for (int i = 0; sets && sets[i]; i++)
		ck_assert_msg(sw_job_set(&job, sets[i], &err) == SW_OK, "%s", err.msg);
	ck_assert_int_eq(sw_plan_build(&job, 1, plan, &err), SW_OK);
	sw_job_fini(&job);
}

/* The file holds, for each plan point, exactly one row on each rank of
 * `ranks` when the point is a calibration point or every is set, else
 * exactly one row in all. */
static void assert_pairs(const char *path, const struct sw_plan *plan, int ranks, int every)
{
	uint64_t *ids;
	hssize_t rows = launch_rows(path, "/measurements", &ids);
	ck_assert_msg(rows >= 0, "cannot read %s", path);
	int32_t *rank = int_column(path, "rank", rows);
	int32_t *cal = int_column(path, "calibration", rows);
	size_t want = 0;
	for (size_t i = 0; i < plan->n; i++) {
		int on_each = every || plan->points[i].calibration;
		int count[64] = { 0 }, total = 0;
		want += on_each ? (size_t)ranks : 1;
		for (hssize_t j = 0; j < rows; j++)
			if (ids[j] == plan->points[i].id) {
				ck_assert_int_eq(cal[j], plan->points[i].calibration);
				count[rank[j]]++;
				total++;
			}
		for (int k = 0; on_each && k < ranks; k++)
			ck_assert_msg(count[k] == 1, "%s: point %zu has %d rows on rank %d", path,
				      i, count[k], k);
		ck_assert_msg(on_each || total == 1, "%s: point %zu has %d rows", path, i, total);
	}
	ck_assert_uint_eq((size_t)rows, want);
	free(ids);
	free(rank);
	free(cal);
}

START_TEST(test_every_gpu)
{
	char out[512], log[512];
	struct sw_plan plan;
	snprintf(out, sizeof out, "%s/every.h5", tmpdir);
	snprintf(log, sizeof log, "%s/every.log", tmpdir);
	const char *args[] = { "--backend", "model", "-q", "--placement", "every_gpu",
			       ci_job,      "-o",    out,  NULL };
	ck_assert_msg(launch_run(3, log, args) == 0, "%s", launch_slurp(log));
	plan_of(ci_job, NULL, &plan);
	assert_pairs(out, &plan, 3, 1);
	/* and under the static schedule */
	snprintf(out, sizeof out, "%s/every-static.h5", tmpdir);
	const char *st[] = { "--backend", "model", "-q", "--placement", "every_gpu", "--schedule",
			     "static",    ci_job,  "-o", out,           NULL };
	ck_assert_msg(launch_run(3, log, st) == 0, "%s", launch_slurp(log));
	assert_pairs(out, &plan, 3, 1);
	sw_plan_fini(&plan);
}
END_TEST

START_TEST(test_per_class_one_class_is_once)
{
	char once[512], pc[512], log[512];
	struct sw_plan plan;
	snprintf(once, sizeof once, "%s/once.h5", tmpdir);
	snprintf(pc, sizeof pc, "%s/pc.h5", tmpdir);
	snprintf(log, sizeof log, "%s/pc.log", tmpdir);
	const char *a[] = { "--backend", "model", "-q", ci_job, "-o", once, NULL };
	const char *b[] = { "--backend", "model", "-q", "--placement", "per_class",
			    ci_job,      "-o",    pc,   NULL };
	ck_assert_msg(launch_run(3, log, a) == 0, "%s", launch_slurp(log));
	ck_assert_msg(launch_run(3, log, b) == 0, "%s", launch_slurp(log));
	plan_of(ci_job, NULL, &plan);
	assert_pairs(once, &plan, 3, 0);
	assert_pairs(pc, &plan, 3, 0);
	sw_plan_fini(&plan);
}
END_TEST

/* ci's families and two calibration points, one of them also a family point. */
static void write_cal_job(char *path, size_t len)
{
	snprintf(path, len, "%s/cal.yaml", tmpdir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("name: cal\nmodel:\n  ccs: [8.0, 9.0]\n"
	      "calibrate:\n  strided_read:\n    variants: [course]\n"
	      "    axes:\n      stride: '1,3'\n      n: 1M\n"
	      "families:\n  strided_read:\n    axes:\n      stride: 1:128:x2\n      n: [1M, 4M]\n",
	      f);
	fclose(f);
}

START_TEST(test_calibrate)
{
	char job[512], out[512], log[512];
	struct sw_plan plan;
	write_cal_job(job, sizeof job);
	plan_of(job, NULL, &plan);
	size_t cal = 0;
	for (size_t i = 0; i < plan.n; i++)
		cal += plan.points[i].calibration;
	ck_assert_uint_eq(cal, 2 * 2); /* two points, two model targets; stride 1 in both */
	snprintf(out, sizeof out, "%s/cal.h5", tmpdir);
	snprintf(log, sizeof log, "%s/cal.log", tmpdir);
	const char *args[] = { "--backend", "model", "-q", job, "-o", out, NULL };
	ck_assert_msg(launch_run(3, log, args) == 0, "%s", launch_slurp(log));
	assert_pairs(out, &plan, 3, 0);
	sw_plan_fini(&plan);
}
END_TEST

/* kill -9 of an every_gpu run of 3 ranks once half its rows are in, then
 * --resume: exactly the pairs of an uninterrupted run; then a resume with
 * another placement is refused, naming both. */
START_TEST(test_kill_and_resume)
{
	static const char *const sets[] = { "strided_read.stride=1:128", "strided_read.n=1M:64M:x2",
					    NULL };
	char job[512], out[512], log[512];
	struct sw_plan plan;
	write_cal_job(job, sizeof job);
	snprintf(out, sizeof out, "%s/killed.h5", tmpdir);
	snprintf(log, sizeof log, "%s/killed.log", tmpdir);
	const char *args[] = { "--backend", "model", "-q",    "--placement", "every_gpu",
			       "--set",     sets[0], "--set", sets[1],       job,
			       "-o",        out,     NULL };
	plan_of(job, (const char *const *)sets, &plan);
	pid_t pid = launch_start(3, log, args);
	hssize_t seen = launch_wait_for_rows(out, (hssize_t)plan.n * 3 / 2, pid);
	ck_assert_msg(seen >= 0, "the run ended before the kill: %s", launch_slurp(log));
	launch_kill_all(pid);
	hssize_t partial = launch_rows_swmr(out, "/measurements", NULL);
	ck_assert_msg(partial >= seen && (size_t)partial < plan.n * 3,
		      "%lld rows after the kill (%lld seen): nothing to resume", (long long)partial,
		      (long long)seen);

	const char *resume[] = { "--backend", "model", "-q",    "--placement", "every_gpu",
				 "--resume",  "--set", sets[0], "--set",       sets[1],
				 job,         "-o",    out,     NULL };
	ck_assert_msg(launch_run(3, log, resume) == 0, "%s", launch_slurp(log));
	assert_pairs(out, &plan, 3, 1);

	const char *other[] = { "--backend", "model", "-q",    "--placement", "per_class",
				"--resume",  "--set", sets[0], "--set",       sets[1],
				job,         "-o",    out,     NULL };
	ck_assert_int_ne(launch_run(3, log, other), 0);
	const char *said = launch_slurp(log);
	ck_assert_msg(strstr(said, "placement every_gpu") && strstr(said, "placement per_class"),
		      "%s", said);
	assert_pairs(out, &plan, 3, 1);
	sw_plan_fini(&plan);
}
END_TEST

int main(void)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	snprintf(ci_job, sizeof ci_job, "%s/jobs/ci.yaml", launch_env("SW_SOURCE_DIR"));
	snprintf(tmpdir, sizeof tmpdir, "%s/sweep-place-XXXXXX", P_tmpdir);
	if (!mkdtemp(tmpdir))
		return EXIT_FAILURE;

	Suite *s = suite_create("placement");
	TCase *tc = tcase_create("mpirun");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_every_gpu);
	tcase_add_test(tc, test_per_class_one_class_is_once);
	tcase_add_test(tc, test_calibrate);
	tcase_add_test(tc, test_kill_and_resume);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
