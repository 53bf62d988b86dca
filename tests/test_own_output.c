/*
 * The output is the file sweep made, not whatever its name names at the end
 * (docs/bad-inputs.md, rows H01 to H08; issue 23, cause 2). Each case holds
 * a run at its end (SW_TEST_FAULT=close-wait:GO) once a reader sees the
 * run's lock on the output, gives the name to another file, removes it or
 * renames its folder, then lets the run end: the run exits 4, names both
 * files, leaves the other one as it was (bytes and inode), and its own rows,
 * with their end time, are where its message says. The hidden temporary
 * file replaced before it takes its name (SW_TEST_FAULT=publish-wait) is
 * refused before a point runs. No sleeps decide anything: the test waits
 * for states (a lock held, a file there).
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "launch.h"

#include "job/job.h"
#include "job/plan.h"

static char tmpdir[256];
static char ci_job[1024];
static char other_h5[600]; /* a complete file of another job, the file put at the name */

static size_t planned(void)
{
	struct sw_job job;
	struct sw_plan plan;
	struct sw_err err = { 0 };
	ck_assert_msg(sw_job_load(ci_job, &job, &err) == SW_OK, "%s", err.msg);
	ck_assert_int_eq(sw_plan_build(&job, 1, &plan, &err), SW_OK);
	size_t n = plan.n;
	sw_plan_fini(&plan);
	sw_job_fini(&job);
	return n;
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Distinct points in a closed file's /measurements (never-written rows aside). */
static size_t points_in(const char *path)
{
	uint64_t *ids = NULL;
	hssize_t n = launch_rows(path, "/measurements", &ids);
	size_t k = 0;
	ck_assert_msg(n >= 0, "cannot read %s", path);
	qsort(ids, (size_t)n, sizeof *ids, cmp_id);
	for (hssize_t i = 0; i < n; i++)
		k += ids[i] != UINT64_MAX && (i == 0 || ids[i] != ids[i - 1]);
	free(ids);
	return k;
}

static int has_end_time(const char *path)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert_msg(f >= 0, "cannot open %s", path);
	int yes = H5Aexists(f, "end_time") > 0;
	H5Fclose(f);
	return yes;
}

/* What a file is: its inode and every byte. */
struct mark {
	ino_t ino;
	off_t size;
	uint64_t hash;
};

static struct mark mark_of(const char *path)
{
	struct mark m = { 0 };
	struct stat sb;
	unsigned char buf[65536];
	size_t n;
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f && stat(path, &sb) == 0, "cannot read %s", path);
	m.ino = sb.st_ino;
	m.size = sb.st_size;
	m.hash = UINT64_C(0xcbf29ce484222325);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		for (size_t i = 0; i < n; i++)
			m.hash = (m.hash ^ buf[i]) * UINT64_C(0x100000001b3);
	fclose(f);
	return m;
}

static void expect_same(const char *path, struct mark was)
{
	struct mark now = mark_of(path);
	ck_assert_msg(now.ino == was.ino && now.size == was.size && now.hash == was.hash,
		      "%s was changed", path);
}

static void copy(const char *from, const char *to)
{
	char cmd[1400];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

/* Waits until a sweep holds its lock on path: from then on the file at the
 * name is that run's (created and named, or resumed). Fails when the run
 * ends first. */
static void wait_held(const char *path, pid_t run, const char *log)
{
	for (;;) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		int fd = open(path, O_RDONLY | O_CLOEXEC), status;
		int held = fd >= 0 && fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
		if (fd >= 0)
			close(fd);
		if (held)
			return;
		ck_assert_msg(waitpid(run, &status, WNOHANG) == 0, "the run ended first: %s",
			      launch_slurp(log));
		usleep(5000);
	}
}

/* A run of jobs/ci.yaml (and more args, NULL-ended) into out on np ranks,
 * held at its end until go exists. */
