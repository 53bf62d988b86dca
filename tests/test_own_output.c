/*
 * The output is the file sweep made, not whatever its name names at the end
 * (docs/bad-inputs.md, rows H01 to H08 and H26; issue 23, cause 2). Each
 * case holds a run at its end (SW_TEST_FAULT=close-wait:GO) once a reader
 * sees the run's lock on the output, gives the name to another file,
 * removes it or renames its folder, then lets the run end: it exits 4, names both
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

/* One case: its folder tmpdir/NAME, its output there, its log and its go
 * file, and the run held at its end until go exists. */
struct held {
	char dir[512], out[600], log[600], go[600];
	pid_t run;
};

static void held_init(struct held *c, const char *name, const char *file)
{
	snprintf(c->dir, sizeof c->dir, "%s/%s", tmpdir, name);
	ck_assert(mkdir(c->dir, 0755) == 0);
	snprintf(c->out, sizeof c->out, "%s/%s", c->dir, file);
	snprintf(c->log, sizeof c->log, "%s/%s.log", tmpdir, name);
	snprintf(c->go, sizeof c->go, "%s/%s.go", tmpdir, name);
}

/* A run of jobs/ci.yaml (more args before it, NULL-ended) into c->out on
 * np ranks, held at its end until c->go exists; returns once it holds
 * c->out. */
static void held_start(struct held *c, int np, const char *const *more)
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
	args[k++] = c->out;
	args[k] = NULL;
	snprintf(fault, sizeof fault, "close-wait:%s", c->go);
	setenv("SW_TEST_FAULT", fault, 1);
	c->run = launch_start(np, c->log, args);
	unsetenv("SW_TEST_FAULT");
	wait_held(c->out, c->run, c->log);
}

