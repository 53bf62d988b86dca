/*
 * Damaged rows end to end (issue 23, cause 6; docs/hdf5-schema.md, "Damaged
 * rows"; docs/bad-inputs.md, D01 to D13, H4L01 to H4L04): complete files of
 * jobs/ci.yaml on the model backend, damaged with the HDF5 C API (a block
 * of rows zeroed, a point id of no plan point, an empty family, another
 * variant, a status sweep never writes, a zeroed /plan, a /plan with a point
 * twice or cut short), then `--dry-run --resume` (says it, changes
 * nothing), `--resume` (marks the rows, runs their points again, exit 0,
 * every plan point once among the good rows) and `--extend`. Under
 * every_gpu and per_class a point's id repeats, one row per GPU or class:
 * no damage, and a damaged one among them is run again for its GPU alone.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "column_check.h"
#include "launch.h"

#define LIMIT_S    300.0 /* a run of the small job; a bound, not a measure */
#define CI_POINTS  144   /* jobs/ci.yaml's plan on the model backend */
#define FILL_ID    UINT64_MAX
#define DAMAGED_ST (-2)

static char tmpdir[256];
static char ci_job[1024];
static char good[512]; /* a complete file of jobs/ci.yaml */

/* ---- running sweep -------------------------------------------------------- */

/* sweep --backend model ARGS alone; its exit code, its stderr in *text. */
static int sweep(const char **text, const char *const *args)
{
	const char *argv[24] = { "--backend", "model" };
	int k = 2;
	for (int i = 0; args[i] && k < 23; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	int rc = launch_finish_within(launch_start_alone("sweep.log", argv), LIMIT_S);
	*text = launch_slurp("sweep.log");
	return rc;
}

static void expect(int rc, const char *text, int want_rc, const char *says)
{
	ck_assert_msg(rc == want_rc, "exit %d, expected %d: %s", rc, want_rc, text);
	ck_assert_msg(!says || strstr(text, says), "stderr lacks \"%s\": %s", says, text);
}

/* Runs sweep ARGS (sweep's function), expects its exit code and a text on
 * stderr; returns the stderr. */
static const char *run_expect(const char *const *args, int want_rc, const char *says)
{
	const char *text;
	int rc = sweep(&text, args);
	expect(rc, text, want_rc, says);
	return text;
}

/* ---- editing a file -------------------------------------------------------- */

static void copy(const char *from, const char *to)
{
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
	ck_assert_int_eq(system(cmd), 0);
}

/* Writes rows [row, row + n) of table from buf, of memory type type (a
 * compound of some of its columns). */
static void write_rows(const char *path, const char *table, hsize_t row, hsize_t n, hid_t type,
		       const void *buf)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	hid_t d = H5Dopen2(f, table, H5P_DEFAULT);
	hid_t space = H5Dget_space(d), mem = H5Screate_simple(1, &n, NULL);
	ck_assert(f >= 0 && d >= 0);
	ck_assert(H5Sselect_hyperslab(space, H5S_SELECT_SET, &row, NULL, &n, NULL) >= 0);
	ck_assert(H5Dwrite(d, type, mem, space, H5P_DEFAULT, buf) >= 0);
	H5Sclose(mem);
	H5Sclose(space);
	H5Dclose(d);
	H5Fclose(f);
}

/* Writes value (of memory type type) into column col of row of table. */
static void set_column(const char *path, const char *table, const char *col, hsize_t row,
		       hid_t type, const void *value)
{
	hid_t one = H5Tcreate(H5T_COMPOUND, H5Tget_size(type));
	ck_assert(one >= 0 && H5Tinsert(one, col, 0, type) >= 0);
	write_rows(path, table, row, 1, one, value);
	H5Tclose(one);
}

static void set_text(const char *path, const char *col, hsize_t row, const char *text)
{
	char v[32] = { 0 };
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, sizeof v);
	snprintf(v, sizeof v, "%s", text);
	set_column(path, "measurements", col, row, t, v);
	H5Tclose(t);
}

/* Rows [row, row + n) of table as zeros: what a block that reads back as
 * zeros gives (point 0, no family, status 0 "ok"). */