static pid_t start_held(int np, const char *log, const char *go, const char *out,
			const char *const *more)
{
	const char *args[16];
	char fault[700];
	int k = 0;
	args[k++] = "--backend";
	args[k++] = "model";
	args[k++] = "-q";
	for (int i = 0; more && more[i]; i++)
		args[k++] = more[i];
	args[k++] = ci_job;
	args[k++] = "-o";
	args[k++] = out;
	args[k] = NULL;
	snprintf(fault, sizeof fault, "close-wait:%s", go);
	setenv("SW_TEST_FAULT", fault, 1);
	pid_t pid = launch_start(np, log, args);
	unsetenv("SW_TEST_FAULT");
	return pid;
}

static void let_go(const char *go)
{
	close(open(go, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
}

/* The one line of log that holds what, once (a second copy fails). */
static void said_once(const char *log, const char *what)
{
	const char *all = launch_slurp(log), *at = strstr(all, what);
	ck_assert_msg(at, "\"%s\" not in: %s", what, all);
	ck_assert_msg(!strstr(at + 1, what), "\"%s\" said twice: %s", what, all);
}

/* dir/NAME.kept<pid>.h5: the one kept copy of dir/NAME.h5, into path. */
static void find_kept(const char *dir, const char *name, char *path, size_t len)
{
	char prefix[128];
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;
	snprintf(prefix, sizeof prefix, "%s.kept", name);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
			found++;
			snprintf(path, len, "%s/%s", dir, e->d_name);
		}
	closedir(d);
	ck_assert_msg(found == 1, "%d kept copies of %s in %s", found, name, dir);
}

static void expect_complete(const char *path, size_t n)
{
	ck_assert_uint_eq(points_in(path), n);
	ck_assert_msg(has_end_time(path), "%s has no end time", path);
}

/* H01 (2 ranks): the name removed and another sweep's complete file of the
 * same job made at it while the run ran. Was: the end time went into the
 * other file, the summary counted its rows, ours were lost, exit 0. */
START_TEST(test_replaced_by_another_sweep)
{
	char dir[512], out[600], log[600], log2[600], go[600], kept[900];
	snprintf(dir, sizeof dir, "%s/h01", tmpdir);
	ck_assert(mkdir(dir, 0755) == 0);
	snprintf(out, sizeof out, "%s/out.h5", dir);
	snprintf(log, sizeof log, "%s/h01.log", tmpdir);
	snprintf(log2, sizeof log2, "%s/h01-other.log", tmpdir);
	snprintf(go, sizeof go, "%s/h01.go", tmpdir);
	pid_t run = start_held(2, log, go, out, NULL);
	wait_held(out, run, log);
	ck_assert(unlink(out) == 0);
	/* the same job: its rows pass for this run's if they are counted */
	const char *other[] = { "--backend", "model", "-q", ci_job, "-o", out, NULL };
	ck_assert_msg(launch_run(1, log2, other) == 0, "%s", launch_slurp(log2));
	struct mark was = mark_of(out);
	let_go(go);
	int rc = launch_finish(run);
	ck_assert_msg(rc == 4, "exit %d: %s", rc, launch_slurp(log));
	said_once(log, "out.h5 is no longer this sweep's file: another file was put at that name "
		       "while it ran (left as it is); this run's rows are kept in ");
	expect_same(out, was);
	find_kept(dir, "out", kept, sizeof kept);
	expect_complete(kept, planned());
	ck_assert_msg(strstr(launch_slurp(log), "rows of this run are safe in"), "%s",
		      launch_slurp(log));
}
END_TEST

/* H02: the output's folder renamed, and a new folder with another file at
 * the name: the rows are where the file went, named in full. */
START_TEST(test_folder_renamed)
{
	char dir[512], old[600], out[600], moved[700], log[600], go[600], want[900];
	snprintf(dir, sizeof dir, "%s/h02", tmpdir);
	snprintf(old, sizeof old, "%s/h02.old", tmpdir);
	ck_assert(mkdir(dir, 0755) == 0);
	snprintf(out, sizeof out, "%s/out.h5", dir);
	snprintf(moved, sizeof moved, "%s/out.h5", old);
	snprintf(log, sizeof log, "%s/h02.log", tmpdir);
	snprintf(go, sizeof go, "%s/h02.go", tmpdir);
	pid_t run = start_held(1, log, go, out, NULL);
	wait_held(out, run, log);
	ck_assert(rename(dir, old) == 0 && mkdir(dir, 0755) == 0);
	copy(other_h5, out);
	struct mark was = mark_of(out);
	let_go(go);
	int rc = launch_finish(run);
	ck_assert_msg(rc == 4, "exit %d: %s", rc, launch_slurp(log));
	snprintf(want, sizeof want, "this run's rows are in %s, where the file was moved", moved);
	said_once(log, "h02/out.h5 is no longer this sweep's file: another file was put at that "
		       "name while it ran (left as it is)");
	said_once(log, want);
	expect_same(out, was);
	expect_complete(moved, planned());
}
END_TEST

/* H03: the output renamed: nothing at the name, the rows where it went. */
START_TEST(test_renamed)
{
	char dir[512], out[600], moved[600], log[600], go[600], want[900];
	snprintf(dir, sizeof dir, "%s/h03", tmpdir);
	ck_assert(mkdir(dir, 0755) == 0);
	snprintf(out, sizeof out, "%s/out.h5", dir);
	snprintf(moved, sizeof moved, "%s/moved.h5", dir);
	snprintf(log, sizeof log, "%s/h03.log", tmpdir);
	snprintf(go, sizeof go, "%s/h03.go", tmpdir);
	pid_t run = start_held(1, log, go, out, NULL);
	wait_held(out, run, log);
	ck_assert(rename(out, moved) == 0);
	let_go(go);
	int rc = launch_finish(run);
	ck_assert_msg(rc == 4, "exit %d: %s", rc, launch_slurp(log));
	snprintf(want, sizeof want,
		 "out.h5 is no longer this sweep's file: that name was removed while it ran; this "
		 "run's rows are in %s, where the file was moved",
		 moved);
	said_once(log, want);
	ck_assert_msg(access(out, F_OK) != 0, "%s was made again", out);
	expect_complete(moved, planned());
}
END_TEST

/* H04: the output removed: a copy beside the name keeps the rows. */
START_TEST(test_removed)
{
	char dir[512], out[600], log[600], go[600], kept[900];
	snprintf(dir, sizeof dir, "%s/h04", tmpdir);
	ck_assert(mkdir(dir, 0755) == 0);
	snprintf(out, sizeof out, "%s/out.h5", dir);
	snprintf(log, sizeof log, "%s/h04.log", tmpdir);
	snprintf(go, sizeof go, "%s/h04.go", tmpdir);
	pid_t run = start_held(1, log, go, out, NULL);
	wait_held(out, run, log);
	ck_assert(unlink(out) == 0);
	let_go(go);
	int rc = launch_finish(run);
	ck_assert_msg(rc == 4, "exit %d: %s", rc, launch_slurp(log));
	said_once(log, "out.h5 is no longer this sweep's file: that name was removed while it "
		       "ran; this run's rows are kept in ");
	said_once(log, ", a copy of the file it wrote, which was deleted");
	ck_assert_msg(access(out, F_OK) != 0, "%s was made again", out);
	find_kept(dir, "out", kept, sizeof kept);
	expect_complete(kept, planned());
}
END_TEST

/* H05: --resume, and the name given to another file (renamed over it)
 * meanwhile: the kept copy holds both sessions' rows. */
START_TEST(test_resume_replaced)
{
	char dir[512], out[600], log[600], go[600], kept[900], other[600];
	snprintf(dir, sizeof dir, "%s/h05", tmpdir);
	ck_assert(mkdir(dir, 0755) == 0);
	snprintf(out, sizeof out, "%s/out.h5", dir);
	snprintf(other, sizeof other, "%s/other.h5", dir);
	snprintf(log, sizeof log, "%s/h05.log", tmpdir);
	snprintf(go, sizeof go, "%s/h05.go", tmpdir);
	/* a file cut short: a full disk after 50 rows (the fault switch) */
	const char *first[] = { "--backend", "model", "-q", ci_job, "-o", out, NULL };
	setenv("SW_TEST_FAULT", "enospc:50", 1);
	int rc = launch_run(1, log, first);
	unsetenv("SW_TEST_FAULT");
	ck_assert_msg(rc == 4 && points_in(out) < planned(), "exit %d: %s", rc, launch_slurp(log));
	const char *resume[] = { "--resume", NULL };
	pid_t run = start_held(1, log, go, out, resume);
	wait_held(out, run, log);
	copy(other_h5, other);
	ck_assert(rename(other, out) == 0);
	struct mark was = mark_of(out);
	let_go(go);
	rc = launch_finish(run);
	ck_assert_msg(rc == 4, "exit %d: %s", rc, launch_slurp(log));
	said_once(log, "out.h5 is no longer this sweep's file: another file was put at that name "
		       "while it ran (left as it is); this run's rows are kept in ");
	expect_same(out, was);
	find_kept(dir, "out", kept, sizeof kept);
	expect_complete(kept, planned());
}
END_TEST

/* H06: --extend, and the folder renamed meanwhile. */
START_TEST(test_extend_folder_renamed)
{
	char dir[512], old[600], out[600], moved[700], log[600], go[600];
	snprintf(dir, sizeof dir, "%s/h06", tmpdir);
	snprintf(old, sizeof old, "%s/h06.old", tmpdir);
	ck_assert(mkdir(dir, 0755) == 0);
	snprintf(out, sizeof out, "%s/out.h5", dir);
	snprintf(moved, sizeof moved, "%s/out.h5", old);
	snprintf(log, sizeof log, "%s/h06.log", tmpdir);
	snprintf(go, sizeof go, "%s/h06.go", tmpdir);
	const char *first[] = { "--backend", "model", "-q", "--set", "strided_read.n=1M",
				ci_job,      "-o",    out,  NULL };
	ck_assert_msg(launch_run(1, log, first) == 0, "%s", launch_slurp(log));
	const char *extend[] = { "--extend", NULL };
	pid_t run = start_held(1, log, go, out, extend);
	wait_held(out, run, log);
	ck_assert(rename(dir, old) == 0);
	let_go(go);
	int rc = launch_finish(run);
	ck_assert_msg(rc == 4, "exit %d: %s", rc, launch_slurp(log));
	said_once(log, "h06/out.h5 is no longer this sweep's file: that name was removed while it "
		       "ran; this run's rows are in ");
	expect_complete(moved, planned());
}
END_TEST

/* H07: the hidden temporary file replaced before it took its name: refused
 * before a point runs, the file now at the name left as it is. */
START_TEST(test_temporary_replaced)
{
	char dir[512], out[600], log[600], go[600], fault[700], tmp[900] = "";
	snprintf(dir, sizeof dir, "%s/h07", tmpdir);
	ck_assert(mkdir(dir, 0755) == 0);
	snprintf(out, sizeof out, "%s/out.h5", dir);
	snprintf(log, sizeof log, "%s/h07.log", tmpdir);
	snprintf(go, sizeof go, "%s/h07.go", tmpdir);
	snprintf(fault, sizeof fault, "publish-wait:%s", go);
	const char *args[] = { "--backend", "model", "-q", ci_job, "-o", out, NULL };
	setenv("SW_TEST_FAULT", fault, 1);
	pid_t run = launch_start(1, log, args);
	unsetenv("SW_TEST_FAULT");
	while (!tmp[0]) { /* the temporary exists once every check passed */
		DIR *d = opendir(dir);
		struct dirent *e;
		int status;
		while (d && (e = readdir(d)))
			if (strncmp(e->d_name, ".out.h5.tmp", 11) == 0)
				snprintf(tmp, sizeof tmp, "%s/%s", dir, e->d_name);
		if (d)
			closedir(d);
		ck_assert_msg(tmp[0] || waitpid(run, &status, WNOHANG) == 0, "ended first: %s",
			      launch_slurp(log));
		if (!tmp[0])
			usleep(5000);
	}
	char other[600];
	snprintf(other, sizeof other, "%s/other.h5", dir);
	copy(other_h5, other);
	struct mark was = mark_of(other);
	ck_assert(rename(other, tmp) == 0);
	let_go(go);
	int rc = launch_finish(run);
	ck_assert_msg(rc == 4, "exit %d: %s", rc, launch_slurp(log));
	said_once(log, "out.h5 is not the file this sweep made: its hidden temporary file was "
		       "replaced by another before it took its name, and the name now names that "
		       "one, left as it is; nothing was run");
	expect_same(out, was);
	ck_assert_msg(!strstr(launch_slurp(log), "rows"), "%s", launch_slurp(log));
}
END_TEST

/* H08: not an error: --resume through a symbolic link that still names the
 * file at the end. */
START_TEST(test_resume_through_link)
{
	char dir[512], real[600], link_path[600], log[600], go[600];
	snprintf(dir, sizeof dir, "%s/h08", tmpdir);
	ck_assert(mkdir(dir, 0755) == 0);
	snprintf(real, sizeof real, "%s/real.h5", dir);
	snprintf(link_path, sizeof link_path, "%s/link.h5", dir);
	snprintf(log, sizeof log, "%s/h08.log", tmpdir);
	snprintf(go, sizeof go, "%s/h08.go", tmpdir);
	const char *first[] = { "--backend", "model", "-q", ci_job, "-o", real, NULL };
	setenv("SW_TEST_FAULT", "enospc:50", 1);
	int rc = launch_run(1, log, first);
	unsetenv("SW_TEST_FAULT");
	ck_assert_msg(rc == 4, "exit %d: %s", rc, launch_slurp(log));
	ck_assert(symlink("real.h5", link_path) == 0);
	const char *resume[] = { "--resume", NULL };
	pid_t run = start_held(1, log, go, link_path, resume);
	wait_held(link_path, run, log);
	let_go(go);
	rc = launch_finish(run);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, launch_slurp(log));
	expect_complete(real, planned());
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		ck_assert_msg(!strstr(e->d_name, ".kept"), "a copy was made: %s", e->d_name);
	if (d)
		closedir(d);
}
END_TEST