/* Lets the run end; its exit code. */
static int held_end(struct held *c)
{
	close(open(c->go, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	return launch_finish(c->run);
}

/* path: jobs/ci.yaml's file cut short by a full disk after 50 rows (the
 * fault switch), for a --resume to complete. */
static void cut_short(const char *path, const char *log)
{
	const char *first[] = { "--backend", "model", "-q", ci_job, "-o", path, NULL };
	setenv("SW_TEST_FAULT", "enospc:50", 1);
	int rc = launch_run(1, log, first);
	unsetenv("SW_TEST_FAULT");
	ck_assert_msg(rc == 4 && points_in(path) < planned(), "exit %d: %s", rc, launch_slurp(log));
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

/* Lets the run end: it exits 4 and says what, once. */
static void end_refused(struct held *c, const char *what)
{
	int rc = held_end(c);
	ck_assert_msg(rc == 4, "exit %d: %s", rc, launch_slurp(c->log));
	said_once(c->log, what);
}

/* The run's rows are in the one kept copy beside its output, complete. */
static void expect_kept(const struct held *c)
{
	char kept[900];
	find_kept(c->dir, "out", kept, sizeof kept);
	expect_complete(kept, planned());
}

/* H01 (2 ranks): the name removed and another sweep's complete file of the
 * same job made at it while the run ran. Was: the end time went into the
 * other file, the summary counted its rows, ours were lost, exit 0. */
START_TEST(test_replaced_by_another_sweep)
{
	struct held c;
	char log2[700];
	held_init(&c, "h01", "out.h5");
	snprintf(log2, sizeof log2, "%s/h01-other.log", tmpdir);
	held_start(&c, 2, NULL);
	ck_assert(unlink(c.out) == 0);
	/* the same job: its rows pass for this run's if they are counted */
	const char *other[] = { "--backend", "model", "-q", ci_job, "-o", c.out, NULL };
	ck_assert_msg(launch_run(1, log2, other) == 0, "%s", launch_slurp(log2));
	struct mark was = mark_of(c.out);
	end_refused(&c, "out.h5 is no longer this sweep's file: another file was put at that name "
			"while it ran (left as it is); this run's rows are kept in ");
	expect_same(c.out, was);
	expect_kept(&c);
	said_once(c.log, "rows of this run are safe in");
}
END_TEST

/* H02: the output's folder renamed, and a new folder with another file at
 * the name: the rows are where the file went, named in full. */
START_TEST(test_folder_renamed)
{
	struct held c;
	char old[600], moved[700], want[900];
	held_init(&c, "h02", "out.h5");
	snprintf(old, sizeof old, "%s.old", c.dir);
	snprintf(moved, sizeof moved, "%s/out.h5", old);
	held_start(&c, 1, NULL);
	ck_assert(rename(c.dir, old) == 0 && mkdir(c.dir, 0755) == 0);
	copy(other_h5, c.out);
	struct mark was = mark_of(c.out);
	int rc = held_end(&c);
	ck_assert_msg(rc == 4, "exit %d: %s", rc, launch_slurp(c.log));
	snprintf(want, sizeof want, "this run's rows are in %s, where the file was moved", moved);
	said_once(c.log, "h02/out.h5 is no longer this sweep's file: another file was put at that "
			 "name while it ran (left as it is)");
	said_once(c.log, want);
	expect_same(c.out, was);
	expect_complete(moved, planned());
}
END_TEST

/* H03: the output renamed: nothing at the name, the rows where it went. */
START_TEST(test_renamed)
{
	struct held c;
	char moved[700], want[900];
	held_init(&c, "h03", "out.h5");
	snprintf(moved, sizeof moved, "%s/moved.h5", c.dir);
	held_start(&c, 1, NULL);
	ck_assert(rename(c.out, moved) == 0);
	int rc = held_end(&c);
	ck_assert_msg(rc == 4, "exit %d: %s", rc, launch_slurp(c.log));
	snprintf(want, sizeof want,
		 "out.h5 is no longer this sweep's file: that name was removed while it ran; this "
		 "run's rows are in %s, where the file was moved",
		 moved);
	said_once(c.log, want);
	ck_assert_msg(access(c.out, F_OK) != 0, "%s was made again", c.out);
	expect_complete(moved, planned());
}
END_TEST

/* H04: the output removed: a copy beside the name keeps the rows. */
START_TEST(test_removed)
{
	struct held c;
	held_init(&c, "h04", "out.h5");
	held_start(&c, 1, NULL);
	ck_assert(unlink(c.out) == 0);
	end_refused(&c, "out.h5 is no longer this sweep's file: that name was removed while it "
			"ran; this run's rows are kept in ");
	said_once(c.log, ", a copy of the file it wrote, which was deleted");
	ck_assert_msg(access(c.out, F_OK) != 0, "%s was made again", c.out);
	expect_kept(&c);
}
END_TEST

/* H05: --resume, and the name given to another file (renamed over it)
 * meanwhile: the kept copy holds both sessions' rows. */
START_TEST(test_resume_replaced)
{
	struct held c;
	char other[700];
	held_init(&c, "h05", "out.h5");
	snprintf(other, sizeof other, "%s/other.h5", c.dir);
	cut_short(c.out, c.log);
	const char *resume[] = { "--resume", NULL };
	held_start(&c, 1, resume);
	copy(other_h5, other);
	ck_assert(rename(other, c.out) == 0);
	struct mark was = mark_of(c.out);
	end_refused(&c, "out.h5 is no longer this sweep's file: another file was put at that name "
			"while it ran (left as it is); this run's rows are kept in ");
	expect_same(c.out, was);
	expect_kept(&c);
}
END_TEST

/* H06: --extend, and the folder renamed meanwhile. */
START_TEST(test_extend_folder_renamed)
{
	struct held c;
	char old[600], moved[700];
	held_init(&c, "h06", "out.h5");
	snprintf(old, sizeof old, "%s.old", c.dir);
	snprintf(moved, sizeof moved, "%s/out.h5", old);
	const char *first[] = { "--backend", "model", "-q",  "--set", "strided_read.n=1M",
				ci_job,      "-o",    c.out, NULL };
	ck_assert_msg(launch_run(1, c.log, first) == 0, "%s", launch_slurp(c.log));
	const char *extend[] = { "--extend", NULL };
	held_start(&c, 1, extend);
	ck_assert(rename(c.dir, old) == 0);
	end_refused(&c, "h06/out.h5 is no longer this sweep's file: that name was removed while "
			"it ran; this run's rows are in ");
	expect_complete(moved, planned());
}
END_TEST

/* H26: the output removed with its folder: the copy goes to the working
 * folder. */
START_TEST(test_folder_removed)
{
	struct held c;
	char here[512], kept[900];
	held_init(&c, "h26", "out.h5");
	ck_assert(getcwd(here, sizeof here) && chdir(tmpdir) == 0);
	snprintf(c.out, sizeof c.out, "h26/out.h5");
	held_start(&c, 1, NULL);
	ck_assert(unlink(c.out) == 0 && rmdir(c.dir) == 0);
	end_refused(&c, "h26/out.h5 is no longer this sweep's file: that name was removed while "
			"it ran; this run's rows are kept in out.kept");
	ck_assert(chdir(here) == 0);
	find_kept(tmpdir, "out", kept, sizeof kept);
	expect_complete(kept, planned());
}
END_TEST

/* The hidden temporary file of a run in dir, once it exists (every check
 * passed), into tmp. */
static void wait_temporary(const char *dir, pid_t run, const char *log, char *tmp, size_t len)
{
	tmp[0] = '\0';
	while (!tmp[0]) {
		DIR *d = opendir(dir);
		struct dirent *e;
		int status;
		while (d && (e = readdir(d)))
			if (strncmp(e->d_name, ".out.h5.tmp", 11) == 0)
				snprintf(tmp, len, "%s/%s", dir, e->d_name);
		if (d)
			closedir(d);
		ck_assert_msg(tmp[0] || waitpid(run, &status, WNOHANG) == 0, "ended first: %s",
			      launch_slurp(log));
		if (!tmp[0])
			usleep(5000);
	}
}

/* H07: the hidden temporary file replaced before it took its name: refused
 * before a point runs, the file now at the name left as it is. */
START_TEST(test_temporary_replaced)
{
	struct held c;
	char fault[700], tmp[900], other[700];
	held_init(&c, "h07", "out.h5");
	snprintf(fault, sizeof fault, "publish-wait:%s", c.go);
	const char *args[] = { "--backend", "model", "-q", ci_job, "-o", c.out, NULL };
	setenv("SW_TEST_FAULT", fault, 1);
	c.run = launch_start(1, c.log, args);
	unsetenv("SW_TEST_FAULT");
	wait_temporary(c.dir, c.run, c.log, tmp, sizeof tmp);
	snprintf(other, sizeof other, "%s/other.h5", c.dir);
	copy(other_h5, other);
	struct mark was = mark_of(other);
	ck_assert(rename(other, tmp) == 0);
	end_refused(&c, "out.h5 is not the file this sweep made: its hidden temporary file was "
			"replaced by another before it took its name, and the name now names that "
			"one, left as it is; nothing was run");
	expect_same(c.out, was);
	ck_assert_msg(!strstr(launch_slurp(c.log), "rows"), "%s", launch_slurp(c.log));
}
END_TEST

/* H08: not an error: --resume through a symbolic link that still names the
 * file at the end. */
START_TEST(test_resume_through_link)
{
	struct held c;
	char real[700];
	held_init(&c, "h08", "link.h5");
	snprintf(real, sizeof real, "%s/real.h5", c.dir);
	cut_short(real, c.log);
	ck_assert(symlink("real.h5", c.out) == 0);
	const char *resume[] = { "--resume", NULL };
	held_start(&c, 1, resume);
	int rc = held_end(&c);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, launch_slurp(c.log));
	expect_complete(real, planned());
	DIR *d = opendir(c.dir);
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
	if (launch_make_tmpdir(tmpdir, sizeof tmpdir, "own-output") != 0)
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
	tcase_add_test(tc, test_folder_removed);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
