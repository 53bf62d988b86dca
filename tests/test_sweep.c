/*
 * End to end through real mpirun launches of the sweep binary on the model
 * backend: the file holds exactly the planned points for 1 to 8 ranks and
 * both schedules; bad input writes nothing; a SWMR reader sees the rows of a
 * running sweep grow; kill -9 midway then --resume completes the file; a
 * dry run's summary, its estimate and where that comes from.
 * Paths come from ctest: SW_SWEEP, SW_MPIEXEC, SW_SOURCE_DIR.
 */
#define _GNU_SOURCE
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "launch.h"

#include "job/job.h"
#include "job/plan.h"

static char tmpdir[256];
static char ci_job[1024];

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The plan of the ci job on the model backend, with --set overrides. */
static void plan_of(const char *const *sets, struct sw_plan *plan)
{
	struct sw_job job;
	struct sw_err err = { 0 };
	ck_assert_msg(sw_job_load(ci_job, &job, &err) == SW_OK, "%s", err.msg);
	for (int i = 0; sets && sets[i]; i++)
		ck_assert_msg(sw_job_set(&job, sets[i], &err) == SW_OK, "%s", err.msg);
	ck_assert_int_eq(sw_plan_build(&job, 1, plan, &err), SW_OK);
	sw_job_fini(&job);
}

/* The file holds every planned point exactly once, and nothing else. */
static void assert_complete(const char *path, const struct sw_plan *plan)
{
	uint64_t *ids, *want = malloc(plan->n * sizeof *want);
	hssize_t rows = launch_rows(path, "/measurements", &ids);
	ck_assert_msg(rows >= 0, "cannot read %s", path);
	size_t n = (size_t)rows;
	ck_assert_uint_eq(n, plan->n);
	for (size_t i = 0; i < plan->n; i++)
		want[i] = plan->points[i].id;
	qsort(ids, n, sizeof *ids, cmp_u64);
	qsort(want, n, sizeof *want, cmp_u64);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(ids[i] == want[i], "row %zu: id %016lx, want %016lx", i,
			      (unsigned long)ids[i], (unsigned long)want[i]);
	free(ids);
	free(want);
}

START_TEST(test_four_ranks_file)
{
	char out[512], log[512];
	snprintf(out, sizeof out, "%s/four.h5", tmpdir);
	snprintf(log, sizeof log, "%s/four.log", tmpdir);
	const char *args[] = { "--backend", "model", ci_job, "-o", out, NULL };
	ck_assert_msg(launch_run(4, log, args) == 0, "%s", launch_slurp(log));
	ck_assert_int_eq(launch_rows(out, "/devices", NULL), 4);
	struct sw_plan plan;
	plan_of(NULL, &plan);
	assert_complete(out, &plan);
	sw_plan_fini(&plan);
}
END_TEST

START_TEST(test_ranks_and_schedules)
{
	static const int ranks[] = { 1, 2, 3, 5, 8 };
	static const char *const schedules[] = { "dynamic", "static" };
	struct sw_plan plan;
	plan_of(NULL, &plan);
	for (int s = 0; s < 2; s++)
		for (int r = 0; r < 5; r++) {
			char out[512], log[512];
			snprintf(out, sizeof out, "%s/np%d-%s.h5", tmpdir, ranks[r], schedules[s]);
			snprintf(log, sizeof log, "%s/np%d-%s.log", tmpdir, ranks[r], schedules[s]);
			const char *args[] = { "--backend",  "model",   "-q", "--schedule",
					       schedules[s], "--batch", "1",  ci_job,
					       "-o",         out,       NULL };
			ck_assert_msg(launch_run(ranks[r], log, args) == 0, "%d ranks %s: %s",
				      ranks[r], schedules[s], launch_slurp(log));
			assert_complete(out, &plan);
		}
	sw_plan_fini(&plan);
}
END_TEST

/* --family without a job file: the families' default plan, --set applied,
 * into <family>-<family>.h5 in the working directory, as a job's name gives. */
