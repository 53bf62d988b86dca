/*
 * End to end through real mpirun launches of the sweep binary on the model
 * backend: the file holds exactly the planned points for 1 to 8 ranks and
 * both schedules; bad input writes nothing; kill -9 midway then --resume
 * completes the file. Paths come from ctest: SW_SWEEP, SW_MPIEXEC,
 * SW_SOURCE_DIR.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
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

#include "job.h"
#include "plan.h"

static char tmpdir[256];
static char ci_job[1024];

static const char *env(const char *name)
{
	const char *v = getenv(name);
	if (!v || !*v) {
		fprintf(stderr, "%s is not set: run this test through ctest\n", name);
		exit(EXIT_FAILURE);
	}
	return v;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Starts `mpirun -np N sweep ARGS...` in its own process group, output to log. */
static pid_t start(int np, const char *log, const char *const *args)
{
	const char *argv[64];
	char npbuf[16];
	int k = 0;
	snprintf(npbuf, sizeof npbuf, "%d", np);
	argv[k++] = env("SW_MPIEXEC");
	argv[k++] = "-np";
	argv[k++] = npbuf;
	argv[k++] = "--oversubscribe";
	argv[k++] = env("SW_SWEEP");
	for (int i = 0; args[i] && k < 62; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

static int finish(pid_t pid)
{
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int run(int np, const char *log, const char *const *args)
{
	return finish(start(np, log, args));
}

/* State letter of a process from /proc, 0 when it is gone. */
static char proc_state(pid_t pid, pid_t *ppid)
{
	char path[64], comm[256], state = 0;
	int parent = 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (f && fscanf(f, "%*d (%255[^)]) %c %d", comm, &state, &parent) != 3)
		state = 0;
	if (f)
		fclose(f);
	if (ppid)
		*ppid = parent;
	return state;
}

/* kill -9 of a whole run: mpirun and every rank. Open MPI puts each rank in
 * a process group of its own, so the ranks are found as mpirun's children. */
static void kill_run(pid_t mpirun)
{
	pid_t ranks[64];
	int n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d)) && n < 64) {
		pid_t pid = (pid_t)atoi(e->d_name), ppid;
		if (pid > 0 && proc_state(pid, &ppid) && ppid == mpirun)
			ranks[n++] = pid;
	}
	if (d)
		closedir(d);
	kill(mpirun, SIGKILL);
	for (int i = 0; i < n; i++)
		kill(ranks[i], SIGKILL);
	finish(mpirun);
	/* wait until they are gone (or zombies): rank 0 holds the file lock till then */
	for (int i = 0; i < n; i++)
		for (int t = 0; t < 500; t++) {
			char st = proc_state(ranks[i], NULL);
			if (st == 0 || st == 'Z')
				break;
			usleep(10000);
		}
}

static char *slurp(const char *path)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = 0;
	if (f)
		fclose(f);
	return buf;
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Reads one uint64 column of a table; returns the row count. */
static hsize_t read_ids(const char *path, const char *dataset, uint64_t **ids)
{
	/* a killed writer's lock goes with its process, which a loaded machine
	 * may take a few seconds to reap */
	hid_t f = -1;
	for (int i = 0; i < 200 && (f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0; i++)
		usleep(50000);
	ck_assert_msg(f >= 0, "cannot open %s", path);
	hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
	ck_assert(d >= 0);
	hid_t s = H5Dget_space(d);
	hsize_t n = 0;
	H5Sget_simple_extent_dims(s, &n, NULL);
	*ids = calloc(n + 1, sizeof **ids);
	if (strcmp(dataset, "/measurements") == 0 && n) {
		hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(uint64_t));
		H5Tinsert(t, "point_id", 0, H5T_NATIVE_UINT64);
		ck_assert(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, *ids) >= 0);
		H5Tclose(t);
	}
	H5Sclose(s);
	H5Dclose(d);
	H5Fclose(f);
	return n;
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
	struct sw_err err = {0};
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
	hsize_t n = read_ids(path, "/measurements", &ids);
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
	const char *args[] = {"--backend", "model", ci_job, "-o", out, NULL};
	ck_assert_msg(run(4, log, args) == 0, "%s", slurp(log));
	uint64_t *ids;
	ck_assert_uint_eq(read_ids(out, "/devices", &ids), 4);
	free(ids);
	struct sw_plan plan;
	plan_of(NULL, &plan);
	assert_complete(out, &plan);
	sw_plan_fini(&plan);
}
END_TEST

