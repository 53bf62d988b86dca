/*
 * A result file's own job read again by --resume and --extend, and
 * --extend's bookkeeping, end to end through the binary (issue 23, causes 4
 * and 5; docs/bad-inputs.md J09 to J11 and E14 to E17). A stored job takes
 * the plug-ins its file records, never a file of that name in the working
 * directory: a plug-in there that leaves MARK when loaded shows it was not.
 * A failed --extend leaves the file's job and rows as they were, so the
 * file's own job resumes it; --dry-run --extend says what it would add;
 * --extend adds model targets, and grows /measurements for an axis it has
 * no column for. The refusals are rows of test_bad_input. Paths from ctest.
 */
#define _GNU_SOURCE
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "launch.h"

#define PLUG_JOB  "plugins: [p.so]\nfamilies:\n  hostile:\n"
#define PLUG_MORE PLUG_JOB "    axes:\n      n: 1K,2K,3K,4K,5K\n"
#define AGAIN     "# the same job, another text\n"

static char dir[256];
static char ci_job[600];

static void copy(const char *from, const char *to)
{
	size_t n;
	char *buf = launch_read_file(from, &n);
	FILE *f = fopen(to, "wb");
	ck_assert(f && fwrite(buf, 1, n, f) == n && fclose(f) == 0);
	free(buf);
}

static void copy_plugin(const char *name, const char *to)
{
	char from[700];
	snprintf(from, sizeof from, "%s/%s", launch_env("SW_TEST_PLUGINS"), name);
	copy(from, to);
}

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* sweep --backend model ARGS in folder where (the test's own folder again
 * after it); the exit code, the log in log. */
static int run_in(const char *where, const char *log, const char *const *args)
{
	char here[PATH_MAX];
	const char *argv[24] = { "--backend", "model" };
	int k = 2;
	for (int i = 0; args[i] && k < 23; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	ck_assert_ptr_nonnull(getcwd(here, sizeof here));
	ck_assert_int_eq(chdir(where), 0);
	int rc = launch_run(1, log, argv);
	ck_assert_int_eq(chdir(here), 0);
	return rc;
}

/* A root attribute of path: a number, or the text of a string (scalar, or
 * the first of a list) into text. */
static uint64_t root_u64(const char *path, const char *name)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), a = H5Aopen(f, name, H5P_DEFAULT);
	uint64_t v = 0;
	ck_assert_msg(a >= 0 && H5Aread(a, H5T_NATIVE_UINT64, &v) >= 0, "%s: no %s", path, name);
	H5Aclose(a);
	H5Fclose(f);
	return v;
}

static void root_text(const char *path, const char *name, char *text, size_t len)
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

/* Every row of a table, as its file stores them (caller frees); its file
 * type in *type (caller closes), *n rows. */
static unsigned char *table_bytes(const char *path, const char *table, hid_t *type, hssize_t *n)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, table, H5P_DEFAULT);
	ck_assert_msg(d >= 0, "%s: no /%s", path, table);
	hid_t sp = H5Dget_space(d);
	*type = H5Dget_type(d);
	*n = H5Sget_simple_extent_npoints(sp);
	unsigned char *buf = calloc((size_t)*n + 1, H5Tget_size(*type));
	ck_assert(buf && (*n == 0 || H5Dread(d, *type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0));
	H5Sclose(sp), H5Dclose(d), H5Fclose(f);
	return buf;
}

/* ---- J09 to J11: a stored job's plug-ins, from another folder --------------- */