static void zero_rows(const char *path, const char *table, hsize_t row, hsize_t n)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t d = H5Dopen2(f, table, H5P_DEFAULT);
	hid_t ft = H5Dget_type(d), t = H5Tget_native_type(ft, H5T_DIR_DEFAULT);
	void *zeros = calloc(n, H5Tget_size(t));
	ck_assert(f >= 0 && d >= 0 && zeros);
	H5Tclose(ft);
	H5Dclose(d);
	H5Fclose(f);
	write_rows(path, table, row, n, t, zeros);
	free(zeros);
	H5Tclose(t);
}

/* The bytes of a file, to show a dry run changed nothing. */
static char *contents(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	char *b = malloc(*len ? *len : 1);
	ck_assert(b && fread(b, 1, *len, f) == *len);
	fclose(f);
	return b;
}

/* ---- what a file holds ----------------------------------------------------- */

struct rows {
	size_t n;
	uint64_t *id;
	int32_t *status, *rank;
};

static struct rows rows_of(const char *path)
{
	struct rows r;
	size_t n;
	r.id = launch_column(path, "measurements", "point_id", H5T_NATIVE_UINT64, 8, &r.n);
	r.status = launch_column(path, "measurements", "status", H5T_NATIVE_INT32, 4, &n);
	r.rank = launch_column(path, "measurements", "rank", H5T_NATIVE_INT32, 4, &n);
	return r;
}

static void rows_free(struct rows *r)
{
	free(r->id);
	free(r->status);
	free(r->rank);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* After a resume: rows first..first+n_marked-1 (and no other) are marked;
 * among the others every (point, rank) of the plan is there once, for
 * copies ranks each (every_gpu: a row per rank). */
static void expect_complete(const char *path, size_t first, size_t n_marked, int copies)
{
	struct rows r = rows_of(path);
	uint64_t *good_ids = malloc(r.n * sizeof *good_ids);
	size_t k = 0, marked = 0;
	for (size_t i = 0; i < r.n; i++) {
		int m = r.id[i] == FILL_ID && r.status[i] == DAMAGED_ST;
		ck_assert_msg(m == (i >= first && i < first + n_marked),
			      "row %zu: id %016llx status %d", i, (unsigned long long)r.id[i],
			      r.status[i]);
		marked += m;
		if (!m) /* rank in the low bits: a (point, rank) pair */
			good_ids[k++] = r.id[i] ^ (uint64_t)r.rank[i];
	}
	ck_assert_uint_eq(marked, n_marked);
	ck_assert_uint_eq(k, (size_t)CI_POINTS * (size_t)copies);
	qsort(good_ids, k, sizeof *good_ids, cmp_u64);
	for (size_t i = 1; i < k; i++)
		ck_assert_msg(good_ids[i] != good_ids[i - 1], "a pair twice among the good rows");
	free(good_ids);
	rows_free(&r);
}

/* ---- the cases --------------------------------------------------------------- */

static void in_case(const char *name)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
	ck_assert(mkdir(dir, 0755) == 0 && chdir(dir) == 0);
}

/* D01, D02: a block that reads back as zeros (was: "passes every check",
 * exit 0 with the zero rows kept as ok rows of point 0). */
START_TEST(test_zero_block)
{
	const char *text;
	size_t before_len, after_len;
	in_case("zero");
	copy(good, "out.h5");
	zero_rows("out.h5", "measurements", 16, 16);
	char *before = contents("out.h5", &before_len);
	const char *dry[] = { "--dry-run", "--resume", ci_job, "-o", "out.h5", NULL };
	text = run_expect(
		dry, 0,
		"sweep: --resume: out.h5: 16 rows of /measurements are damaged (rows 16 to 31; row "
		"16: its family is empty); --resume marks them damaged (status -2) and runs their "
		"points again");
	expect(0, text, 0, "out.h5 passes every other check; 128 of 144 points are in it");
	char *after = contents("out.h5", &after_len);
	ck_assert_msg(before_len == after_len && !memcmp(before, after, before_len),
		      "--dry-run --resume changed the file");
	free(before);
	free(after);

	const char *resume[] = { "-q", "--resume", ci_job, "-o", "out.h5", NULL };
	text = run_expect(
		resume, 0,
		"sweep: out.h5: 16 rows of /measurements are damaged (rows 16 to 31; row 16: its "
		"family is empty); they are marked damaged (status -2) and their points run again");
	expect_complete("out.h5", 16, 16, 1);
	text = run_expect(dry, 0, "out.h5 passes every check; 144 of 144 points are in it");
	ck_assert_msg(!strstr(text, "damaged"), "a marked row counted again: %s", text);
}
END_TEST

