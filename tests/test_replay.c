/*
 * The replay backend stops as any run does (issue 23, cause 8;
 * docs/bad-inputs.md, RB10 to RB12): a point that sleeps ten hours, a
 * SIGTERM or SIGINT once its rank sleeps in it, and the run ends promptly
 * with exit 4, "interrupted", and a file --resume completes. The state
 * waited for is a row a SWMR reader sees (the short point run before the
 * long one), never a time; the only bound is the limit of a stop, far
 * below the ten hours an unstoppable sleep would take.
 */
#define _GNU_SOURCE
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"

/* A stop waits for no point to end; a loaded 2-core machine still needs
 * seconds to close the file and finalize MPI. */
#define STOP_LIMIT_S 120.0

/* The job's two points (ids are names, the same on every machine). */
#define SHORT_ID "2920c514fd317566" /* strided_read/course stride=1 n=1M */
#define LONG_ID  "26161889626cc763" /* strided_read/course stride=2 n=1M */

static char tmpdir[256];

/* In a new directory of tmpdir: the job, the recording whose second point
 * sleeps ten hours and costs that run the short point first. */
static void make_case(const char *name, char *dir, size_t len)
{
	snprintf(dir, len, "%s/%s", tmpdir, name);
	ck_assert(mkdir(dir, 0755) == 0);
	ck_assert(chdir(dir) == 0);
	launch_write_text("two.yaml",
			  "name: two\nfamilies:\n  strided_read:\n    variants: [course]\n"
			  "    axes:\n      stride: [1, 2]\n      n: 1M\n");
	launch_write_text("long.csv",
			  "point_id_hex,family,variant,seconds\n" SHORT_ID
			  ",strided_read,course,0\n" LONG_ID ",strided_read,course,36000\n");
	/* longest expected first: the short point's 100 s put it first */
	launch_write_text("order.csv",
			  "point_id_hex,family,variant,seconds\n" SHORT_ID
			  ",strided_read,course,100\n" LONG_ID ",strided_read,course,0.001\n");
}

/* Waits until a SWMR reader sees the short point's row in out.h5: the long
 * point runs then (one rank runs them in turn; on two, both run at once). */
static void wait_for_short_row(pid_t run)
{
	/* not launch_wait_for_rows: it would reap run and lose its status */
	for (;;) {
		if (launch_rows_seen("out.h5") >= 1)
			return;
		ck_assert_msg(waitpid(run, NULL, WNOHANG) == 0 || kill(run, 0) == 0,
			      "the run ended before its first row");
		usleep(5000);
	}
}

/* What a stopped run leaves: exit 4, "interrupted" on stderr, the short
 * point's row alone in the file, which --dry-run --resume passes and a
 * --resume completes: of the same recording, as /replays holds it, at
 * --replay-speed 1e6 (its ten hours in 36 ms). */
static void check_stopped(int rc, const char *log)
{
	const char *text = launch_slurp(log);
	ck_assert_msg(rc == 4, "exit %d after the stop, expected 4 (stderr: %s)", rc, text);
	ck_assert_msg(strstr(text, "sweep: interrupted; the file holds what was measured"),
		      "no \"interrupted\" line: %s", text);
	ck_assert_msg(strstr(text, "1 points not in the file; `--resume -o out.h5` completes it"),
		      "the summary does not say what --resume completes: %s", text);
	uint64_t *ids = NULL;
	ck_assert_int_eq(launch_rows_swmr("out.h5", "/measurements", &ids), 1);
	ck_assert_uint_eq(ids[0], strtoull(SHORT_ID, NULL, 16));
	free(ids);

	const char *dry[] = { "--backend", "replay=long.csv", "--dry-run", "--resume", "two.yaml",
			      "-o",        "out.h5",          NULL };
	rc = launch_finish_within(launch_start_alone("dry.log", dry), STOP_LIMIT_S);
	text = launch_slurp("dry.log");
	ck_assert_msg(rc == 0 && strstr(text, "passes every check; 1 of 2 points are in it"),
		      "--dry-run --resume: exit %d: %s", rc, text);
	const char *resume[] = { "--backend",
				 "replay=long.csv",
				 "--replay-speed",
				 "1e6",
				 "-q",
				 "--resume",
				 "two.yaml",
				 "-o",
				 "out.h5",
				 NULL };
	rc = launch_finish_within(launch_start_alone("resume.log", resume), STOP_LIMIT_S);
	ck_assert_msg(rc == 0, "--resume: exit %d: %s", rc, launch_slurp("resume.log"));
	ck_assert_int_eq(launch_rows("out.h5", "/measurements", &ids), 2);
	ck_assert_uint_eq(ids[1], strtoull(LONG_ID, NULL, 16));
	free(ids);
}

static const char *const run_args[] = {
	"--backend", "replay=long.csv", "--costs", "order.csv", "two.yaml", "-o", "out.h5", NULL
};

/* RB10, RB11: one process, signalled as a user's Ctrl-C or kill is. */
static void stop_alone(const char *name, int sig)
{
	char dir[512];
	make_case(name, dir, sizeof dir);
	pid_t pid = launch_start_alone("run.log", run_args);
	ck_assert_int_gt(pid, 0);
	wait_for_short_row(pid);
	ck_assert(kill(pid, sig) == 0);
	int rc = launch_finish_within(pid, STOP_LIMIT_S);
	ck_assert_msg(rc >= 0, "%s did not stop the replay within %.0f s (its point sleeps 10 h)",
		      strsignal(sig), STOP_LIMIT_S);
	check_stopped(rc, "run.log");
}

START_TEST(test_sigterm_stops_a_long_point)
{
	stop_alone("term", SIGTERM);
}
END_TEST

START_TEST(test_sigint_stops_a_long_point)
{
	stop_alone("int", SIGINT);
}
END_TEST

/* RB12: two ranks under mpirun, each sent SIGTERM as a batch system's
 * cancel sends it to every task; mpirun passes the ranks' exit code on. */
START_TEST(test_sigterm_stops_every_rank)
{
	char dir[512];
	make_case("ranks", dir, sizeof dir);
	pid_t mpirun = launch_start(2, "run.log", run_args), pids[8];
	int ranks[8], n;
	ck_assert_int_gt(mpirun, 0);
	wait_for_short_row(mpirun);
	n = launch_ranks(mpirun, pids, ranks, 8);
	ck_assert_int_eq(n, 2);
	for (int i = 0; i < n; i++)
		ck_assert(kill(pids[i], SIGTERM) == 0);
	int rc = launch_finish_within(mpirun, STOP_LIMIT_S);
	if (rc < 0)
		launch_kill_all(mpirun);
	ck_assert_msg(rc >= 0, "SIGTERM did not stop the ranks within %.0f s", STOP_LIMIT_S);
	check_stopped(rc, "run.log");
}
END_TEST

int main(void)
{
	if (launch_make_tmpdir(tmpdir, sizeof tmpdir, "replay") != 0) {
		perror("mkdtemp");
		return 1;
	}
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("stop");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_sigterm_stops_a_long_point);
	tcase_add_test(tc, test_sigint_stops_a_long_point);
	tcase_add_test(tc, test_sigterm_stops_every_rank);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
