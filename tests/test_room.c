/*
 * Room to write (issue 30, causes 1 and 6; docs/bad-inputs.md H4D and H4F
 * rows): a full disk at each moment HDF5 writes, and a file-size limit,
 * through the real binary on the model backend. At every moment the run
 * ends with exit 4 and a message naming the disk or the limit, never a
 * signal; a new file is made whole or not at all (no temporary left); a
 * resumed file keeps every row it had, opens for any reader, and --resume
 * completes it once there is room; a resume refused for room leaves the
 * file byte for byte as it was. `test_room faults` fills the disk with
 * the fault switch (SW_TEST_FAULT=full:MOMENT) and sets `ulimit -f` (no
 * root needed); `test_room tmpfs` fills real small tmpfs file systems at
 * sizes around every moment, and reports SKIPPED (77) where it may not
 * mount one.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <hdf5.h>

#include "launch.h"

#include "job/job.h"
#include "job/plan.h"

static char tmpdir[256];
static char ci_job[1024];  /* jobs/ci.yaml: 144 points, a file of about 600 KB */
static char mid_src[1024]; /* a file of the mid job cut at 1024 of its rows */

/* The mid job: jobs/ci.yaml with every stride, 2064 points, a file of
 * about 2.6 MB; its first flush writes 1024 rows. */
static const char *const mid_sets[] = { "strided_read.stride=1:128", NULL };
/* The big job of test_faults: 23736 points, about 26 MB. */
static const char *const big_sets[] = { "strided_read.stride=1:128", "strided_read.n=1K:4G:x2",
					NULL };

/* Arguments of a model run of job with sets, into out; resume: --resume. */
static void run_args(const char **args, const char *job, const char *const *sets, const char *out,
		     int resume)
{
	int k = 0;
	args[k++] = "--backend";
	args[k++] = "model";
	args[k++] = "-q";
	if (resume)
		args[k++] = "--resume";
	for (int i = 0; sets && sets[i]; i++) {
		args[k++] = "--set";
		args[k++] = sets[i];
	}
	args[k++] = job;
	args[k++] = "-o";
	args[k++] = out;
	args[k] = NULL;
}

/* One run alone (an MPI singleton), with SW_TEST_FAULT fault (NULL: none);
 * its exit code, 128 + a signal when one ended it. */
static int run(const char *log, const char *job, const char *const *sets, const char *out,
	       int resume, const char *fault)
{
	const char *args[32];
	run_args(args, job, sets, out, resume);
	if (fault)
		setenv("SW_TEST_FAULT", fault, 1);
	int rc = launch_finish(launch_start_alone(log, args));
	unsetenv("SW_TEST_FAULT");
	return rc;
}

static size_t planned(const char *const *sets)
{
	struct sw_job job;
	struct sw_plan plan;
	struct sw_err err = { 0 };
	ck_assert_msg(sw_job_load(ci_job, &job, &err) == SW_OK, "%s", err.msg);
	for (int i = 0; sets && sets[i]; i++)
		ck_assert_int_eq(sw_job_set(&job, sets[i], &err), SW_OK);
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

/* 1 when the file holds each of the plan's n points once and opens
 * plainly (its last writer closed it). */
static int each_point_once(const char *path, size_t n)
{
	uint64_t *ids = NULL;
	int ok = launch_rows(path, "/measurements", &ids) == (hssize_t)n;
	if (ok)
		qsort(ids, n, sizeof *ids, cmp_id);
	for (size_t i = 1; ok && i < n; i++)
		ok = ids[i] != ids[i - 1];
	free(ids);
	return ok;
}

static void expect_each_point_once(const char *path, size_t n)
{
	ck_assert_msg(each_point_once(path, n), "%s does not hold each of %zu points once", path,
		      n);
}

/* A sweep's line "sweep: N rows ... WORDS": N, or -1. */
static long summary_rows(const char *log, const char *words)
{
	const char *text = launch_slurp(log), *p = strstr(text, words);
	while (p && p > text && p[-1] != '\n')
		p--;
	long n = -1;
	if (!p || sscanf(p, "sweep: %ld rows", &n) != 1)
		return -1;
	return n;
}

/* Entries of dir, hidden ones included, but . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* No hidden temporary (.NAME.tmpPID) in dir. */
static void expect_no_temporary(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		ck_assert_msg(!strstr(e->d_name, ".tmp"), "left behind in %s: %s", dir, e->d_name);
	if (d)
		closedir(d);
}

/* The whole of a file, malloc'd, its length in *n. */
static char *contents(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	char *buf = malloc(len > 0 ? (size_t)len : 1);
	*n = fread(buf, 1, (size_t)len, f);
	fclose(f);
	return buf;
}

static void copy(const char *from, const char *to)
{
	size_t n;
	char *buf = contents(from, &n);
	FILE *f = fopen(to, "wb");
	ck_assert_msg(f && fwrite(buf, 1, n, f) == n && fclose(f) == 0, "cannot write %s", to);
	free(buf);
}

static int has_end_time(const char *path)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert_msg(f >= 0, "%s does not open plainly", path);
	int has = H5Aexists(f, "end_time") > 0;
	H5Fclose(f);
	return has;
}