/* D03-D07: one row of each kind of damage but zeros, in one file. */
START_TEST(test_each_kind)
{
	const char *text;
	uint64_t foreign = UINT64_C(0x0123456789abcdef);
	int32_t status = 7;
	in_case("kinds");
	copy(good, "out.h5");
	set_column("out.h5", "measurements", "point_id", 5, H5T_NATIVE_UINT64, &foreign);
	set_text("out.h5", "family", 7, "");
	set_text("out.h5", "variant", 9, "no_such_variant");
	set_column("out.h5", "measurements", "status", 11, H5T_NATIVE_INT32, &status);
	set_text("out.h5", "variant", 13, "");
	const char *dry[] = { "--dry-run", "--resume", ci_job, "-o", "out.h5", NULL };
	text = run_expect(
		dry, 0,
		"5 rows of /measurements are damaged (rows 5, 7, 9, 11, ...; row 5: point "
		"0123456789abcdef is no point of the file's plan)");
	expect(0, text, 0, "passes every other check; 139 of 144 points are in it");
	const char *resume[] = { "-q", "--resume", ci_job, "-o", "out.h5", NULL };
	text = run_expect(resume, 0, "they are marked damaged (status -2)");
	struct rows r = rows_of("out.h5");
	ck_assert_uint_eq(r.n, CI_POINTS + 5);
	for (size_t i = 5; i <= 13; i += 2)
		ck_assert(r.id[i] == FILL_ID && r.status[i] == DAMAGED_ST);
	rows_free(&r);
	/* another variant, and a status sweep never writes, say so */
	copy(good, "one.h5");
	set_text("one.h5", "variant", 9, "no_such_variant");
	const char *dry1[] = { "--dry-run", "--resume", ci_job, "-o", "one.h5", NULL };
	text = run_expect(dry1, 0, "(row 9; row 9: it says 'strided_read/no_such_variant'");
	copy(good, "two.h5");
	set_column("two.h5", "measurements", "status", 11, H5T_NATIVE_INT32, &status);
	const char *dry2[] = { "--dry-run", "--resume", ci_job, "-o", "two.h5", NULL };
	text = run_expect(dry2, 0, "(row 11; row 11: its status 7 is none sweep writes)");
}
END_TEST

/* D08: --extend of a damaged file: the zero rows are judged by the file's
 * own /plan, marked, and their points run with the new ones; a row of no
 * point of /plan whose names are the family's is damage too, not a point
 * the new job dropped. */
START_TEST(test_extend)
{
	uint64_t foreign = UINT64_C(0x0123456789abcdef);
	in_case("extend");
	copy(good, "out.h5");
	zero_rows("out.h5", "measurements", 40, 8);
	set_column("out.h5", "measurements", "point_id", 3, H5T_NATIVE_UINT64, &foreign);
	const char *ext[] = { "-q",   "--extend", "--set",  "strided_read.n=1M,4M,16M",
			      ci_job, "-o",       "out.h5", NULL };
	run_expect(ext, 0,
		   "9 rows of /measurements are damaged (rows 3, 40 to 47; row 3: point "
		   "0123456789abcdef is no point of the file's plan)");
	struct rows r = rows_of("out.h5");
	size_t good_rows = 0, marked = 0;
	for (size_t i = 0; i < r.n; i++) {
		marked += r.id[i] == FILL_ID && r.status[i] == DAMAGED_ST;
		good_rows += r.id[i] != FILL_ID;
	}
	ck_assert_uint_eq(marked, 9);
	size_t n;
	uint64_t *plan = launch_column("out.h5", "plan", "point_id", H5T_NATIVE_UINT64, 8, &n);
	ck_assert_uint_eq(good_rows, n); /* every point of the new plan, once */
	ck_assert_uint_gt(n, CI_POINTS);
	free(plan);
	rows_free(&r);
	const char *dry[] = { "--dry-run", "--resume", "--set",  "strided_read.n=1M,4M,16M",
			      ci_job,      "-o",       "out.h5", NULL };
	run_expect(dry, 0, "passes every check");
}
END_TEST

