/*
 * A plug-in is more than its file (issue 30, causes 3 and 9;
 * docs/bad-inputs.md H4G08 to H4G14, the other H4G rows are
 * test_bad_input's), end to end through the binary. A plug-in that links a
 * library found by LD_LIBRARY_PATH (plugin_hostile_dep_env.so, whose bytes
 * moved are 1 or 2 times the array as libswdep.so says) is run, then the
 * library is swapped for its other build: --resume and its --dry-run are
 * refused, naming the library and both paths, and the file is unchanged;
 * with the first build it completes, every row of one library. A --plugin
 * run records its plug-in: --resume without it is refused naming the
 * recorded path and content, with a copy of it elsewhere it completes.
 * Paths from ctest.
 */
#define _GNU_SOURCE
#include <check.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "launch.h"

#define HOSTILE_JOB "families:\n  hostile:\n"

static char dir[256];

static void copy(const char *from, const char *to)
{
	size_t n;
	char *buf = launch_read_file(from, &n);
	FILE *f = fopen(to, "wb");
	ck_assert(f && fwrite(buf, 1, n, f) == n && fclose(f) == 0);
	free(buf);
}

/* A test plug-in or library of the build (a path under SW_TEST_PLUGINS) to
 * where/name. */
static void copy_built(const char *built, const char *where, const char *name)
{
	char from[700], to[700];
	snprintf(from, sizeof from, "%s/%s", launch_env("SW_TEST_PLUGINS"), built);
	snprintf(to, sizeof to, "%s/%s", where, name);
	copy(from, to);
}

/* sweep --backend model -q ARGS in folder where, with LD_LIBRARY_PATH libs
 * (NULL: unset) and SW_TEST_FAULT fault (NULL: none); the exit code, its
 * output in log. */
static int run_in(const char *where, const char *libs, const char *fault, const char *log,
		  const char *const *args)
{
	char here[PATH_MAX];
	const char *argv[24] = { "--backend", "model", "-q" };
	int k = 3;
	for (int i = 0; args[i] && k < 23; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	ck_assert_ptr_nonnull(getcwd(here, sizeof here));
	ck_assert_int_eq(chdir(where), 0);
	if (libs)
		setenv("LD_LIBRARY_PATH", libs, 1);
	if (fault)
		setenv("SW_TEST_FAULT", fault, 1);
	int rc = launch_run(1, log, argv);
	unsetenv("LD_LIBRARY_PATH");
	unsetenv("SW_TEST_FAULT");
	ck_assert_int_eq(chdir(here), 0);
	return rc;
}

/* SW_TEST_FAULT's dead:ID for the 11th point a complete run of the job
 * made in where (as full.h5) ran: a run with it stops there, 10 rows in. */
static void eleventh_point(const char *where, const char *libs, const char *const *plugin,
			   char *fault, size_t len)
{
	char log[400], full[400];
	const char *args[8] = { 0 };
	int k = 0;
	for (int i = 0; plugin && plugin[i]; i++)
		args[k++] = plugin[i];
	args[k++] = "job.yaml";
	args[k++] = "-o";
	args[k++] = "full.h5";
	snprintf(log, sizeof log, "%s/full.log", where);
	snprintf(full, sizeof full, "%s/full.h5", where);
	ck_assert_msg(run_in(where, libs, NULL, log, args) == 0, "%s", launch_slurp(log));
	uint64_t *ids;
	ck_assert_int_eq(launch_rows(full, "/measurements", &ids), 24);
	snprintf(fault, len, "dead:%016" PRIx64, ids[10]);
	free(ids);
}

/* A root attribute of path that is a list of texts: its first one. */
static void first_text(const char *path, const char *name, char *text, size_t len)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), a = H5Aopen(f, name, H5P_DEFAULT);
	hid_t t = H5Tcopy(H5T_C_S1), sp = H5Aget_space(a);
	char *v[8] = { 0 };
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	ck_assert_msg(a >= 0 && H5Sget_simple_extent_npoints(sp) <= 8 && H5Aread(a, t, v) >= 0,
		      "%s: no %s", path, name);
	snprintf(text, len, "%s", v[0] ? v[0] : "");
	H5Dvlen_reclaim(t, sp, H5P_DEFAULT, v);
	H5Sclose(sp), H5Tclose(t), H5Aclose(a), H5Fclose(f);
}

static hssize_t list_length(const char *path, const char *name)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), a = H5Aopen(f, name, H5P_DEFAULT);
	hid_t sp = H5Aget_space(a);
	hssize_t n = H5Sget_simple_extent_npoints(sp);
	H5Sclose(sp), H5Aclose(a), H5Fclose(f);
	return n;
}