START_TEST(test_family_without_job)
{
	static const char *const names[] = { "offset_read", "transpose" };
	char dir[512], log[512], here[1024];
	struct sw_job job;
	struct sw_plan plan;
	struct sw_err err = { 0 };

	snprintf(dir, sizeof dir, "%s/family", tmpdir);
	snprintf(log, sizeof log, "%s/family.log", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_ptr_nonnull(getcwd(here, sizeof here));
	ck_assert_int_eq(chdir(dir), 0);
	const char *args[] = { "--backend",
			       "model",
			       "-q",
			       "--family",
			       names[0],
			       "--set",
			       "offset_read.offset=0,1",
			       "--family",
			       names[1],
			       NULL };
	int rc = launch_run(2, log, args);
	ck_assert_int_eq(chdir(here), 0);
	ck_assert_msg(rc == 0, "%s", launch_slurp(log));

	ck_assert_int_eq(sw_job_from_families(names, 2, &job, &err), SW_OK);
	ck_assert_int_eq(sw_job_set(&job, "offset_read.offset=0,1", &err), SW_OK);
	ck_assert_int_eq(sw_plan_build(&job, 1, &plan, &err), SW_OK);
	sw_job_fini(&job);
	char out[600];
	snprintf(out, sizeof out, "%s/offset_read-transpose.h5", dir);
	ck_assert_msg(exists(out), "no %s", out);
	assert_complete(out, &plan);
	sw_plan_fini(&plan);
}
END_TEST

START_TEST(test_bad_job_writes_nothing)
{
	char job[512], out[512], log[512];
	snprintf(job, sizeof job, "%s/bad.yaml", tmpdir);
	snprintf(out, sizeof out, "%s/bad.h5", tmpdir);
	snprintf(log, sizeof log, "%s/bad.log", tmpdir);
	FILE *f = fopen(job, "w");
	fputs("families:\n  strided_read:\n    axes:\n      stride: [1, 2\n", f);
	fclose(f);
	const char *args[] = { "--backend", "model", job, "-o", out, NULL };
	int rc = launch_run(2, log, args);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(launch_slurp(log), "bad.yaml:5:1:") ||
			      strstr(launch_slurp(log), "bad.yaml:4:"),
		      "no file:line:column in: %s", launch_slurp(log));
	ck_assert(!exists(out));

	/* a job error found only on --set: also nothing written */
	const char *args2[] = { "--backend", "model", "--set", "strided_read.stride=0",
				ci_job,      "-o",    out,     NULL };
	ck_assert_int_eq(launch_run(2, log, args2), 2);
	ck_assert_ptr_nonnull(strstr(launch_slurp(log), "out of range"));
	ck_assert(!exists(out));
}
END_TEST

START_TEST(test_never_overwrites)
{
	char out[512], log[512];
	snprintf(out, sizeof out, "%s/keep.h5", tmpdir);
	snprintf(log, sizeof log, "%s/keep.log", tmpdir);
	FILE *f = fopen(out, "w");
	fputs("precious", f);
	fclose(f);
	const char *args[] = { "--backend", "model", "-q", ci_job, "-o", out, NULL };
	ck_assert_int_ne(launch_run(1, log, args), 0);
	ck_assert_str_eq(launch_slurp(out), "precious");
	ck_assert_ptr_nonnull(strstr(launch_slurp(log), "--force"));
	const char *forced[] = { "--backend", "model", "-q", "--force", ci_job, "-o", out, NULL };
	ck_assert_int_eq(launch_run(1, log, forced), 0);
	struct sw_plan plan;
	plan_of(NULL, &plan);
	assert_complete(out, &plan);
	sw_plan_fini(&plan);
}
END_TEST

/* --backend auto without a GPU: the model for one rank at a terminal (and
 * says so); refused, nothing written, under mpirun -np 2 or in a Slurm job,
 * where an unattended run meant to measure. On a machine with GPUs auto
 * measures, and only the first case can be checked. */