/* D09: a /plan that reads back as zeros: a resume writes it again and
 * marks no row (the rows are judged by the job's plan). */
START_TEST(test_plan_damaged)
{
	const char *text;
	in_case("plan");
	copy(good, "out.h5");
	zero_rows("out.h5", "plan", 0, 64);
	const char *dry[] = { "--dry-run", "--resume", ci_job, "-o", "out.h5", NULL };
	/* since issue 30 (cause 4) the damage is named */
	text = run_expect(dry, 0,
			  "sweep: --resume: out.h5: its /plan is damaged (64 of its rows are "
			  "empty), so no row is judged by it: --resume judges rows by the job's "
			  "plan, and writes /plan again");
	expect(0, text, 0, "passes every other check; 144 of 144 points are in it");
	const char *resume[] = { "-q", "--resume", ci_job, "-o", "out.h5", NULL };
	text = run_expect(resume, 0,
			  "sweep: out.h5: its /plan is damaged (64 of its rows are empty), so no "
			  "row was judged by it: rows were judged by the job's plan, and /plan is "
			  "written again");
	ck_assert_msg(!strstr(text, "rows of /measurements"), "%s", text);
	text = run_expect(dry, 0, "out.h5 passes every check; 144 of 144 points are in it");
	expect_complete("out.h5", 0, 0, 1);
}
END_TEST

/* /plan with row 5's id made row 6's: the right count, no foreign id, one
 * point twice and another missing; the id that is twice into twice. */
static void plan_id_twice(const char *path, char *twice, size_t len)
{
	size_t n;
	uint64_t *plan = launch_column(path, "plan", "point_id", H5T_NATIVE_UINT64, 8, &n);
	ck_assert_uint_eq(n, CI_POINTS);
	set_column(path, "plan", "point_id", 5, H5T_NATIVE_UINT64, &plan[6]);
	snprintf(twice, len, "point %016llx is in it twice", (unsigned long long)plan[6]);
	free(plan);
}

/* The good rows a run kept: marked ones counted in *marked; the others
 * each a point of /plan, once, and /plan is n points long. */
static void expect_plan_rows(const char *path, size_t n, size_t *marked)
{
	struct rows r = rows_of(path);
	size_t k = 0, n_plan;
	uint64_t *plan = launch_column(path, "plan", "point_id", H5T_NATIVE_UINT64, 8, &n_plan);
	uint64_t *ids = malloc(r.n * sizeof *ids);
	*marked = 0;
	for (size_t i = 0; i < r.n; i++) {
		*marked += r.id[i] == FILL_ID && r.status[i] == DAMAGED_ST;
		if (r.id[i] != FILL_ID)
			ids[k++] = r.id[i];
	}
	ck_assert_uint_eq(n_plan, n);
	ck_assert_uint_eq(k, n);
	qsort(ids, k, sizeof *ids, cmp_u64);
	qsort(plan, n_plan, sizeof *plan, cmp_u64);
	for (size_t i = 0; i < k; i++)
		ck_assert_msg(ids[i] == plan[i], "the rows are not /plan's points once each");
	free(ids);
	free(plan);
	rows_free(&r);
}

/* H4L01, H4L02 (issue 30, cause 4): a /plan with one point twice is named
 * damaged; a resume judges no row by it (none was dropped anyway: a resume
 * judges by the job's plan) and writes it again. */