/* A folder of its own under tmpdir. */
static const char *folder(const char *name, char *dir, size_t len)
{
	snprintf(dir, len, "%s/%s", tmpdir, name);
	ck_assert_msg(mkdir(dir, 0755) == 0, "mkdir %s: %s", dir, strerror(errno));
	return dir;
}

/* ---- the fault switch ---------------------------------------------------- */

/* A new file, the disk full at a moment of its creation (H4D01 create,
 * H4D02 SWMR started): exit 4, the disk named, nothing left in the folder. */
static void full_at_creation(const char *what, const char *fault)
{
	char dir[512], out[600], log[600];
	folder(what, dir, sizeof dir);
	snprintf(out, sizeof out, "%s/out.h5", dir);
	snprintf(log, sizeof log, "%s/%s.log", tmpdir, what);
	int rc = run(log, ci_job, NULL, out, 0, fault);
	const char *said = launch_slurp(log);
	ck_assert_msg(rc == 4, "%s: exit %d: %s", what, rc, said);
	ck_assert_msg(strstr(said, "No space left on device: the disk that holds") &&
			      strstr(said, "(the file system at "),
		      "%s: the disk is not named: %s", what, said);
	ck_assert_msg(entries(dir) == 0, "%s: %d files left in %s", what, entries(dir), dir);
}

START_TEST(test_full_at_create)
{
	char log[600];
	full_at_creation("H4D01", "full:create");
	snprintf(log, sizeof log, "%s/H4D01.log", tmpdir);
	ck_assert_msg(strstr(launch_slurp(log), "cannot create "), "%s", launch_slurp(log));
}
END_TEST

START_TEST(test_full_at_swmr_create)
{
	full_at_creation("H4D02", "full:swmr");
	char log[600];
	snprintf(log, sizeof log, "%s/H4D02.log", tmpdir);
	ck_assert_msg(strstr(launch_slurp(log), "cannot start writing in SWMR mode"), "%s",
		      launch_slurp(log));
}
END_TEST

/* A copy of the mid file cut at 1024 rows in a folder of its own. */
static void mid_copy(const char *what, char *dir, size_t dlen, char *out, size_t olen)
{
	folder(what, dir, dlen);
	snprintf(out, olen, "%s/out.h5", dir);
	copy(mid_src, out);
}

/* H4D03: the disk full as an interrupted file is opened for resume: the
 * resume is refused before the file is opened to write, and the file is
 * the same bytes; --resume then completes it. */
START_TEST(test_full_at_resume)
{
	char dir[512], out[600], log[600];
	size_t n0, n1;
	mid_copy("H4D03", dir, sizeof dir, out, sizeof out);
	snprintf(log, sizeof log, "%s/H4D03.log", tmpdir);
	char *before = contents(out, &n0);
	int rc = run(log, ci_job, mid_sets, out, 1, "full:resume");
	const char *said = launch_slurp(log);
	ck_assert_msg(rc == 4, "exit %d: %s", rc, said);
	ck_assert_msg(strstr(said, "cannot resume ") && strstr(said, "(it is as it was)") &&
			      strstr(said, "No space left on device: the disk that holds"),
		      "%s", said);
	char *after = contents(out, &n1);
	ck_assert_msg(n0 == n1 && memcmp(before, after, n0) == 0, "the file was changed");
	free(before);
	free(after);
	ck_assert_int_eq(entries(dir), 1);
	ck_assert_int_eq(run(log, ci_job, mid_sets, out, 1, NULL), 0);
	expect_each_point_once(out, planned(mid_sets));
}
END_TEST

/* H4D04: the disk full as a resumed file starts SWMR writing (its session
 * begun, its flags cleared): exit 4; the file opens plainly with every row
 * it had; --resume then completes it. */
