/*
 * Placement and calibration end to end, through real mpirun launches on the
 * model backend: every_gpu puts each point on every rank once; per_class on
 * one class gives once's rows; calibration points run once on every rank
 * and the rest once, a point in both once per GPU; kill -9 midway then
 * --resume gives exactly the pairs of an uninterrupted run; a resume with
 * another placement is refused naming both; --dry-run --resume counts the
 * runs (pairs) a resume would make.
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

/* Runs sweep on np ranks; its exit code must be 0 and its stderr hold
 * says (the line a dry run prints). */
static void run_says(int np, const char *const *args, const char *says)
{
	char log[512];
	snprintf(log, sizeof log, "%s/says.log", tmpdir);
	int rc = launch_run(np, log, args);
	const char *text = launch_slurp(log);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, text);
	ck_assert_msg(strstr(text, says), "stderr lacks \"%s\": %s", says, text);
}

/* H4R09 (issue 30, cause 5): --dry-run --resume of a per_class file that
 * lacks one class's rows counts the runs the resume makes, not points (was:
 * "36 of 36 points are in it", and the resume then ran 36 runs). */
START_TEST(test_dry_resume_counts_class_runs)
{
	char good[512], pc[512], replay[600];
	snprintf(good, sizeof good, "%s/dry-good.h5", tmpdir);
	snprintf(pc, sizeof pc, "%s/dry-pc.h5", tmpdir);
	snprintf(replay, sizeof replay, "replay=%s", good);
	const char *make[] = { "--backend", "model", "-q", ci_job, "-o", good, NULL };
	run_says(1, make, "");
	/* H4R11: a dry run of a new file says the runs too (was: "the classes
	 * are known only once ranks bind") */
	const char *dry_new[] = { "--backend",
				  replay,
				  "--replay-speed",
				  "1e6",
				  "--dry-run",
				  "--placement",
				  "per_class",
				  "--replay-devices",
				  "A:1,B:1",
				  ci_job,
				  "-o",
				  pc,
				  NULL };
	run_says(2, dry_new, "placement per_class on 2 device classes: 72 runs of the 36 points");
	const char *one[] = { "--backend", replay,        "--replay-speed",
			      "1e6",       "-q",          "--replay-devices",
			      "A:1",       "--placement", "per_class",
			      ci_job,      "-o",          pc,
			      NULL };
	run_says(1, one, "");
	const char *dry[] = { "--backend",
			      replay,
			      "--replay-speed",
			      "1e6",
			      "--dry-run",
			      "--resume",
			      "--replay-devices",
			      "A:1,B:1",
			      "--placement",
			      "per_class",
			      ci_job,
			      "-o",
			      pc,
			      NULL };
	run_says(2, dry,
		 "passes every check; 36 of 36 points are in it; 36 of the 72 runs of this run "
		 "(placement per_class, 2 device classes) are in it, 36 to make");
	const char *resume[] = { "--backend", replay,        "--replay-speed",
				 "1e6",       "--resume",    "--replay-devices",
				 "A:1,B:1",   "--placement", "per_class",
				 ci_job,      "-o",          pc,
				 NULL };
	run_says(2, resume, "sweep: resuming: 36 runs still to make");
	run_says(2, dry,
		 "72 of the 72 runs of this run (placement per_class, 2 device classes) "
		 "are in it, 0 to make");
}
END_TEST

/* H4R10: the same under every_gpu: a file of 2 ranks, a dry run and a
 * resume on 3, whose third GPU owes every point. */
START_TEST(test_dry_resume_counts_gpu_runs)
{
	char out[512];
	snprintf(out, sizeof out, "%s/dry-every.h5", tmpdir);
	const char *make[] = { "--backend", "model", "-q", "--placement", "every_gpu",
			       ci_job,      "-o",    out,  NULL };
	run_says(2, make, "");
	const char *dry[] = { "--backend", "model", "--dry-run", "--resume", "--placement",
			      "every_gpu", ci_job,  "-o",        out,        NULL };
	run_says(3, dry,
		 "passes every check; 144 of 144 points are in it; 288 of the 432 runs of this "
		 "run (placement every_gpu, 1 device class) are in it, 144 to make");
	const char *resume[] = { "--backend", "model", "--resume", "--placement", "every_gpu",
				 ci_job,      "-o",    out,        NULL };
	run_says(3, resume, "sweep: resuming: 144 runs still to make");
}
END_TEST

int main(void)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	snprintf(ci_job, sizeof ci_job, "%s/jobs/ci.yaml", launch_env("SW_SOURCE_DIR"));
	if (launch_make_tmpdir(tmpdir, sizeof tmpdir, "placement") != 0)
		return EXIT_FAILURE;

	Suite *s = suite_create("placement");
	TCase *tc = tcase_create("mpirun");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_every_gpu);
	tcase_add_test(tc, test_per_class_one_class_is_once);
	tcase_add_test(tc, test_calibrate);
	tcase_add_test(tc, test_kill_and_resume);
	tcase_add_test(tc, test_dry_resume_counts_class_runs);
	tcase_add_test(tc, test_dry_resume_counts_gpu_runs);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