START_TEST(test_stored_plugins_from_another_folder)
{
	char a[300], b[300], p[400], log[400], out[400], old[400], mark_a[400], mark_b[400];
	char real[PATH_MAX], recorded[PATH_MAX];
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(b, sizeof b, "%s/b", dir);
	snprintf(out, sizeof out, "%s/out.h5", a);
	snprintf(mark_a, sizeof mark_a, "%s/MARK", a);
	snprintf(mark_b, sizeof mark_b, "%s/MARK", b);
	ck_assert(mkdir(a, 0755) == 0 && mkdir(b, 0755) == 0);
	snprintf(p, sizeof p, "%s/p.so", a);
	copy_plugin("plugin_hostile.so", p);
	ck_assert_ptr_nonnull(realpath(p, real));
	/* b's p.so is another plug-in of that name, one that leaves b/MARK */
	snprintf(p, sizeof p, "%s/p.so", b);
	copy_plugin("plugin_hostile_mark.so", p);
	snprintf(p, sizeof p, "%s/job.yaml", a);
	launch_write_text(p, PLUG_JOB);
	snprintf(p, sizeof p, "%s/again.yaml", a);
	launch_write_text(p, AGAIN PLUG_JOB);
	snprintf(p, sizeof p, "%s/more.yaml", a);
	launch_write_text(p, PLUG_MORE);
	snprintf(p, sizeof p, "%s/more_again.yaml", a);
	launch_write_text(p, AGAIN PLUG_MORE);

	snprintf(log, sizeof log, "%s/new.log", dir);
	const char *made[] = { "-q", "job.yaml", "-o", "out.h5", NULL };
	ck_assert_msg(run_in(a, log, made) == 0, "%s", launch_slurp(log));
	root_text(out, "plugin_paths", recorded, sizeof recorded);
	ck_assert_str_eq(recorded, real);

	/* J09: its job read again from b (another text of it): b/p.so not loaded */
	snprintf(log, sizeof log, "%s/resume.log", dir);
	const char *resume[] = { "-q", "--resume", "../a/again.yaml", "-o", "../a/out.h5", NULL };
	ck_assert_msg(run_in(b, log, resume) == 0, "%s", launch_slurp(log));
	ck_assert_msg(!exists(mark_b) && !exists(mark_a), "b/p.so was loaded: %s",
		      launch_slurp(log));

	/* J10: --extend from b, --dry-run first; the record becomes the new job's */
	snprintf(log, sizeof log, "%s/dry.log", dir);
	const char *dry[] = { "--dry-run", "--extend", "../a/more.yaml", "-o", "../a/out.h5", NULL };
	ck_assert_msg(run_in(b, log, dry) == 0, "%s", launch_slurp(log));
	ck_assert_msg(strstr(launch_slurp(log), "sweep: --extend: ../a/out.h5 passes every check; "
						"24 of the job's 30 points are in it, 6 would "
						"be added"),
		      "%s", launch_slurp(log));
	snprintf(log, sizeof log, "%s/extend.log", dir);
	const char *extend[] = { "-q", "--extend", "../a/more.yaml", "-o", "../a/out.h5", NULL };
	ck_assert_msg(run_in(b, log, extend) == 0, "%s", launch_slurp(log));
	ck_assert_msg(!exists(mark_b), "b/p.so was loaded: %s", launch_slurp(log));
	ck_assert_int_eq(launch_rows(out, "/measurements", NULL), 30);
	ck_assert_uint_eq(root_u64(out, "plan_points"), 30);
	root_text(out, "plugin_paths", recorded, sizeof recorded);
	ck_assert_str_eq(recorded, real);

	/* J11: the same file as a sweep of schema 6 wrote it, without the record:
	 * the stored job's p.so is the one beside the job given now */
	snprintf(old, sizeof old, "%s/old.h5", a);
	copy(out, old);
	hid_t f = H5Fopen(old, H5F_ACC_RDWR, H5P_DEFAULT), s;
	int six = 6;
	ck_assert(f >= 0 && H5Adelete(f, "plugin_paths") >= 0 &&
		  H5Adelete(f, "plugin_hashes") >= 0);
	s = H5Aopen(f, "schema_version", H5P_DEFAULT);
	ck_assert(s >= 0 && H5Awrite(s, H5T_NATIVE_INT, &six) >= 0);
	H5Aclose(s), H5Fclose(f);
	snprintf(log, sizeof log, "%s/old.log", dir);
	const char *again[] = {
		"-q", "--resume", "../a/more_again.yaml", "-o", "../a/old.h5", NULL
	};
	ck_assert_msg(run_in(b, log, again) == 0, "%s", launch_slurp(log));
	ck_assert_msg(!exists(mark_b), "b/p.so was loaded: %s", launch_slurp(log));
	ck_assert_int_eq(launch_rows(old, "/measurements", NULL), 30);
}
END_TEST