START_TEST(test_full_at_swmr_resume)
{
	char dir[512], out[600], log[600];
	mid_copy("H4D04", dir, sizeof dir, out, sizeof out);
	snprintf(log, sizeof log, "%s/H4D04.log", tmpdir);
	hssize_t had = launch_rows(out, "/measurements", NULL);
	int rc = run(log, ci_job, mid_sets, out, 1, "full:swmr");
	const char *said = launch_slurp(log);
	ck_assert_msg(rc == 4, "exit %d: %s", rc, said);
	ck_assert_msg(strstr(said, "cannot start writing in SWMR mode: No space left on device"),
		      "%s", said);
	ck_assert_msg(had == 1024 && launch_rows(out, "/measurements", NULL) == had,
		      "rows before %lld, after %lld", (long long)had,
		      (long long)launch_rows(out, "/measurements", NULL));
	ck_assert_int_eq(run(log, ci_job, mid_sets, out, 1, NULL), 0);
	expect_each_point_once(out, planned(mid_sets));
}
END_TEST

/* H4D05: the disk full as the file is closed, once every row is in it:
 * exit 4, every row kept, no end time; --resume runs nothing and writes
 * it. The same for a resumed file (H4D06). */
static void full_at_close(const char *what, int resume)
{
	char dir[512], out[600], log[600];
	const char *const *sets = resume ? mid_sets : NULL;
	if (resume)
		mid_copy(what, dir, sizeof dir, out, sizeof out);
	else
		snprintf(out, sizeof out, "%s/out.h5", folder(what, dir, sizeof dir));
	snprintf(log, sizeof log, "%s/%s.log", tmpdir, what);
	int rc = run(log, ci_job, sets, out, resume, "full:close");
	const char *said = launch_slurp(log);
	ck_assert_msg(rc == 4, "%s: exit %d: %s", what, rc, said);
	ck_assert_msg(strstr(said, "cannot write the end time: No space left on device"), "%s: %s",
		      what, said);
	expect_each_point_once(out, planned(sets));
	ck_assert_msg(!has_end_time(out), "%s: an end time after a failed close", what);
	ck_assert_int_eq(run(log, ci_job, sets, out, 1, NULL), 0);
	expect_each_point_once(out, planned(sets));
	ck_assert_msg(has_end_time(out), "%s: --resume wrote no end time", what);
	expect_no_temporary(dir);
}

START_TEST(test_full_at_close)
{
	full_at_close("H4D05", 0);
	full_at_close("H4D06", 1);
}
END_TEST

/* ---- the file-size limit --------------------------------------------------- */

/* A run under a soft file-size limit of limit bytes (its own: the limit is
 * set around the fork and put back). */
static int run_limited(rlim_t limit, const char *log, const char *job, const char *const *sets,
		       const char *out)
{
	struct rlimit was, now;
	const char *args[32];
	ck_assert(getrlimit(RLIMIT_FSIZE, &was) == 0);
	now = was;
	now.rlim_cur = limit;
	run_args(args, job, sets, out, 0);
	ck_assert(setrlimit(RLIMIT_FSIZE, &now) == 0);
	pid_t pid = launch_start_alone(log, args);
	ck_assert(setrlimit(RLIMIT_FSIZE, &was) == 0);
	return launch_finish(pid);
}

/* Open MPI's singleton needs a few MB of files of its own (a 4 MB shared
 * segment), so the limits here start above that. */
#define LIMIT_BYTES ((rlim_t)6 << 20)

/* H4F01: the limit reached midway (was: SIGXFSZ, exit 153, at times the
 * hidden temporary left): exit 4, the limit named, the rows flushed so far
 * kept and said, no temporary; --resume without the limit completes it. */
START_TEST(test_fsize_limit_midway)
{
	char dir[512], out[600], log[600];
	snprintf(out, sizeof out, "%s/out.h5", folder("H4F01", dir, sizeof dir));
	snprintf(log, sizeof log, "%s/H4F01.log", tmpdir);
	int rc = run_limited(LIMIT_BYTES, log, ci_job, big_sets, out);
	char said[4096];
	snprintf(said, sizeof said, "%s", launch_slurp(log));
	ck_assert_msg(rc == 4, "exit %d: %s", rc, said);
	ck_assert_msg(strstr(said, "File too large: the file-size limit (ulimit -f) is 6.00 MiB"),
		      "%s", said);
	long safe = summary_rows(log, "rows of this run are safe in");
	hssize_t seen = launch_rows(out, "/measurements", NULL);
	struct stat sb;
	ck_assert(stat(out, &sb) == 0);
	ck_assert_msg(safe > 0 && safe == seen, "the summary says %ld rows, the file holds %lld",
		      safe, (long long)seen);
	ck_assert_msg((rlim_t)sb.st_size <= LIMIT_BYTES, "the file is %lld bytes",
		      (long long)sb.st_size);
	expect_no_temporary(dir);
	ck_assert_int_eq(run(log, ci_job, big_sets, out, 1, NULL), 0);
	expect_each_point_once(out, planned(big_sets));
}
END_TEST

