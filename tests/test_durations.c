/* Unit tests for h5durations.c: small files this test writes with the HDF5 C
 * API (the gap rule over ranks, sessions and unordered rows, end_unix when
 * the file has it, the 1.8 format), the real writer's file read while it is
 * open, and every refusal. `test_durations h200` checks the shared H200 file
 * against tests/data/replay/h200-full-durations.csv (SKIPPED without it). */
#define _GNU_SOURCE

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "check_run.h"
#include "core/durations.h"
#include "h5/h5out.h"

static char dir[256];

static void make_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof dir, "%s/test_durations.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[512];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *in_dir(const char *name)
{
	static char path[4][512];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, sizeof path[0], "%s/%s", dir, name);
	return p;
}

/* ---- files written here ---------------------------------------------- */

struct trow {
	uint64_t point_id;
	int32_t rank, session, status;
	char family[32], variant[32];
	double useful_bytes, flops, timed_s, start_unix, end_unix;
};

enum tkind { T_U64, T_I32, T_F64, T_STR };

struct tcol {
	const char *name;
	size_t offset;
	enum tkind kind;
};

#define TCOL(field, kind)                                                                          \
	{                                                                                          \
#field, offsetof(struct trow, field), kind                                         \
	}

static const struct tcol tcols[] = {
	TCOL(point_id, T_U64),     TCOL(rank, T_I32),     TCOL(session, T_I32),
	TCOL(status, T_I32),       TCOL(family, T_STR),   TCOL(variant, T_STR),
	TCOL(useful_bytes, T_F64), TCOL(flops, T_F64),    TCOL(timed_s, T_F64),
	TCOL(start_unix, T_F64),   TCOL(end_unix, T_F64),
};

/* How a file departs from a good one. */
struct variation {
	int with_end;        /* write end_unix */
	int v18;             /* the 1.8 format (superblock 0), as sweeps before SWMR */
	const char *omit;    /* a column left out */
	const char *as_text; /* a column written as a string (no rows are written then) */
	const char *as_i32;  /* a column written as int32 (no rows either) */
};

static hid_t str32(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	ck_assert(t >= 0 && H5Tset_size(t, 32) >= 0 && H5Tset_strpad(t, H5T_STR_NULLTERM) >= 0);
	return t;
}

/* At struct trow's offsets, or packed where types are wrong (no rows then). */
static hid_t row_type(const struct variation *v, int wrong_types)
{
	hid_t t = H5Tcreate(H5T_COMPOUND, wrong_types ? 1024 : sizeof(struct trow)), s = str32();
	size_t at = 0;

	for (size_t i = 0; i < sizeof tcols / sizeof tcols[0]; i++) {
		const struct tcol *c = &tcols[i];
		hid_t ct = c->kind == T_U64   ? H5T_NATIVE_UINT64
			   : c->kind == T_I32 ? H5T_NATIVE_INT32
			   : c->kind == T_F64 ? H5T_NATIVE_DOUBLE
					      : s;

		if ((v->omit && !strcmp(c->name, v->omit)) ||
		    (!v->with_end && !strcmp(c->name, "end_unix")))
			continue;
		if (wrong_types && v->as_text && !strcmp(c->name, v->as_text))
			ct = s;
		if (wrong_types && v->as_i32 && !strcmp(c->name, v->as_i32))
			ct = H5T_NATIVE_INT32;
		ck_assert(H5Tinsert(t, c->name, wrong_types ? at : c->offset, ct) >= 0);
		at += H5Tget_size(ct);
	}
	if (wrong_types)
		ck_assert(H5Tpack(t) >= 0);
	H5Tclose(s);
	return t;
}