/* ---- E14 to E17: --extend's bookkeeping, on jobs/ci.yaml's file ------------- */

/* A complete file of jobs/ci.yaml at dir/name.h5 (its path in out). */
static void ci_file(const char *name, char *out, size_t len)
{
	char log[400];
	snprintf(out, len, "%s/%s.h5", dir, name);
	snprintf(log, sizeof log, "%s/%s.log", dir, name);
	const char *args[] = { "-q", ci_job, "-o", out, NULL };
	ck_assert_msg(run_in(dir, log, args) == 0, "%s", launch_slurp(log));
}

/* E14: the latest failure of an --extend's opening, a full disk as it
 * flushes its /devices rows (SW_TEST_FAULT=enospc:0); was: the file's job
 * was the enlarged one by then, and a --resume of its own job refused */
START_TEST(test_failed_extend_changes_no_job)
{
	char out[400], log[400], before[8192], after[8192];
	hid_t t0, t1;
	hssize_t n0, n1;
	ci_file("fail", out, sizeof out);
	uint64_t fingerprint = root_u64(out, "plan_fingerprint");
	root_text(out, "job_text", before, sizeof before);
	unsigned char *rows = table_bytes(out, "measurements", &t0, &n0);

	snprintf(log, sizeof log, "%s/fail-extend.log", dir);
	const char *extend[] = { "-q",   "--extend", "--set", "strided_read.n=1M,4M,16M",
				 ci_job, "-o",       out,     NULL };
	setenv("SW_TEST_FAULT", "enospc:0", 1);
	int rc = run_in(dir, log, extend);
	unsetenv("SW_TEST_FAULT");
	ck_assert_msg(rc == 4 && strstr(launch_slurp(log), "No space left on device"),
		      "exit code %d: %s", rc, launch_slurp(log));
	ck_assert_uint_eq(root_u64(out, "plan_fingerprint"), fingerprint);
	ck_assert_uint_eq(root_u64(out, "plan_points"), (uint64_t)n0);
	root_text(out, "job_text", after, sizeof after);
	ck_assert_str_eq(after, before);

	snprintf(log, sizeof log, "%s/fail-resume.log", dir);
	const char *resume[] = { "-q", "--resume", ci_job, "-o", out, NULL };
	ck_assert_msg(run_in(dir, log, resume) == 0, "%s", launch_slurp(log));
	unsigned char *now = table_bytes(out, "measurements", &t1, &n1);
	ck_assert_int_eq(n1, n0);
	ck_assert_int_gt(H5Tequal(t0, t1), 0);
	ck_assert_msg(!memcmp(rows, now, (size_t)n0 * H5Tget_size(t0)),
		      "the rows differ after the failed --extend and the --resume");
	free(rows), free(now);
	H5Tclose(t0), H5Tclose(t1);
}
END_TEST

/* E15: --dry-run --extend makes every check, says what it would add and
 * changes nothing */
START_TEST(test_dry_run_extend_says_what_it_adds)
{
	char out[400], log[400];
	size_t n0, n1;
	ci_file("dry", out, sizeof out);
	char *before = launch_read_file(out, &n0);
	snprintf(log, sizeof log, "%s/dry-extend.log", dir);
	const char *dry[] = { "--dry-run", "--extend", "--set", "strided_read.n=1M,4M,16M",
			      ci_job,      "-o",       out,     NULL };
	ck_assert_msg(run_in(dir, log, dry) == 0, "%s", launch_slurp(log));
	ck_assert_msg(strstr(launch_slurp(log), "passes every check; 144 of the job's 216 points "
						"are in it, 72 would be added"),
		      "%s", launch_slurp(log));
	char *now = launch_read_file(out, &n1);
	ck_assert_msg(n0 == n1 && !memcmp(before, now, n0), "--dry-run --extend changed %s", out);
	free(before), free(now);
}
END_TEST