/* H4F02: a limit below what a new file takes before its first row (the
 * full job's /plan): refused before the file is made, nothing left. */
START_TEST(test_fsize_limit_at_create)
{
	char dir[512], out[600], log[600], full[1024];
	snprintf(out, sizeof out, "%s/out.h5", folder("H4F02", dir, sizeof dir));
	snprintf(log, sizeof log, "%s/H4F02.log", tmpdir);
	snprintf(full, sizeof full, "%s/jobs/full.yaml", launch_env("SW_SOURCE_DIR"));
	int rc = run_limited(LIMIT_BYTES, log, full, NULL, out);
	const char *said = launch_slurp(log);
	ck_assert_msg(rc == 4, "exit %d: %s", rc, said);
	ck_assert_msg(strstr(said, "cannot create ") &&
			      strstr(said, "File too large: the file-size limit (ulimit -f)"),
		      "%s", said);
	ck_assert_msg(entries(dir) == 0, "%d files left in %s", entries(dir), dir);
}
END_TEST

/* ---- real small disks ------------------------------------------------------ */

/* A tmpfs of bytes at dir holding a copy of file (NULL: none) as out, and
 * a filler file that leaves free_bytes free; 0 when it cannot be mounted. */
static int small_disk(const char *dir, long bytes, const char *file, const char *out,
		      long free_bytes)
{
	char opts[64], filler[600];
	static char block[4096];
	struct statvfs vs;
	snprintf(opts, sizeof opts, "size=%ld", bytes);
	mkdir(dir, 0755);
	if (mount("tmpfs", dir, "tmpfs", 0, opts) != 0)
		return 0;
	if (file)
		copy(file, out);
	ck_assert(statvfs(dir, &vs) == 0);
	long fill = (long)(vs.f_bavail * vs.f_frsize) - free_bytes;
	snprintf(filler, sizeof filler, "%s/filler", dir);
	FILE *f = fopen(filler, "wb");
	for (long put = 0; f && put < fill;) {
		size_t n = fill - put < (long)sizeof block ? (size_t)(fill - put) : sizeof block;
		if (fwrite(block, 1, n, f) != n)
			break;
		put += (long)n;
	}
	if (f)
		fclose(f);
	return 1;
}

/* The filler gone: room again. */
static void free_disk(const char *dir)
{
	char filler[600];
	snprintf(filler, sizeof filler, "%s/filler", dir);
	unlink(filler);
}

/* H4D07: a new file on a disk with each of several amounts free, around
 * what creating it needs (about 1 MiB) and what its rows need: exit 0 or
 * 4, never a signal; no temporary; a file left is one --resume completes
 * once the disk has room, and a refused one leaves none. */
START_TEST(test_tmpfs_create_every_size)
{
	static const long kib[] = { 0, 64, 512, 900, 1100, 1300, 1600, 2500 };
	char dir[512], out[600], log[600];
	for (size_t i = 0; i < sizeof kib / sizeof kib[0]; i++) {
		snprintf(dir, sizeof dir, "%s/create%zu", tmpdir, i);
		snprintf(out, sizeof out, "%s/out.h5", dir);
		snprintf(log, sizeof log, "%s/create%zu.log", tmpdir, i);
		ck_assert_msg(small_disk(dir, 4 << 20, NULL, NULL, kib[i] << 10),
			      "cannot mount %s: %s", dir, strerror(errno));
		int rc = run(log, ci_job, NULL, out, 0, NULL);
		char said[4096];
		snprintf(said, sizeof said, "%s", launch_slurp(log));
		int made = access(out, F_OK) == 0;
		free_disk(dir);
		int resumed = made && rc == 4 ? run(log, ci_job, NULL, out, 1, NULL) : 0;
		int whole = !made || each_point_once(out, planned(NULL));
		int clean = entries(dir) == made; /* no temporary */
		umount(dir);
		ck_assert_msg(whole && clean, "%ld KiB free: %s", kib[i],
			      whole ? "a file left beside the output" : "not each point once");
		ck_assert_msg(rc == 0 || rc == 4, "%ld KiB free: exit %d: %s", kib[i], rc, said);
		ck_assert_msg(rc == 0 || strstr(said, "(the file system at "),
			      "%ld KiB free: the disk is not named: %s", kib[i], said);
		ck_assert_msg(rc == 4 || made, "%ld KiB free: exit 0 and no file", kib[i]);
		ck_assert_msg(resumed == 0, "%ld KiB free: --resume after: %d", kib[i], resumed);
	}
}
END_TEST