START_TEST(test_ranks_and_schedules)
{
	static const int ranks[] = {1, 2, 3, 5, 8};
	static const char *const schedules[] = {"dynamic", "static"};
	struct sw_plan plan;
	plan_of(NULL, &plan);
	for (int s = 0; s < 2; s++)
		for (int r = 0; r < 5; r++) {
			char out[512], log[512];
			snprintf(out, sizeof out, "%s/np%d-%s.h5", tmpdir, ranks[r], schedules[s]);
			snprintf(log, sizeof log, "%s/np%d-%s.log", tmpdir, ranks[r], schedules[s]);
			const char *args[] = {"--backend", "model", "-q", "--schedule", schedules[s],
					      "--batch", "1", ci_job, "-o", out, NULL};
			ck_assert_msg(run(ranks[r], log, args) == 0, "%d ranks %s: %s", ranks[r],
				      schedules[s], slurp(log));
			assert_complete(out, &plan);
		}
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
	const char *args[] = {"--backend", "model", job, "-o", out, NULL};
	int rc = run(2, log, args);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(slurp(log), "bad.yaml:5:1:") || strstr(slurp(log), "bad.yaml:4:"),
		      "no file:line:column in: %s", slurp(log));
	ck_assert(!exists(out));

	/* a job error found only on --set: also nothing written */
	const char *args2[] = {"--backend", "model", "--set", "strided_read.stride=0", ci_job, "-o", out, NULL};
	ck_assert_int_eq(run(2, log, args2), 2);
	ck_assert_ptr_nonnull(strstr(slurp(log), "out of range"));
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
	const char *args[] = {"--backend", "model", "-q", ci_job, "-o", out, NULL};
	ck_assert_int_ne(run(1, log, args), 0);
	ck_assert_str_eq(slurp(out), "precious");
	ck_assert_ptr_nonnull(strstr(slurp(log), "--force"));
	const char *forced[] = {"--backend", "model", "-q", "--force", ci_job, "-o", out, NULL};
	ck_assert_int_eq(run(1, log, forced), 0);
	struct sw_plan plan;
	plan_of(NULL, &plan);
	assert_complete(out, &plan);
	sw_plan_fini(&plan);
}
END_TEST

START_TEST(test_dry_run)
{
	char out[512], log[512];
	snprintf(out, sizeof out, "%s/dry.h5", tmpdir);
	snprintf(log, sizeof log, "%s/dry.log", tmpdir);
	const char *args[] = {"--backend", "model", "--dry-run", "--schedule", "static", ci_job, "-o", out, NULL};
	ck_assert_int_eq(run(3, log, args), 0);
	ck_assert(!exists(out));
	const char *text = slurp(log);
	ck_assert_ptr_nonnull(strstr(text, "plan: 144 points"));
	ck_assert_ptr_nonnull(strstr(text, "rank 2 runs 48 points"));
}
END_TEST

/* kill -9 of the whole 4-rank run at half its duration, then --resume. */
START_TEST(test_kill_and_resume)
{
	static const char *const sets[] = {"strided_read.stride=1:128", "strided_read.n=1M:64M:x2", NULL};
	char out[512], log[512], ref[512];
	snprintf(ref, sizeof ref, "%s/full.h5", tmpdir);
	snprintf(out, sizeof out, "%s/killed.h5", tmpdir);
	snprintf(log, sizeof log, "%s/killed.log", tmpdir);
	const char *args[] = {"--backend", "model", "-q", "--set", sets[0], "--set", sets[1],
			      ci_job, "-o", ref, NULL};
	double t0 = now_s();
	ck_assert_msg(run(4, log, args) == 0, "%s", slurp(log));
	double full_s = now_s() - t0;
	struct stat full_st;
	ck_assert_int_eq(stat(ref, &full_st), 0);

	/* "Midway" by the file's size, not by time: a busy machine runs the
	 * same job at very different speeds. */
	args[9] = out;
	pid_t pid = start(4, log, args);
	struct stat st;
	for (int i = 0; i < 12000; i++) {
		if (stat(out, &st) == 0 && st.st_size > full_st.st_size / 2)
			break;
		int status;
		ck_assert_msg(waitpid(pid, &status, WNOHANG) == 0, "the run ended before the kill");
		usleep(5000);
	}
	kill_run(pid);

	struct sw_plan plan;
	plan_of((const char *const *)sets, &plan);
	uint64_t *ids;
	hsize_t partial = read_ids(out, "/measurements", &ids); /* readable after kill -9 */
	free(ids);
	ck_assert_msg(partial < plan.n, "the run finished before the kill (%.1f s): nothing to resume",
		      full_s);

	const char *resume[] = {"--backend", "model", "-q", "--resume", "--set", sets[0], "--set",
				sets[1], ci_job, "-o", out, NULL};
	ck_assert_msg(run(4, log, resume) == 0, "%s", slurp(log));
	assert_complete(out, &plan);
	ck_assert_uint_eq(read_ids(out, "/devices", &ids), 8); /* two sessions of 4 ranks */
	free(ids);

	/* a resume of a finished file runs nothing and changes nothing */
	ck_assert_int_eq(run(2, log, resume), 0);
	assert_complete(out, &plan);

	/* --resume with another job is refused */
	const char *foreign[] = {"--backend", "model", "-q", "--resume", ci_job, "-o", out, NULL};
	ck_assert_int_ne(run(2, log, foreign), 0);
	ck_assert_ptr_nonnull(strstr(slurp(log), "different job"));
	assert_complete(out, &plan);
	sw_plan_fini(&plan);
}
END_TEST

int main(void)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	snprintf(ci_job, sizeof ci_job, "%s/jobs/ci.yaml", env("SW_SOURCE_DIR"));
	snprintf(tmpdir, sizeof tmpdir, "%s/sweep-test-XXXXXX", P_tmpdir);
	if (!mkdtemp(tmpdir))
		return EXIT_FAILURE;

	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("mpirun");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_four_ranks_file);
	tcase_add_test(tc, test_ranks_and_schedules);
	tcase_add_test(tc, test_bad_job_writes_nothing);
	tcase_add_test(tc, test_never_overwrites);
	tcase_add_test(tc, test_dry_run);
	tcase_add_test(tc, test_kill_and_resume);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (!failed) { /* keep the files of a failure for a look */
		char cmd[512];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	} else {
		fprintf(stderr, "files kept in %s\n", tmpdir);
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