/* E16: one more model target; was: refused, "the number of model.ccs is 4
 * in the file, 5 in this job" */
START_TEST(test_extend_adds_model_targets)
{
	char out[400], log[400], job[400];
	ci_file("ccs", out, sizeof out);
	char *text = launch_read_file(ci_job, NULL),
	     *at = strstr(text, "ccs: [6.0, 7.0, 8.0, 9.0]");
	ck_assert_ptr_nonnull(at);
	snprintf(job, sizeof job, "%s/ccs.yaml", dir);
	FILE *f = fopen(job, "w");
	ck_assert(f &&
		  fprintf(f, "%.*sccs: [6.0, 7.0, 8.0, 9.0, 12.0]%s", (int)(at - text), text,
			  at + strlen("ccs: [6.0, 7.0, 8.0, 9.0]")) > 0 &&
		  fclose(f) == 0);
	free(text);
	snprintf(log, sizeof log, "%s/ccs-extend.log", dir);
	const char *extend[] = { "-q", "--extend", job, "-o", out, NULL };
	ck_assert_msg(run_in(dir, log, extend) == 0, "%s", launch_slurp(log));
	ck_assert_int_eq(launch_rows(out, "/measurements", NULL), 144 + 36);
	snprintf(log, sizeof log, "%s/ccs-resume.log", dir);
	const char *resume[] = { "-q", "--resume", job, "-o", out, NULL };
	ck_assert_msg(run_in(dir, log, resume) == 0, "%s", launch_slurp(log));
	ck_assert_int_eq(launch_rows(out, "/measurements", NULL), 144 + 36);
}
END_TEST

/* E17: a plug-in family whose axis, `width`, the file has no column for;
 * was: refused, "/measurements has no column 'width'; it was written by an
 * older sweep or one with other kernels" */
START_TEST(test_extend_grows_an_axis_column)
{
	char out[400], log[400], job[400], w[400], units[64];
	hid_t t0, t1;
	hssize_t n0, n1;
	ci_file("width", out, sizeof out);
	unsigned char *old = table_bytes(out, "measurements", &t0, &n0);
	snprintf(w, sizeof w, "%s/w.so", dir);
	copy_plugin("plugin_hostile_width.so", w);
	char *ci = launch_read_file(ci_job, NULL);
	snprintf(job, sizeof job, "%s/width.yaml", dir);
	FILE *f = fopen(job, "w");
	ck_assert(f && fprintf(f, "plugins: [w.so]\n%s  widths:\n", ci) > 0 && fclose(f) == 0);
	free(ci);
	snprintf(log, sizeof log, "%s/width-extend.log", dir);
	const char *extend[] = { "-q", "--extend", job, "-o", out, NULL };
	ck_assert_msg(run_in(dir, log, extend) == 0, "%s", launch_slurp(log));

	unsigned char *now = table_bytes(out, "measurements", &t1, &n1);
	ck_assert_int_eq(n1, n0 + 16); /* 4 widths x 4 model targets */
	int m0 = H5Tget_nmembers(t0), width = H5Tget_member_index(t1, "width");
	ck_assert_int_eq(H5Tget_nmembers(t1), m0 + 1);
	ck_assert_int_ge(width, 0);
	size_t r0 = H5Tget_size(t0), r1 = H5Tget_size(t1);
	size_t woff = H5Tget_member_offset(t1, (unsigned)width);
	for (int m = 0; m < m0; m++) { /* every old column, byte for byte */
		char *name = H5Tget_member_name(t0, (unsigned)m);
		int k = H5Tget_member_index(t1, name);
		hid_t mt = H5Tget_member_type(t0, (unsigned)m);
		size_t a = H5Tget_member_offset(t0, (unsigned)m), len = H5Tget_size(mt);
		ck_assert_int_ge(k, 0);
		size_t b = H5Tget_member_offset(t1, (unsigned)k);
		for (hssize_t r = 0; r < n0; r++)
			ck_assert_msg(!memcmp(old + r * r0 + a, now + r * r1 + b, len),
				      "row %lld, column %s differs", (long long)r, name);
		H5Tclose(mt);
		H5free_memory(name);
	}
	for (hssize_t r = 0; r < n1; r++) {
		int64_t v;
		memcpy(&v, now + r * r1 + woff, sizeof v);
		ck_assert_msg(r < n0 ? v == -1 : v >= 1024, "row %lld: width %lld", (long long)r,
			      (long long)v);
	}
	hid_t fl = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT),
	      d = H5Dopen2(fl, "measurements", H5P_DEFAULT);
	hid_t a = H5Aopen(d, "units:width", H5P_DEFAULT), st = H5Tcopy(H5T_C_S1);
	char *u = NULL;
	H5Tset_size(st, H5T_VARIABLE);
	H5Tset_cset(st, H5T_CSET_UTF8);
	ck_assert(a >= 0 && H5Aread(a, st, &u) >= 0);
	snprintf(units, sizeof units, "%s", u);
	H5free_memory(u);
	H5Aclose(a), H5Tclose(st), H5Dclose(d), H5Fclose(fl);
	ck_assert_str_eq(units, "elements");
	free(old), free(now);
	H5Tclose(t0), H5Tclose(t1);

	snprintf(log, sizeof log, "%s/width-resume.log", dir);
	const char *resume[] = { "-q", "--resume", job, "-o", out, NULL };
	ck_assert_msg(run_in(dir, log, resume) == 0, "%s", launch_slurp(log));
	ck_assert_int_eq(launch_rows(out, "/measurements", NULL), n0 + 16);
}
END_TEST