/* H4D08: an interrupted file resumed on a disk with each of several
 * amounts free: exit 0 or 4, never a signal; the file keeps the rows it
 * had and opens plainly (was: h5py refused it, and a later --resume failed
 * with "len not positive after adjustment for EOA"); --resume completes it
 * once the disk has room. */
START_TEST(test_tmpfs_resume_every_size)
{
	static const long kib[] = { 0, 256, 700, 900, 1300, 1800, 3000 };
	char dir[512], out[600], log[600];
	for (size_t i = 0; i < sizeof kib / sizeof kib[0]; i++) {
		snprintf(dir, sizeof dir, "%s/resume%zu", tmpdir, i);
		snprintf(out, sizeof out, "%s/out.h5", dir);
		snprintf(log, sizeof log, "%s/resume%zu.log", tmpdir, i);
		ck_assert_msg(small_disk(dir, 6 << 20, mid_src, out, kib[i] << 10),
			      "cannot mount %s: %s", dir, strerror(errno));
		int rc = run(log, ci_job, mid_sets, out, 1, NULL);
		char said[4096];
		snprintf(said, sizeof said, "%s", launch_slurp(log));
		hssize_t rows = launch_rows(out, "/measurements", NULL);
		free_disk(dir);
		int resumed = run(log, ci_job, mid_sets, out, 1, NULL);
		int whole = resumed == 0 && each_point_once(out, planned(mid_sets));
		umount(dir);
		ck_assert_msg(whole || resumed, "%ld KiB free: not each point once", kib[i]);
		ck_assert_msg(rc == 0 || rc == 4, "%ld KiB free: exit %d: %s", kib[i], rc, said);
		ck_assert_msg(rows >= 1024, "%ld KiB free: %lld rows open plainly after: %s",
			      kib[i], (long long)rows, said);
		ck_assert_msg(resumed == 0, "%ld KiB free: --resume after: %s", kib[i],
			      launch_slurp(log));
	}
}
END_TEST

/* May this process mount a tmpfs? (root without CAP_SYS_ADMIN may not) */
static int can_mount(void)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/probe", tmpdir);
	mkdir(dir, 0755);
	int ok = mount("tmpfs", dir, "tmpfs", 0, "size=64k") == 0;
	if (ok)
		umount(dir);
	rmdir(dir);
	return ok;
}

int main(int argc, char **argv)
{
	int tmpfs = argc > 1 && strcmp(argv[1], "tmpfs") == 0;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	snprintf(ci_job, sizeof ci_job, "%s/jobs/ci.yaml", launch_env("SW_SOURCE_DIR"));
	if (launch_make_tmpdir(tmpdir, sizeof tmpdir, "room") != 0)
		return EXIT_FAILURE;
	if (tmpfs && !can_mount()) {
		printf("cannot mount a tmpfs here (%s): SKIPPED\n", strerror(errno));
		rmdir(tmpdir);
		return 77;
	}
	/* the interrupted file the resume cases copy: the mid job, its disk
	 * "full" (the fault switch) after its first 1024 rows */
	char log[600];
	snprintf(mid_src, sizeof mid_src, "%s/mid.h5", tmpdir);
	snprintf(log, sizeof log, "%s/mid.log", tmpdir);
	if (run(log, ci_job, mid_sets, mid_src, 0, "enospc:1100") != 4 ||
	    launch_rows(mid_src, "/measurements", NULL) != 1024) {
		fprintf(stderr, "cannot make %s: %s\n", mid_src, launch_slurp(log));
		return EXIT_FAILURE;
	}
	Suite *s = suite_create("room");
	TCase *tc = tcase_create("room");
	tcase_set_timeout(tc, 600);
	if (tmpfs) {
		tcase_add_test(tc, test_tmpfs_create_every_size);
		tcase_add_test(tc, test_tmpfs_resume_every_size);
	} else {
		tcase_add_test(tc, test_full_at_create);
		tcase_add_test(tc, test_full_at_swmr_create);
		tcase_add_test(tc, test_full_at_resume);
		tcase_add_test(tc, test_full_at_swmr_resume);
		tcase_add_test(tc, test_full_at_close);
		tcase_add_test(tc, test_fsize_limit_midway);
		tcase_add_test(tc, test_fsize_limit_at_create);
	}
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
