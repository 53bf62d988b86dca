/*
 * A stop stops a large one-rank run (issue 30, cause 2; docs/bad-inputs.md,
 * H4S01 and H4S02): 231,000 points on the model backend, SIGTERM or SIGINT
 * once rows are in the file, then SIGINT again and again until the process
 * is gone (a user's second and third Ctrl-C while it closes). The run ends
 * as interrupted with its summary, every row it wrote is in the file,
 * --dry-run --resume counts them, and --resume (after the Ctrl-Cs)
 * completes the file with each point once. The states waited for are rows a SWMR reader sees and the
 * process's end; the only bound is the limit of a stop (the points given
 * back were re-sorted one by one: half an hour at full CPU).
 */
#define _GNU_SOURCE
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"

#define STOP_LIMIT_S 120.0

/* strided_read over wide axes: 128 strides x 50 sizes x 3 blocks x the
 * model's compute capabilities and variants, 231,000 points. */
#define POINTS 231000
#define SETS                                                                                       \
	"--family", "strided_read", "--set", "strided_read.stride=1:128", "--set",                 \
		"strided_read.n=1K:400K:8K", "--set", "strided_read.block=32:96:32"

static char tmpdir[256];

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Waits until a SWMR reader sees at least min rows; the run still runs. */
static void wait_for_rows(pid_t run, hssize_t min)
{
	while (launch_rows_seen("out.h5") < min) {
		ck_assert_msg(waitpid(run, NULL, WNOHANG) == 0, "the run ended before %lld rows",
			      (long long)min);
		usleep(5000);
	}
}

/* Sends sig, then SIGINT every 5 ms until the process is gone; its exit
 * code, or -1 past STOP_LIMIT_S (it is then killed). */
static int stop_and_keep_stopping(pid_t run, int sig, int *sent)
{
	int status;
	double t0 = mono_s();
	ck_assert(kill(run, sig) == 0);
	*sent = 1;
	while (waitpid(run, &status, WNOHANG) == 0) {
		if (mono_s() - t0 > STOP_LIMIT_S) {
			kill(run, SIGKILL);
			waitpid(run, &status, 0);
			return -1;
		}
		usleep(5000);
		*sent += kill(run, SIGINT) == 0;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The rows of out.h5 (a plain reader: the file was closed); each point
 * once. */
static hssize_t rows_each_once(void)
{
	uint64_t *ids = NULL;
	hssize_t n = launch_rows("out.h5", "/measurements", &ids);
	ck_assert_msg(n >= 0, "out.h5 does not open as a closed file");
	qsort(ids, (size_t)n, sizeof *ids, by_value);
	for (hssize_t i = 1; i < n; i++)
		ck_assert_msg(ids[i] != ids[i - 1], "point %016llx twice",
			      (unsigned long long)ids[i]);
	free(ids);
	return n;
}

/* Stops a run with sig (then SIGINTs) and checks what it left; with
 * resume, --resume completes it (once is enough: the two stops leave the
 * same kind of file, and a resume of 200,000 points takes a while). */
static void stop_large(const char *name, int sig, int resume)
{
	char dir[512], line[256];
	snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
	ck_assert(mkdir(dir, 0755) == 0 && chdir(dir) == 0);
	const char *run[] = { "--backend", "model", SETS, "-o", "out.h5", NULL };
	pid_t pid = launch_start_alone("run.log", run);
	ck_assert_int_gt(pid, 0);
	wait_for_rows(pid, 1000);
	int sent = 0, rc = stop_and_keep_stopping(pid, sig, &sent);
	const char *text = launch_slurp("run.log");
	ck_assert_msg(rc >= 0, "%s did not stop %d points within %.0f s", strsignal(sig), POINTS,
		      STOP_LIMIT_S);
	ck_assert_msg(rc == 4, "exit %d after the stop, expected 4 (stderr: %s)", rc, text);
	ck_assert_msg(strstr(text, "sweep: interrupted; the file holds what was measured"),
		      "no \"interrupted\" line: %s", text);

	/* the summary's count is the file's, and the rest is owed to --resume */
	hssize_t rows = rows_each_once();
	ck_assert_int_ge(rows, 1000);
	ck_assert_int_lt(rows, POINTS);
	snprintf(line, sizeof line, "sweep: %lld rows of this run are safe in out.h5",
		 (long long)rows);
	ck_assert_msg(strstr(text, line), "no \"%s\" after %d signals: %s", line, sent, text);
	snprintf(line, sizeof line,
		 "sweep: %lld points not in the file; `--resume -o out.h5` completes it",
		 (long long)(POINTS - rows));
	ck_assert_msg(strstr(text, line), "no \"%s\": %s", line, text);

	const char *dry[] = { "--backend", "model", SETS,     "--dry-run",
			      "--resume",  "-o",    "out.h5", NULL };
	rc = launch_finish_within(launch_start_alone("dry.log", dry), STOP_LIMIT_S);
	snprintf(line, sizeof line, "passes every check; %lld of %d points are in it",
		 (long long)rows, POINTS);
	ck_assert_msg(rc == 0 && strstr(launch_slurp("dry.log"), line),
		      "--dry-run --resume: exit %d, expected \"%s\": %s", rc, line,
		      launch_slurp("dry.log"));
	if (!resume)
		return;
	const char *again[] = { "--backend", "model", SETS, "-q", "--resume", "-o", "out.h5", NULL };
	rc = launch_finish_within(launch_start_alone("resume.log", again), 480);
	ck_assert_msg(rc == 0, "--resume: exit %d: %s", rc, launch_slurp("resume.log"));
	ck_assert_int_eq(rows_each_once(), POINTS);
}

/* H4S01: SIGTERM (kill, a batch system's cancel), then Ctrl-Cs. */
START_TEST(test_sigterm_stops_a_large_run)
{
	stop_large("term", SIGTERM, 0);
}
END_TEST

/* H4S02: Ctrl-C, then more Ctrl-Cs while it closes. */
START_TEST(test_sigint_twice_stops_a_large_run)
{
	stop_large("int", SIGINT, 1);
}
END_TEST

int main(void)
{
	if (launch_make_tmpdir(tmpdir, sizeof tmpdir, "stop") != 0) {
		perror("mkdtemp");
		return 1;
	}
	Suite *s = suite_create("stop");
	TCase *tc = tcase_create("large");
	tcase_set_timeout(tc, 1200);
	tcase_add_test(tc, test_sigterm_stops_a_large_run);
	tcase_add_test(tc, test_sigint_twice_stops_a_large_run);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
