/*
 * MPI error discipline, end to end: the test-only switch SW_TEST_FAULT
 * (src/core/faults.h) fails each stage of a run on each rank where that stage
 * runs (taking the job, binding, opening the output on rank 0, a rank's
 * first and last point, closing the output on rank 0), on 1, 2 and 4 real
 * mpirun ranks of the model backend (the static schedule for the point
 * stages, so that every rank has a first and a last point). Every case
 * must end, with a non-zero exit and a message that names the failing rank
 * and the stage; a case still running after 60 s is a hang, killed and
 * failed. Before the stages, an MPI failure in the agreement
 * (SW_TEST_FAULT=agree-mpi:RANK) must reach sweep's own check: the
 * errors-return handler is set before the agreement's first collective.
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

#define CASE_LIMIT_S 60

static char tmpdir[256];
static char ci_job[1024];

struct stage_case {
	const char *token;  /* SW_TEST_FAULT=stage:TOKEN@RANK */
	const char *name;   /* what the message calls it */
	int rank0_only;     /* the stage runs on rank 0 alone */
	int leaves_no_file; /* the run must fail before the output exists */
};

static const struct stage_case cases[] = {
	{ "job", "job", 0, 1 },
	{ "bind", "binding", 0, 1 },
	{ "open", "opening the output", 1, 1 },
	{ "first", "first point", 0, 0 },
	{ "last", "last point", 0, 0 },
	{ "close", "closing the output", 1, 0 },
};

/* The exit code, or -1 when the run outlived the limit (then killed). */
static int finish_within(pid_t pid, int limit_s)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > limit_s) {
			launch_kill_all(pid);
			return -1;
		}
		usleep(20000);
	}
}

static void run_case(const struct stage_case *c, int np, int rank)
{
	char fault[64], log[512], out[512], want[64];
	snprintf(fault, sizeof fault, "stage:%s@%d", c->token, rank);
	snprintf(log, sizeof log, "%s/%s-np%d-r%d.log", tmpdir, c->token, np, rank);
	snprintf(out, sizeof out, "%s/%s-np%d-r%d.h5", tmpdir, c->token, np, rank);
	/* static for a rank's first and last point: a dynamic rank that starts
	 * late on a loaded machine may find no point left, and have neither */
	int per_point = c->leaves_no_file == 0 && !c->rank0_only;
	const char *args[] = { "--backend", "model", "-q",         ci_job,
			       "-o",        out,     "--schedule", per_point ? "static" : "dynamic",
			       NULL };
	setenv("SW_TEST_FAULT", fault, 1);
	pid_t pid = launch_start(np, log, args);
	unsetenv("SW_TEST_FAULT");
	int code = finish_within(pid, CASE_LIMIT_S);
	const char *text = launch_slurp(log);
	ck_assert_msg(code >= 0, "%s on %d ranks hung (killed after %d s); log %s", fault, np,
		      CASE_LIMIT_S, log);
	ck_assert_msg(code != 0, "%s on %d ranks exited 0; log %s", fault, np, log);
	snprintf(want, sizeof want, "rank %d", rank);
	ck_assert_msg(strstr(text, want) && strstr(text, c->name),
		      "%s on %d ranks: the message names neither \"%s\" nor \"%s\":\n%s", fault, np,
		      want, c->name, text);
	struct stat st;
	if (c->leaves_no_file)
		ck_assert_msg(stat(out, &st) != 0, "%s on %d ranks left %s behind", fault, np, out);
	else
		ck_assert_msg(launch_rows(out, "/measurements", NULL) >= 1,
			      "%s on %d ranks: %s holds no readable row", fault, np, out);
}

START_TEST(test_stage_faults)
{
	static const int nps[] = { 1, 2, 4 };
	int np = nps[_i];
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		run_case(&cases[k], np, 0);
		if (np > 1 && !cases[k].rank0_only)
			run_case(&cases[k], np, np - 1);
	}
}
END_TEST

/* Rank `rank` of np makes an MPI call the library refuses in the agreement.
 * Under MPI's default handler the job dies in MPI with MPI's words; under
 * MPI_ERRORS_RETURN the check in agree.c says which call failed, on which
 * rank, and aborts every rank. */
static void run_agree_case(int np, int rank)
{
	char fault[64], log[512], out[512], want[64];
	snprintf(fault, sizeof fault, "agree-mpi:%d", rank);
	snprintf(log, sizeof log, "%s/agree-np%d-r%d.log", tmpdir, np, rank);
	snprintf(out, sizeof out, "%s/agree-np%d-r%d.h5", tmpdir, np, rank);
	const char *args[] = { "--backend", "model", "-q", ci_job, "-o", out, NULL };
	setenv("SW_TEST_FAULT", fault, 1);
	pid_t pid = launch_start(np, log, args);
	unsetenv("SW_TEST_FAULT");
	int code = finish_within(pid, CASE_LIMIT_S);
	const char *text = launch_slurp(log);
	ck_assert_msg(code >= 0, "%s on %d ranks hung; log %s", fault, np, log);
	ck_assert_msg(code != 0, "%s on %d ranks exited 0; log %s", fault, np, log);
	snprintf(want, sizeof want, "sweep: rank %d: MPI_Allgather(", rank);
	ck_assert_msg(strstr(text, want) && strstr(text, "agree.c") &&
			      strstr(text, "aborting the job"),
		      "%s on %d ranks: no \"%s...agree.c...aborting the job\" from sweep's "
		      "check:\n%s",
		      fault, np, want, text);
	struct stat st;
	ck_assert_msg(stat(out, &st) != 0, "%s on %d ranks left %s behind", fault, np, out);
}

START_TEST(test_agree_mpi_fault)
{
	run_agree_case(1, 0);
	run_agree_case(2, 0);
	run_agree_case(2, 1);
}
END_TEST

int main(void)
{
	snprintf(ci_job, sizeof ci_job, "%s/jobs/ci.yaml", launch_env("SW_SOURCE_DIR"));
	if (launch_make_tmpdir(tmpdir, sizeof tmpdir, "stages") != 0)
		return 1;
	Suite *s = suite_create("stages");
	TCase *tc = tcase_create("faults");
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_agree_mpi_fault);
	tcase_add_loop_test(tc, test_stage_faults, 0, 3);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