START_TEST(test_plan_twice_resume)
{
	char twice[64], says[512];
	size_t marked;
	in_case("plan_twice");
	copy(good, "out.h5");
	plan_id_twice("out.h5", twice, sizeof twice);
	const char *dry[] = { "--dry-run", "--resume", ci_job, "-o", "out.h5", NULL };
	snprintf(says, sizeof says,
		 "sweep: --resume: out.h5: its /plan is damaged (%s), so no row is judged by it: "
		 "--resume judges rows by the job's plan, and writes /plan again",
		 twice);
	const char *text = run_expect(dry, 0, says);
	expect(0, text, 0, "out.h5 passes every other check; 144 of 144 points are in it");
	const char *resume[] = { "-q", "--resume", ci_job, "-o", "out.h5", NULL };
	snprintf(says, sizeof says,
		 "sweep: out.h5: its /plan is damaged (%s), so no row was judged by it: rows were "
		 "judged by the job's plan, and /plan is written again",
		 twice);
	text = run_expect(resume, 0, says);
	ck_assert_msg(!strstr(text, "rows of /measurements"), "%s", text);
	expect_plan_rows("out.h5", CI_POINTS, &marked);
	ck_assert_uint_eq(marked, 0);
	run_expect(dry, 0, "out.h5 passes every check; 144 of 144 points are in it");
}
END_TEST

/* H4L03, H4L04: --extend judged rows by the file's /plan, so a /plan with
 * a point twice, cut short, or with zeroed rows had good rows marked
 * damaged and run again (was: 1, 44 and 64 rows). A damaged /plan judges
 * nothing: the rows are judged as in a file without /plan (the new plan
 * and the families' names), none is marked, and the new /plan replaces it. */
START_TEST(test_plan_damaged_extend)
{
	char twice[64], says[512];
	size_t marked;
	const char *ext[] = { "-q",   "--extend", "--set",  "strided_read.n=1M,4M,16M",
			      ci_job, "-o",       "out.h5", NULL };
	const char *dry[] = { "--dry-run", "--extend", "--set",  "strided_read.n=1M,4M,16M",
			      ci_job,      "-o",       "out.h5", NULL };
	in_case("plan_extend");
	copy(good, "out.h5");
	plan_id_twice("out.h5", twice, sizeof twice);
	snprintf(says, sizeof says,
		 "sweep: --extend: out.h5: its /plan is damaged (%s), so no row is judged by it: "
		 "--extend judges rows by the new job's plan and the families' names, and writes "
		 "the new /plan",
		 twice);
	const char *text = run_expect(dry, 0, says);
	expect(0, text, 0, "144 of the job's 216 points are in it, 72 would be added");
	snprintf(says, sizeof says,
		 "sweep: out.h5: its /plan is damaged (%s), so no row was judged by it: rows were "
		 "judged by the new job's plan and the families' names, and the new /plan "
		 "replaces it",
		 twice);
	run_expect(ext, 0, says);
	expect_plan_rows("out.h5", 216, &marked);
	ck_assert_uint_eq(marked, 0);

	/* cut short */
	copy(good, "out.h5");
	hid_t f = H5Fopen("out.h5", H5F_ACC_RDWR, H5P_DEFAULT);
	hid_t d = H5Dopen2(f, "plan", H5P_DEFAULT);
	hsize_t n = 100;
	ck_assert(d >= 0 && H5Dset_extent(d, &n) >= 0);
	H5Dclose(d);
	H5Fclose(f);
	run_expect(ext, 0, "its /plan is damaged (it has 100 rows, plan_points says 144)");
	expect_plan_rows("out.h5", 216, &marked);
	ck_assert_uint_eq(marked, 0);

	/* zeroed rows */
	copy(good, "out.h5");
	zero_rows("out.h5", "plan", 0, 64);
	run_expect(ext, 0, "its /plan is damaged (64 of its rows are empty)");
	expect_plan_rows("out.h5", 216, &marked);
	ck_assert_uint_eq(marked, 0);
}
END_TEST

/* D10: a file of schema 6 (no /plan) resumes as such: its damaged rows are
 * judged by the job's plan and marked, and it gains no /plan. */