int main(void)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	snprintf(ci_job, sizeof ci_job, "%s/jobs/ci.yaml", launch_env("SW_SOURCE_DIR"));
	snprintf(tmpdir, sizeof tmpdir, "%s/sweep-own-XXXXXX", P_tmpdir);
	if (!mkdtemp(tmpdir))
		return EXIT_FAILURE;
	/* the other file: a complete one of another plan */
	char cmd[2048];
	snprintf(other_h5, sizeof other_h5, "%s/other.h5", tmpdir);
	snprintf(cmd, sizeof cmd,
		 "'%s' --backend model -q --set strided_read.stride=1 '%s' -o '%s' </dev/null",
		 launch_env("SW_SWEEP"), ci_job, other_h5);
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot make %s: %s\n", other_h5, cmd);
		return EXIT_FAILURE;
	}
	Suite *s = suite_create("own_output");
	TCase *tc = tcase_create("own_output");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_replaced_by_another_sweep);
	tcase_add_test(tc, test_folder_renamed);
	tcase_add_test(tc, test_renamed);
	tcase_add_test(tc, test_removed);
	tcase_add_test(tc, test_resume_replaced);
	tcase_add_test(tc, test_extend_folder_renamed);
	tcase_add_test(tc, test_temporary_replaced);
	tcase_add_test(tc, test_resume_through_link);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