static int has_attr(const char *path, const char *name)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert(f >= 0);
	int has = H5Aexists(f, name) > 0;
	H5Fclose(f);
	return has;
}

/* The log holds the text (and says so when it does not). */
static void said(const char *log, const char *text)
{
	ck_assert_msg(strstr(launch_slurp(log), text), "\"%s\" not in: %s", text,
		      launch_slurp(log));
}

/* Every measured row of path moved 4 bytes an element once: all of them
 * ran with the first build of libswdep.so (the second doubles it). */
static void rows_of_one_library(const char *path, size_t want)
{
	size_t n, n2, n3;
	int64_t *elems = launch_column(path, "measurements", "n", H5T_NATIVE_INT64, 8, &n);
	double *bytes =
		launch_column(path, "measurements", "useful_bytes", H5T_NATIVE_DOUBLE, 8, &n2);
	int32_t *status = launch_column(path, "measurements", "status", H5T_NATIVE_INT32, 4, &n3);
	size_t ok = 0;
	ck_assert(n == n2 && n == n3);
	for (size_t i = 0; i < n; i++) {
		if (status[i] != 0)
			continue;
		ok++;
		ck_assert_msg(bytes[i] == 4.0 * (double)elems[i],
			      "row %zu: %g bytes for n %" PRId64, i, bytes[i], elems[i]);
	}
	ck_assert_uint_eq(ok, want);
	free(elems), free(bytes), free(status);
}

/* ---- cause 3: the library a plug-in brings in ------------------------------ */

START_TEST(test_resume_with_another_library_is_refused)
{
	char w[300], liba[400], libb[400], out[400], log[400], real[PATH_MAX], rec[PATH_MAX];
	char fault[64], want[1200];
	snprintf(w, sizeof w, "%s/ld", dir);
	snprintf(liba, sizeof liba, "%s/liba", w);
	snprintf(libb, sizeof libb, "%s/libb", w);
	snprintf(out, sizeof out, "%s/out.h5", w);
	ck_assert(mkdir(w, 0755) == 0 && mkdir(liba, 0755) == 0 && mkdir(libb, 0755) == 0);
	copy_built("plugin_hostile_dep_env.so", w, "p.so");
	copy_built("dep_a/libswdep.so", liba, "libswdep.so");
	copy_built("dep_b/libswdep.so", libb, "libswdep.so");
	snprintf(log, sizeof log, "%s/job.yaml", w);
	launch_write_text(log, "plugins: [p.so]\n" HOSTILE_JOB);

	/* session 0 stops at its 11th point, with liba's build */
	eleventh_point(w, liba, NULL, fault, sizeof fault);
	snprintf(log, sizeof log, "%s/new.log", w);
	const char *made[] = { "job.yaml", "-o", "out.h5", NULL };
	ck_assert_msg(run_in(w, liba, fault, log, made) == 5, "%s", launch_slurp(log));
	ck_assert_int_eq(launch_rows(out, "/measurements", NULL), 11);
	/* what the rows were measured with */
	snprintf(log, sizeof log, "%s/p.so", w);
	ck_assert_ptr_nonnull(realpath(log, real));
	first_text(out, "plugin_loaded_paths", rec, sizeof rec);
	ck_assert_str_eq(rec, real);
	first_text(out, "plugin_libraries", rec, sizeof rec);
	snprintf(want, sizeof want, "%s/libswdep.so", liba);
	ck_assert_str_eq(rec, want);
	ck_assert_int_eq(list_length(out, "plugin_libraries"), 1); /* libc is not the plug-in's */

	/* H4G08 and H4G09 (was: exit 0, 13 rows of twice the bytes beside 10 of once) */
	size_t before_len, after_len;
	char *before = launch_read_file(out, &before_len);
	const char *resume[] = { "--resume", "job.yaml", "-o", "out.h5", NULL };
	const char *dry[] = { "--dry-run", "--resume", "job.yaml", "-o", "out.h5", NULL };
	for (int i = 0; i < 2; i++) {
		snprintf(log, sizeof log, "%s/other%d.log", w, i);
		int rc = run_in(w, libb, NULL, log, i ? dry : resume);
		ck_assert_msg(rc == 2, "exit %d: %s", rc, launch_slurp(log));
		snprintf(
			want, sizeof want,
			"sweep: cannot resume out.h5: the library libswdep.so of the plug-in p.so: "
			"the file was made with %s/libswdep.so (content ",
			liba);
		said(log, want);
		snprintf(want, sizeof want, "), this run loads %s/libswdep.so (content ", libb);
		said(log, want);
		said(log, "); rows measured with other code would disagree with its rows: load "
			  "the same plug-ins and libraries, or write a new file");
	}
	char *after = launch_read_file(out, &after_len);
	ck_assert_msg(before_len == after_len && !memcmp(before, after, before_len),
		      "a refused resume changed %s", out);
	free(before), free(after);

	/* H4G09: with the build the file was made with, from another folder: it completes */
	char moved[400];
	snprintf(moved, sizeof moved, "%s/moved", w);
	ck_assert(mkdir(moved, 0755) == 0);
	copy_built("dep_a/libswdep.so", moved, "libswdep.so");
	snprintf(log, sizeof log, "%s/same.log", w);
	ck_assert_msg(run_in(w, moved, NULL, log, resume) == 0, "%s", launch_slurp(log));
	rows_of_one_library(out, 23);
}
END_TEST