START_TEST(test_schema_6)
{
	int32_t six = 6;
	in_case("v6");
	copy(good, "out.h5");
	hid_t f = H5Fopen("out.h5", H5F_ACC_RDWR, H5P_DEFAULT);
	hid_t a = H5Aopen(f, "schema_version", H5P_DEFAULT);
	ck_assert(a >= 0 && H5Awrite(a, H5T_NATIVE_INT32, &six) >= 0 &&
		  H5Ldelete(f, "plan", H5P_DEFAULT) >= 0);
	H5Aclose(a);
	H5Fclose(f);
	zero_rows("out.h5", "measurements", 100, 4);
	const char *resume[] = { "-q", "--resume", ci_job, "-o", "out.h5", NULL };
	run_expect(resume, 0, "4 rows of /measurements are damaged (rows 100 to 103");
	expect_complete("out.h5", 100, 4, 1);
	f = H5Fopen("out.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert_int_eq(H5Lexists(f, "plan", H5P_DEFAULT), 0);
	H5Fclose(f);
}
END_TEST

/* D11: every_gpu on 2 ranks: each point's id twice (one row per GPU) is no
 * damage; a damaged row among them runs again on its own GPU alone. */
START_TEST(test_every_gpu)
{
	in_case("every_gpu");
	const char *make[] = { "--backend", "model", "-q",     "--placement", "every_gpu",
			       ci_job,      "-o",    "out.h5", NULL };
	int rc = launch_run(2, "make.log", make);
	ck_assert_msg(rc == 0, "every_gpu run: exit %d: %s", rc, launch_slurp("make.log"));
	struct rows r = rows_of("out.h5");
	ck_assert_uint_eq(r.n, 2 * CI_POINTS);
	rows_free(&r);
	const char *dry[] = { "--dry-run", "--resume", "--placement", "every_gpu",
			      ci_job,      "-o",       "out.h5",      NULL };
	run_expect(dry, 0, "out.h5 passes every check; 144 of 144 points are in it");
	zero_rows("out.h5", "measurements", 10, 1);
	run_expect(dry, 0,
		   "1 row of /measurements is damaged (row 10; row 10: its family is empty)");
	const char *resume[] = { "--backend", "model", "-q", "--resume", "--placement",
				 "every_gpu", ci_job,  "-o", "out.h5",   NULL };
	rc = launch_run(2, "resume.log", resume);
	expect(rc, launch_slurp("resume.log"), 0,
	       "1 row of /measurements is damaged (row 10; row 10: its family is empty); they are "
	       "marked damaged (status -2) and their points run again");
	expect_complete("out.h5", 10, 1, 2);
}
END_TEST

/* D12: per_class over two emulated classes (the replay backend on the
 * good file): each point once per class, its id twice, no damage. */
START_TEST(test_per_class)
{
	const char *text;
	char replay[600];
	in_case("per_class");
	snprintf(replay, sizeof replay, "replay=%s", good);
	const char *make[] = { "--backend",
			       replay,
			       "--replay-speed",
			       "1e6",
			       "--replay-devices",
			       "A:1,B:1",
			       "-q",
			       "--placement",
			       "per_class",
			       ci_job,
			       "-o",
			       "out.h5",
			       NULL };
	int rc = launch_run(2, "make.log", make);
	ck_assert_msg(rc == 0, "per_class run: exit %d: %s", rc, launch_slurp("make.log"));
	/* the replay plan has no model targets: a quarter of the model's */
	struct rows r = rows_of("out.h5");
	ck_assert_uint_eq(r.n, 2 * CI_POINTS / 4);
	rows_free(&r);
	const char *dry[] = { "--backend",   replay,      "--replay-devices", "A:1,B:1",
			      "--placement", "per_class", "--dry-run",        "--resume",
			      ci_job,        "-o",        "out.h5",           NULL };
	rc = launch_run(2, "dry.log", dry);
	text = launch_slurp("dry.log");
	expect(rc, text, 0, "out.h5 passes every check; 36 of 36 points are in it");
	/* "damaged" alone is in the recording's path, which the dry run names */
	ck_assert_msg(!strstr(text, "damaged (row"), "%s", text);
}
END_TEST

/* D13: a row repeated whole (the same point, rank and session, a pair
 * placement once allows one row of) is no damage: a resume counts the pair
 * done and runs nothing for it, readers take the latest row of a pair. */
START_TEST(test_repeated_pair)
{
	const char *text;
	in_case("repeated");
	copy(good, "out.h5");
	hid_t f = H5Fopen("out.h5", H5F_ACC_RDWR, H5P_DEFAULT);
	hid_t d = H5Dopen2(f, "measurements", H5P_DEFAULT);
	hid_t ft = H5Dget_type(d), t = H5Tget_native_type(ft, H5T_DIR_DEFAULT);
	hsize_t n = CI_POINTS + 1;
	void *rows = calloc(n, H5Tget_size(t));
	ck_assert(rows && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
	memcpy((char *)rows + CI_POINTS * H5Tget_size(t), (char *)rows + 7 * H5Tget_size(t),
	       H5Tget_size(t));
	ck_assert(H5Dset_extent(d, &n) >= 0);
	ck_assert(H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
	free(rows);
	H5Tclose(t);
	H5Tclose(ft);
	H5Dclose(d);
	H5Fclose(f);
	const char *dry[] = { "--dry-run", "--resume", ci_job, "-o", "out.h5", NULL };
	text = run_expect(dry, 0, "out.h5 passes every check; 144 of 144 points are in it");
	ck_assert_msg(!strstr(text, "damaged"), "%s", text);
	const char *resume[] = { "-q", "--resume", ci_job, "-o", "out.h5", NULL };
	run_expect(resume, 0, NULL);
	struct rows r = rows_of("out.h5");
	ck_assert_uint_eq(r.n, CI_POINTS + 1); /* nothing ran, nothing marked */
	rows_free(&r);
}
END_TEST

/* /plan's columns are the ones docs/hdf5-schema.md gives it. */
START_TEST(test_plan_documented)
{
	struct doc_column doc[8];
	int n = doc_columns("## `/plan`", doc, 8);
	hid_t f = H5Fopen(good, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t d = H5Dopen2(f, "plan", H5P_DEFAULT), t = H5Dget_type(d);
	ck_assert_int_eq(n, H5Tget_nmembers(t));
	for (int i = 0; i < n; i++) {
		char *name = H5Tget_member_name(t, (unsigned)i);
		hid_t m = H5Tget_member_type(t, (unsigned)i);
		const char *want = H5Tget_class(m) == H5T_STRING ? "string[32]" : "uint64";
		ck_assert_str_eq(doc[i].name, name);
		ck_assert_str_eq(doc[i].type, want);
		ck_assert(H5Tget_class(m) != H5T_STRING || H5Tget_size(m) == 32);
		H5Tclose(m);
		H5free_memory(name);
	}
	H5Tclose(t);
	H5Dclose(d);
	H5Fclose(f);
}
END_TEST

int main(void)
{
	const char *text;
	if (launch_make_tmpdir(tmpdir, sizeof tmpdir, "damaged-rows") != 0) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(ci_job, sizeof ci_job, "%s/jobs/ci.yaml", launch_env("SW_SOURCE_DIR"));
	snprintf(good, sizeof good, "%s/good.h5", tmpdir);
	if (chdir(tmpdir) != 0)
		return 1;
	const char *make[] = { "-q", ci_job, "-o", good, NULL };
	if (sweep(&text, make) != 0) {
		fprintf(stderr, "cannot make %s: %s\n", good, text);
		return 1;
	}
	Suite *s = suite_create("damaged_rows");
	TCase *tc = tcase_create("damaged_rows");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, test_zero_block);
	tcase_add_test(tc, test_each_kind);
	tcase_add_test(tc, test_extend);
	tcase_add_test(tc, test_plan_damaged);
	tcase_add_test(tc, test_plan_twice_resume);
	tcase_add_test(tc, test_plan_damaged_extend);
	tcase_add_test(tc, test_schema_6);
	tcase_add_test(tc, test_every_gpu);
	tcase_add_test(tc, test_per_class);
	tcase_add_test(tc, test_repeated_pair);
	tcase_add_test(tc, test_plan_documented);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