static void write_file(const char *path, const struct trow *rows, size_t n,
		       const struct variation *v)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f, space, type, d;
	hsize_t dims[1] = { n };
	int wrong = v->as_text || v->as_i32;

	if (!v->v18)
		ck_assert(H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) >= 0);
	f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	ck_assert(f >= 0);
	space = H5Screate_simple(1, dims, NULL);
	type = row_type(v, wrong);
	d = H5Dcreate2(f, "measurements", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	ck_assert(d >= 0);
	if (!wrong && n)
		ck_assert(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
	H5Dclose(d);
	H5Tclose(type);
	H5Sclose(space);
	H5Fclose(f);
	H5Pclose(fapl);
}

static struct trow row(uint64_t id, int rank, int session, int status, double start, double timed)
{
	struct trow r = {
		.point_id = id,
		.rank = rank,
		.session = session,
		.status = status,
		.useful_bytes = 1000.0 * (double)id,
		.flops = (double)id,
		.timed_s = timed,
		.start_unix = start,
		.end_unix = NAN,
	};

	snprintf(r.family, sizeof r.family, "fam%d", (int)(id % 3));
	snprintf(r.variant, sizeof r.variant, "var%d", (int)(id % 2));
	return r;
}

/* Two ranks, two sessions, rows out of start order, an invalid row, a fill
 * row and a skipped one. */
#define N_ROWS 9
static void rows_fixture(struct trow *r)
{
	r[0] = row(10, 0, 0, SW_ROW_OK, 100.0, 0.5);
	r[1] = row(11, 1, 0, SW_ROW_OK, 100.5, 0.1);
	r[2] = row(12, 0, 0, SW_ROW_OK, 103.0, 1.0);
	r[3] = row(13, 0, 0, SW_ROW_SKIPPED, 101.0, 0.0);
	r[4] = row(14, 1, 0, SW_ROW_OK, 102.0, NAN); /* last of rank 1: timed_s is NaN */
	r[5] = row(15, 0, 0, SW_ROW_INVALID, 104.5, 0.25);
	r[6] = row(UINT64_MAX, -1, -1, -1, NAN, NAN); /* allocated, never written */
	r[7] = row(17, 0, 1, SW_ROW_OK, 200.0, 2.0);
	r[8] = row(16, 0, 1, SW_ROW_OK, 199.0, 0.75);
}

/* What the gap rule gives, in file order: the invalid and fill rows go. */
static const uint64_t gap_ids[] = { 10, 11, 12, 13, 14, 17, 16 };
static const double gap_s[] = { 1.0, 1.5, 1.5, 2.0, 0.0, 2.0, 1.0 };
#define N_GAP (sizeof gap_ids / sizeof gap_ids[0])

static void expect_gap_rule(const char *path)
{
	struct sw_durations d;
	struct sw_err e = { 0 };

	ck_assert_msg(sw_durations_read(path, &d, &e) == SW_OK, "%s", e.msg);
	ck_assert_uint_eq(d.n, N_GAP);
	ck_assert_int_eq(d.from_end_unix, 0);
	for (size_t i = 0; i < N_GAP; i++) {
		ck_assert_uint_eq(d.rows[i].point_id, gap_ids[i]);
		ck_assert_msg(d.rows[i].wall_s == gap_s[i], "row %zu: %g s, not %g", i,
			      d.rows[i].wall_s, gap_s[i]);
		ck_assert_double_eq(d.rows[i].useful_bytes, 1000.0 * (double)gap_ids[i]);
		ck_assert_double_eq(d.rows[i].flops, (double)gap_ids[i]);
	}
	ck_assert_int_eq(d.rows[3].status, SW_ROW_SKIPPED);
	ck_assert_int_eq(d.rows[0].status, SW_ROW_OK);
	ck_assert_str_eq(d.rows[0].family, "fam1");
	ck_assert_str_eq(d.rows[0].variant, "var0");
	sw_durations_fini(&d);
	ck_assert_ptr_null(d.rows);
	ck_assert_uint_eq(d.n, 0);
}

START_TEST(gap_rule)
{
	struct trow r[N_ROWS];
	struct variation v = { 0 };

	rows_fixture(r);
	write_file(in_dir("gap.h5"), r, N_ROWS, &v);
	expect_gap_rule(in_dir("gap.h5"));
}
END_TEST

START_TEST(gap_rule_v18)
{
	struct trow r[N_ROWS];
	struct variation v = { .v18 = 1 };

	rows_fixture(r);
	write_file(in_dir("v18.h5"), r, N_ROWS, &v);
	expect_gap_rule(in_dir("v18.h5"));
}
END_TEST

/* With end_unix, a row's duration is its own; where end_unix is NaN the gap
 * rule still applies. */
START_TEST(end_unix)
{
	struct trow r[N_ROWS];
	struct variation v = { .with_end = 1 };
	struct sw_durations d;
	struct sw_err e = { 0 };

	rows_fixture(r);
	for (int i = 0; i < N_ROWS; i++)
		r[i].end_unix = r[i].start_unix + 0.125 * (i + 1);
	r[2].end_unix = NAN;
	write_file(in_dir("end.h5"), r, N_ROWS, &v);
	ck_assert_msg(sw_durations_read(in_dir("end.h5"), &d, &e) == SW_OK, "%s", e.msg);
	ck_assert_int_eq(d.from_end_unix, 1);
	ck_assert_uint_eq(d.n, N_GAP);
	ck_assert_double_eq(d.rows[0].wall_s, 0.125);
	ck_assert_double_eq(d.rows[1].wall_s, 0.25);
	ck_assert_double_eq(d.rows[2].wall_s, 1.5); /* no end_unix: the gap to 104.5 */
	ck_assert_double_eq(d.rows[3].wall_s, 0.5);
	ck_assert_double_eq(d.rows[4].wall_s, 0.625);
	ck_assert_double_eq(d.rows[5].wall_s, 1.0);
	ck_assert_double_eq(d.rows[6].wall_s, 1.125);
	sw_durations_fini(&d);
}
END_TEST

/* /devices beside the rows: rank 0 and 1 of session 0, rank 0 of session
 * 1, each with a name and, with_class, a device_class (schema 5). */
struct tdev {
	int32_t rank, session;
	char name[64], device_class[96];
};

static void write_devices(const char *path, int with_class)
{
	static const struct tdev devs[] = {
		{ 0, 0, "NVIDIA H200", "H200" },
		{ 1, 0, "NVIDIA A100-SXM4-40GB", "A100 (40 GiB)" },
		{ 0, 1, "NVIDIA H200", "H200 (cc 9.0)" },
	};
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct tdev));
	hid_t s64 = H5Tcopy(H5T_C_S1), s96 = H5Tcopy(H5T_C_S1);
	hsize_t dims[1] = { 3 };
	hid_t space = H5Screate_simple(1, dims, NULL);

	ck_assert(f >= 0 && H5Tset_size(s64, 64) >= 0 && H5Tset_size(s96, 96) >= 0);
	H5Tinsert(t, "rank", offsetof(struct tdev, rank), H5T_NATIVE_INT32);
	H5Tinsert(t, "session", offsetof(struct tdev, session), H5T_NATIVE_INT32);
	H5Tinsert(t, "name", offsetof(struct tdev, name), s64);
	if (with_class)
		H5Tinsert(t, "device_class", offsetof(struct tdev, device_class), s96);
	hid_t d = H5Dcreate2(f, "devices", t, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	ck_assert(d >= 0 && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, devs) >= 0);
	H5Dclose(d);
	H5Sclose(space);
	H5Tclose(s64);
	H5Tclose(s96);
	H5Tclose(t);
	H5Fclose(f);
}