/* ---- cause 9: a --plugin run records its plug-in -------------------------- */

START_TEST(test_plugin_option_is_recorded)
{
	char w[300], out[400], log[400], real[PATH_MAX], rec[PATH_MAX], fault[64], want[1200];
	snprintf(w, sizeof w, "%s/opt", dir);
	snprintf(out, sizeof out, "%s/out.h5", w);
	ck_assert(mkdir(w, 0755) == 0);
	copy_built("plugin_hostile.so", w, "q.so");
	copy_built("plugin_hostile_other.so", w, "o.so");
	snprintf(log, sizeof log, "%s/job.yaml", w);
	launch_write_text(log, HOSTILE_JOB);

	const char *plugin[] = { "--plugin", "q.so", NULL };
	eleventh_point(w, NULL, plugin, fault, sizeof fault);
	snprintf(log, sizeof log, "%s/new.log", w);
	const char *made[] = { "--plugin", "q.so", "job.yaml", "-o", "out.h5", NULL };
	ck_assert_msg(run_in(w, NULL, fault, log, made) == 5, "%s", launch_slurp(log));
	snprintf(log, sizeof log, "%s/q.so", w);
	ck_assert_ptr_nonnull(realpath(log, real));
	first_text(out, "plugin_loaded_paths", rec, sizeof rec);
	ck_assert_str_eq(rec, real);
	/* the job names no plug-in, and the plug-in no library */
	ck_assert(!has_attr(out, "plugin_paths") && !has_attr(out, "plugin_libraries"));

	/* H4G10: without it, refused naming it (was: "unknown family", no hint) */
	snprintf(log, sizeof log, "%s/without.log", w);
	const char *without[] = { "--resume", "job.yaml", "-o", "out.h5", NULL };
	ck_assert_int_eq(run_in(w, NULL, NULL, log, without), 2);
	snprintf(want, sizeof want,
		 "sweep: cannot resume out.h5: it was made with the plug-in %s (content ", real);
	said(log, want);
	snprintf(want, sizeof want,
		 "), which this run does not load, and sweep loads none on a file's word: give "
		 "it with --plugin %s or the job's plugins: (job.yaml:2:3: unknown family "
		 "`hostile`",
		 real);
	said(log, want);

	/* H4G13: another build of its family, refused */
	snprintf(log, sizeof log, "%s/other.log", w);
	const char *other[] = { "--resume", "--plugin", "o.so", "job.yaml", "-o", "out.h5", NULL };
	ck_assert_int_eq(run_in(w, NULL, NULL, log, other), 2);
	snprintf(want, sizeof want,
		 "sweep: cannot resume out.h5: the file was made with the plug-in %s (content ",
		 real);
	said(log, want);
	said(log, "), this run loads none of that content; rows measured with other code");
	ck_assert_int_eq(launch_rows(out, "/measurements", NULL), 11);

	/* H4G14: the same file, copied elsewhere under another name: it completes */
	char there[400];
	snprintf(there, sizeof there, "%s/elsewhere", w);
	ck_assert(mkdir(there, 0755) == 0);
	copy_built("plugin_hostile.so", there, "z.so");
	snprintf(log, sizeof log, "%s/copy.log", w);
	const char *copy_of[] = { "--resume", "--plugin", "elsewhere/z.so", "job.yaml", "-o",
				  "out.h5",   NULL };
	ck_assert_msg(run_in(w, NULL, NULL, log, copy_of) == 0, "%s", launch_slurp(log));
	rows_of_one_library(out, 23);
	/* a resume leaves the record as its first session wrote it */
	first_text(out, "plugin_loaded_paths", rec, sizeof rec);
	ck_assert_str_eq(rec, real);
}
END_TEST

int main(void)
{
	if (launch_make_tmpdir(dir, sizeof dir, "plugin-identity") != 0)
		return 1;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	Suite *s = suite_create("plugin_identity");
	TCase *tc = tcase_create("identity");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_resume_with_another_library_is_refused);
	tcase_add_test(tc, test_plugin_option_is_recorded);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, dir);
}