START_TEST(test_auto_never_falls_back_unattended)
{
	char out[512], log[512];
	snprintf(out, sizeof out, "%s/auto.h5", tmpdir);
	snprintf(log, sizeof log, "%s/auto.log", tmpdir);
	const char *args[] = { ci_job, "-o", out, NULL };
	ck_assert_int_eq(launch_run(1, log, args), 0);
	if (!strstr(launch_slurp(log), "using the model backend")) {
		printf("test_auto_never_falls_back_unattended: a GPU here, auto measured; the "
		       "refusals need a machine without one\n");
		return;
	}
	struct {
		int np;
		const char *slurm_job_id, *why;
	} cases[] = { { 2, NULL, "mpirun with more than one rank" }, { 1, "4242", "Slurm" } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unlink(out);
		if (cases[i].slurm_job_id)
			setenv("SLURM_JOB_ID", cases[i].slurm_job_id, 1);
		int rc = launch_run(cases[i].np, log, args);
		unsetenv("SLURM_JOB_ID");
		const char *text = launch_slurp(log);
		ck_assert_msg(rc == 5, "auto, %s: exit %d, not 5:\n%s", cases[i].why, rc, text);
		ck_assert_msg(strstr(text, "does not fall back") && strstr(text, cases[i].why) &&
				      strstr(text, "--backend model"),
			      "auto, %s: no refusal naming it and --backend model:\n%s",
			      cases[i].why, text);
		ck_assert_msg(!exists(out), "auto, %s: refused, yet %s was written", cases[i].why,
			      out);
	}
}
END_TEST

/* Lines of text that start with a point's index and 16-digit id. */
static int listed_points(const char *text)
{
	int n = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned long idx;
		char id[17];
		int len = 0;
		if (sscanf(l, "%lu %16[0-9a-f]%n", &idx, id, &len) == 2 && strlen(id) == 16)
			n++;
	}
	return n;
}

/* "8.41 s", "12:03" or "1:02:03" as the summary writes them, in seconds;
 * -1 when none follows prefix in text. */
static double summary_s(const char *text, const char *prefix)
{
	const char *at = strstr(text, prefix);
	unsigned h = 0, m = 0, sec = 0;
	double s;
	if (!at)
		return -1;
	at += strlen(prefix);
	if (sscanf(at, "%u:%u:%u", &h, &m, &sec) == 3)
		return 3600.0 * h + 60.0 * m + sec;
	if (sscanf(at, "%u:%u", &m, &sec) == 2)
		return 60.0 * m + sec;
	if (sscanf(at, "%lf s", &s) == 1)
		return s;
	return -1;
}

/* The default dry run is a summary: points per variant and per rank, the
 * estimate and its source, no point listed; --points lists them all. */
START_TEST(test_dry_run)
{
	char out[512], log[512];
	snprintf(out, sizeof out, "%s/dry.h5", tmpdir);
	snprintf(log, sizeof log, "%s/dry.log", tmpdir);
	const char *args[] = { "--backend", "model", "--dry-run", "--schedule", "static",
			       ci_job,      "-o",    out,         NULL };
	ck_assert_int_eq(launch_run(3, log, args), 0);
	ck_assert(!exists(out));
	const char *text = launch_slurp(log);
	ck_assert_ptr_nonnull(strstr(text, "plan: 144 points"));
	ck_assert_ptr_nonnull(strstr(text, "  strided_read   course             64 points"));
	ck_assert_ptr_nonnull(strstr(text, "  strided_read   memcpy              8 points"));
	/* the split follows the committed rates (LPT): each rank a share, all 144 */
	int total = 0;
	for (int k = 0; k < 3; k++) {
		char line[32];
		const char *at;
		int n = 0;
		snprintf(line, sizeof line, "rank %d runs ", k);
		ck_assert_ptr_nonnull(at = strstr(text, line));
		ck_assert_int_eq(sscanf(at + strlen(line), "%d points, expected ", &n), 1);
		ck_assert_int_gt(n, 0);
		total += n;
	}
	ck_assert_int_eq(total, 144);
	ck_assert_ptr_nonnull(strstr(text, "total: 144 points, expected "));
	ck_assert_ptr_nonnull(strstr(text, "estimated time: "));
	ck_assert_ptr_nonnull(strstr(text, " on 3 ranks (the static split's busiest rank)"));
	/* the default cost model: the committed H200 results' rates */
	ck_assert_ptr_nonnull(strstr(text, "expected times: learned rates\n"));
	ck_assert_ptr_nonnull(strstr(text, "the model backend measures nothing"));
	ck_assert_int_eq(listed_points(text), 0);
	ck_assert_ptr_null(strstr(text, "index  id"));

	const char *points[] = { "--backend", "model", "--dry-run", "--points", ci_job, NULL };
	ck_assert_int_eq(launch_run(1, log, points), 0);
	text = launch_slurp(log);
	ck_assert_ptr_nonnull(strstr(text, "plan: 144 points"));
	ck_assert_ptr_nonnull(strstr(text, "\nindex  id               rank   point\n"));
	ck_assert_int_eq(listed_points(text), 144);
	ck_assert_ptr_nonnull(strstr(text, " any    strided_read/course stride=1 n=1M cc=6.0\n"));
}
END_TEST