/* Each row's class: its rank and session's /devices device_class, else
 * that row's name (a file before schema 5), else "" (no /devices). */
START_TEST(device_classes)
{
	static const char *const with_class[N_GAP] = { "H200",          "A100 (40 GiB)",
						       "H200",          "H200",
						       "A100 (40 GiB)", "H200 (cc 9.0)",
						       "H200 (cc 9.0)" };
	static const char *const by_name[N_GAP] = {
		"NVIDIA H200",           "NVIDIA A100-SXM4-40GB", "NVIDIA H200", "NVIDIA H200",
		"NVIDIA A100-SXM4-40GB", "NVIDIA H200",           "NVIDIA H200"
	};
	const char *const *want[] = { NULL, by_name, with_class };
	struct trow r[N_ROWS];
	struct variation v = { 0 };

	rows_fixture(r);
	for (int kind = 0; kind < 3; kind++) {
		const char *path = in_dir(kind == 0   ? "nodev.h5"
					  : kind == 1 ? "name.h5"
						      : "cls.h5");
		struct sw_durations d;
		struct sw_err e = { 0 };

		write_file(path, r, N_ROWS, &v);
		if (kind)
			write_devices(path, kind == 2);
		ck_assert_msg(sw_durations_read(path, &d, &e) == SW_OK, "%s", e.msg);
		ck_assert_uint_eq(d.n, N_GAP);
		for (size_t i = 0; i < N_GAP; i++)
			ck_assert_str_eq(d.rows[i].device_class, want[kind] ? want[kind][i] : "");
		sw_durations_fini(&d);
	}
}
END_TEST