/* ---- issue 36, cause 6: a file of schema 7 resumes and extends ------------- */

/* One attribute of a table onto its copy (to), as it is. */
static herr_t copy_attr(hid_t loc, const char *name, const H5A_info_t *info, void *to)
{
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT), t = H5Aget_type(a), sp = H5Aget_space(a);
	size_t n = (size_t)H5Sget_simple_extent_npoints(sp);
	void *buf = calloc(n ? n : 1, H5Tget_size(t));
	hid_t b = H5Acreate2(*(hid_t *)to, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	(void)info;
	ck_assert(buf && H5Aread(a, t, buf) >= 0 && b >= 0 && H5Awrite(b, t, buf) >= 0);
	if (H5Tis_variable_str(t) > 0)
		H5Dvlen_reclaim(t, sp, H5P_DEFAULT, buf);
	free(buf);
	H5Aclose(b), H5Sclose(sp), H5Tclose(t), H5Aclose(a);
	return 0;
}

/* Table name of f as a sweep before schema 8 wrote it: the same rows,
 * chunks, fill value and attributes, without the columns drop[0..n). */
static void drop_columns(hid_t f, const char *name, const char *const *drop, int n)
{
	hid_t d = H5Dopen2(f, name, H5P_DEFAULT), ft = H5Dget_type(d);
	size_t size = 0;
	for (int pass = 0; pass < 2; pass++) {
		hid_t nt = pass ? H5Tcreate(H5T_COMPOUND, size) : H5I_INVALID_HID;
		size_t at = 0;
		for (int i = 0; i < H5Tget_nmembers(ft); i++) {
			char *col = H5Tget_member_name(ft, (unsigned)i);
			hid_t mt = H5Tget_member_type(ft, (unsigned)i);
			int kept = 1;
			for (int k = 0; k < n; k++)
				kept &= strcmp(col, drop[k]) != 0;
			if (kept && pass)
				ck_assert(H5Tinsert(nt, col, at, mt) >= 0);
			at += kept ? H5Tget_size(mt) : 0;
			H5Tclose(mt);
			H5free_memory(col);
		}
		size = at;
		if (!pass)
			continue;
		hid_t old = H5Dget_create_plist(d), dcpl = H5Pcreate(H5P_DATASET_CREATE);
		hid_t space = H5Dget_space(d);
		hsize_t chunk, rows = (hsize_t)H5Sget_simple_extent_npoints(space);
		unsigned char *fill = calloc(1, size), *buf = calloc(rows + 1, size);
		ck_assert(H5Pget_chunk(old, 1, &chunk) == 1 &&
			  H5Pget_fill_value(old, nt, fill) >= 0 &&
			  H5Pset_chunk(dcpl, 1, &chunk) >= 0 &&
			  H5Pset_fill_value(dcpl, nt, fill) >= 0);
		hid_t copy = H5Dcreate2(f, "copy", nt, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
		ck_assert(copy >= 0 &&
			  (!rows || (H5Dread(d, nt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 &&
				     H5Dwrite(copy, nt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)));
		ck_assert(H5Aiterate2(d, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_attr, &copy) >= 0);
		free(fill), free(buf);
		H5Dclose(copy), H5Sclose(space), H5Pclose(dcpl), H5Pclose(old), H5Tclose(nt);
	}
	H5Tclose(ft), H5Dclose(d);
	ck_assert(H5Ldelete(f, name, H5P_DEFAULT) >= 0 &&
		  H5Lmove(f, "copy", f, name, H5P_DEFAULT, H5P_DEFAULT) >= 0);
}

/* path, a fresh file, as a schema 7 sweep made it (docs/hdf5-schema.md,
 * schema_version): without the time model's columns and `emulates`, the
 * tables and attributes schema 8 added, of version 7. */
static void make_schema_7(const char *path)
{
	static const char *const meas[] = { "model_device", "model_time_ns", "model_time_term",
					    "model_time_basis" };
	static const char *const dev[] = { "emulates" };
	static const char *const tables[] = { "model_rates", "replays", "model_accesses",
					      "axis_names" };
	static const char *const attrs[] = { "plugin_loaded_paths", "plugin_loaded_hashes",
					     "plugin_libraries", "plugin_library_hashes",
					     "plugin_library_owners" };
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	int seven = 7;
	ck_assert(f >= 0);
	drop_columns(f, "measurements", meas, 4);
	drop_columns(f, "devices", dev, 1);
	for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
		if (H5Lexists(f, tables[i], H5P_DEFAULT) > 0)
			ck_assert(H5Ldelete(f, tables[i], H5P_DEFAULT) >= 0);
	for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++)
		if (H5Aexists(f, attrs[i]) > 0)
			ck_assert(H5Adelete(f, attrs[i]) >= 0);
	hid_t a = H5Aopen(f, "schema_version", H5P_DEFAULT);
	ck_assert(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &seven) >= 0);
	H5Aclose(a), H5Fclose(f);
}

/* H36-B06: a file of schema 7, cut short, resumes; then extends; it stays
 * schema 7 without the schema 8 columns, and its first rows are as they
 * were. Was: both refused, "/measurements has no column 'model_device'". */
START_TEST(test_schema_7_resumes_and_extends)
{
	char out[400], log[400];
	hid_t t0, t1;
	hssize_t n0, n1;
	ci_file("v7", out, sizeof out);
	make_schema_7(out);
	hid_t f = H5Fopen(out, H5F_ACC_RDWR, H5P_DEFAULT), d = H5Dopen2(f, "measurements", 0);
	hsize_t kept = 100;
	ck_assert(d >= 0 && H5Dset_extent(d, &kept) >= 0);
	H5Dclose(d), H5Fclose(f);
	unsigned char *old = table_bytes(out, "measurements", &t0, &n0);
	ck_assert_int_eq(H5Tget_member_index(t0, "model_time_ns"), -1);

	snprintf(log, sizeof log, "%s/v7-resume.log", dir);
	const char *resume[] = { "-q", "--resume", ci_job, "-o", out, NULL };
	ck_assert_msg(run_in(dir, log, resume) == 0, "%s", launch_slurp(log));
	ck_assert_int_eq(launch_rows(out, "/measurements", NULL), 144);
	snprintf(log, sizeof log, "%s/v7-extend.log", dir);
	const char *extend[] = { "-q",   "--extend", "--set", "strided_read.n=1M,4M,16M",
				 ci_job, "-o",       out,     NULL };
	ck_assert_msg(run_in(dir, log, extend) == 0, "%s", launch_slurp(log));
	ck_assert_int_eq(launch_rows(out, "/measurements", NULL), 216);

	unsigned char *now = table_bytes(out, "measurements", &t1, &n1);
	ck_assert_int_gt(H5Tequal(t0, t1), 0); /* its layout, schema 7's */
	ck_assert_msg(!memcmp(old, now, (size_t)n0 * H5Tget_size(t0)), "its first rows changed");
	ck_assert_uint_eq(root_u64(out, "schema_version"), 7);
	hid_t t = H5Tget_member_type(t1, (unsigned)H5Tget_member_index(t1, "family"));
	size_t fam = H5Tget_member_offset(t1, (unsigned)H5Tget_member_index(t1, "family"));
	for (hssize_t r = 0; r < n1; r++) /* every row written, none blank */
		ck_assert_msg(now[r * (hssize_t)H5Tget_size(t1) + (hssize_t)fam], "row %lld blank",
			      (long long)r);
	H5Tclose(t);
	const char *dry[] = { "--dry-run", "--resume", "--set", "strided_read.n=1M,4M,16M",
			      ci_job,      "-o",       out,     NULL };
	ck_assert_msg(run_in(dir, log, dry) == 0, "%s", launch_slurp(log));
	ck_assert_msg(strstr(launch_slurp(log), "216 of 216 points are in it"), "%s",
		      launch_slurp(log));
	free(old), free(now);
	H5Tclose(t0), H5Tclose(t1);
}
END_TEST

/* A file an older sweep made, before the registry gained an axis name (as
 * index_read's `locality`): a resume adds the column, its rows reading
 * SW_AXIS_UNUSED there, and finishes the file (was: refused, "/measurements
 * has no column 'locality'"). */
START_TEST(test_resume_grows_a_new_axis_column)
{
	char out[400], log[400];
	static const char *const drop[] = { "locality" };
	ci_file("noaxis", out, sizeof out);
	hid_t f = H5Fopen(out, H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(f >= 0);
	drop_columns(f, "measurements", drop, 1);
	hid_t d = H5Dopen2(f, "measurements", 0);
	hsize_t kept = 100;
	ck_assert(d >= 0 && H5Dset_extent(d, &kept) >= 0);
	H5Dclose(d), H5Fclose(f);
	hid_t t0;
	hssize_t n0;
	free(table_bytes(out, "measurements", &t0, &n0));
	ck_assert_int_eq(H5Tget_member_index(t0, "locality"), -1);
	snprintf(log, sizeof log, "%s/noaxis-resume.log", dir);
	const char *resume[] = { "-q", "--resume", ci_job, "-o", out, NULL };
	ck_assert_msg(run_in(dir, log, resume) == 0, "%s", launch_slurp(log));
	ck_assert_int_eq(launch_rows(out, "/measurements", NULL), 144);
	hid_t t1;
	hssize_t n1;
	free(table_bytes(out, "measurements", &t1, &n1));
	ck_assert_int_ge(H5Tget_member_index(t1, "locality"), 0);
	H5Tclose(t0), H5Tclose(t1);
}
END_TEST

int main(void)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (launch_make_tmpdir(dir, sizeof dir, "extend") != 0)
		return 1;
	snprintf(ci_job, sizeof ci_job, "%s/jobs/ci.yaml", launch_env("SW_SOURCE_DIR"));
	Suite *s = suite_create("extend");
	TCase *tc = tcase_create("extend");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_stored_plugins_from_another_folder);
	tcase_add_test(tc, test_failed_extend_changes_no_job);
	tcase_add_test(tc, test_dry_run_extend_says_what_it_adds);
	tcase_add_test(tc, test_extend_adds_model_targets);
	tcase_add_test(tc, test_extend_grows_an_axis_column);
	tcase_add_test(tc, test_schema_7_resumes_and_extends);
	tcase_add_test(tc, test_resume_grows_a_new_axis_column);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, dir);
}