/* With --costs, the estimate says so; on N ranks it is the bound
 * max(T1/N, longest), here T1/2 within the summary's rounding. Points the
 * file lacks are costed by bytes and flops, and the counts say so. */
START_TEST(test_dry_run_costs)
{
	char job[1024], costs[1024], log[512];
	const char *src = launch_env("SW_SOURCE_DIR");
	snprintf(job, sizeof job, "%s/jobs/full.yaml", src);
	snprintf(costs, sizeof costs, "%s/tests/data/replay/h200-full-durations.csv", src);
	snprintf(log, sizeof log, "%s/dry-costs.log", tmpdir);
	const char *args[] = { "--backend", "cuda", "-n", "--costs", costs, job, NULL };
	ck_assert_int_eq(launch_run(2, log, args), 0);
	const char *text = launch_slurp(log);
	ck_assert_msg(strstr(text, "expected times: from --costs\n"), "%s", text);
	ck_assert_ptr_nonnull(strstr(text, " on 2 ranks (the bound max(T1/N, longest point))"));
	ck_assert_ptr_nonnull(strstr(text, "total: "));
	double total = summary_s(strstr(text, "total: "), "points, expected ");
	double t2 = summary_s(text, "estimated time: ");
	ck_assert_msg(total > 60 && t2 > 0, "%s", text);
	ck_assert_msg(t2 >= total / 2 - 1 && t2 <= total / 2 + 1, "T1 %g s, on 2 ranks %g s", total,
		      t2);
	ck_assert_int_eq(listed_points(text), 0);

	/* strided_read at a length the H200 run lacks */
	const char *mixed[] = { "--backend",         "cuda", "-n", "--costs", costs, "--set",
				"strided_read.n=3M", job,    NULL };
	ck_assert_int_eq(launch_run(1, log, mixed), 0);
	text = launch_slurp(log);
	ck_assert_msg(strstr(text, "expected times: from --costs (") &&
			      strstr(text, " points), bytes and flops ("),
		      "%s", text);
}
END_TEST

/* Rows of an open dataset after a refresh, as a SWMR reader sees them. */
static hsize_t refreshed_rows(hid_t d)
{
	hsize_t rows = 0;
	ck_assert(H5Drefresh(d) >= 0);
	hid_t s = H5Dget_space(d);
	H5Sget_simple_extent_dims(s, &rows, NULL);
	H5Sclose(s);
	return rows;
}

/* A SWMR reader (the C API; h5py's swmr=True is the same) opens the file of
 * a running sweep and sees its rows grow between two refreshes of one open
 * dataset; the sweep finishes with the reader still there, and leaves a
 * file that plain h5dump reads. */
START_TEST(test_live_read)
{
	/* 23736 rows, about 4 s on 2 ranks of a 2-core machine, flushed every
	 * 1024 rows (or 2 s) */
	static const char *const sets[] = { "strided_read.stride=1:128", "strided_read.n=1K:4G:x2",
					    NULL };
	char out[512], log[512];
	snprintf(out, sizeof out, "%s/live.h5", tmpdir);
	snprintf(log, sizeof log, "%s/live.log", tmpdir);
	const char *args[] = { "--backend", "model", "-q", "--set", sets[0], "--set",
			       sets[1],     ci_job,  "-o", out,     NULL };
	pid_t pid = launch_start(2, log, args);
	/* the file takes its name once it is complete and in SWMR mode */
	ck_assert_msg(launch_wait_for_rows(out, 0, pid) >= 0, "no file: %s", launch_slurp(log));
	hid_t f = H5Fopen(out, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT);
	ck_assert_msg(f >= 0, "a SWMR reader cannot open the file of a running sweep");
	hid_t d = H5Dopen2(f, "/measurements", H5P_DEFAULT);
	ck_assert(d >= 0);
	hsize_t first = refreshed_rows(d), later = first;
	int status;
	for (int i = 0; i < 1200 && later == first && waitpid(pid, &status, WNOHANG) == 0; i++) {
		usleep(50000);
		later = refreshed_rows(d);
	}
	ck_assert_msg(later > first, "the rows did not grow while the sweep ran (%llu)",
		      (unsigned long long)first);
	ck_assert_msg(launch_finish(pid) == 0, "%s", launch_slurp(log));
	struct sw_plan plan;
	plan_of((const char *const *)sets, &plan);
	ck_assert_uint_eq(refreshed_rows(d), plan.n);
	H5Dclose(d);
	H5Fclose(f);
	assert_complete(out, &plan);
	sw_plan_fini(&plan);
	if (system("command -v h5dump >/dev/null 2>&1") == 0) {
		char cmd[1200];
		snprintf(cmd, sizeof cmd, "h5dump -H '%s' >/dev/null", out);
		ck_assert_msg(system(cmd) == 0, "h5dump cannot read the finished file");
	}
}
END_TEST