START_TEST(empty_table)
{
	struct variation v = { 0 };
	struct sw_durations d;
	struct sw_err e = { 0 };

	write_file(in_dir("empty.h5"), NULL, 0, &v);
	ck_assert_msg(sw_durations_read(in_dir("empty.h5"), &d, &e) == SW_OK, "%s", e.msg);
	ck_assert_uint_eq(d.n, 0);
	sw_durations_fini(&d);
}
END_TEST

/* ---- refusals -------------------------------------------------------- */

static void expect_refusal(const char *path, enum sw_status want, const char *text)
{
	struct sw_durations d = { (struct sw_duration *)1, 7, 1 };
	struct sw_err e = { 0 };

	ck_assert_int_eq(sw_durations_read(path, &d, &e), want);
	ck_assert_msg(strstr(e.msg, text) != NULL, "'%s' lacks '%s'", e.msg, text);
	ck_assert_msg(strstr(e.msg, path) != NULL, "'%s' does not name the file", e.msg);
	ck_assert_ptr_null(d.rows);
	ck_assert_uint_eq(d.n, 0);
}

START_TEST(refuse_missing_and_not_hdf5)
{
	FILE *f = fopen(in_dir("text.h5"), "w");

	ck_assert_ptr_nonnull(f);
	fputs("point_id,seconds\n1,2\n", f);
	fclose(f);
	expect_refusal(in_dir("none.h5"), SW_EIO, "No such file");
	expect_refusal(in_dir("text.h5"), SW_EINVAL, "not an HDF5 file");
	expect_refusal(dir, SW_EINVAL, "not a regular file");
}
END_TEST