/* kill -9 of the whole 4-rank run once half its rows are in, then --resume. */
START_TEST(test_kill_and_resume)
{
	static const char *const sets[] = { "strided_read.stride=1:128", "strided_read.n=1M:64M:x2",
					    NULL };
	char out[512], log[512];
	snprintf(out, sizeof out, "%s/killed.h5", tmpdir);
	snprintf(log, sizeof log, "%s/killed.log", tmpdir);
	const char *args[] = { "--backend", "model", "-q", "--set", sets[0], "--set",
			       sets[1],     ci_job,  "-o", out,     NULL };
	struct sw_plan plan;
	plan_of((const char *const *)sets, &plan);

	/* "Midway" by the rows a reader sees, not by time or the file's size:
	 * a busy machine runs the same job at very different speeds, and a
	 * flush's chunks reach the file before the metadata that makes them
	 * rows. */
	pid_t pid = launch_start(4, log, args);
	hssize_t seen = launch_wait_for_rows(out, (hssize_t)plan.n / 2, pid);
	ck_assert_msg(seen >= 0, "the run ended before the kill: %s", launch_slurp(log));
	launch_kill_all(pid);

	/* readable after kill -9, by a SWMR reader: the killed writer's
	 * consistency flags stay set, and a plain open fails on them */
	hssize_t partial = launch_rows_swmr(out, "/measurements", NULL);
	ck_assert_msg(partial >= 0, "%s unreadable after kill -9", out);
	ck_assert_msg((size_t)partial < plan.n,
		      "the run finished before the kill: nothing to resume");
	ck_assert_msg(partial >= seen, "%lld rows after the kill, %lld seen before it",
		      (long long)partial, (long long)seen);
	ck_assert(launch_flags_set(out));

	const char *resume[] = { "--backend", "model", "-q",   "--resume", "--set", sets[0],
				 "--set",     sets[1], ci_job, "-o",       out,     NULL };
	ck_assert_msg(launch_run(4, log, resume) == 0, "%s", launch_slurp(log));
	assert_complete(out, &plan);
	ck_assert_int_eq(launch_rows(out, "/devices", NULL), 8); /* two sessions of 4 ranks */

	/* a resume of a finished file runs nothing and changes nothing */
	ck_assert_int_eq(launch_run(2, log, resume), 0);
	assert_complete(out, &plan);

	/* --resume with another job is refused */
	const char *foreign[] = { "--backend", "model", "-q", "--resume", ci_job, "-o", out, NULL };
	ck_assert_int_ne(launch_run(2, log, foreign), 0);
	ck_assert_ptr_nonnull(strstr(launch_slurp(log), "different job"));
	assert_complete(out, &plan);
	sw_plan_fini(&plan);
}
END_TEST

int main(void)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	snprintf(ci_job, sizeof ci_job, "%s/jobs/ci.yaml", launch_env("SW_SOURCE_DIR"));
	if (launch_make_tmpdir(tmpdir, sizeof tmpdir, "sweep") != 0)
		return EXIT_FAILURE;

	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("mpirun");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_four_ranks_file);
	tcase_add_test(tc, test_ranks_and_schedules);
	tcase_add_test(tc, test_bad_job_writes_nothing);
	tcase_add_test(tc, test_family_without_job);
	tcase_add_test(tc, test_never_overwrites);
	tcase_add_test(tc, test_auto_never_falls_back_unattended);
	tcase_add_test(tc, test_dry_run);
	tcase_add_test(tc, test_dry_run_costs);
	tcase_add_test(tc, test_live_read);
	tcase_add_test(tc, test_kill_and_resume);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