START_TEST(refuse_no_measurements)
{
	hid_t f = H5Fcreate(in_dir("other.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	hsize_t dims[1] = { 4 };
	hid_t s = H5Screate_simple(1, dims, NULL);
	hid_t d = H5Dcreate2(f, "samples", H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT,
			     H5P_DEFAULT);
	hid_t m = H5Dcreate2(f, "not_a_table", H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT,
			     H5P_DEFAULT);

	ck_assert(f >= 0 && d >= 0 && m >= 0);
	H5Dclose(d);
	H5Dclose(m);
	H5Sclose(s);
	H5Fclose(f);
	expect_refusal(in_dir("other.h5"), SW_EINVAL, "no /measurements");

	f = H5Fcreate(in_dir("flat.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	s = H5Screate_simple(1, dims, NULL);
	d = H5Dcreate2(f, "measurements", H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT,
		       H5P_DEFAULT);
	ck_assert(f >= 0 && d >= 0);
	H5Dclose(d);
	H5Sclose(s);
	H5Fclose(f);
	expect_refusal(in_dir("flat.h5"), SW_EINVAL, "not a table");
}
END_TEST

START_TEST(refuse_columns)
{
	struct trow r[N_ROWS];
	struct variation no_start = { .omit = "start_unix" }, no_family = { .omit = "family" };
	struct variation text_start = { .as_text = "start_unix" },
			 i32_id = { .as_i32 = "point_id" };
	struct variation text_end = { .with_end = 1, .as_text = "end_unix" };
	struct variation i32_bytes = { .as_i32 = "useful_bytes" };

	rows_fixture(r);
	write_file(in_dir("a.h5"), r, N_ROWS, &no_start);
	expect_refusal(in_dir("a.h5"), SW_EINVAL, "lacks the column start_unix");
	write_file(in_dir("b.h5"), r, N_ROWS, &no_family);
	expect_refusal(in_dir("b.h5"), SW_EINVAL, "lacks the column family");
	write_file(in_dir("c.h5"), r, N_ROWS, &text_start);
	expect_refusal(in_dir("c.h5"), SW_EINVAL,
		       "column start_unix of /measurements is a string, not a float");
	write_file(in_dir("d.h5"), r, N_ROWS, &i32_id);
	expect_refusal(in_dir("d.h5"), SW_EINVAL,
		       "column point_id of /measurements is an integer, not an unsigned 64-bit");
	write_file(in_dir("e.h5"), r, N_ROWS, &text_end);
	expect_refusal(in_dir("e.h5"), SW_EINVAL, "column end_unix of /measurements is a string");
	write_file(in_dir("f.h5"), r, N_ROWS, &i32_bytes);
	expect_refusal(in_dir("f.h5"), SW_EINVAL,
		       "column useful_bytes of /measurements is an "
		       "integer, not a float");
}
END_TEST

/* A file cut short (an interrupted copy) keeps its signature but does not open. */
START_TEST(refuse_truncated)
{
	struct trow r[N_ROWS];
	struct variation v = { 0 };
	struct stat sb;

	rows_fixture(r);
	write_file(in_dir("cut.h5"), r, N_ROWS, &v);
	ck_assert_int_eq(stat(in_dir("cut.h5"), &sb), 0);
	ck_assert_int_eq(truncate(in_dir("cut.h5"), sb.st_size / 2), 0);
	expect_refusal(in_dir("cut.h5"), SW_EINVAL, "HDF5 cannot open it");
}
END_TEST

/* ---- the real writer, live ------------------------------------------- */

static void send_byte(int fd)
{
	char c = 1;

	ck_assert_int_eq(write(fd, &c, 1), 1);
}

static int wait_byte(int fd)
{
	char c;

	return read(fd, &c, 1) == 1;
}

/* What a reader process sees of a file the writer holds open in SWMR mode:
 * the flushed rows, in the writer's own types. Exit code 0 when right. */
static int read_live(const char *path)
{
	struct sw_durations d;
	struct sw_err e = { 0 };
	int ok;

	if (sw_durations_read(path, &d, &e) != SW_OK) {
		fprintf(stderr, "live read: %s\n", e.msg);
		return 4;
	}
	ok = d.n == 2 && d.rows[0].point_id == 500 && d.rows[0].wall_s == 2.5 &&
	     d.rows[1].point_id == 501 && d.rows[1].wall_s == 0.375 && d.rows[1].status == 1 &&
	     !strcmp(d.rows[1].family, "strided_read") && d.rows[1].useful_bytes == 4096.0;
	sw_durations_fini(&d);
	return ok ? 0 : 5;
}

START_TEST(live_writer)
{
	static struct sw_record r;
	struct sw_h5_meta m = { .tool_version = "test",
				.job_text = "",
				.job_path = "t.yaml",
				.command_line = "sweep",
				.backend = "cuda",
				.mpi_size = 1,
				.plan_fingerprint = 7,
				.plan_points = 3,
				.start_unix = 1.0e9 };
	const char *path = in_dir("live.h5");
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	int to_reader[2], status;
	pid_t pid;

	ck_assert(pipe(to_reader) == 0);
	pid = fork(); /* before any file is open: the child's HDF5 holds nothing */
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(to_reader[1]);
		_exit(wait_byte(to_reader[0]) ? read_live(path) : 3);
	}
	close(to_reader[0]);
	ck_assert_msg(sw_h5_create(path, 0, &m, &h, &e) == SW_OK, "%s", e.msg);
	for (int i = 0; i < 3; i++) {
		sw_record_init(&r);
		r.point_id = 500 + (uint64_t)i;
		strcpy(r.family, "strided_read");
		strcpy(r.variant, "course");
		r.status = i == 1 ? SW_ROW_SKIPPED : SW_ROW_OK;
		r.useful_bytes = 4096.0;
		r.flops = 0.0;
		r.timed_s = 0.375;
		r.start_unix = 1.0e9 + 2.5 * i;
		ck_assert_int_eq(sw_h5_append(h, &r, &e), SW_OK);
		if (i == 1) /* the third row stays unflushed: the reader must not see it */
			ck_assert_int_eq(sw_h5_flush(h, &e), SW_OK);
	}
	send_byte(to_reader[1]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "reader status %d", status);
	ck_assert_msg(sw_h5_close(&h, 1.0e9 + 10, &e) == SW_OK, "%s", e.msg);
	close(to_reader[1]);
}
END_TEST

/* ---- the shared H200 file against the fixture ------------------------ */

static const char *h200_path(void)
{
	static char path[1024];
	const char *env = getenv("SW_H200_FULL"), *src = getenv("SW_SOURCE_DIR");

	if (env && env[0])
		return env;
	snprintf(path, sizeof path, "%s/../shared/data/h200-full-2026-12-01.h5", src ? src : ".");
	return path;
}

struct csv_row {
	uint64_t id;
	char family[32], variant[32];
	double seconds;
};

static size_t read_csv(const char *path, struct csv_row *rows, size_t max)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t n = 0;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
	ck_assert_str_eq(line, "point_id_hex,family,variant,seconds\n");
	while (fgets(line, sizeof line, f)) {
		struct csv_row *r = &rows[n];
		unsigned long long id;

		ck_assert_uint_lt(n, max);
		ck_assert_msg(sscanf(line, "%llx,%31[^,],%31[^,],%lf", &id, r->family, r->variant,
				     &r->seconds) == 4,
			      "bad line %zu: %s", n + 2, line);
		r->id = id;
		n++;
	}
	fclose(f);
	return n;
}

#define H200_ROWS 3937

START_TEST(h200_matches_fixture)
{
	static struct csv_row csv[H200_ROWS + 1];
	char csv_path[1024];
	struct sw_durations d;
	struct sw_err e = { 0 };
	size_t n_csv, n_ok = 0, n_skipped = 0;

	snprintf(csv_path, sizeof csv_path, "%s/replay/h200-full-durations.csv",
		 getenv("SW_TEST_DATA"));
	n_csv = read_csv(csv_path, csv, H200_ROWS + 1);
	ck_assert_msg(sw_durations_read(h200_path(), &d, &e) == SW_OK, "%s", e.msg);
	ck_assert_uint_eq(d.n, H200_ROWS);
	ck_assert_uint_eq(n_csv, H200_ROWS);
	ck_assert_int_eq(d.from_end_unix, 0);
	for (size_t i = 0; i < d.n; i++) {
		ck_assert_uint_eq(d.rows[i].point_id, csv[i].id);
		ck_assert_str_eq(d.rows[i].family, csv[i].family);
		ck_assert_str_eq(d.rows[i].variant, csv[i].variant);
		ck_assert_msg(fabs(d.rows[i].wall_s - csv[i].seconds) <= 1e-9,
			      "row %zu: %.17g s, the fixture says %.17g", i, d.rows[i].wall_s,
			      csv[i].seconds);
		ck_assert(d.rows[i].wall_s >= 0);
		n_ok += d.rows[i].status == SW_ROW_OK;
		n_skipped += d.rows[i].status == SW_ROW_SKIPPED;
	}
	ck_assert_uint_eq(n_ok, 3265); /* /work/shared/data/README.md */
	ck_assert_uint_eq(n_skipped, 672);
	sw_durations_fini(&d);
}
END_TEST

/* The one check of a wall time both readers make (issue 23, cause 8): its
 * edges, and each reader refusing what the other refuses (the rows RB01 to
 * RB09 of docs/bad-inputs.md run them end to end). */
START_TEST(wall_check_edges)
{
	char why[128];
	ck_assert(sw_duration_wall_ok(0, why, sizeof why));
	ck_assert(sw_duration_wall_ok(-0.0, why, sizeof why));
	ck_assert(sw_duration_wall_ok(SW_DURATION_MAX_S, why, sizeof why));
	ck_assert(sw_duration_wall_ok(5e-324, NULL, 0));
	ck_assert(!sw_duration_wall_ok(nextafter(SW_DURATION_MAX_S, INFINITY), why, sizeof why));
	ck_assert_str_eq(why, "604800 s is longer than a week; a duration is from 0 to 604800 s");
	ck_assert(!sw_duration_wall_ok(-5e-324, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "is negative"));
	ck_assert(!sw_duration_wall_ok(NAN, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "is not a number"));
	ck_assert(!sw_duration_wall_ok(-INFINITY, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "is infinite"));
	ck_assert(!sw_duration_wall_ok(NAN, NULL, 0));
}
END_TEST

/* Each way a result file can give a bad wall time, refused naming the row
 * and its point; an invalid row's time is not one (it is left out). */
START_TEST(h5_times_checked)
{
	struct variation v = { .with_end = 1 };
	struct {
		double start, end, timed;
		const char *says;
	} bad[] = {
		{ 100.0, 95.0, 0.1, "-5 s is negative" },             /* end_unix - start_unix */
		{ 100.0, 100.0 + 1e9, 0.1, "is longer than a week" }, /* the same */
		{ 100.0, NAN, -2.0, "-2 s is negative" },       /* timed_s: last of its rank */
		{ 100.0, NAN, INFINITY, "inf s is infinite" },  /* the same */
		{ -1.7e308, NAN, 0.1, "1.7e+308 s is longer" }, /* the gap to row 0's 50 */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct trow r[3] = { row(21, 0, 0, SW_ROW_INVALID, 50.0, -7.0),
				     row(22, 0, 0, SW_ROW_OK, bad[i].start, bad[i].timed),
				     row(23, 0, 0, SW_ROW_OK, 1.7e308, 0.0) };
		r[0].end_unix = 40.0; /* invalid: never a duration, never checked */
		r[1].end_unix = bad[i].end;
		r[2].end_unix = 1.7e308;
		if (!isnan(bad[i].end) || bad[i].start > 0)
			r[2].start_unix = r[2].end_unix = 300.0; /* row 1 is the last before it */
		if (isnan(bad[i].end) && bad[i].start > 0)
			r[2].rank = 1; /* row 1 alone on rank 0: its timed_s counts */
		struct sw_durations d;
		struct sw_err e = { 0 };
		write_file(in_dir("bad.h5"), r, 3, &v);
		ck_assert_int_eq(sw_durations_read(in_dir("bad.h5"), &d, &e), SW_EINVAL);
		ck_assert_msg(
			strstr(e.msg, "bad.h5: row 1 of /measurements (point 0000000000000016): "
				      "its wall time (from start_unix, end_unix, timed_s) ") &&
				strstr(e.msg, bad[i].says) && strstr(e.msg, ": a damaged file"),
			"case %zu: %s", i, e.msg);
		ck_assert_ptr_null(d.rows);
	}
}
END_TEST

/* A text table with one row of secs: what the reader says (SW_OK: ""). */
static enum sw_status csv_of(const char *secs, char *msg, size_t len)
{
	char path[512];
	struct sw_durations d;
	struct sw_err err = { 0 };
	snprintf(path, sizeof path, "%s/t.csv", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "point_id_hex,family,variant,seconds\nabc,strided_read,course,%s\n", secs);
	ck_assert_int_eq(fclose(f), 0);
	enum sw_status st = sw_durations_read(path, &d, &err);
	snprintf(msg, len, "%s", st == SW_OK ? "" : err.msg);
	if (st == SW_OK)
		ck_assert_uint_eq(d.n, 1);
	sw_durations_fini(&d);
	return st;
}

START_TEST(csv_times_checked)
{
	const char *bad[] = { "-1", "-0.001", "nan", "-nan", "inf", "-inf", "1e999", "604801" };
	char msg[512];
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_int_eq(csv_of(bad[i], msg, sizeof msg), SW_EINVAL);
		ck_assert_msg(strstr(msg, "t.csv:2: the time of point 0000000000000abc, ") &&
				      strstr(msg, "; a duration is from 0 to 604800 s"),
			      "%s: %s", bad[i], msg);
	}
	ck_assert_int_eq(csv_of("0", msg, sizeof msg), SW_OK);
	ck_assert_int_eq(csv_of("604800", msg, sizeof msg), SW_OK);
	ck_assert_int_eq(csv_of("1e-999", msg, sizeof msg), SW_OK); /* underflows to 0 */
	ck_assert_int_eq(csv_of("1s", msg, sizeof msg), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(msg, "expected point_id_hex,family,variant,seconds"));
}
END_TEST

int main(int argc, char **argv)
{
	int h200 = argc > 1 && !strcmp(argv[1], "h200");

	/* before check allocates anything: a leak checker would fail the skip */
	if (h200 && access(h200_path(), R_OK) != 0) {
		printf("SKIPPED: no %s\n", h200_path());
		return 77;
	}
	Suite *s = suite_create("durations");
	TCase *tc = tcase_create("durations");
	tcase_add_checked_fixture(tc, make_dir, remove_dir);
	if (h200) {
		tcase_add_test(tc, h200_matches_fixture);
	} else {
		tcase_add_test(tc, gap_rule);
		tcase_add_test(tc, gap_rule_v18);
		tcase_add_test(tc, end_unix);
		tcase_add_test(tc, device_classes);
		tcase_add_test(tc, empty_table);
		tcase_add_test(tc, refuse_missing_and_not_hdf5);
		tcase_add_test(tc, refuse_no_measurements);
		tcase_add_test(tc, refuse_columns);
		tcase_add_test(tc, refuse_truncated);
		tcase_add_test(tc, live_writer);
		tcase_add_test(tc, wall_check_edges);
		tcase_add_test(tc, h5_times_checked);
		tcase_add_test(tc, csv_times_checked);
	}
	suite_add_tcase(s, tc);
	return sw_check_run(s);
}
