/*
 * Bad input end to end through the real sweep binary, one row per line of
 * docs/bad-inputs.md: each row's arguments and files, the exit code, a text
 * the one "sweep: " line of stderr must hold, and that nothing was written
 * (the case's directory holds the same files, byte for byte). Singleton runs,
 * four at a time; rows with np 2 go through mpirun to show rank 0 alone
 * prints, and MPMD rows (args2) start two differently started halves. Paths come from ctest: SW_SWEEP, SW_MPIEXEC, SW_TEST_DATA,
 * SW_SOURCE_DIR.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#define PARALLEL_RUNS 4
#define RUN_LIMIT_S   60.0
#define MAX_FILES     16 /* in a row's directory */
#define MAX_ARGS      12

static char tmpdir[256];
static char ci_job[512];             /* jobs/ci.yaml */
static char good_h5[512];            /* a complete sweep file of jobs/ci.yaml, model backend */
static char measured_h5[512];        /* docs/results/h100-fleet.h5: rows an H100 measured */
static hid_t held = H5I_INVALID_HID; /* a file this test keeps open for writing */
static int locked[4];                /* files this test holds sweep's lock on */
static int n_locked;

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

/* ---- files a row needs, made in its directory (the working directory) --- */

static void write_file(const char *name, const void *data, size_t len)
{
	FILE *f = fopen(name, "wb");
	ck_assert_msg(f && fwrite(data, 1, len, f) == len && fclose(f) == 0, "cannot write %s",
		      name);
}

static void copy_file(const char *from, const char *to, long len) /* len < 0: all of it */
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;
	ck_assert_msg(in && out, "cannot copy %s", from);
	while ((n = fread(buf, 1, len < 0 || len > (long)sizeof buf ? sizeof buf : (size_t)len,
			  in)) > 0) {
		fwrite(buf, 1, n, out);
		if (len >= 0 && (len -= (long)n) == 0)
			break;
	}
	fclose(in);
	ck_assert(fclose(out) == 0);
}

/* The whole of a text file, malloc'd. */
static char *slurp_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 1 << 16);
	size_t n = f && buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
	ck_assert_msg(f && buf && n > 0, "cannot read %s", path);
	fclose(f);
	return buf;
}

static void write_text(const char *name, const char *text)
{
	write_file(name, text, strlen(text));
}

static void make_dir(void)
{
	ck_assert(mkdir("jobdir", 0755) == 0);
}
static void make_text_out(void)
{
	write_text("out.h5", "precious\n");
}
static void make_plain_file(void)
{
	write_text("file", "not a directory\n");
}
static void make_fifo(void)
{
	ck_assert(mkfifo("out.h5", 0644) == 0);
}
static void make_job_copy(void)
{
	copy_file(ci_job, "job.yaml", -1);
}
static void make_good(void)
{
	copy_file(good_h5, "out.h5", -1);
}

/* Under the size limit, but costly to parse if nothing stopped it. */
static void make_many_families(void)
{
	char *text = malloc(1 << 20);
	size_t n = 0;
	ck_assert_ptr_nonnull(text);
	n += (size_t)sprintf(text, "families:\n");
	for (int i = 0; i < 100000; i++)
		n += (size_t)sprintf(text + n, "  k%d:\n", i);
	write_file("job.yaml", text, n);
	free(text);
}

static void make_deep(void)
{
	size_t depth = 400000, n = 0;
	char *text = malloc(2 * depth + 16);
	ck_assert_ptr_nonnull(text);
	n += (size_t)sprintf(text, "families: ");
	memset(text + n, '[', depth);
	memset(text + n + depth, ']', depth);
	n += 2 * depth;
	text[n++] = '\n';
	write_file("job.yaml", text, n);
	free(text);
}

static void make_big(void)
{
	size_t len = 2u << 20;
	char *text = malloc(len);
	ck_assert_ptr_nonnull(text);
	memset(text, '#', len); /* a YAML comment, only longer than a job may be */
	write_file("job.yaml", text, len);
	free(text);
}

/* A small HDF5 file that no sweep wrote: one dataset, no attributes. */
static void make_foreign(H5F_libver_t low)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_libver_bounds(fapl, low, H5F_LIBVER_LATEST);
	hid_t f = H5Fcreate("out.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	hsize_t dims = 4;
	int data[4] = { 1, 2, 3, 4 };
	hid_t s = H5Screate_simple(1, &dims, NULL);
	hid_t d = H5Dcreate2(f, "x", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	ck_assert(f >= 0 && d >= 0 &&
		  H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
	H5Dclose(d);
	H5Sclose(s);
	H5Fclose(f);
	H5Pclose(fapl);
}
static void make_foreign_h5(void)
{
	make_foreign(H5F_LIBVER_EARLIEST);
}
static void make_foreign_v110_h5(void)
{
	make_foreign(H5F_LIBVER_LATEST);
}

static void make_truncated(void)
{
	struct stat st;
	ck_assert(stat(good_h5, &st) == 0);
	copy_file(good_h5, "out.h5", (long)st.st_size / 2);
}

static void make_damaged(void)
{
	copy_file(good_h5, "out.h5", -1);
	int fd = open("out.h5", O_WRONLY);
	char junk[16];
	memset(junk, 0xA5, sizeof junk);
	/* byte 8 on: the superblock's version numbers and sizes */
	ck_assert(fd >= 0 && pwrite(fd, junk, sizeof junk, 8) == (ssize_t)sizeof junk);
	close(fd);
}

/* The good file with one change made through HDF5. */
static hid_t open_copy(void)
{
	copy_file(good_h5, "out.h5", -1);
	hid_t f = H5Fopen("out.h5", H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(f >= 0);
	return f;
}

static void make_no_samples(void)
{
	hid_t f = open_copy();
	ck_assert(H5Ldelete(f, "samples", H5P_DEFAULT) >= 0);
	H5Fclose(f);
}

static void make_schema_999(void)
{
	hid_t f = open_copy();
	int v = 999;
	hid_t a = H5Aopen(f, "schema_version", H5P_DEFAULT);
	ck_assert(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &v) >= 0);
	H5Aclose(a);
	H5Fclose(f);
}

static void make_cuda_rows(void)
{
	hid_t f = open_copy();
	hid_t t = H5Tcopy(H5T_C_S1);
	const char *cuda = "cuda";
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	hid_t a = H5Aopen(f, "backend", H5P_DEFAULT);
	ck_assert(a >= 0 && H5Awrite(a, t, &cuda) >= 0);
	H5Aclose(a);
	H5Tclose(t);
	H5Fclose(f);
}

/* Another program has the file open for writing while sweep starts. */
static void make_held(void)
{
	copy_file(good_h5, "out.h5", -1);
	held = H5Fopen("out.h5", H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(held >= 0);
}

/* A sweep writes the file: it holds the OFD write lock sweep takes (a SWMR
 * writer holds no lock of HDF5's), as this test now does. */
static void make_locked(void)
{
	copy_file(good_h5, "out.h5", -1);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open("out.h5", O_RDWR | O_CLOEXEC);
	ck_assert(fd >= 0 && fcntl(fd, F_OFD_SETLK, &fl) == 0);
	ck_assert(n_locked < (int)(sizeof locked / sizeof locked[0]));
	locked[n_locked++] = fd;
}

/* ---- The replay backend's sources (RB rows) ----------------------------- */

/* One float64 column of one /measurements row of file f: read (set 0) or written. */
static double meas_f64(hid_t f, const char *col, hsize_t row, int set, double v)
{
	hid_t d = H5Dopen2(f, "measurements", H5P_DEFAULT);
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(double));
	hid_t space = H5Dget_space(d), mem = H5Screate_simple(1, (hsize_t[]){ 1 }, NULL);
	hsize_t one = 1;
	ck_assert(d >= 0 && t >= 0 && H5Tinsert(t, col, 0, H5T_NATIVE_DOUBLE) >= 0);
	ck_assert(H5Sselect_hyperslab(space, H5S_SELECT_SET, &row, NULL, &one, NULL) >= 0);
	if (set)
		ck_assert(H5Dwrite(d, t, mem, space, H5P_DEFAULT, &v) >= 0);
	else
		ck_assert(H5Dread(d, t, mem, space, H5P_DEFAULT, &v) >= 0);
	H5Sclose(mem);
	H5Sclose(space);
	H5Tclose(t);
	H5Dclose(d);
	return v;
}

/* costs.h5: the good file whose row 0 has the wall time wall (its end_unix
 * moved), or, with wall NaN, no start and a timed_s of +inf. */
static void replay_source_h5(double wall)
{
	copy_file(good_h5, "costs.h5", -1);
	hid_t f = H5Fopen("costs.h5", H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(f >= 0);
	if (isnan(wall)) {
		meas_f64(f, "start_unix", 0, 1, NAN);
		meas_f64(f, "timed_s", 0, 1, INFINITY);
	} else {
		meas_f64(f, "end_unix", 0, 1, meas_f64(f, "start_unix", 0, 0, 0) + wall);
	}
	H5Fclose(f);
}
static void make_replay_h5_negative(void)
{
	replay_source_h5(-5);
}
static void make_replay_h5_infinite(void)
{
	replay_source_h5(NAN);
}
static void make_replay_h5_absurd(void)
{
	replay_source_h5(1e9);
}

/* The time model's measured files: an H100's fleet check as m.h5, and a
 * model-backend file (no measured row) as model.h5. */
static void make_measured(void)
{
	copy_file(measured_h5, "m.h5", -1);
}
/* A file of schema 999, in the name given: what a newer sweep would write. */
static void schema_999_as(const char *from, const char *name)
{
	copy_file(from, name, -1);
	hid_t f = H5Fopen(name, H5F_ACC_RDWR, H5P_DEFAULT);
	int v = 999;
	hid_t a = H5Aopen(f, "schema_version", H5P_DEFAULT);
	ck_assert(f >= 0 && a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &v) >= 0);
	H5Aclose(a);
	H5Fclose(f);
}
static void make_newer_measured(void)
{
	schema_999_as(measured_h5, "m.h5");
}
static void make_newer_costs(void)
{
	schema_999_as(good_h5, "costs.h5");
}
static void make_model_only(void)
{
	copy_file(good_h5, "model.h5", -1);
}

/* Column col of every row of table in file path set to text (a string
 * column, in the file's own string type) or, text NULL, to num. */
static void set_every(const char *path, const char *table, const char *col, const char *text,
		      double num)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	hid_t d = H5Dopen2(f, table, H5P_DEFAULT), ft = H5Dget_type(d);
	int k = H5Tget_member_index(ft, col);
	ck_assert_msg(f >= 0 && d >= 0 && k >= 0, "%s: no /%s column %s", path, table, col);
	hid_t mt = text ? H5Tget_member_type(ft, (unsigned)k) : H5Tcopy(H5T_NATIVE_DOUBLE);
	ck_assert(!text || H5Tis_variable_str(mt) == 0);
	size_t size = H5Tget_size(mt);
	hid_t ct = H5Tcreate(H5T_COMPOUND, size), space = H5Dget_space(d);
	hssize_t n = H5Sget_simple_extent_npoints(space);
	char *buf = calloc((size_t)n, size);
	ck_assert(ct >= 0 && H5Tinsert(ct, col, 0, mt) >= 0 && buf);
	for (hssize_t i = 0; i < n; i++)
		if (text)
			strncpy(buf + i * size, text, size);
		else
			memcpy(buf + i * size, &num, sizeof num);
	ck_assert(H5Dwrite(d, ct, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
	free(buf);
	H5Sclose(space), H5Tclose(ct), H5Tclose(mt), H5Tclose(ft), H5Dclose(d), H5Fclose(f);
}

/* m.h5's rows made unusable by the time model (issue 36, cause 1): every
 * median NaN; the rows a replay's; the GPU one the table lacks. */
static void make_nan_medians(void)
{
	copy_file(measured_h5, "nan.h5", -1);
	set_every("nan.h5", "measurements", "median_ns", NULL, NAN);
}
static void make_replayed(void)
{
	copy_file(measured_h5, "rep.h5", -1);
	set_every("rep.h5", "measurements", "backend", "replay", 0);
}
static void make_unknown_gpu(void)
{
	copy_file(measured_h5, "z9.h5", -1);
	set_every("z9.h5", "devices", "name", "Tesla Z9", 0);
	set_every("z9.h5", "devices", "device_class", "Tesla Z9", 0);
}

/* costs.csv: one row of point 0123456789abcdef taking secs. */
static void replay_source_csv(const char *secs)
{
	char text[256];
	snprintf(text, sizeof text,
		 "point_id_hex,family,variant,seconds\n0123456789abcdef,strided_read,course,%s\n",
		 secs);
	write_text("costs.csv", text);
}
static void make_replay_csv_negative(void)
{
	replay_source_csv("-1");
}
static void make_replay_csv_nan(void)
{
	replay_source_csv("nan");
}
static void make_replay_csv_infinite(void)
{
	replay_source_csv("inf");
}
static void make_replay_csv_absurd(void)
{
	replay_source_csv("1e300");
}

/* ---- Plug-ins: the files their rows need -------------------------------- */

static void copy_plugin(const char *name, const char *to)
{
	char from[1024];
	snprintf(from, sizeof from, "%s/%s", env("SW_TEST_PLUGINS"), name);
	copy_file(from, to, -1);
}
static void make_plugin_text(void)
{
	write_text("p.so", "not a shared object\n");
}
static void make_plugin_no_symbol(void)
{
	copy_plugin("plugin_no_symbol.so", "p.so");
}
static void make_plugin_bad_api(void)
{
	copy_plugin("plugin_bad_api.so", "p.so");
}
static void make_plugin_clash(void)
{
	copy_plugin("plugin_clash.so", "p.so");
}
static void make_plugin_twice(void)
{
	copy_plugin("plugin_strided_read.so", "a.so");
	copy_plugin("plugin_strided_read.so", "b.so");
}
static void make_plugin_fifo(void)
{
	ck_assert(mkfifo("p.so", 0644) == 0);
}
static void make_plugin_dir(void)
{
	ck_assert(mkdir("p.so", 0755) == 0);
}
/* The plug-in beside the job's directory, not in it. */
static void make_plugin_job_elsewhere(void)
{
	make_dir();
	write_text("jobdir/job.yaml", "plugins: [p.so]\nfamilies:\n  plugin_strided_read:\n");
	copy_plugin("plugin_strided_read.so", "p.so");
}

/* ---- makers for "Output names" ------------------------------------------ */

static void make_dangling_link(void)
{
	ck_assert(symlink("missing.h5", "out.h5") == 0);
}
static void make_link_loop(void)
{
	ck_assert(symlink("out.h5", "out.h5") == 0);
}
static void make_link_to_missing_dir(void)
{
	ck_assert(symlink("nodir/out.h5", "out.h5") == 0);
}

/* ---- makers for "Inputs that are also outputs" --------------------------- */

/* out.h5 a sweep file, and two more names of it: link.h5 -> out.h5 (a
 * symbolic link) and hard.h5 (a hard link). */
static void make_good_names(void)
{
	make_good();
	ck_assert(symlink("out.h5", "link.h5") == 0 && link("out.h5", "hard.h5") == 0);
}
/* job.yaml, a copy of jobs/ci.yaml, and its names link.yaml and hard.yaml */
static void make_job_names(void)
{
	make_job_copy();
	ck_assert(symlink("job.yaml", "link.yaml") == 0 && link("job.yaml", "hard.yaml") == 0);
}

/* ---- makers for "Agreement, paths and numbers" ---------------------- */

/* Every FIFO here has no writer: a read that waits would hang the row
 * until run_all kills it at RUN_LIMIT_S, and the row fails. */
static void make_job_fifo(void)
{
	ck_assert(mkfifo("job.yaml", 0644) == 0);
}
static void make_costs_fifo(void)
{
	ck_assert(mkfifo("costs.h5", 0644) == 0);
}
static void make_costs_csv_fifo(void)
{
	ck_assert(mkfifo("costs.csv", 0644) == 0);
}
static void make_costs_dir(void)
{
	ck_assert(mkdir("costs", 0755) == 0);
}

/* Directories a/ and b/, the working directories of two MPMD halves. */
static void make_halves(void)
{
	ck_assert(mkdir("a", 0755) == 0 && mkdir("b", 0755) == 0);
	copy_file(ci_job, "a/job.yaml", -1);
}
/* The same path, another text: the same plan, a comment more. */
static void make_halves_other_text(void)
{
	make_halves();
	copy_file(ci_job, "b/job.yaml", -1);
	FILE *f = fopen("b/job.yaml", "a");
	ck_assert(f && fputs("# edited on one node only\n", f) >= 0 && fclose(f) == 0);
}
static void make_halves_fifo(void)
{
	make_halves();
	ck_assert(mkfifo("b/job.yaml", 0644) == 0);
}
static void make_halves_missing(void)
{
	make_halves();
}

/* ---- files, resume and disks: sweep files rebuilt with one thing changed - */

enum layout { AS_WRITTEN, CONTIGUOUS, FIXED_MAX };

static herr_t copy_attr(hid_t loc, const char *name, const H5A_info_t *info, void *dst)
{
	(void)info;
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT), t = H5Aget_type(a), sp = H5Aget_space(a);
	char buf[64]; /* scalars: numbers, or a variable-length string's pointer */
	ck_assert(a >= 0 && H5Tget_size(t) <= sizeof buf && H5Aread(a, t, buf) >= 0);
	hid_t b = H5Acreate2(*(hid_t *)dst, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	ck_assert(b >= 0 && H5Awrite(b, t, buf) >= 0);
	H5Aclose(b);
	if (H5Tis_variable_str(t) > 0)
		H5free_memory(*(char **)buf);
	H5Sclose(sp);
	H5Tclose(t);
	H5Aclose(a);
	return 0;
}

/* /table of src into dst with column col (NULL: the whole type, when it is
 * not a table) stored as type (H5I_INVALID_HID: as it was), laid out as
 * layout says; HDF5 converts the values. */
static void remake_table(hid_t src, hid_t dst, const char *table, const char *col, hid_t type,
			 enum layout layout)
{
	hid_t d = H5Dopen2(src, table, H5P_DEFAULT), ft = H5Dget_type(d), sp = H5Dget_space(d);
	hsize_t n, maxdims = H5S_UNLIMITED, chunk = 64;
	H5Sget_simple_extent_dims(sp, &n, NULL);
	hid_t nt = ft;
	if (type >= 0 && !col) {
		nt = type;
	} else if (type >= 0) {
		size_t size = 0;
		int k = H5Tget_nmembers(ft);
		for (int i = 0; i < k; i++) {
			hid_t mt = H5Tget_member_type(ft, (unsigned)i);
			char *name = H5Tget_member_name(ft, (unsigned)i);
			size += strcmp(name, col) ? H5Tget_size(mt) : H5Tget_size(type);
			H5free_memory(name);
			H5Tclose(mt);
		}
		nt = H5Tcreate(H5T_COMPOUND, size);
		size = 0;
		for (int i = 0; i < k; i++) {
			hid_t mt = H5Tget_member_type(ft, (unsigned)i);
			char *name = H5Tget_member_name(ft, (unsigned)i);
			hid_t use = strcmp(name, col) ? mt : type;
			H5Tinsert(nt, name, size, use);
			size += H5Tget_size(use);
			H5free_memory(name);
			H5Tclose(mt);
		}
	}
	void *rows = calloc(n ? n : 1, H5Tget_size(nt));
	ck_assert(rows && (n == 0 || H5Dread(d, nt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0));
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (layout == FIXED_MAX && n < chunk) /* a chunk may not pass a fixed size */
		chunk = n ? n : 1;
	if (layout != CONTIGUOUS)
		H5Pset_chunk(dcpl, 1, &chunk);
	hid_t nsp = H5Screate_simple(1, &n, layout == AS_WRITTEN ? &maxdims : NULL);
	hid_t e = H5Dcreate2(dst, table, nt, nsp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	ck_assert(e >= 0 && (n == 0 || H5Dwrite(e, nt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0));
	free(rows);
	H5Dclose(e);
	H5Sclose(nsp);
	H5Pclose(dcpl);
	if (nt != ft && nt != type)
		H5Tclose(nt);
	H5Tclose(ft);
	H5Sclose(sp);
	H5Dclose(d);
}

/* out.h5: the good file, rebuilt in the format sweep writes, with table's
 * column col stored as type and table laid out as layout says. */
static void remake(const char *table, const char *col, hid_t type, enum layout layout)
{
	static const char *const tables[] = { "devices", "measurements", "samples" };
	hid_t src = H5Fopen(good_h5, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
	hid_t dst = H5Fcreate("out.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	ck_assert(src >= 0 && dst >= 0);
	ck_assert(H5Aiterate2(src, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, copy_attr, &dst) >= 0);
	for (int i = 0; i < 3; i++) {
		int it = table && !strcmp(table, tables[i]);
		remake_table(src, dst, tables[i], it ? col : NULL, it ? type : H5I_INVALID_HID,
			     it ? layout : AS_WRITTEN);
	}
	H5Fclose(dst);
	H5Fclose(src);
	H5Pclose(fapl);
}

static void make_point_id_f64(void)
{
	remake("measurements", "point_id", H5T_IEEE_F64LE, AS_WRITTEN);
}
static void make_point_id_i32(void)
{
	remake("measurements", "point_id", H5T_STD_I32LE, AS_WRITTEN);
}
static void make_status_i64(void)
{
	remake("measurements", "status", H5T_STD_I64LE, AS_WRITTEN);
}
static void make_session_f64(void)
{
	remake("devices", "session", H5T_IEEE_F64LE, AS_WRITTEN);
}
static void make_samples_f32(void)
{
	remake("samples", NULL, H5T_IEEE_F32LE, AS_WRITTEN);
}
static void make_short_host(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, 8);
	remake("devices", "host", t, AS_WRITTEN);
	H5Tclose(t);
}
static void make_rows_contiguous(void)
{
	remake("measurements", NULL, H5I_INVALID_HID, CONTIGUOUS);
}
static void make_rows_fixed(void)
{
	remake("measurements", NULL, H5I_INVALID_HID, FIXED_MAX);
}
static void make_samples_contiguous(void)
{
	remake("samples", NULL, H5I_INVALID_HID, CONTIGUOUS);
}
static void make_devices_fixed(void)
{
	remake("devices", NULL, H5I_INVALID_HID, FIXED_MAX);
}

/* out.h5: a copy of the good file with root attribute name replaced by one
 * value of type (H5I_INVALID_HID: removed). */
static void set_root_attr(const char *name, hid_t type, const void *value)
{
	copy_file(good_h5, "out.h5", -1);
	hid_t f = H5Fopen("out.h5", H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(f >= 0 && H5Adelete(f, name) >= 0);
	if (type >= 0) {
		hid_t sp = H5Screate(H5S_SCALAR);
		hid_t a = H5Acreate2(f, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
		ck_assert(a >= 0 && H5Awrite(a, type, value) >= 0);
		H5Aclose(a);
		H5Sclose(sp);
	}
	H5Fclose(f);
}
static void make_sessions_f64(void)
{
	double v = 1;
	set_root_attr("sessions", H5T_NATIVE_DOUBLE, &v);
}
static void make_sessions_max(void)
{
	int v = INT32_MAX;
	set_root_attr("sessions", H5T_NATIVE_INT, &v);
}
static void make_sessions_negative(void)
{
	int v = INT32_MIN;
	set_root_attr("sessions", H5T_NATIVE_INT, &v);
}
static void make_fingerprint_text(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, 17);
	set_root_attr("plan_fingerprint", t, "384016545ab3b4de");
	H5Tclose(t);
}
static void make_plan_points_other(void)
{
	uint64_t v = 145;
	set_root_attr("plan_points", H5T_NATIVE_UINT64, &v);
}
static void make_no_job_text(void)
{
	set_root_attr("job_text", H5I_INVALID_HID, NULL);
}
static void make_job_text_junk(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	const char *junk = "families: [";
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	set_root_attr("job_text", t, &junk);
	H5Tclose(t);
}

/* jobs/ci.yaml with a line added: the same points, other settings. */
static void job_with(const char *line)
{
	char *text = slurp_text(ci_job);
	FILE *f = fopen("job.yaml", "w");
	ck_assert(f && fprintf(f, "%s%s", text, line) > 0 && fclose(f) == 0);
	free(text);
	make_good();
}
static void make_other_warmup(void)
{
	job_with("measure:\n  warmup: 5\n");
}
static void make_other_flush(void)
{
	job_with("measure:\n  flush_method: memset\n");
}

/* ---- makers for "Stored jobs and their plug-ins" and "Extend" ----------- */

/* The job of plug_h5 (made in main, in a folder of its own, with the good
 * hostile plug-in as its p.so), the same with one more comment line, and
 * the job enlarged by one value of n. */
#define PLUG_JOB   "plugins: [p.so]\nfamilies:\n  hostile:\n"
#define PLUG_JOB_C "# the same job, another text\n" PLUG_JOB
#define PLUG_JOB_2 PLUG_JOB "    axes:\n      n: 1K,2K,3K,4K,5K\n"

static char plug_h5[512]; /* a complete sweep file of PLUG_JOB */

/* A 1-D attribute of n values, created anew. */
static void put_list(hid_t f, const char *name, hid_t type, const void *values, hsize_t n)
{
	if (H5Aexists(f, name) > 0)
		ck_assert(H5Adelete(f, name) >= 0);
	hid_t sp = H5Screate_simple(1, &n, NULL);
	hid_t a = H5Acreate2(f, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
	ck_assert(a >= 0 && H5Awrite(a, type, values) >= 0);
	H5Aclose(a);
	H5Sclose(sp);
}

/* out.h5: plug_h5 whose record says its plug-in was made/p.so of this
 * directory: n_paths paths and n_hashes hashes (the recorded one). */
static void plug_out(int n_paths, int n_hashes)
{
	char cwd[512], where[600];
	const char *paths[2] = { where, where };
	uint64_t hashes[2] = { 0, 0 };
	copy_file(plug_h5, "out.h5", -1);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
	snprintf(where, sizeof where, "%s/made/p.so", cwd);
	hid_t f = H5Fopen("out.h5", H5F_ACC_RDWR, H5P_DEFAULT);
	hid_t a = H5Aopen(f, "plugin_hashes", H5P_DEFAULT);
	ck_assert(a >= 0 && H5Aread(a, H5T_NATIVE_UINT64, hashes) >= 0);
	H5Aclose(a);
	hashes[1] = hashes[0];
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	put_list(f, "plugin_paths", t, paths, (hsize_t)n_paths);
	put_list(f, "plugin_hashes", H5T_NATIVE_UINT64, hashes, (hsize_t)n_hashes);
	H5Tclose(t);
	H5Fclose(f);
}

/* The jobs of a resume (job_c.yaml) and an extend (job2.yaml) beside
 * out.h5, and p.so another build of the family `hostile`. */
static void plug_jobs(void)
{
	write_text("job_c.yaml", PLUG_JOB_C);
	write_text("job2.yaml", PLUG_JOB_2);
	copy_plugin("plugin_hostile_other.so", "p.so");
}
static void make_plug_gone(void)
{
	plug_out(1, 1);
	plug_jobs();
}
/* made/p.so leaves MARK here when loaded: the row's unchanged directory
 * shows that its constructor never ran */
static void make_plug_changed(void)
{
	make_plug_gone();
	ck_assert(mkdir("made", 0755) == 0);
	copy_plugin("plugin_hostile_mark.so", "made/p.so");
}
static void make_plug_intact(void)
{
	make_plug_gone();
	ck_assert(mkdir("made", 0755) == 0);
	copy_plugin("plugin_hostile.so", "made/p.so");
}
/* A file of schema 6 (no record), resumed with a job that has no plugins:
 * key (its family by --plugin q.so), and here a p.so that leaves MARK. */
static void make_plug_schema6(void)
{
	int six = 6;
	copy_file(plug_h5, "out.h5", -1);
	hid_t f = H5Fopen("out.h5", H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(f >= 0 && H5Adelete(f, "plugin_paths") >= 0 &&
		  H5Adelete(f, "plugin_hashes") >= 0);
	hid_t a = H5Aopen(f, "schema_version", H5P_DEFAULT);
	ck_assert(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &six) >= 0);
	H5Aclose(a);
	H5Fclose(f);
	make_dir();
	write_text("jobdir/job.yaml", "# its family by --plugin\nfamilies:\n  hostile:\n");
	copy_plugin("plugin_hostile.so", "q.so");
	copy_plugin("plugin_hostile_mark.so", "p.so");
}
static void make_plug_lengths(void)
{
	plug_out(2, 1);
	copy_plugin("plugin_hostile.so", "p.so");
}
static void make_plug_two_records(void)
{
	plug_out(2, 2);
	write_text("job_c.yaml", PLUG_JOB_C);
	copy_plugin("plugin_hostile.so", "p.so");
}

/* ---- issue 30, causes 3 and 9: the code the rows were measured with ---- */

/* dep_h5: PLUG_JOB made in a folder of its own whose p.so links the
 * libswdep.so beside it ($ORIGIN), dep_a's build; opt_h5: HOSTILE_JOB made
 * in another with --plugin q.so (plugin_hostile.so), the job naming none. */
#define HOSTILE_JOB   "families:\n  hostile:\n"
#define HOSTILE_JOB_2 HOSTILE_JOB "    axes:\n      n: 1K,2K,3K,4K,5K\n"
static char dep_h5[512], opt_h5[512];

/* out.h5: dep_h5; here its job, job2.yaml (enlarged), its plug-in, and
 * the build of libswdep.so given (a path under SW_TEST_PLUGINS). */
static void dep_out(const char *lib)
{
	copy_file(dep_h5, "out.h5", -1);
	write_text("job.yaml", PLUG_JOB);
	write_text("job2.yaml", PLUG_JOB_2);
	copy_plugin("plugin_hostile_dep.so", "p.so");
	copy_plugin(lib, "libswdep.so");
}
static void make_dep_other(void)
{
	dep_out("dep_b/libswdep.so");
}
/* The same library as the file's; its record rewritten to say the plug-in
 * brought none in (deleted), or that one's owner is no recorded plug-in. */
static void make_dep_unrecorded(void)
{
	dep_out("dep_a/libswdep.so");
	hid_t f = H5Fopen("out.h5", H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(f >= 0 && H5Adelete(f, "plugin_libraries") >= 0 &&
		  H5Adelete(f, "plugin_library_hashes") >= 0 &&
		  H5Adelete(f, "plugin_library_owners") >= 0);
	H5Fclose(f);
}
static void make_dep_owner(void)
{
	uint64_t nobody = 12345;
	dep_out("dep_a/libswdep.so");
	hid_t f = H5Fopen("out.h5", H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(f >= 0);
	put_list(f, "plugin_library_owners", H5T_NATIVE_UINT64, &nobody, 1);
	H5Fclose(f);
}
/* plug_h5 resumed with its own job's text, p.so another build of it */
static void make_plug_other_build(void)
{
	copy_file(plug_h5, "out.h5", -1);
	write_text("job.yaml", PLUG_JOB);
	copy_plugin("plugin_hostile_other.so", "p.so");
}
/* out.h5: opt_h5; here its job, job2.yaml, and o.so another build of q.so */
static void make_opt(void)
{
	copy_file(opt_h5, "out.h5", -1);
	write_text("job.yaml", HOSTILE_JOB);
	write_text("job2.yaml", HOSTILE_JOB_2);
	copy_plugin("plugin_hostile_other.so", "o.so");
}

/* out.h5: the good file with its /sessions rebuilt laid out as layout says. */
static void remake_sessions(enum layout layout)
{
	copy_file(good_h5, "out.h5", -1);
	hid_t src = H5Fopen(good_h5, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t dst = H5Fopen("out.h5", H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(src >= 0 && dst >= 0 && H5Ldelete(dst, "sessions", H5P_DEFAULT) >= 0);
	hid_t d = H5Dopen2(src, "sessions", H5P_DEFAULT), t = H5Dget_type(d), sp = H5Dget_space(d);
	hsize_t n = (hsize_t)H5Sget_simple_extent_npoints(sp), chunk = n;
	void *rows = calloc(n, H5Tget_size(t));
	ck_assert(rows && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (layout != CONTIGUOUS)
		H5Pset_chunk(dcpl, 1, &chunk);
	hid_t nsp = H5Screate_simple(1, &n, NULL); /* no maximum: it cannot grow */
	hid_t e = H5Dcreate2(dst, "sessions", t, nsp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	ck_assert(e >= 0 && H5Dwrite(e, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
	H5Dvlen_reclaim(t, sp, H5P_DEFAULT, rows);
	free(rows);
	H5Dclose(e), H5Sclose(nsp), H5Pclose(dcpl), H5Sclose(sp), H5Tclose(t), H5Dclose(d);
	H5Fclose(dst), H5Fclose(src);
}
static void make_sessions_fixed(void)
{
	remake_sessions(FIXED_MAX);
}
static void make_sessions_contiguous(void)
{
	remake_sessions(CONTIGUOUS);
}
/* /sessions whose job_text is a string of 64 bytes, which a session's
 * variable-length job text cannot be written to: one row, as a file of
 * another program might hold it. */
static void make_sessions_fixed_text(void)
{
	struct fixed_row {
		int32_t session;
		char mode[8];
		double start_unix;
		char start_time[24];
		uint64_t fingerprint, points;
		const char *tool;
		char job[64];
	} row = { 0, "new", 1.7e9, "2023-11-14T22:13:20Z", 0, 144, "sweep", "name: ci" };
	copy_file(good_h5, "out.h5", -1);
	hid_t f = H5Fopen("out.h5", H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(f >= 0 && H5Ldelete(f, "sessions", H5P_DEFAULT) >= 0);
	hid_t s8 = H5Tcopy(H5T_C_S1), s24 = H5Tcopy(H5T_C_S1), s64 = H5Tcopy(H5T_C_S1);
	hid_t vs = H5Tcopy(H5T_C_S1), t = H5Tcreate(H5T_COMPOUND, sizeof row);
	H5Tset_size(s8, 8), H5Tset_size(s24, 24), H5Tset_size(s64, 64);
	H5Tset_size(vs, H5T_VARIABLE);
	H5Tinsert(t, "session", offsetof(struct fixed_row, session), H5T_NATIVE_INT32);
	H5Tinsert(t, "mode", offsetof(struct fixed_row, mode), s8);
	H5Tinsert(t, "start_unix", offsetof(struct fixed_row, start_unix), H5T_NATIVE_DOUBLE);
	H5Tinsert(t, "start_time", offsetof(struct fixed_row, start_time), s24);
	H5Tinsert(t, "plan_fingerprint", offsetof(struct fixed_row, fingerprint),
		  H5T_NATIVE_UINT64);
	H5Tinsert(t, "plan_points", offsetof(struct fixed_row, points), H5T_NATIVE_UINT64);
	H5Tinsert(t, "tool_version", offsetof(struct fixed_row, tool), vs);
	H5Tinsert(t, "job_text", offsetof(struct fixed_row, job), s64);
	hsize_t one = 1, unlimited = H5S_UNLIMITED, chunk = 16;
	hid_t sp = H5Screate_simple(1, &one, &unlimited), dcpl = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_chunk(dcpl, 1, &chunk);
	hid_t d = H5Dcreate2(f, "sessions", t, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	ck_assert(d >= 0 && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &row) >= 0);
	H5Dclose(d), H5Pclose(dcpl), H5Sclose(sp), H5Tclose(t);
	H5Tclose(vs), H5Tclose(s64), H5Tclose(s24), H5Tclose(s8);
	H5Fclose(f);
}
static void make_samples_fixed(void)
{
	remake("samples", NULL, H5I_INVALID_HID, FIXED_MAX);
}
/* jobs/ci.yaml without its last model target: 36 points fewer. */
static void make_fewer_ccs(void)
{
	char *text = slurp_text(ci_job), *at = strstr(text, "ccs: [6.0, 7.0, 8.0, 9.0]");
	ck_assert_ptr_nonnull(at);
	memcpy(at, "ccs: [6.0, 7.0, 8.0]     ", 25);
	write_text("job.yaml", text);
	free(text);
	make_good();
}

/* ---- the table --------------------------------------------------------- */

/* Bytes with NULs in them: a job's text and length together. */
#define BYTES(s) .job = s, .job_len = sizeof(s) - 1

struct bad {
	const char *what; /* its row in docs/bad-inputs.md */
	/* after `sweep --backend model`; "@x" is tests/data/jobs/x, "@ci" jobs/ci.yaml */
	const char *args[MAX_ARGS];
	const char *job; /* when set, written to job.yaml first */
	size_t job_len;  /* 0: strlen(job) */
	void (*make)(void);
	const char *plugin; /* when set, this test plug-in is copied to p.so first */
	int np;             /* 2: through mpirun -np 2; otherwise one process, no mpirun */
	/* MPMD: when set, `mpirun -np np0 sweep ARGS : -np 1 sweep ARGS2`, each
	 * half after `--backend model`, in wdir[0] and wdir[1] when given */
	const char *args2[MAX_ARGS];
	int np0; /* 0: 1 */
	const char *wdir[2];
	int rc;
	const char *msg;  /* the one "sweep: " line of stderr holds this */
	const char *msg2; /* and, when set, this further on */
};

#define O "-o", "out.h5"

/* a job of the test plug-in's family, the plug-in named by --plugin */
#define PLUG_HOSTILE "families:\n  hostile:\n"

/* names longer than a file system takes: 300 bytes in one name, and over
 * PATH_MAX (4096) in all */
#define X10   "bbbbbbbbbb"
#define X100  X10 X10 X10 X10 X10 X10 X10 X10 X10 X10
#define D10   "././././././././././"
#define D100  D10 D10 D10 D10 D10 D10 D10 D10 D10 D10
#define D1000 D100 D100 D100 D100 D100 D100 D100 D100 D100 D100
/* paths at PATH_MAX: 4095 bytes with a 4-byte name (legal: written, O05,
 * test_long_path_short_name), and one byte more */
#define P4095                                                                                      \
	".//" D1000 D1000 D10 D10 D10 D10 "././././"                                               \
	"o.h5"
#define P4096 "." P4095
_Static_assert(sizeof P4095 == 4096 && sizeof P4096 == 4097, "paths of 4095 and 4096 bytes");

static const struct bad table[] = {
	/* YAML */
	{ "B01 malformed YAML: unclosed flow sequence",
	  { "@bad_syntax.yaml", O },
	  .rc = 2,
	  .msg = "bad_syntax.yaml:3:25: YAML syntax error" },
	{ "B02 unterminated quoted string",
	  { "job.yaml", O },
	  .job = "families:\n  strided_read:\n    axes:\n      n: \"1M\n",
	  .rc = 2,
	  .msg = "job.yaml:5:1: YAML syntax error: found unexpected end of stream" },
	{ "B03 tab indentation",
	  { "@bad_tab.yaml", O },
	  .rc = 2,
	  .msg = "bad_tab.yaml:2:1: YAML syntax error" },
	{ "B04 two YAML documents",
	  { "@bad_two_docs.yaml", O },
	  .rc = 2,
	  .msg = "a second YAML document" },
	{ "B05 unsupported YAML version",
	  { "job.yaml", O },
	  .job = "%YAML 2.0\n---\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "incompatible YAML document" },
	{ "B06 undefined alias",
	  { "job.yaml", O },
	  .job = "families:\n  strided_read:\n    axes:\n      n: *nope\n",
	  .rc = 2,
	  .msg = "job.yaml:4:10: YAML syntax error: found undefined alias" },
	{ "B07 empty file", { "@bad_empty.yaml", O }, .rc = 2, .msg = "the job file is empty" },
	{ "B08 top level is a sequence",
	  { "@bad_not_mapping.yaml", O },
	  .rc = 2,
	  .msg = "expected a mapping with keys name, measure, model and families, found a "
		 "sequence" },
	/* keys */
	{ "B09 unknown top-level key",
	  { "@bad_top_key.yaml", O },
	  .rc = 2,
	  .msg = "unknown key `famlies` in the job; expected one of: name, measure, model, "
		 "plugins, families" },
	{ "B10 unknown key in measure",
	  { "job.yaml", O },
	  .job = "measure:\n  colour: red\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "job.yaml:2:3: unknown key `colour` in measure; expected one of: rse_target, "
		 "time_cap_s, min_sample_s, min_samples, max_samples, warmup, flush_l2, "
		 "flush_method" },
	{ "B11 unknown key in a family",
	  { "@bad_family_key.yaml", O },
	  .rc = 2,
	  .msg = "unknown key `variant` in strided_read; expected one of: variants, axes" },
	{ "B12 unknown axis",
	  { "@bad_axis.yaml", O },
	  .rc = 2,
	  .msg = "unknown axis `strides` in strided_read.axes" },
	{ "B13 no families key",
	  { "@bad_no_families.yaml", O },
	  .rc = 2,
	  .msg = "missing the required key `families`" },
	{ "B14 duplicate key",
	  { "@bad_dup_key.yaml", O },
	  .rc = 2,
	  .msg = "duplicate key `warmup` in measure (first at line 2, column 3)" },
	{ "B15 duplicate family",
	  { "@bad_dup_family.yaml", O },
	  .rc = 2,
	  .msg = "duplicate family `strided_read`" },
	{ "B16 duplicate axis",
	  { "job.yaml", O },
	  .job = "families:\n  strided_read:\n    axes:\n      stride: 1\n      stride: 2\n",
	  .rc = 2,
	  .msg = "job.yaml:5:7: duplicate axis `stride` in strided_read.axes" },
	/* types */
	{ "B17 a sequence where a mapping belongs",
	  { "@bad_type.yaml", O },
	  .rc = 2,
	  .msg = "measure: expected a mapping of measurement settings, found a sequence" },
	{ "B18 a mapping where a number belongs",
	  { "@bad_type_scalar.yaml", O },
	  .rc = 2,
	  .msg = "measure.rse_target: expected a number x with 0 < x < 1, found a mapping" },
	{ "B19 a fraction where an integer belongs",
	  { "job.yaml", O },
	  .job = "measure:\n  min_samples: 1.5\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "measure.min_samples: expected an integer 1..512, found \"1.5\"" },
	{ "B20 axis value with a unit",
	  { "@bad_axis_junk.yaml", O },
	  .rc = 2,
	  .msg = "n: \"64MB\" is not an integer" },
	{ "B21 axis value a boolean",
	  { "job.yaml", O },
	  .job = "families:\n  strided_read:\n    axes:\n      stride: true\n",
	  .rc = 2,
	  .msg = "stride: \"true\" is not an integer" },
	{ "B22 axis value a nested sequence",
	  { "job.yaml", O },
	  .job = "families:\n  strided_read:\n    axes:\n      stride: [[1, 2]]\n",
	  .rc = 2,
	  .msg = "stride: expected an integer, found a sequence" },
	{ "B23 families as a list",
	  { "job.yaml", O },
	  .job = "families: [strided_read]\n",
	  .rc = 2,
	  .msg = "families: expected a mapping of kernel family names" },
	{ "B24 a key with no value where a number belongs",
	  { "@bad_null_value.yaml", O },
	  .rc = 2,
	  .msg = "measure.rse_target: expected a number x with 0 < x < 1, found nothing" },
	{ "B25 nan",
	  { "job.yaml", O },
	  .job = "measure:\n  time_cap_s: .nan\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "measure.time_cap_s: expected a number x with 0 < x <= 3600, found \".nan\"" },
	/* empty and duplicate */
	{ "B26 empty axis",
	  { "@bad_empty_axis.yaml", O },
	  .rc = 2,
	  .msg = "stride: empty; expected axis values" },
	{ "B27 empty axis by --set",
	  { "--set", "strided_read.stride=", "@ci", O },
	  .rc = 2,
	  .msg = "--set strided_read.stride=: empty axis" },
	{ "B28 empty list element",
	  { "--set", "strided_read.stride=1,,2", "@ci", O },
	  .rc = 2,
	  .msg = "\"1,,2\": empty list element" },
	{ "B29 a value twice in an axis",
	  { "@bad_dup_value.yaml", O },
	  .rc = 2,
	  .msg = "stride: the value 4 appears twice" },
	{ "B30 no family",
	  { "@bad_families_empty.yaml", O },
	  .rc = 2,
	  .msg = "families: empty; expected at least one kernel family" },
	{ "B31 no variant",
	  { "@bad_empty_variants.yaml", O },
	  .rc = 2,
	  .msg = "strided_read.variants: empty" },
	{ "B32 a variant twice",
	  { "job.yaml", O },
	  .job = "families:\n  strided_read:\n    variants: [course, course]\n",
	  .rc = 2,
	  .msg = "variant course is listed twice" },
	/* sizes */
	{ "B33 negative size",
	  { "job.yaml", O },
	  .job = "families:\n  strided_read:\n    axes:\n      n: -64M\n",
	  .rc = 2,
	  .msg = "job.yaml:4:10: n value -64M is out of range 1K..4G" },
	{ "B34 negative stride",
	  { "--set", "strided_read.stride=-4", "@ci", O },
	  .rc = 2,
	  .msg = "--set strided_read.stride=-4: value -4 is out of range 1..128" },
	{ "B35 zero size",
	  { "job.yaml", O },
	  .job = "families:\n  strided_read:\n    axes:\n      n: 0\n",
	  .rc = 2,
	  .msg = "n value 0 is out of range 1K..4G" },
	{ "B36 zero stride",
	  { "@bad_range.yaml", O },
	  .rc = 2,
	  .msg = "stride value 0 is out of range 1..128" },
	{ "B37 size above the axis's range",
	  { "@bad_seq_range.yaml", O },
	  .rc = 2,
	  .msg = "n value 8G is out of range 1K..4G" },
	{ "B38 size beyond 64 bits",
	  { "@bad_overflow.yaml", O },
	  .rc = 2,
	  .msg = "\"99999999999999999999\" does not fit in a 64-bit integer" },
	{ "B39 suffix beyond 64 bits",
	  { "--set", "strided_read.n=8589934592G", "@ci", O },
	  .rc = 2,
	  .msg = "\"8589934592G\" does not fit in a 64-bit integer" },
	{ "B40 geometric range up to INT64_MAX",
	  { "--set", "strided_read.stride=1:9223372036854775807:x2", "@ci", O },
	  .rc = 2,
	  .msg = "value 256 is out of range 1..128" },
	{ "B41 step that passes INT64_MAX",
	  { "--set", "strided_read.stride=1:9223372036854775807:4611686018427387904", "@ci", O },
	  .rc = 2,
	  .msg = "value 4611686018427387905 is out of range 1..128" },
	{ "B42 more than 100000 values",
	  { "--set", "strided_read.n=1K:4G:1K", "@ci", O },
	  .rc = 2,
	  .msg = "more than 100000 values" },
	{ "B43 a plan of more than 10^7 points",
	  { "job.yaml", O },
	  .job = "families:\n  rowsum:\n    variants: thread_per_row\n    axes:\n      rows: "
		 "32:100031\n      cols: 32:65536\n",
	  .rc = 2,
	  .msg = "the plan has more than 10000000 points; narrow the axes" },
	{ "B44 reversed range",
	  { "@bad_reversed.yaml", O },
	  .rc = 2,
	  .msg = "\"128:1\": the start 128 is above the end 1" },
	{ "B45 step 0",
	  { "@bad_step.yaml", O },
	  .rc = 2,
	  .msg = "\"0:32:0\": the step must be at least 1" },
	{ "B46 geometric factor 0",
	  { "job.yaml", O },
	  .job = "families:\n  strided_read:\n    axes:\n      stride: 1:128:x0\n",
	  .rc = 2,
	  .msg = "the geometric factor must be at least 2" },
	/* families, variants, settings */
	{ "B49 unknown family",
	  { "@bad_family.yaml", O },
	  .rc = 2,
	  .msg = "unknown family `strided_write`; registered families: strided_read," },
	{ "B50 family name in the wrong case",
	  { "job.yaml", O },
	  .job = "families:\n  Strided_Read:\n",
	  .rc = 2,
	  .msg = "unknown family `Strided_Read`" },
	{ "B51 unknown variant",
	  { "@bad_variant.yaml", O },
	  .rc = 2,
	  .msg = "unknown variant `fancy` of family strided_read; expected one of: course, tuned, "
		 "stream_read, memcpy" },
	{ "B52 bad compute capability",
	  { "@bad_cc.yaml", O },
	  .rc = 2,
	  .msg = "model.ccs: \"9.x\" is not a compute capability" },
	{ "B53 a compute capability twice",
	  { "@bad_dup_cc.yaml", O },
	  .rc = 2,
	  .msg = "model.ccs: 8.0 is listed twice" },
	{ "B54 setting out of range",
	  { "@bad_rse.yaml", O },
	  .rc = 2,
	  .msg = "measure.rse_target: 1.5 is out of range" },
	{ "B55 max_samples below min_samples",
	  { "@bad_min_max.yaml", O },
	  .rc = 2,
	  .msg = "measure.max_samples: 10 is below min_samples 20" },
	{ "B56 unknown flush_l2",
	  { "@bad_flush.yaml", O },
	  .rc = 2,
	  .msg = "measure.flush_l2: expected auto, always or never, found \"sometimes\"" },
	{ "B57 bad job name",
	  { "@bad_name.yaml", O },
	  .rc = 2,
	  .msg = "name: expected a name of 1 to 63 characters" },
	/* --set */
	{ "B58 --set without =",
	  { "--set", "strided_read.stride", "@ci", O },
	  .rc = 2,
	  .msg = "--set strided_read.stride: expected FAMILY.AXIS=VALUES or "
		 "FAMILY.variants=NAMES" },
	{ "B59 --set without a family",
	  { "--set", "stride=4", "@ci", O },
	  .rc = 2,
	  .msg = "--set stride=4: expected FAMILY.AXIS=VALUES" },
	{ "B60 --set unknown family",
	  { "--set", "foo.stride=4", "@ci", O },
	  .rc = 2,
	  .msg = "--set foo.stride=4: unknown family `foo`" },
	{ "B61 --set a family not in the job",
	  { "--set", "offset_read.n=1M", "@ci", O },
	  .rc = 2,
	  .msg = "family offset_read is not in this job (it runs: strided_read)" },
	{ "B62 --set unknown axis",
	  { "--set", "strided_read.strides=4", "@ci", O },
	  .rc = 2,
	  .msg = "family strided_read has no axis `strides`; expected one of: stride, n, block, "
		 "grid, vec, elem_bytes, variants" },
	{ "B63 --set out of range",
	  { "--set", "strided_read.stride=0", "@ci", O },
	  .rc = 2,
	  .msg = "--set strided_read.stride=0: value 0 is out of range 1..128" },
	{ "B64 --set unknown variant",
	  { "--set", "strided_read.variants=fancy", "@ci", O },
	  .rc = 2,
	  .msg = "unknown variant `fancy` of family strided_read" },
	{ "B65 --set with no argument",
	  { "@ci", O, "--set" },
	  .rc = 2,
	  .msg = "option '--set' needs a value: FAMILY.AXIS=VALUES" },
	/* the job file itself */
	{ "B66 job file is a directory",
	  { "jobdir", O },
	  .make = make_dir,
	  .rc = 2,
	  .msg = "jobdir: is a directory, expected a job file (YAML)" },
	{ "B67 job file missing",
	  { "missing.yaml", O },
	  .rc = 4,
	  .msg = "missing.yaml: cannot open the job file: No such file or directory" },
	{ "B68 binary file",
	  { "job.yaml", O },
	  BYTES("\x7f"
		"ELF\x02\x01\x01\x00\x00\x00\x00\x00"),
	  .rc = 2,
	  .msg = "job.yaml:1:8: NUL byte: a job file is YAML text, this looks like a binary file" },
	{ "B69 Latin-1 text",
	  { "@bad_utf8.yaml", O },
	  .rc = 2,
	  .msg = "bad_utf8.yaml:1:10: invalid UTF-8 (byte 0xE9): a job file must be UTF-8 text" },
	{ "B70 UTF-16 text",
	  { "job.yaml", O },
	  BYTES("\xff\xfe"
		"f\x00"
		"a\x00"),
	  .rc = 2,
	  .msg = "job.yaml:1:1: invalid UTF-8 (byte 0xFF)" },
	{ "B71 control character",
	  { "job.yaml", O },
	  .job = "families:\n  strided_read:\n\x01\n",
	  .rc = 2,
	  .msg = "job.yaml:3:1: YAML cannot read the text: control characters are not allowed" },
	{ "B72 NUL byte inside a value",
	  { "@bad_nul.yaml", O },
	  .rc = 2,
	  .msg = "bad_nul.yaml:4:11: NUL byte" },
	{ "B73 huge file",
	  { "job.yaml", O },
	  .make = make_big,
	  .rc = 2,
	  .msg = "job.yaml: 2097152 bytes, more than a job file may hold (1048576)" },
	{ "B74 endless input",
	  { "/dev/zero", O },
	  .rc = 2,
	  .msg = "/dev/zero: is a character device, expected a job file (YAML)" },
	{ "B108 100000 family names in 1 MB",
	  { "job.yaml", O },
	  .make = make_many_families,
	  .rc = 2,
	  .msg = "job.yaml:2:3: unknown family `k0`" },
	{ "B109 [ nested 400000 deep",
	  { "job.yaml", O },
	  .make = make_deep,
	  .rc = 2,
	  .msg = "job.yaml:1:75: [ and { nested more than 64 deep; a job file needs a few" },
	/* the output */
	{ "B75 output in a missing directory",
	  { "@ci", "-o", "nodir/out.h5" },
	  .rc = 4,
	  .msg = "cannot create nodir/out.h5: directory nodir does not exist" },
	{ "B76 output under a regular file",
	  { "@ci", "-o", "file/out.h5" },
	  .make = make_plain_file,
	  .rc = 4,
	  .msg = "cannot create file/out.h5: file is not a directory" },
	{ "B77 output is a directory",
	  { "@ci", "-o", "jobdir" },
	  .make = make_dir,
	  .rc = 4,
	  .msg = "cannot create jobdir: it is a directory" },
	{ "B78 output ends in /",
	  { "@ci", "-o", "jobdir/" },
	  .make = make_dir,
	  .rc = 2,
	  .msg = "'jobdir/' is not a file name for the results" },
	{ "B79 output exists",
	  { "@ci", O },
	  .make = make_text_out,
	  .rc = 4,
	  .msg = "out.h5 already exists; use --force to overwrite it or --resume to continue it" },
	{ "B80 output is the job file, with --force",
	  { "--force", "job.yaml", "-o", "./job.yaml" },
	  .make = make_job_copy,
	  .rc = 2,
	  .msg = "./job.yaml is the job file; write the results to another file" },
	{ "B81 output is a FIFO, with --force",
	  { "--force", "@ci", O },
	  .make = make_fifo,
	  .rc = 4,
	  .msg = "cannot create out.h5: it exists and is not a regular file" },
	{ "B82 --force with a bad job",
	  { "--force", "@bad_syntax.yaml", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "YAML syntax error" },
	{ "B83 empty --output",
	  { "@ci", "--output=" },
	  .rc = 2,
	  .msg = "empty --output: expected FILE" },
	/* --resume */
	{ "B84 --resume of a missing file",
	  { "--resume", "@ci", O },
	  .rc = 4,
	  .msg = "cannot resume out.h5: No such file or directory" },
	{ "B85 --resume of a text file",
	  { "--resume", "@ci", O },
	  .make = make_text_out,
	  .rc = 2,
	  .msg = "cannot resume out.h5: not an HDF5 file" },
	{ "B86 --resume of a directory",
	  { "--resume", "@ci", "-o", "jobdir" },
	  .make = make_dir,
	  .rc = 2,
	  .msg = "cannot resume jobdir: not a regular file" },
	{ "B87 --resume of an HDF5 file no sweep wrote",
	  { "--resume", "@ci", O },
	  .make = make_foreign_h5,
	  .rc = 2,
	  .msg = "out.h5 is not a sweep file: it has no schema_version attribute" },
	{ "B88 --resume of an HDF5 file in the 1.10 format no sweep wrote",
	  { "--resume", "@ci", O },
	  .make = make_foreign_v110_h5,
	  .rc = 2,
	  .msg = "out.h5 is not a sweep file: it has no schema_version attribute" },
	{ "B89 --resume of a truncated sweep file",
	  { "--resume", "@ci", O },
	  .make = make_truncated,
	  .rc = 2,
	  .msg = "cannot resume out.h5: HDF5 cannot open it as a sweep file (cut short, damaged, "
		 "or in a format "
		 "newer than sweep writes): truncated file" },
	{ "B90 --resume of a sweep file with a damaged superblock",
	  { "--resume", "@ci", O },
	  .make = make_damaged,
	  .rc = 2,
	  .msg = "cannot resume out.h5: HDF5 cannot open it as a sweep file" },
	{ "B91 --resume of a sweep file without /samples",
	  { "--resume", "@ci", O },
	  .make = make_no_samples,
	  .rc = 2,
	  .msg = "out.h5 is not a sweep file: it has no /samples dataset" },
	{ "B92 --resume of a file from a newer sweep",
	  { "--resume", "@ci", O },
	  .make = make_schema_999,
	  .rc = 2,
	  .msg = "cannot resume out.h5: it has schema version 999, newer than the 9" },
	{ "B93 --resume with another job",
	  { "--resume", "--set", "strided_read.stride=1", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "out.h5 was made from a different job" },
	{ "B94 --resume with the other backend",
	  { "--resume", "@ci", O },
	  .make = make_cuda_rows,
	  .rc = 2,
	  .msg = "out.h5 holds cuda rows; resume it with --backend cuda" },
	{ "B95 --resume of a file another program is writing",
	  { "--resume", "@ci", O },
	  .make = make_held,
	  .rc = 4,
	  .msg = "cannot open out.h5 for writing (is another program using it?)" },
	{ "B111 --resume of a file another sweep is writing",
	  { "--resume", "@ci", O },
	  .make = make_locked,
	  .rc = 4,
	  .msg = "cannot resume out.h5: another sweep is writing it (it holds the file's lock)" },
	{ "B112 --force over a file another sweep is writing",
	  { "--force", "@ci", O },
	  .make = make_locked,
	  .rc = 4,
	  .msg = "cannot replace out.h5: another sweep is writing or replacing it (it holds the "
		 "file's lock)" },
	/* --extend */
	{ "E1 --extend with a job that lacks points of the file",
	  { "--extend", "--set", "strided_read.stride=2:128:x2", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "cannot extend out.h5: 16 of its 144 points are not in this job (point " },
	{ "E2 --extend with other measure settings",
	  { "--extend", "job.yaml", O },
	  .make = make_good,
	  .job = "measure:\n  warmup: 5\nmodel:\n  ccs: [6.0, 7.0, 8.0, 9.0]\nfamilies:\n"
		 "  strided_read:\n    axes:\n      stride: 1:128:x2\n      n: [1M, 4M]\n",
	  .rc = 2,
	  .msg = "out.h5 was measured with other settings: measure.warmup is 2 in the file, 5 in "
		 "this job" },
	{ "E3 --extend with --resume",
	  { "--extend", "--resume", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "--extend and --resume conflict" },
	{ "E4 --extend with --force",
	  { "--extend", "--force", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "--extend and --force conflict" },
	/* --extend's bookkeeping (issue 23, cause 5): every check first */
	{ "E5 --extend: /sessions cannot grow",
	  { "--extend", "--set", "strided_read.n=1M,4M,16M", "@ci", O },
	  .make = make_sessions_fixed,
	  .rc = 2,
	  .msg = "cannot extend out.h5: /sessions cannot grow past 1 rows; write a new file" },
	{ "E6 --extend: /sessions contiguous",
	  { "--extend", "--set", "strided_read.n=1M,4M,16M", "@ci", O },
	  .make = make_sessions_contiguous,
	  .rc = 2,
	  .msg = "cannot extend out.h5: /sessions is not chunked, so it cannot grow; write a new "
		 "file" },
	{ "E7 --extend: /sessions' job_text a fixed-length string",
	  { "--extend", "--set", "strided_read.n=1M,4M,16M", "@ci", O },
	  .make = make_sessions_fixed_text,
	  .rc = 2,
	  .msg = "cannot extend out.h5: /sessions has another type of column job_text; sweep "
		 "appends a row to it in every session: write a new file" },
	{ "E8 --extend: /measurements contiguous",
	  { "--extend", "--set", "strided_read.n=1M,4M,16M", "@ci", O },
	  .make = make_rows_contiguous,
	  .rc = 2,
	  .msg = "cannot extend out.h5: /measurements is not chunked, so it cannot grow; write a "
		 "new file" },
	{ "E9 --extend: /samples with a fixed maximum size",
	  { "--extend", "--set", "strided_read.n=1M,4M,16M", "@ci", O },
	  .make = make_samples_fixed,
	  .rc = 2,
	  .msg = "cannot extend out.h5: /samples cannot grow past " },
	{ "E10 --dry-run --extend with a job that lacks points of the file",
	  { "--dry-run", "--extend", "--set", "strided_read.stride=2:128:x2", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "cannot extend out.h5: 16 of its 144 points are not in this job (point " },
	{ "E11 --dry-run --extend with other measure settings",
	  { "--dry-run", "--extend", "job.yaml", O },
	  .make = make_other_warmup,
	  .rc = 2,
	  .msg = "out.h5 was measured with other settings: measure.warmup is 2 in the file, 5 in "
		 "this job" },
	{ "E12 --dry-run --extend: /sessions cannot grow",
	  { "--dry-run", "--extend", "--set", "strided_read.n=1M,4M,16M", "@ci", O },
	  .make = make_sessions_fixed,
	  .rc = 2,
	  .msg = "cannot extend out.h5: /sessions cannot grow past 1 rows; write a new file" },
	{ "E13 --extend without one of the file's model targets",
	  { "--extend", "job.yaml", O },
	  .make = make_fewer_ccs,
	  .rc = 2,
	  .msg = "cannot extend out.h5: 36 of its 144 points are not in this job (point " },
	/* Stored jobs and their plug-ins (issue 23, cause 4) */
	{ "J01 --extend: the file's plug-in gone, a p.so of another build here",
	  { "--extend", "job2.yaml", O },
	  .make = make_plug_gone,
	  .rc = 2,
	  .msg = "/made/p.so, which is gone (No such file or directory), and this run loads no "
		 "plug-in of its content; a file's job takes the plug-ins its first run loaded, "
		 "by content, never a file of that name in another folder: load that one "
		 "(plugins: or --plugin), or write a new file" },
	{ "J02 --extend: the file's plug-in replaced by one that leaves a mark when loaded",
	  { "--extend", "job2.yaml", O },
	  .make = make_plug_changed,
	  .rc = 2,
	  .msg = "/made/p.so, which holds another file now, and this run loads no plug-in of its "
		 "content" },
	{ "J03 --extend: the file's plug-in there, this run loads another build of its family",
	  { "--extend", "job2.yaml", O },
	  .make = make_plug_intact,
	  .rc = 2,
	  .msg = "/made/p.so and this run loads no plug-in of its content" },
	{ "J04 --resume of a schema 6 file: its job's plug-in not beside this job, a p.so here",
	  { "--resume", "--plugin", "q.so", "jobdir/job.yaml", O },
	  .make = make_plug_schema6,
	  .rc = 2,
	  .msg = "cannot resume out.h5: its job's plug-in p.so is not recorded in it (a file of "
		 "schema 6 or older records no plug-in paths), and beside this run's job, as "
		 "jobdir/p.so, it is no plug-in this run loads" },
	{ "J05 a plug-in record of 2 paths and 1 hash",
	  { "--resume", "job.yaml", O },
	  .job = PLUG_JOB,
	  .make = make_plug_lengths,
	  .rc = 2,
	  .msg = "cannot resume out.h5: its plugin_paths and plugin_hashes attributes are not two "
		 "arrays of plug-in paths (strings) and content hashes (integers) of one length" },
	{ "J06 a plug-in record of 2 plug-ins for a job_text that names 1",
	  { "--resume", "job_c.yaml", O },
	  .make = make_plug_two_records,
	  .rc = 2,
	  .msg = "cannot resume out.h5: its job_text does not parse (job_text:1:10: plugins: 1 "
		 "entries, but the file records 2 plug-in paths for them; the file is damaged)" },
	{ "J07 --dry-run --extend: the file's plug-in gone",
	  { "--dry-run", "--extend", "job2.yaml", O },
	  .make = make_plug_gone,
	  .rc = 2,
	  .msg = "/made/p.so, which is gone (No such file or directory), and this run loads no "
		 "plug-in of its content" },
	{ "J08 --resume with another text of the job: the file's plug-in gone",
	  { "--resume", "job_c.yaml", O },
	  .make = make_plug_gone,
	  .rc = 2,
	  .msg = "cannot resume out.h5: its job's plug-in p.so was " },
	{ "H4G01 --resume: the library the plug-in links is another build",
	  { "--resume", "job.yaml", O },
	  .make = make_dep_other,
	  .rc = 2,
	  .msg = "cannot resume out.h5: the library libswdep.so of the plug-in p.so: the file was "
		 "made with ",
	  .msg2 = "/dep/libswdep.so (content " },
	{ "H4G02 --extend: the library the plug-in links is another build",
	  { "--extend", "job2.yaml", O },
	  .make = make_dep_other,
	  .rc = 2,
	  .msg = "cannot extend out.h5: the library libswdep.so of the plug-in p.so: the file was "
		 "made with ",
	  .msg2 = "/libswdep.so (content " },
	{ "H4G03 --dry-run --resume: the library the plug-in links is another build",
	  { "--dry-run", "--resume", "job.yaml", O },
	  .make = make_dep_other,
	  .rc = 2,
	  .msg = "cannot resume out.h5: the library libswdep.so of the plug-in p.so: the file was "
		 "made with ",
	  .msg2 = "); rows measured with other code would disagree with its rows: load the same "
		  "plug-ins and libraries, or write a new file" },
	{ "H4G04 --resume: the plug-in brings in a library the file's did not",
	  { "--resume", "job.yaml", O },
	  .make = make_dep_unrecorded,
	  .rc = 2,
	  .msg = "cannot resume out.h5: the library libswdep.so of the plug-in p.so: the file was "
		 "made with none of that name, this run loads ",
	  .msg2 = "/libswdep.so (content " },
	{ "H4G05 a record whose library's owner is no plug-in it records",
	  { "--resume", "job.yaml", O },
	  .make = make_dep_owner,
	  .rc = 2,
	  .msg = "cannot resume out.h5: its record of the plug-ins it was made with "
		 "(plugin_loaded_paths, plugin_loaded_hashes, plugin_libraries, "
		 "plugin_library_hashes, plugin_library_owners) is damaged: library 0's owner is "
		 "no "
		 "plug-in it records; write a new file" },
	{ "H4G06 --resume with the job's own text, its p.so another build of the family",
	  { "--resume", "job.yaml", O },
	  .make = make_plug_other_build,
	  .rc = 2,
	  .msg = "cannot resume out.h5: the file was made with the plug-in ",
	  .msg2 = "/plug/p.so (content " },
	{ "H4G10 --resume without the --plugin the file was made with",
	  { "--resume", "job.yaml", O },
	  .make = make_opt,
	  .rc = 2,
	  .msg = "cannot resume out.h5: it was made with the plug-in ",
	  .msg2 = "/opt/q.so (content " },
	{ "H4G11 --dry-run --resume without it",
	  { "--dry-run", "--resume", "job.yaml", O },
	  .make = make_opt,
	  .rc = 2,
	  .msg = "cannot resume out.h5: it was made with the plug-in ",
	  .msg2 = "), which this run does not load, and sweep loads none on a file's word: give it "
		  "with --plugin " },
	{ "H4G12 --extend without it",
	  { "--extend", "job2.yaml", O },
	  .make = make_opt,
	  .rc = 2,
	  .msg = "cannot extend out.h5: it was made with the plug-in ",
	  .msg2 = " or the job's plugins: (job2.yaml:2:3: unknown family `hostile`" },
	{ "H4G13 --resume with --plugin of another build of its family",
	  { "--resume", "--plugin", "o.so", "job.yaml", O },
	  .make = make_opt,
	  .rc = 2,
	  .msg = "cannot resume out.h5: the file was made with the plug-in ",
	  .msg2 = "/opt/q.so (content " },
	{ "H4G15 --resume without it, 2 ranks",
	  { "--resume", "job.yaml", O },
	  .make = make_opt,
	  .np = 2,
	  .rc = 2,
	  .msg = "cannot resume out.h5: it was made with the plug-in ",
	  .msg2 = "/opt/q.so (content " },
	/* options */
	{ "B96 unknown option",
	  { "--frobnicate", "@ci", O },
	  .rc = 2,
	  .msg = "unknown option '--frobnicate' (see sweep --help)" },
	{ "B97 unknown letter in a cluster",
	  { "-qz", "@ci", O },
	  .rc = 2,
	  .msg = "unknown option '-z'" },
	{ "B98 ambiguous abbreviation",
	  { "--s", "x", "@ci", O },
	  .rc = 2,
	  .msg = "ambiguous option '--s': could be --set, --schedule, --share-gpu" },
	{ "B99 a value for a flag",
	  { "--force=yes", "@ci", O },
	  .rc = 2,
	  .msg = "option '--force' takes no value" },
	{ "B100 option without its value",
	  { "@ci", "-o" },
	  .rc = 2,
	  .msg = "option '-o' needs a value: FILE" },
	{ "B101 unknown backend",
	  { "--backend", "gpu", "@ci", O },
	  .rc = 2,
	  .msg = "bad --backend 'gpu': expected cuda, model, auto or replay=FILE" },
	{ "B102 unknown schedule",
	  { "--schedule", "round", "@ci", O },
	  .rc = 2,
	  .msg = "bad --schedule 'round': expected dynamic or static" },
	{ "B103 --batch out of range",
	  { "--batch", "0", "@ci", O },
	  .rc = 2,
	  .msg = "bad --batch '0': expected a whole number from 1 to 64" },
	{ "B104 --batch not a number",
	  { "--batch", "2x", "@ci", O },
	  .rc = 2,
	  .msg = "bad --batch '2x'" },
	{ "B105 --force with --resume",
	  { "--force", "--resume", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "--force and --resume conflict" },
	{ "B106 two job files", { "@ci", "@ci", O }, .rc = 2, .msg = "one job file expected, got" },
	{ "B107 no job file",
	  { O },
	  .rc = 2,
	  .msg = "missing job file (usage: sweep [OPTIONS] JOB.yaml" },
	{ "B113 a bank width Kepler does not have",
	  { "job.yaml", O },
	  .job = "model: {kepler_bank_bytes: 6}\nfamilies: {strided_read: }\n",
	  .rc = 2,
	  .msg = "job.yaml:1:28: model.kepler_bank_bytes: 6: Kepler's banks are 4 or 8 bytes "
		 "wide" },
	{ "B110 --counters with the model backend",
	  { "--counters", "@ci", O },
	  .rc = 2,
	  .msg = "--counters needs the cuda backend" },
	/* files, resume and disks */
	{ "F01 --resume: point_id stored as float64",
	  { "--resume", "@ci", O },
	  .make = make_point_id_f64,
	  .rc = 2,
	  .msg = "cannot resume out.h5: column point_id of /measurements is stored as float64, "
		 "sweep writes uint64; write a new file" },
	{ "F02 --resume: point_id stored as int32",
	  { "--resume", "@ci", O },
	  .make = make_point_id_i32,
	  .rc = 2,
	  .msg = "column point_id of /measurements is stored as int32, sweep writes uint64" },
	{ "F04 --resume: status stored as int64",
	  { "--resume", "@ci", O },
	  .make = make_status_i64,
	  .rc = 2,
	  .msg = "column status of /measurements is stored as int64, sweep writes int32" },
	{ "F05 --resume: /devices session stored as float64",
	  { "--resume", "@ci", O },
	  .make = make_session_f64,
	  .rc = 2,
	  .msg = "column session of /devices is stored as float64, sweep writes int32" },
	{ "F06 --resume: a shorter text column",
	  { "--resume", "@ci", O },
	  .make = make_short_host,
	  .rc = 2,
	  .msg = "column host of /devices is stored as a string of 8 bytes, sweep writes a string "
		 "of 64 bytes" },
	{ "F07 --resume: /samples stored as float32",
	  { "--resume", "@ci", O },
	  .make = make_samples_f32,
	  .rc = 2,
	  .msg = "cannot resume out.h5: /samples is stored as float32, sweep writes float64" },
	{ "F08 --resume: /measurements contiguous",
	  { "--resume", "@ci", O },
	  .make = make_rows_contiguous,
	  .rc = 2,
	  .msg = "cannot resume out.h5: /measurements is not chunked, so it cannot grow" },
	{ "F09 --resume: /measurements with a fixed maximum size",
	  { "--resume", "@ci", O },
	  .make = make_rows_fixed,
	  .rc = 2,
	  .msg = "cannot resume out.h5: /measurements cannot grow past 144 rows" },
	{ "F10 --resume: /samples contiguous",
	  { "--resume", "@ci", O },
	  .make = make_samples_contiguous,
	  .rc = 2,
	  .msg = "/samples is not chunked, so it cannot grow" },
	{ "F11 --resume: /devices with a fixed maximum size",
	  { "--resume", "@ci", O },
	  .make = make_devices_fixed,
	  .rc = 2,
	  .msg = "/devices cannot grow past 1 rows" },
	{ "F12 --resume: sessions stored as a float",
	  { "--resume", "@ci", O },
	  .make = make_sessions_f64,
	  .rc = 2,
	  .msg = "its sessions attribute is a float, not one value of integer type" },
	{ "F13 --resume: the sessions counter at its limit",
	  { "--resume", "@ci", O },
	  .make = make_sessions_max,
	  .rc = 2,
	  .msg = "as many as its counter holds; write a new file" },
	{ "F14 --resume: a negative sessions counter",
	  { "--resume", "@ci", O },
	  .make = make_sessions_negative,
	  .rc = 2,
	  .msg = "its session counter is damaged (sessions -2147483648" },
	{ "F15 --resume: plan_fingerprint stored as text",
	  { "--resume", "@ci", O },
	  .make = make_fingerprint_text,
	  .rc = 2,
	  .msg = "its plan_fingerprint attribute is a string, not one value of integer type" },
	{ "F16 --resume: plan_points that is not the plan's",
	  { "--resume", "@ci", O },
	  .make = make_plan_points_other,
	  .rc = 2,
	  .msg = "out.h5 is damaged: plan_points is 145, its plan has 144 points" },
	{ "F17 --resume: no job_text",
	  { "--resume", "@ci", O },
	  .make = make_no_job_text,
	  .rc = 2,
	  .msg = "out.h5 is not a sweep file: it has no job_text attribute" },
	{ "F18 --resume: a job_text that does not parse",
	  { "--resume", "@ci", O },
	  .make = make_job_text_junk,
	  .rc = 2,
	  .msg = "cannot resume out.h5: its job_text does not parse" },
	{ "F19 --resume with other measure settings",
	  { "--resume", "job.yaml", O },
	  .make = make_other_warmup,
	  .rc = 2,
	  .msg = "out.h5 was measured with other settings: measure.warmup is 2 in the file, 5 "
		 "in this job" },
	{ "F20 --resume with another flush method",
	  { "--resume", "job.yaml", O },
	  .make = make_other_flush,
	  .rc = 2,
	  .msg = "measure.flush_method is read in the file, memset in this job" },
	{ "F21 --dry-run --resume of a missing file",
	  { "--dry-run", "--resume", "@ci", O },
	  .rc = 4,
	  .msg = "cannot resume out.h5: No such file or directory" },
	{ "F22 --dry-run --resume of a directory",
	  { "--dry-run", "--resume", "@ci", "-o", "jobdir" },
	  .make = make_dir,
	  .rc = 2,
	  .msg = "cannot resume jobdir: not a regular file" },
	{ "F23 --dry-run --resume of a text file",
	  { "--dry-run", "--resume", "@ci", O },
	  .make = make_text_out,
	  .rc = 2,
	  .msg = "cannot resume out.h5: not an HDF5 file" },
	{ "F24 --dry-run --resume of another job's file",
	  { "--dry-run", "--resume", "--set", "strided_read.stride=1", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "out.h5 was made from a different job" },
	{ "F25 --dry-run --resume with the other backend",
	  { "--dry-run", "--resume", "@ci", O },
	  .make = make_cuda_rows,
	  .rc = 2,
	  .msg = "out.h5 holds cuda rows" },
	{ "F26 --dry-run --resume of a file another sweep is writing",
	  { "--dry-run", "--resume", "@ci", O },
	  .make = make_locked,
	  .rc = 4,
	  .msg = "cannot resume out.h5: another sweep is writing it" },
	{ "F27 --dry-run --resume: point_id stored as float64",
	  { "--dry-run", "--resume", "@ci", O },
	  .make = make_point_id_f64,
	  .rc = 2,
	  .msg = "column point_id of /measurements is stored as float64" },
	{ "F28 --dry-run --resume: /measurements contiguous",
	  { "--dry-run", "--resume", "@ci", O },
	  .make = make_rows_contiguous,
	  .rc = 2,
	  .msg = "/measurements is not chunked" },
	{ "F29 --dry-run --resume with other measure settings",
	  { "--dry-run", "--resume", "job.yaml", O },
	  .make = make_other_warmup,
	  .rc = 2,
	  .msg = "measure.warmup is 2 in the file, 5 in this job" },
	{ "F30 --dry-run --resume of a truncated file",
	  { "--dry-run", "--resume", "@ci", O },
	  .make = make_truncated,
	  .rc = 2,
	  .msg = "cannot resume out.h5: HDF5 cannot open it as a sweep file" },
	{ "F31 --dry-run --resume: the sessions counter at its limit",
	  { "--dry-run", "--resume", "@ci", O },
	  .make = make_sessions_max,
	  .rc = 2,
	  .msg = "as many as its counter holds" },
	/* Metrics: --metrics and --family */
	{ "B114 --metrics with the model backend",
	  { "--metrics", "dram__bytes_read.sum", "@ci", O },
	  .rc = 2,
	  .msg = "--metrics needs the cuda backend: CUPTI metrics come from a GPU, not from the "
		 "model backend" },
	{ "B115 --metrics with an empty name",
	  { "--metrics", "dram__bytes_read.sum,", "@ci", O },
	  .rc = 2,
	  .msg = "--metrics: an empty name; expected NAME,NAME,..." },
	{ "B116 --metrics name that is no metric name",
	  { "--metrics", "dram bytes", "@ci", O },
	  .rc = 2,
	  .msg = "--metrics: bad name 'dram bytes': a metric name holds letters, digits, '_' and "
		 "'.'" },
	{ "B117 --metrics name given twice",
	  { "--metrics", "dram__bytes_read.sum,dram__bytes_read.sum", "@ci", O },
	  .rc = 2,
	  .msg = "--metrics: dram__bytes_read.sum named twice" },
	{ "B118 --family of an unknown family",
	  { "--family", "strided_raed", O },
	  .rc = 2,
	  .msg = "--family strided_raed: unknown family; did you mean strided_read?" },
	{ "B119 --family with a job file",
	  { "--family", "reduce", "@ci", O },
	  .rc = 2,
	  .msg = "--family runs families without a job file: give --family or" },
	{ "B120 --family twice",
	  { "--family", "reduce", "--family", "reduce", O },
	  .rc = 2,
	  .msg = "--family reduce: named twice" },
	{ "B121 --set of a family --family does not run",
	  { "--family", "reduce", "--set", "strided_read.stride=1", O },
	  .rc = 2,
	  .msg = "--set strided_read.stride=1: family strided_read is not in this job (it runs: "
		 "reduce)" },
	/* placement and calibrate (issue 21) */
	{ "B122 bad placement value",
	  { "job.yaml", O },
	  .job = "placement: everywhere\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "job.yaml:1:12: placement: expected once, per_class or every_gpu, found "
		 "\"everywhere\"" },
	{ "B123 calibrate that is no mapping of families",
	  { "job.yaml", O },
	  .job = "calibrate: [strided_read]\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "job.yaml:1:12: calibrate: expected a mapping of kernel family names to their "
		 "settings, found a sequence" },
	{ "B124 calibrate with an unknown family",
	  { "job.yaml", O },
	  .job = "calibrate:\n  strided_raed:\n",
	  .rc = 2,
	  .msg = "job.yaml:2:3: unknown family `strided_raed`" },
	{ "B125 bad --placement",
	  { "--placement", "all", "@ci", O },
	  .rc = 2,
	  .msg = "bad --placement 'all': expected once, per_class or every_gpu" },
	{ "M6 --family of an unknown family, 2 ranks",
	  { "--family", "offset_raed", O },
	  .np = 2,
	  .rc = 2,
	  .msg = "--family offset_raed: unknown family; did you mean offset_read?" },
	/* through mpirun -np 2: every rank sees the error, rank 0 alone says it */
	{ "M1 malformed YAML, 2 ranks",
	  { "@bad_syntax.yaml", O },
	  .np = 2,
	  .rc = 2,
	  .msg = "YAML syntax error" },
	{ "M2 --set out of range, 2 ranks",
	  { "--set", "strided_read.stride=0", "@ci", O },
	  .np = 2,
	  .rc = 2,
	  .msg = "value 0 is out of range 1..128" },
	{ "M3 unknown option, 2 ranks",
	  { "--frobnicate", "@ci", O },
	  .np = 2,
	  .rc = 2,
	  .msg = "unknown option '--frobnicate'" },
	{ "M4 output in a missing directory, 2 ranks",
	  { "@ci", "-o", "nodir/out.h5" },
	  .np = 2,
	  .rc = 4,
	  .msg = "directory nodir does not exist" },
	{ "M5 --resume of a truncated file, 2 ranks",
	  { "--resume", "@ci", O },
	  .make = make_truncated,
	  .np = 2,
	  .rc = 2,
	  .msg = "truncated file" },

	/* Plug-ins */
	{ "P01 --plugin of a missing file",
	  { "--plugin", "nope.so", "@ci", O },
	  .rc = 2,
	  .msg = "plug-in nope.so: No such file or directory" },
	{ "P02 --plugin of a file that is not a shared object",
	  { "--plugin", "p.so", "@ci", O },
	  .make = make_plugin_text,
	  .rc = 2,
	  .msg = "plug-in p.so: not a shared object (no ELF header)" },
	{ "P03 a shared object without sweep_plugin",
	  { "--plugin", "p.so", "@ci", O },
	  .make = make_plugin_no_symbol,
	  .rc = 2,
	  .msg = "plug-in p.so: no `sweep_plugin` symbol" },
	{ "P04 a plug-in built for another API version",
	  { "--plugin", "p.so", "@ci", O },
	  .make = make_plugin_bad_api,
	  .rc = 2,
	  .msg = "was built for family API version 1; this sweep loads versions 2 to 3" },
	{ "P05 a plug-in family named as a built-in",
	  { "--plugin", "p.so", "@ci", O },
	  .make = make_plugin_clash,
	  .rc = 2,
	  .msg = "plug-in p.so: family 'strided_read' clashes with a built-in family" },
	{ "P06 two plug-ins with a family of one name",
	  { "--plugin", "a.so", "--plugin", "b.so", "@ci", O },
	  .make = make_plugin_twice,
	  .rc = 2,
	  .msg = "plug-in b.so: family 'plugin_strided_read' clashes with a family of plug-in " },
	{ "P07 --plugin of a FIFO",
	  { "--plugin", "p.so", "@ci", O },
	  .make = make_plugin_fifo,
	  .rc = 2,
	  .msg = "plug-in p.so: a FIFO, not a shared object" },
	{ "P08 --plugin of a directory",
	  { "--plugin", "p.so", "@ci", O },
	  .make = make_plugin_dir,
	  .rc = 2,
	  .msg = "plug-in p.so: a directory, not a shared object" },
	{ "P09 --plugin of a device",
	  { "--plugin", "/dev/null", "@ci", O },
	  .rc = 2,
	  .msg = "plug-in /dev/null: a device, not a shared object" },
	{ "P10 plugins: resolves against the job's directory",
	  { "jobdir/job.yaml", O },
	  .make = make_plugin_job_elsewhere,
	  .rc = 2,
	  .msg = "jobdir/job.yaml:1:11: plug-in jobdir/p.so: No such file or directory" },
	{ "P11 plugins: not a list",
	  { "job.yaml", O },
	  .job = "plugins: p.so\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "job.yaml:1:10: plugins: expected a list of plug-in files" },
	{ "P12 --plugin of a missing file, 2 ranks",
	  { "--plugin", "nope.so", "@ci", O },
	  .np = 2,
	  .rc = 2,
	  .msg = "plug-in nope.so: No such file or directory" },
	/* Plug-ins of issue 23: counts, pointers, names and units before use */
	{ "P17 a plug-in whose constructor calls exit(0)",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_exit_ctor.so",
	  .rc = 1,
	  .msg = "rank 0 ended before sweep's end: exit(0) was called while loading the job and "
		 "its plug-ins (their constructors run then), by a plug-in or a library; nothing "
		 "was run" },
	{ "P18 n_variants past the end of its table",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_variants_past.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile': variant 1 has no name (is n_variants, 2, more "
		 "than its table holds?)" },
	{ "P19 n_variants of a million",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_many_variants.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile' has 1000000 variants; a family has 1 to 32" },
	{ "P20 n_variants of a million, with --list",
	  { "--plugin", "p.so", "--list" },
	  .plugin = "plugin_hostile_many_variants.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile' has 1000000 variants; a family has 1 to 32" },
	{ "P21 n_axes above SW_MAX_AXES",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_many_axes.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile' has 9 axes; a family has 0 to 8 (SW_MAX_AXES)" },
	{ "P22 a family name that points at no memory",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_name_garbage.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 0: its name is not a text of 1 to 31 bytes in the "
		 "plug-in's memory" },
	{ "P23 a family name that points at no memory, with --list",
	  { "--plugin", "p.so", "--list" },
	  .plugin = "plugin_hostile_name_garbage.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 0: its name is not a text of 1 to 31 bytes" },
	{ "P24 a sizes hook that points at data",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_hook_data.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile': its sizes hook at 0x" },
	{ "P25 a list of families that points at no memory",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_families_garbage.so",
	  .rc = 2,
	  .msg = "plug-in p.so: its list of 1 families is not in the plug-in's memory" },
	{ "P26 a family name with a dot",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_dot.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 0 is named 'hostile.dot'; a name is letters, digits and "
		 "'_', starting with a letter, so that the job file, --set and the result file "
		 "can name it" },
	{ "P27 a family name with a slash",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_slash.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 0 is named 'hostile/slash'; a name is letters" },
	{ "P28 an axis named variants",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_axis_variants.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile': an axis is named 'variants', the word of the "
		 "job file and of --set FAMILY.variants=NAMES that picks variants" },
	{ "P29 a variant name with a comma",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_variant_comma.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile': variant 0 is named 'a,b'; a name is letters" },
	{ "P30 a built-in axis name in other units, the plug-in loaded but not used",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_units.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile': axis 'n' is in 'bytes', but family "
		 "'strided_read' has it in 'elements'; an axis name is one column of the result "
		 "file, in one unit: give it the units 'elements' or name this axis otherwise" },
	{ "P31 an axis without units",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_no_units.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile': axis 'n': units is NULL; every text of a "
		 "descriptor is set" },
	{ "P32 a plug-in whose constructor calls exit(0), in the job's plugins:",
	  { "job.yaml", O },
	  .job = "plugins: [p.so]\nfamilies:\n  hostile:\n",
	  .plugin = "plugin_hostile_exit_ctor.so",
	  .rc = 1,
	  .msg = "exit(0) was called while loading the job and its plug-ins" },
	/* A plug-in that breaks a limit (issue 30 cause 8, docs/bad-inputs.md) */
	{ "H4B01 sizes() sets 9 buffers at every point, --list",
	  { "--plugin", "p.so", "--list" },
	  .plugin = "plugin_hostile_many_buffers.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile', variant plain at its first default point: "
		 "sizes() sets n_buffers 9; a point has 0 to 8 buffers (SW_MAX_BUFFERS of "
		 "<sweep/family.h>)" },
	{ "H4B02 the same, --dry-run",
	  { "--plugin", "p.so", "--dry-run", "job.yaml" },
	  .job = PLUG_HOSTILE,
	  .plugin = "plugin_hostile_many_buffers.so",
	  .rc = 2,
	  .msg = "variant plain at its first default point: sizes() sets n_buffers 9; a point "
		 "has 0 to 8 buffers (SW_MAX_BUFFERS" },
	{ "H4B03 the same, a run on the model backend",
	  { "--plugin", "p.so", "job.yaml", O },
	  .job = PLUG_HOSTILE,
	  .plugin = "plugin_hostile_many_buffers.so",
	  .rc = 2,
	  .msg = "variant plain at its first default point: sizes() sets n_buffers 9; a point "
		 "has 0 to 8 buffers (SW_MAX_BUFFERS" },
	{ "H4B04 9 buffers at n = 3K only, past loading's check, --dry-run",
	  { "--plugin", "p.so", "--dry-run", "job.yaml" },
	  .job = PLUG_HOSTILE,
	  .plugin = "plugin_hostile_buffers_at_3k.so",
	  .rc = 2,
	  .msg = "point hostile/plain n=3K: sizes() sets n_buffers 9; a point has 0 to 8 buffers "
		 "(SW_MAX_BUFFERS of <sweep/family.h>)" },
	{ "H4B05 the same, a run on the model backend",
	  { "--plugin", "p.so", "job.yaml", O },
	  .job = PLUG_HOSTILE,
	  .plugin = "plugin_hostile_buffers_at_3k.so",
	  .rc = 2,
	  .msg = "point hostile/plain n=3K: sizes() sets n_buffers 9; a point has 0 to 8" },
	{ "H4B06 the same, 2 ranks",
	  { "--plugin", "p.so", "job.yaml", O },
	  .job = PLUG_HOSTILE,
	  .plugin = "plugin_hostile_buffers_at_3k.so",
	  .np = 2,
	  .rc = 2,
	  .msg = "point hostile/plain n=3K: sizes() sets n_buffers 9; a point has 0 to 8" },
	{ "H4B07 sizes() writes past struct sw_sizes",
	  { "--plugin", "p.so", "--list" },
	  .plugin = "plugin_hostile_write_past.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile', variant plain at its first default point: "
		 "sizes() wrote past struct sw_sizes (136 bytes; its arrays hold SW_MAX_BUFFERS, "
		 "8, buffers)" },
	{ "H4B08 sizes() sets more inputs than buffers",
	  { "--plugin", "p.so", "--dry-run", "job.yaml" },
	  .job = PLUG_HOSTILE,
	  .plugin = "plugin_hostile_inputs.so",
	  .rc = 2,
	  .msg = "sizes() sets n_inputs 2 with n_buffers 1; the inputs are the first 0 to "
		 "n_buffers buffers" },
	{ "H4B09 more named accesses than SW_MAX_ACCESSES",
	  { "--plugin", "p.so", "--list" },
	  .plugin = "plugin_hostile_many_accesses.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile': variant 'plain' access names: more than 16; a "
		 "variant names at most SW_MAX_ACCESSES accesses" },
	/* What a user meets, round three (issue 32): family API 2 */
	{ "U301 a plug-in built for family API 1",
	  { "--plugin", "p.so", "--list" },
	  .plugin = "plugin_bad_api.so",
	  .rc = 2,
	  .msg = "plug-in p.so was built for family API version 1; this sweep loads versions 2 to "
		 "3: "
		 "rebuild it against this sweep's <sweep/family.h>" },
	{ "U302 a categorical axis one name short of its range",
	  { "--plugin", "p.so", "--list" },
	  .plugin = "plugin_hostile_names_short.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile': axis 'n' names 1 values, but its range "
		 "1024..1025 holds 2; a categorical axis names each value of its range, min "
		 "first" },
	{ "U303 a value's name the command line cannot write",
	  { "--plugin", "p.so", "--list" },
	  .plugin = "plugin_hostile_names_bad.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile': axis 'n' value names: name 1 is named "
		 "'not-a-name'; a name is letters, digits and '_'" },
	{ "U304 texture_read's axis name `pattern`, which has no units, in units",
	  { "--plugin", "p.so", "@ci", O },
	  .plugin = "plugin_hostile_pattern.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile': axis 'pattern' is in 'kinds', but family "
		 "'texture_read' has it without units; an axis name is one column of the result "
		 "file, in one unit: give it no units (\"\") or name this axis otherwise" },
	{ "U305 --set a name the axis does not have",
	  { "--family", "texture_read", "--set", "texture_read.pattern=diagonal", O },
	  .rc = 2,
	  .msg = "--set texture_read.pattern=diagonal: unknown value \"diagonal\"; expected one "
		 "of: rows, gather, columns" },
	{ "U306 a job's name the axis does not have",
	  { "job.yaml", O },
	  .job = "families:\n  texture_read:\n    axes: {pattern: [rows, diagonal]}\n",
	  .rc = 2,
	  .msg = "job.yaml:3:28: pattern: unknown value \"diagonal\"; expected one of: rows, "
		 "gather, columns" },
	{ "U307 a value a categorical axis does not name",
	  { "--family", "histogram", "--set", "histogram.dist=3", O },
	  .rc = 2,
	  .msg = "--set histogram.dist=3: value 3 is none of uniform (0), skewed (1), single (2)" },
	{ "U308 a range of names",
	  { "--family", "texture_read", "--set", "texture_read.pattern=rows:columns", O },
	  .rc = 2,
	  .msg = "--set texture_read.pattern=rows:columns: \"rows:columns\": names make no range; "
		 "list them, as a,b,c" },
	/* Issue 36 cause 7: an axis range that holds -1, SW_AXIS_UNUSED */
	{ "H5U01 an axis range -4..1M, which holds -1, --list",
	  { "--plugin", "p.so", "--list" },
	  .plugin = "plugin_hostile_unused_range.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile': axis 'n' has the range -4..1048576, which "
		 "holds -1, SW_AXIS_UNUSED of <sweep/family.h>, the value of an axis a variant "
		 "does not use; give it a range without -1" },
	{ "H5U02 the same, a run of the job",
	  { "--plugin", "p.so", "job.yaml", O },
	  .job = PLUG_HOSTILE,
	  .plugin = "plugin_hostile_unused_range.so",
	  .rc = 2,
	  .msg = "plug-in p.so: family 'hostile': axis 'n' has the range -4..1048576, which "
		 "holds -1" },
	{ "H5U03 a categorical axis that names -1, in the job's plugins:",
	  { "job.yaml", O },
	  .job = "plugins: [p.so]\nfamilies:\n  hostile:\n",
	  .plugin = "plugin_hostile_unused_named.so",
	  .rc = 2,
	  .msg = "family 'hostile': axis 'n' has the range -1..1 (it names -1 'auto'), which "
		 "holds -1, SW_AXIS_UNUSED" },
	/* A plug-in checked before it meets a GPU: --check-plugin (issue 38) */
	{ "U401 a request whose last lane reads past its buffer",
	  { "--check-plugin", "p.so" },
	  .plugin = "plugin_hostile_buffer_past.so",
	  .rc = 2,
	  .msg = "plug-in p.so: point hostile/plain n=1K: plain request 31 (access data): lane 31 "
		 "reads bytes 4096 to 4099 of buffer 0, past its 4096 bytes (sizes())" },
	{ "U402 a request naming a buffer the point lacks",
	  { "--check-plugin", "p.so", "job.yaml" },
	  .job = PLUG_HOSTILE,
	  .plugin = "plugin_hostile_buffer_unknown.so",
	  .rc = 2,
	  .msg = "plug-in p.so: point hostile/plain n=1K: plain request 0 (access data): names "
		 "buffer 1, but the point has 1 (sw_request.buffer indexes sw_sizes.bytes)" },
	{ "U403 a reference its own check() fails",
	  { "--check-plugin", "p.so" },
	  .plugin = "plugin_hostile_ref_wrong.so",
	  .rc = 2,
	  .msg = "plug-in p.so: point hostile/plain n=1K: check() fails the reference's own "
		 "output (full, 1024 elements): element 0: got " },
	{ "U404 a check() that compares nothing",
	  { "--check-plugin", "p.so" },
	  .plugin = "plugin_hostile_ref_blind.so",
	  .rc = 2,
	  .msg = "plug-in p.so: point hostile/plain n=1K: check() passes the reference's output "
		 "with every byte inverted (full, 1024 elements): it compares nothing the output "
		 "holds" },
	{ "U405 sampled_elem set, and a check() that reads every element",
	  { "--check-plugin", "p.so" },
	  .plugin = "plugin_hostile_ref_sampled.so",
	  .rc = 2,
	  .msg = "plug-in p.so: point hostile/plain n=1K: check() fails the reference's output "
		 "when only the elements a sampled check picks come back (sampled_elem set; full, "
		 "1024 elements): element " },
	{ "U407 a job with no point of the plug-in's families",
	  { "--check-plugin", "p.so", "@ci" },
	  .plugin = "plugin_hostile.so",
	  .rc = 2,
	  .msg = "has no point of the plug-in's families; name one of them in it, or leave the "
		 "job out to check them at their default axes" },
	{ "U408 --check-plugin with --dry-run",
	  { "--check-plugin", "p.so", "--dry-run" },
	  .plugin = "plugin_hostile.so",
	  .rc = 2,
	  .msg = "--check-plugin checks a plug-in and runs nothing: not with --dry-run" },
	{ "U409 --check-plugin of a missing file",
	  { "--check-plugin", "nope.so" },
	  .rc = 2,
	  .msg = "plug-in nope.so: No such file or directory" },
	/* Agreement, paths and numbers (docs/bad-inputs.md) */
	{ "A01 job file is a FIFO with no writer",
	  { "job.yaml", O },
	  .make = make_job_fifo,
	  .rc = 2,
	  .msg = "job.yaml: is a FIFO, expected a job file (YAML)" },
	{ "A02 job file is a FIFO with no writer, 2 ranks",
	  { "job.yaml", O },
	  .make = make_job_fifo,
	  .np = 2,
	  .rc = 2,
	  .msg = "job.yaml: is a FIFO, expected a job file (YAML)" },
	{ "A03 job file is a character device",
	  { "/dev/null", O },
	  .rc = 2,
	  .msg = "/dev/null: is a character device, expected a job file (YAML)" },
	{ "A04 --costs is a FIFO with no writer",
	  { "--costs", "costs.h5", "@ci", O },
	  .make = make_costs_fifo,
	  .rc = 2,
	  .msg = "cannot read durations from costs.h5: not a regular file: it is a FIFO" },
	{ "A05 --costs CSV is a FIFO with no writer",
	  { "--costs", "costs.csv", "@ci", O },
	  .make = make_costs_csv_fifo,
	  .rc = 2,
	  .msg = "cannot read durations from costs.csv: not a regular file: it is a FIFO" },
	{ "A06 --costs is a directory",
	  { "--costs", "costs", "@ci", O },
	  .make = make_costs_dir,
	  .rc = 2,
	  .msg = "cannot read durations from costs: not a regular file: it is a directory" },
	{ "A07 --backend replay=FILE is a FIFO with no writer",
	  { "--backend", "replay=costs.h5", "@ci", O },
	  .make = make_costs_fifo,
	  .rc = 2,
	  .msg = "--backend replay=costs.h5: cannot read durations from costs.h5: not a regular "
		 "file: it is a FIFO" },
	{ "A08 --backend replay=FILE is a character device",
	  { "--backend", "replay=/dev/zero", "@ci", O },
	  .rc = 2,
	  .msg = "cannot read durations from /dev/zero: not a regular file: it is a character "
		 "device" },
	{ "A09 --resume of a FIFO with no writer",
	  { "--resume", "@ci", O },
	  .make = make_fifo,
	  .rc = 2,
	  .msg = "cannot resume out.h5: not a regular file: it is a FIFO" },
	{ "A10 --resume of a character device",
	  { "--resume", "@ci", "-o", "/dev/null" },
	  .rc = 2,
	  .msg = "cannot resume /dev/null: not a regular file: it is a character device" },
	{ "A11 output is a character device",
	  { "@ci", "-o", "/dev/null" },
	  .rc = 4,
	  .msg = "cannot create /dev/null: it exists and is not a regular file" },
	{ "A12 an output name over 255 bytes: the whole message",
	  { "@ci", "-o", X100 X100 X100 ".h5" },
	  .rc = 4,
	  .msg = "bbbbbbbb.h5: File name too long" },
	{ "A13 an output path over PATH_MAX: the whole message",
	  { "@ci", "-o", D1000 D1000 D1000 "out.h5" },
	  .rc = 4,
	  .msg = "File name too long" },
	{ "O01 output a symbolic link to nothing",
	  { "@ci", O },
	  .make = make_dangling_link,
	  .rc = 4,
	  .msg = "cannot create out.h5: it is a symbolic link to missing.h5, which does not exist; "
		 "sweep writes a new file, not through a link: remove the link or name the file "
		 "itself" },
	{ "O02 output a symbolic link to nothing, with --force",
	  { "--force", "@ci", O },
	  .make = make_dangling_link,
	  .rc = 4,
	  .msg = "cannot create out.h5: it is a symbolic link to missing.h5, which does not "
		 "exist" },
	{ "O03 output a symbolic link into a missing directory",
	  { "@ci", O },
	  .make = make_link_to_missing_dir,
	  .rc = 4,
	  .msg = "cannot create out.h5: it is a symbolic link to nodir/out.h5, which does not "
		 "exist" },
	{ "O04 output a symbolic link to itself",
	  { "@ci", O },
	  .make = make_link_loop,
	  .rc = 4,
	  .msg = "cannot create out.h5: Too many levels of symbolic links" },
	{ "O06 a 4096-byte path: the whole reason",
	  { "@ci", "-o", P4096 },
	  .rc = 4,
	  .msg = "o.h5: File name too long (4096 bytes, at most 4095)" },
	/* Inputs that are also outputs (issue 23, cause 3) */
	{ "H09 output is the replay file",
	  { "--backend", "replay=out.h5", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "out.h5 is the replay file of --backend replay=out.h5; write the results to "
		 "another file" },
	{ "H10 output is the replay file, with --force",
	  { "--backend", "replay=out.h5", "--force", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "out.h5 is the replay file of --backend replay=out.h5; write the results to "
		 "another file" },
	{ "H11 the replay file as ./out.h5, the output as out.h5, with --force",
	  { "--backend", "replay=./out.h5", "--force", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "out.h5 is the replay file of --backend replay=./out.h5; write the results to "
		 "another file" },
	{ "H12 the replay file through a symbolic link to the output, with --force",
	  { "--backend", "replay=link.h5", "--force", "@ci", O },
	  .make = make_good_names,
	  .rc = 2,
	  .msg = "out.h5 is the replay file of --backend replay=link.h5; write the results to "
		 "another file" },
	{ "H13 the output a symbolic link to the replay file, with --force",
	  { "--backend", "replay=out.h5", "--force", "@ci", "-o", "link.h5" },
	  .make = make_good_names,
	  .rc = 2,
	  .msg = "link.h5 is the replay file of --backend replay=out.h5; write the results to "
		 "another file" },
	{ "H14 the replay file a hard link of the output, with --force",
	  { "--backend", "replay=hard.h5", "--force", "@ci", O },
	  .make = make_good_names,
	  .rc = 2,
	  .msg = "out.h5 is the replay file of --backend replay=hard.h5; write the results to "
		 "another file" },
	{ "H15 output is the --costs file, with --force",
	  { "--costs", "out.h5", "--force", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "out.h5 is the costs file of --costs out.h5; write the results to another "
		 "file" },
	{ "H16 the --costs file a hard link of the output, with --force",
	  { "--costs", "hard.h5", "--force", "@ci", O },
	  .make = make_good_names,
	  .rc = 2,
	  .msg = "out.h5 is the costs file of --costs hard.h5; write the results to another "
		 "file" },
	{ "H17 output is the --plugin file, with --force",
	  { "--plugin", "p.so", "--force", "@ci", "-o", "p.so" },
	  .plugin = "plugin_strided_read.so",
	  .rc = 2,
	  .msg = "p.so is the plug-in of --plugin p.so; write the results to another file" },
	{ "H18 output is a plug-in of the job's plugins:, with --force",
	  { "--force", "job.yaml", "-o", "p.so" },
	  .job = "plugins: [p.so]\nfamilies:\n  plugin_strided_read:\n",
	  .plugin = "plugin_strided_read.so",
	  .rc = 2,
	  .msg = "/p.so, which the job's plugins: loads; write the results to another file" },
	{ "H19 output a hard link of the job file, with --force",
	  { "--force", "job.yaml", "-o", "hard.yaml" },
	  .make = make_job_names,
	  .rc = 2,
	  .msg = "hard.yaml is the job file; write the results to another file" },
	{ "H20 output a symbolic link to the job file, with --force",
	  { "--force", "job.yaml", "-o", "link.yaml" },
	  .make = make_job_names,
	  .rc = 2,
	  .msg = "link.yaml is the job file; write the results to another file" },
	{ "H21 --resume of the replay file",
	  { "--backend", "replay=out.h5", "--resume", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "out.h5 is the replay file of --backend replay=out.h5, and --resume would write "
		 "into it; give the run a copy of it to read instead" },
	{ "H22 --resume of the --costs file",
	  { "--costs", "out.h5", "--resume", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "out.h5 is the costs file of --costs out.h5, and --resume would write into it; "
		 "give the run a copy of it to read instead" },
	{ "H23 --extend of the --costs file, through a hard link",
	  { "--costs", "hard.h5", "--extend", "@ci", O },
	  .make = make_good_names,
	  .rc = 2,
	  .msg = "out.h5 is the costs file of --costs hard.h5, and --extend would write into it; "
		 "give the run a copy of it to read instead" },
	{ "H24 --dry-run --resume of the replay file",
	  { "--dry-run", "--backend", "replay=out.h5", "--resume", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "out.h5 is the replay file of --backend replay=out.h5, and --resume would write "
		 "into it" },
	{ "H25 output is the replay file, with --force, 2 ranks",
	  { "--backend", "replay=out.h5", "--force", "@ci", O },
	  .make = make_good,
	  .np = 2,
	  .rc = 2,
	  .msg = "out.h5 is the replay file of --backend replay=out.h5; write the results to "
		 "another file" },
	/* A dry run checks the output as the run does (issue 30, cause 5) */
	{ "H4R01 --dry-run, output the job file (was: the plan, exit 0)",
	  { "--dry-run", "job.yaml", "-o", "job.yaml" },
	  .make = make_job_copy,
	  .rc = 2,
	  .msg = "job.yaml is the job file; write the results to another file" },
	{ "H4R02 --dry-run, output the replay file",
	  { "--dry-run", "--backend", "replay=out.h5", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "out.h5 is the replay file of --backend replay=out.h5; write the results to "
		 "another file" },
	{ "H4R03 --dry-run --force, output the --costs file through a hard link",
	  { "--dry-run", "--costs", "hard.h5", "--force", "@ci", O },
	  .make = make_good_names,
	  .rc = 2,
	  .msg = "out.h5 is the costs file of --costs hard.h5; write the results to another "
		 "file" },
	{ "H4R04 --dry-run, output exists, no --force",
	  { "--dry-run", "@ci", O },
	  .make = make_text_out,
	  .rc = 4,
	  .msg = "out.h5 already exists; use --force to overwrite it or --resume to continue it" },
	{ "H4R05 --dry-run, output in a missing directory",
	  { "--dry-run", "@ci", "-o", "nodir/out.h5" },
	  .rc = 4,
	  .msg = "cannot create nodir/out.h5: directory nodir does not exist" },
	{ "H4R06 --dry-run, a 4096-byte path",
	  { "--dry-run", "@ci", "-o", P4096 },
	  .rc = 4,
	  .msg = "o.h5: File name too long (4096 bytes, at most 4095)" },
	{ "H4R07 --dry-run, output the --plugin file",
	  { "--dry-run", "--plugin", "p.so", "@ci", "-o", "p.so" },
	  .plugin = "plugin_strided_read.so",
	  .rc = 2,
	  .msg = "p.so is the plug-in of --plugin p.so; write the results to another file" },
	{ "H4R08 --dry-run, output the replay file, 2 ranks",
	  { "--dry-run", "--backend", "replay=out.h5", "@ci", O },
	  .make = make_good,
	  .np = 2,
	  .rc = 2,
	  .msg = "out.h5 is the replay file of --backend replay=out.h5; write the results to "
		 "another file" },
	{ "A14 a byte order mark, then a mistake: positions past the mark",
	  { "job.yaml", O },
	  .job = "\xEF\xBB\xBF"
		 "name: bom\nfamilies:\n  strided_read:\n    axes:\n      strides: 1\n",
	  .rc = 2,
	  .msg = "job.yaml:5:7: unknown axis `strides` in strided_read.axes" },
	{ "A42 a byte order mark before a directive and ---",
	  { "job.yaml", O },
	  .job = "\xEF\xBB\xBF"
		 "%YAML 1.1\n---\nfamilies:\n  strided_read:\n    axes:\n      strides: 1\n",
	  .rc = 2,
	  .msg = "job.yaml:6:7: unknown axis `strides` in strided_read.axes" },
	{ "A15 hexadecimal in a number key (time_cap_s)",
	  { "job.yaml", O },
	  .job = "measure:\n  time_cap_s: 0x10\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "measure.time_cap_s: expected a number x with 0 < x <= 3600, found \"0x10\"" },
	{ "A16 C hexadecimal float in rse_target",
	  { "job.yaml", O },
	  .job = "measure:\n  rse_target: 0x1p-8\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "measure.rse_target: expected a number x with 0 < x < 1, found \"0x1p-8\"" },
	{ "A17 hexadecimal zero in min_sample_s",
	  { "job.yaml", O },
	  .job = "measure:\n  min_sample_s: 0x0\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "measure.min_sample_s: expected a number x with 0 <= x <= 1, found \"0x0\"" },
	{ "A18 hexadecimal in an integer key (warmup)",
	  { "job.yaml", O },
	  .job = "measure:\n  warmup: 0x2\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "measure.warmup: expected an integer 0..1000, found \"0x2\"" },
	{ "A19 hexadecimal in min_samples",
	  { "job.yaml", O },
	  .job = "measure:\n  min_samples: 0x10\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "measure.min_samples: expected an integer 1..512, found \"0x10\"" },
	{ "A20 hexadecimal in model.kepler_bank_bytes",
	  { "job.yaml", O },
	  .job = "model: {kepler_bank_bytes: 0x8}\nfamilies: {strided_read: }\n",
	  .rc = 2,
	  .msg = "model.kepler_bank_bytes: expected an integer" },
	{ "A21 hexadecimal in an axis value",
	  { "job.yaml", O },
	  .job = "families:\n  strided_read:\n    axes:\n      stride: 0x4\n",
	  .rc = 2,
	  .msg = "job.yaml:4:15: stride: \"0x4\" is not an integer" },
	{ "A22 hexadecimal in --set",
	  { "--set", "strided_read.stride=0x4", "@ci", O },
	  .rc = 2,
	  .msg = "--set strided_read.stride=0x4: \"0x4\" is not an integer" },
	{ "A23 hexadecimal in --batch",
	  { "--batch", "0x4", "@ci", O },
	  .rc = 2,
	  .msg = "bad --batch '0x4': expected a whole number from 1 to 64" },
	{ "A24 hexadecimal in --replay-speed",
	  { "--backend", "replay=costs.h5", "--replay-speed", "0x2", "@ci", O },
	  .rc = 2,
	  .msg = "bad --replay-speed '0x2': expected a number from 0.001 to 1000000" },
	{ "A25 a leading + in a number key",
	  { "job.yaml", O },
	  .job = "measure:\n  time_cap_s: +1\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "measure.time_cap_s: expected a number x with 0 < x <= 3600, found \"+1\"" },
	{ "A26 an integer key reads K like an axis: 2K warm-ups is out of range",
	  { "job.yaml", O },
	  .job = "measure:\n  warmup: 2K\nfamilies:\n  strided_read:\n",
	  .rc = 2,
	  .msg = "measure.warmup: 2048 is out of range: expected an integer 0..1000" },
	{ "A27 MPMD: --dry-run on one rank",
	  { "@ci", O },
	  .args2 = { "--dry-run", "@ci", O },
	  .rc = 2,
	  .msg = "rank 1 differs from rank 0 in its options; every rank must be started with "
		 "the same options, job file and plug-ins" },
	{ "A28 MPMD: --list on rank 0",
	  { "--list" },
	  .args2 = { "@ci", O },
	  .rc = 2,
	  .msg = "rank 1 differs from rank 0 in its options" },
	{ "A29 MPMD: an unknown option on one rank",
	  { "@ci", O },
	  .args2 = { "--frobnicate", "@ci", O },
	  .rc = 2,
	  .msg = "rank 1 differs from rank 0 in its options (rank 1: unknown option "
		 "'--frobnicate' (see sweep --help))" },
	{ "A30 MPMD: another --set on one rank",
	  { "--set", "strided_read.stride=1", "@ci", O },
	  .args2 = { "--set", "strided_read.stride=1,2,4", "@ci", O },
	  .rc = 2,
	  .msg = "rank 1 differs from rank 0 in its options" },
	{ "A31 MPMD: another --set of the same size on one rank",
	  { "@ci", O },
	  .args2 = { "--set", "strided_read.n=2M,8M", "@ci", O },
	  .rc = 2,
	  .msg = "rank 1 differs from rank 0 in its options" },
	{ "A32 MPMD: another --schedule on one rank",
	  { "--schedule", "static", "@ci", O },
	  .args2 = { "--schedule", "dynamic", "@ci", O },
	  .rc = 2,
	  .msg = "rank 1 differs from rank 0 in its options" },
	{ "A33 MPMD: --backend cuda on one rank",
	  { "@ci", O },
	  .args2 = { "--backend", "cuda", "@ci", O },
	  .rc = 2,
	  .msg = "rank 1 differs from rank 0 in its options" },
	{ "A34 MPMD: another job file on one rank",
	  { "@ci", O },
	  .args2 = { "@bad_syntax.yaml", O },
	  .rc = 2,
	  .msg = "rank 1 differs from rank 0 in its job text (rank 1: " },
	{ "A35 MPMD: the same job path with another text",
	  { "job.yaml", "-o", "../out.h5" },
	  .args2 = { "job.yaml", "-o", "../out.h5" },
	  .wdir = { "a", "b" },
	  .make = make_halves_other_text,
	  .rc = 2,
	  .msg = "rank 1 differs from rank 0 in its job text; every rank must be started" },
	{ "A36 MPMD: the job a FIFO on one rank",
	  { "job.yaml", "-o", "../out.h5" },
	  .args2 = { "job.yaml", "-o", "../out.h5" },
	  .wdir = { "a", "b" },
	  .make = make_halves_fifo,
	  .rc = 2,
	  .msg = "rank 1 differs from rank 0 in its job text (rank 1: job.yaml: is a FIFO" },
	{ "A37 MPMD: the job missing on one rank",
	  { "job.yaml", "-o", "../out.h5" },
	  .args2 = { "job.yaml", "-o", "../out.h5" },
	  .wdir = { "a", "b" },
	  .make = make_halves_missing,
	  .rc = 2,
	  .msg = "rank 1 cannot read the job file that rank 0 reads (rank 1: job.yaml: cannot "
		 "open the job file: No such file or directory); every rank reads it itself, so "
		 "it must be on a file system every rank's node sees" },
	{ "A38 MPMD: the third rank differs",
	  { "@ci", O },
	  .args2 = { "-q", "@ci", O },
	  .np0 = 2,
	  .rc = 2,
	  .msg = "rank 2 differs from rank 0 in its options" },
	{ "A39 MPMD: the same error on every rank is said once, as usual",
	  { "--frobnicate", "@ci", O },
	  .args2 = { "--frobnicate", "@ci", O },
	  .rc = 2,
	  .msg = "unknown option '--frobnicate' (see sweep --help)" },
	{ "A40 MPMD: options spelled two ways agree",
	  { "@bad_syntax.yaml", "-o", "out.h5" },
	  .args2 = { "--output=out.h5", "@bad_syntax.yaml" },
	  .rc = 2,
	  .msg = "bad_syntax.yaml:3:25: YAML syntax error" }, /* Emulated devices: --replay-devices (docs/bad-inputs.md) */
	{ "R01 --replay-devices without the replay backend",
	  { "--replay-devices", "A:1", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices needs --backend replay=FILE" },
	{ "R02 an empty SPEC",
	  { "--backend", "replay=costs.h5", "--replay-devices", "", "@ci", O },
	  .rc = 2,
	  .msg = "empty --replay-devices: expected CLASS:COUNT[:SPEED],... (A:2,B:2:0.5)" },
	{ "R03 an empty entry",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A:1,,B:1", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: an empty entry in 'A:1,,B:1'; expected CLASS:COUNT[:SPEED],... "
		 "(A:2,B:2:0.5)" },
	{ "R04 a class without a count",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: 'A' has no count; expected CLASS:COUNT[:SPEED] (A:2)" },
	{ "R05 a count of 0",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A:0", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: bad count '0' in 'A:0': expected a whole number from 1 to "
		 "65536" },
	{ "R06 a count that is not a number",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A:two", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: bad count 'two' in 'A:two': expected a whole number from 1 to "
		 "65536" },
	{ "R07 a speed of 0",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A:1:0", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: bad speed '0' in 'A:1:0': expected a number from 0.01 to "
		 "100" },
	{ "R08 a speed that is not a number",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A:1:fast", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: bad speed 'fast' in 'A:1:fast': expected a number from 0.01 "
		 "to 100" },
	/* Issue 30, cause 10: SPEED and --replay-speed in a range (H4P02-H4P05) */
	{ "H4P02 a SPEED of 1e-300 (was: accepted, each point a sleep past what a timespec holds)",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A:1:1e-300", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: bad speed '1e-300' in 'A:1:1e-300': expected a number from "
		 "0.01 to 100" },
	{ "H4P03 a SPEED of 1e6 (was: accepted)",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A:1:1e6", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: bad speed '1e6' in 'A:1:1e6': expected a number from 0.01 to "
		 "100" },
	{ "H4P04 --replay-speed 1e-300 (was: accepted)",
	  { "--backend", "replay=costs.h5", "--replay-speed", "1e-300", "@ci", O },
	  .rc = 2,
	  .msg = "bad --replay-speed '1e-300': expected a number from 0.001 to 1000000" },
	{ "H4P05 --replay-speed past 1000000",
	  { "--backend", "replay=costs.h5", "--replay-speed", "2e6", "@ci", O },
	  .rc = 2,
	  .msg = "bad --replay-speed '2e6': expected a number from 0.001 to 1000000" },
	{ "R09 a class name with a slash",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A/B:1", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: bad class name 'A/B': a class name holds letters, digits, '_', "
		 "'.' and '-'" },
	{ "R10 a class name of 33 bytes",
	  { "--backend", "replay=costs.h5", "--replay-devices",
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg:1", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: class name 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg...' is longer "
		 "than 32 bytes" },
	{ "R11 an entry without a class name",
	  { "--backend", "replay=costs.h5", "--replay-devices", ":2", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: ':2' has no class name; expected CLASS:COUNT[:SPEED]" },
	{ "R12 --replay-devices given twice",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A:1", "--replay-devices", "B:1",
	    "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices given twice: give every class in one SPEC" },
	{ "R13 more devices than a SPEC may make",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A:65536,B:1", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: more than 65536 devices" },
	{ "R14 the counts are not the ranks, 1 rank",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A:2", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices A:2 makes 2 devices, but the run has 1 rank: the counts must "
		 "add up to the number of ranks" },
	{ "R15 the counts are not the ranks, 2 ranks",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A:1,B:2:0.5", "@ci", O },
	  .np = 2,
	  .rc = 2,
	  .msg = "--replay-devices A:1,B:2:0.5 makes 3 devices, but the run has 2 ranks: the "
		 "counts must add up to the number of ranks" },
	/* A class's own recording: --replay-devices CLASS:COUNT[:SPEED]=FILE (issue 31) */
	{ "H31-01 an entry with nothing after '='",
	  { "--backend", "replay", "--replay-devices", "A:1=", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: 'A:1=' names no recording after '='; expected "
		 "CLASS:COUNT[:SPEED]=FILE (A:2=a.h5)" },
	{ "H31-02 a class given two recordings",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A:1=a.h5,B:1,A:1=b.h5", "@ci", O },
	  .rc = 2,
	  .msg = "--replay-devices: class A replays a.h5 and b.h5: a class replays one recording" },
	{ "H31-03 --backend replay without FILE, a class without its own",
	  { "--backend", "replay", "--replay-devices", "A:1=a.h5,B:1", "@ci", O },
	  .rc = 2,
	  .msg = "--backend replay needs =FILE, the recording to replay for the classes without "
		 "one "
		 "(or give every class of --replay-devices its own, CLASS:COUNT=FILE)" },
	{ "H31-04 --backend replay=FILE that no class replays",
	  { "--backend", "replay=costs.h5", "--replay-devices", "A:1=a.h5", "@ci", O },
	  .rc = 2,
	  .msg = "--backend replay=costs.h5 would replay nothing: every class of --replay-devices "
		 "names its own recording; give --backend replay" },
	{ "H31-05 the output is a class's recording, with --force",
	  { "--backend", "replay", "--replay-devices", "A:1=out.h5", "--force", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "out.h5 is class A's recording of --replay-devices A:...=out.h5; write the "
		 "results "
		 "to another file" },
	{ "H31-06 --resume of a class's recording",
	  { "--backend", "replay", "--replay-devices", "A:1=out.h5", "--resume", "@ci", O },
	  .make = make_good,
	  .rc = 2,
	  .msg = "out.h5 is class A's recording of --replay-devices A:...=out.h5, and --resume "
		 "would write into it; give the run a copy of it to read instead" },
	{ "H31-07 a class's recording that does not exist",
	  { "--backend", "replay", "--replay-devices", "A:1=nope.h5", "@ci", O },
	  .rc = 4,
	  .msg = "--replay-devices A:...=nope.h5: cannot read durations from nope.h5: No such file "
		 "or directory" },
	/* The replay backend: one check of a recorded time for both readers */
	{ "RB01 a negative time in a replayed result file (was: accepted, the next sleeps "
	  "cancelled)",
	  { "--backend", "replay=costs.h5", "@ci", O },
	  .make = make_replay_h5_negative,
	  .rc = 2,
	  .msg = "its wall time (from start_unix, end_unix, timed_s) -5 s is negative; a duration "
		 "is from 0 to 604800 s: a damaged file" },
	{ "RB02 an infinite time in a replayed result file (was: accepted, a sleep past time_t)",
	  { "--backend", "replay=costs.h5", "@ci", O },
	  .make = make_replay_h5_infinite,
	  .rc = 2,
	  .msg = "timed_s) inf s is infinite; a duration is from 0 to 604800 s" },
	{ "RB03 a time of 10^9 s in a replayed result file (was: accepted)",
	  { "--backend", "replay=costs.h5", "@ci", O },
	  .make = make_replay_h5_absurd,
	  .rc = 2,
	  .msg = "timed_s) 1e+09 s is longer than a week; a duration is from 0 to 604800 s" },
	{ "RB04 a negative time in a replayed table",
	  { "--backend", "replay=costs.csv", "@ci", O },
	  .make = make_replay_csv_negative,
	  .rc = 2,
	  .msg = "--backend replay=costs.csv: costs.csv:2: the time of point 0123456789abcdef, -1 "
		 "s is negative; a duration is from 0 to 604800 s" },
	{ "RB05 NaN in a replayed table (was: \"expected point_id_hex,...\")",
	  { "--backend", "replay=costs.csv", "@ci", O },
	  .make = make_replay_csv_nan,
	  .rc = 2,
	  .msg = "costs.csv:2: the time of point 0123456789abcdef, nan s is not a number; a "
		 "duration is from 0 to 604800 s" },
	{ "RB06 inf in a replayed table",
	  { "--backend", "replay=costs.csv", "@ci", O },
	  .make = make_replay_csv_infinite,
	  .rc = 2,
	  .msg = "costs.csv:2: the time of point 0123456789abcdef, inf s is infinite; a duration "
		 "is from 0 to 604800 s" },
	{ "RB07 10^300 s in a replayed table (was: accepted)",
	  { "--backend", "replay=costs.csv", "@ci", O },
	  .make = make_replay_csv_absurd,
	  .rc = 2,
	  .msg = "costs.csv:2: the time of point 0123456789abcdef, 1e+300 s is longer than a "
		 "week; a duration is from 0 to 604800 s" },
	/* The time model (docs/model.md, "Time") */
	{ "TM01 a GPU name that fits two entries of the table",
	  { "--model-devices", "H100", "@ci", O },
	  .rc = 2,
	  .msg = "--model-devices: GPU 'H100' fits 2 entries of the table: H100-SXM, H100-PCIe; "
		 "name one" },
	{ "TM02 a GPU the table lacks",
	  { "--model-devices", "H300", "@ci", O },
	  .rc = 2,
	  .msg = "no GPU 'H300' in the table: did you mean" },
	{ "TM03 one GPU twice, under two names",
	  { "--model-devices", "H200,NVIDIA H200", "@ci", O },
	  .rc = 2,
	  .msg = "device H200 is listed twice" },
	{ "TM04 a job's model.devices the table lacks",
	  { "job.yaml", O },
	  .job = "name: j\nmodel:\n  devices: [H100-SXM, Z9]\nfamilies:\n  smem_bank: {}\n",
	  .rc = 2,
	  .msg = "model.devices: no GPU 'Z9' in the table" },
	{ "TM05 a calibration file that does not exist",
	  { "--model-devices", "H100-SXM", "--model-calibrate", "none.h5", "@ci", O },
	  .rc = 4,
	  .msg = "--model-calibrate none.h5: " },
	{ "TM06 a calibration file without a measured row (a model-backend file)",
	  { "--model-devices", "H100-SXM", "--model-calibrate", "model.h5", "@ci", O },
	  .make = make_model_only,
	  .rc = 2,
	  .msg = "--model-calibrate model.h5: no measured ok rows" },
	{ "TM07 a calibration file's class it does not hold",
	  { "--model-devices", "H100-SXM", "--model-calibrate", "m.h5:NVIDIA H200", "@ci", O },
	  .make = make_measured,
	  .rc = 2,
	  .msg = "--model-calibrate m.h5:NVIDIA H200: no measured ok rows of class NVIDIA H200; "
		 "it holds NVIDIA H100 80GB HBM3" },
	{ "TM08 the output is the calibration file",
	  { "--model-devices", "H100-SXM", "--model-calibrate", "m.h5", "--force", "@ci", "-o",
	    "m.h5" },
	  .make = make_measured,
	  .rc = 2,
	  .msg = "the measured file of --model-calibrate m.h5" },
	{ "TM09 the output is the transfer's file, under another name",
	  { "--model-devices", "H200", "--model-from", "m.h5", "--force", "@ci", "-o", "./m.h5" },
	  .make = make_measured,
	  .rc = 2,
	  .msg = "the measured file of --model-from m.h5" },
	{ "TM10 --li, now the start of --list and --list-devices",
	  { "--li" },
	  .rc = 2,
	  .msg = "ambiguous option '--li': could be --list, --list-devices" },
	{ "TM11 --model-devices given twice",
	  { "--model-devices", "H200", "--model-devices", "T4", "@ci", O },
	  .rc = 2,
	  .msg = "--model-devices given twice: name every device in one list" },
	/* The time model's inputs (issue 36): --model-from's file checked as
	 * --model-calibrate's (cause 1), a dry run refusing what the run
	 * refuses (cause 5), --model-devices where no device target runs (10) */
	{ "H36-01 --model-from a model-backend file (was: SIGSEGV)",
	  { "--model-devices", "H200", "--model-from", "model.h5", "@ci", O },
	  .make = make_model_only,
	  .rc = 2,
	  .msg = "--model-from model.h5: no measured ok rows: the time model takes the ok rows a "
		 "GPU measured (the cuda backend's), with a median above 0" },
	{ "H36-02 --model-from a file whose medians are all NaN (was: SIGSEGV)",
	  { "--model-devices", "H200", "--model-from", "nan.h5", "@ci", O },
	  .make = make_nan_medians,
	  .rc = 2,
	  .msg = "--model-from nan.h5: no measured ok rows" },
	{ "H36-03 --model-from a replay's recording (was: SIGSEGV)",
	  { "--model-devices", "H200", "--model-from", "rep.h5", "@ci", O },
	  .make = make_replayed,
	  .rc = 2,
	  .msg = "--model-from rep.h5: no measured ok rows" },
	{ "H36-04 --model-from a GPU the table lacks (was: SIGSEGV)",
	  { "--model-devices", "H200", "--model-from", "z9.h5", "@ci", O },
	  .make = make_unknown_gpu,
	  .rc = 2,
	  .msg = "--model-from z9.h5: its GPU 'Tesla Z9' is not in the time model's table "
		 "(sweep --list-devices)" },
	{ "H36-05 --model-from FILE:CLASS of a class it lacks (was: SIGSEGV)",
	  { "--model-devices", "H200", "--model-from", "m.h5:NVIDIA H200", "@ci", O },
	  .make = make_measured,
	  .rc = 2,
	  .msg = "--model-from m.h5:NVIDIA H200: no measured ok rows of class NVIDIA H200; it "
		 "holds NVIDIA H100 80GB HBM3" },
	{ "H36-06 --dry-run, a calibration file that does not exist (was: accepted)",
	  { "--dry-run", "--model-devices", "H100-SXM", "--model-calibrate", "none.h5", "@ci", O },
	  .rc = 4,
	  .msg = "--model-calibrate none.h5: " },
	{ "H36-07 --dry-run, a model-backend file as calibration (was: accepted)",
	  { "--dry-run", "--model-devices", "H100-SXM", "--model-calibrate", "model.h5", "@ci", O },
	  .make = make_model_only,
	  .rc = 2,
	  .msg = "--model-calibrate model.h5: no measured ok rows" },
	{ "H36-08 --dry-run, the output is the calibration file (was: accepted)",
	  { "--dry-run", "--model-devices", "H100-SXM", "--model-calibrate", "m.h5", "--force",
	    "@ci", "-o", "m.h5" },
	  .make = make_measured,
	  .rc = 2,
	  .msg = "m.h5 is the measured file of --model-calibrate m.h5; write the results to "
		 "another file" },
	{ "H36-09 --dry-run, --model-from a GPU the table lacks (was: accepted)",
	  { "--dry-run", "--model-devices", "H200", "--model-from", "z9.h5", "@ci", O },
	  .make = make_unknown_gpu,
	  .rc = 2,
	  .msg = "--model-from z9.h5: its GPU 'Tesla Z9' is not in the time model's table" },
	{ "H36-10 --model-devices on the replay backend (was: dropped without a word)",
	  { "--backend", "replay=m.h5", "--model-devices", "H200", "@ci", O },
	  .make = make_measured,
	  .rc = 2,
	  .msg = "--model-devices H200: the replay backend predicts times for the GPU its rows "
		 "emulate (its recording's), never for device targets: give --backend model for "
		 "rows of those GPUs" },
	{ "H36-11 --model-devices on the cuda backend, --dry-run",
	  { "--backend", "cuda", "--dry-run", "--model-devices", "H200", "@ci", O },
	  .rc = 2,
	  .msg = "--model-devices H200: the cuda backend predicts times for the GPU its rows ran "
		 "on, never for device targets" },
	/* Issue 36, cause 4: a GPU is named whole, spaces around it apart */
	{ "H36-B04a a real GPU's driver name the table lacks, part of another's",
	  { "--model-devices", "NVIDIA H20", "@ci", O },
	  .rc = 2,
	  .msg = "--model-devices: no GPU 'NVIDIA H20' in the table; it is only part of the names "
		 "of H200 (NVIDIA H200), another GPU: name a GPU exactly" },
	{ "H36-B04b the same in a job's model.devices, after a space",
	  { "job.yaml", O },
	  .job = "name: j\nmodel:\n  devices: \"H200, NVIDIA H20\"\nfamilies:\n  smem_bank: {}\n",
	  .rc = 2,
	  .msg = "job.yaml:3:12: model.devices: no GPU 'NVIDIA H20' in the table; it is only "
		 "part" },
	{ "H36-B04c a part of two names, after a space (was: ' A10' refused as fitting A10 and "
	  "A100, while ' T4' ran)",
	  { "--model-devices", "H200, A1", "@ci", O },
	  .rc = 2,
	  .msg = "--model-devices: GPU 'A1' fits 2 entries of the table: A100-SXM4-80GB, A10; "
		 "name one" },
	/* Issue 36, cause 8: every reader refuses a file of a newer schema */
	{ "H36-B08a --model-calibrate of a file of a newer schema (was: read)",
	  { "--model-devices", "H100-SXM", "--model-calibrate", "m.h5", "@ci", O },
	  .make = make_newer_measured,
	  .rc = 2,
	  .msg = "cannot read measured times from m.h5: it has schema version 999, newer than "
		 "the 9 this sweep writes and reads" },
	{ "H36-B08b --model-from of a file of a newer schema (was: read)",
	  { "--model-devices", "H200", "--model-from", "m.h5", "@ci", O },
	  .make = make_newer_measured,
	  .rc = 2,
	  .msg = "cannot read measured times from m.h5: it has schema version 999, newer than" },
	{ "H36-B08c --costs of a file of a newer schema (was: read)",
	  { "--costs", "costs.h5", "@ci", O },
	  .make = make_newer_costs,
	  .rc = 2,
	  .msg = "--costs costs.h5: cannot read durations from costs.h5: it has schema version "
		 "999, newer than the 9" },
	{ "H36-B08d --backend replay of a file of a newer schema (was: replayed)",
	  { "--backend", "replay=costs.h5", "@ci", O },
	  .make = make_newer_costs,
	  .rc = 2,
	  .msg = "cannot read durations from costs.h5: it has schema version 999, newer than" },
	{ "RB08 --costs reads with the same check: a negative time in a result file",
	  { "--costs", "costs.h5", "@ci", O },
	  .make = make_replay_h5_negative,
	  .rc = 2,
	  .msg = "costs.h5: row 0 of /measurements (point " },
	{ "RB09 --costs: a negative time in a table",
	  { "--costs", "costs.csv", "@ci", O },
	  .make = make_replay_csv_negative,
	  .rc = 2,
	  .msg = "costs.csv:2: the time of point 0123456789abcdef, -1 s is negative" },
};

#define N_CASES (sizeof table / sizeof table[0])

/* ---- what a directory holds -------------------------------------------- */

struct entry {
	char name[64];
	mode_t type;
	off_t size;
	uint64_t hash; /* FNV-1a 64 of a regular file's bytes */
	ino_t ino;     /* a file replaced by one of the same bytes counts too */
};

struct snapshot {
	int n;
	struct entry e[MAX_FILES];
};

static uint64_t hash_file(const char *path)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	unsigned char buf[65536];
	size_t n;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		for (size_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * UINT64_C(0x100000001b3);
	fclose(f);
	return h;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* Every entry, hidden ones too: a temporary file left behind counts. */
static void snap(const char *dir, struct snapshot *s)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	ck_assert_ptr_nonnull(d);
	s->n = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ck_assert_int_lt(s->n, MAX_FILES);
		struct entry *e = &s->e[s->n++];
		char path[1024];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		snprintf(e->name, sizeof e->name, "%s", de->d_name);
		ck_assert(lstat(path, &st) == 0);
		e->type = st.st_mode & S_IFMT;
		e->size = S_ISREG(st.st_mode) ? st.st_size : 0;
		e->hash = S_ISREG(st.st_mode) ? hash_file(path) : 0;
		e->ino = st.st_ino;
	}
	closedir(d);
	qsort(s->e, s->n, sizeof s->e[0], by_name);
}

static void list(const struct snapshot *s, char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = 0;
	for (int i = 0; i < s->n && k < len; i++)
		k += snprintf(buf + k, len - k, "%s%s (%lld bytes)", i ? ", " : "", s->e[i].name,
			      (long long)s->e[i].size);
}

static int same(const struct snapshot *a, const struct snapshot *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->e[i].name, b->e[i].name) || a->e[i].type != b->e[i].type ||
		    a->e[i].size != b->e[i].size || a->e[i].hash != b->e[i].hash ||
		    a->e[i].ino != b->e[i].ino)
			return 0;
	return 1;
}

/* ---- running the binary ------------------------------------------------- */

struct outcome {
	char dir[512], out_log[512], err_log[512], session_dir[512];
	struct snapshot before;
	pid_t pid;
	int rc;
	double start_s;
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 1 << 16);
	size_t n = f && buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
	if (buf)
		buf[n] = 0;
	if (f)
		fclose(f);
	return buf;
}

/* Appends `sweep --backend model` and args to argv at *k; fixtures[] holds
 * the expanded "@" names. */
static void sweep_words(const char *const *args, char fixtures[][1024], const char **argv, int *k)
{
	argv[(*k)++] = env("SW_SWEEP");
	argv[(*k)++] = "--backend";
	argv[(*k)++] = "model";
	for (int i = 0; args[i]; i++) {
		if (!strcmp(args[i], "@ci")) {
			argv[(*k)++] = ci_job;
		} else if (args[i][0] == '@') {
			snprintf(fixtures[i], sizeof fixtures[i], "%s/jobs/%s", env("SW_TEST_DATA"),
				 args[i] + 1);
			argv[(*k)++] = fixtures[i];
		} else {
			argv[(*k)++] = args[i];
		}
	}
}

/* `-np N [-wdir DIR]` of one MPMD half. */
static void half_words(const char *np, const char *wdir, const char **argv, int *k)
{
	argv[(*k)++] = "-np";
	argv[(*k)++] = np;
	if (wdir) {
		argv[(*k)++] = "-wdir";
		argv[(*k)++] = wdir;
	}
}

/* Starts one row's run in its directory, in a process group of its own. */
static pid_t launch(const struct bad *c, const struct outcome *o)
{
	static char fixtures[2][MAX_ARGS][1024];
	const char *argv[64];
	int k = 0;
	if (c->np || c->args2[0]) {
		argv[k++] = env("SW_MPIEXEC");
		argv[k++] = "--oversubscribe";
	}
	if (c->args2[0]) {
		half_words(c->np0 == 2 ? "2" : "1", c->wdir[0], argv, &k);
		sweep_words(c->args, fixtures[0], argv, &k);
		argv[k++] = ":";
		half_words("1", c->wdir[1], argv, &k);
		sweep_words(c->args2, fixtures[1], argv, &k);
	} else {
		if (c->np)
			half_words("2", NULL, argv, &k);
		sweep_words(c->args, fixtures[0], argv, &k);
	}
	argv[k] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		int out = open(o->out_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int err = open(o->err_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out < 0 || err < 0)
			_exit(127);
		dup2(out, 1);
		dup2(err, 2);
		if (chdir(o->dir) != 0) {
			perror(o->dir);
			_exit(127);
		}
		/* Open MPI's singleton start takes half the time without probing
		 * for a fast network (UCX) or starting an orted; each run gets
		 * session files of its own, as isolated singletons all take the
		 * same job family and one's cleanup races another's start. The
		 * environment may say otherwise; mpirun rows keep their defaults. */
		if (!c->np && !c->args2[0]) {
			setenv("OMPI_MCA_pml", "ob1", 0);
			setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
			setenv("OMPI_MCA_orte_tmpdir_base", o->session_dir, 0);
		}
		unsetenv("HDF5_USE_FILE_LOCKING"); /* B95 needs HDF5's lock */
		execv(argv[0], (char *const *)argv);
		perror(argv[0]);
		_exit(127);
	}
	return pid;
}

/* Runs every row, PARALLEL_RUNS at a time: the runs mostly wait on MPI's start. */
static void run_all(struct outcome *o)
{
	size_t next = 0, running = 0;
	while (next < N_CASES || running) {
		while (running < PARALLEL_RUNS && next < N_CASES) {
			o[next].start_s = now_s();
			o[next].pid = launch(&table[next], &o[next]);
			ck_assert_int_gt(o[next].pid, 0);
			next++, running++;
		}
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);
		if (pid <= 0) {
			/* a hung run fails its row, not the suite */
			for (size_t i = 0; i < next; i++)
				if (o[i].pid > 0 && now_s() - o[i].start_s > RUN_LIMIT_S)
					kill(-o[i].pid, SIGKILL);
			usleep(5000);
			continue;
		}
		for (size_t i = 0; i < next; i++)
			if (o[i].pid == pid) {
				o[i].rc = WIFEXITED(status) ? WEXITSTATUS(status)
							    : 128 + WTERMSIG(status);
				o[i].pid = 0;
				running--;
			}
	}
}

/* Lines of text that start with "sweep: "; the first one in *first. */
static int sweep_lines(const char *text, const char **first)
{
	int n = 0;
	*first = NULL;
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "sweep: ", 7)) {
			if (!n)
				*first = p;
			n++;
		}
	return n;
}

START_TEST(test_bad_inputs)
{
	static struct outcome o[N_CASES];
	char logs[512];
	snprintf(logs, sizeof logs, "%s/logs", tmpdir);
	ck_assert(mkdir(logs, 0755) == 0);

	for (size_t i = 0; i < N_CASES; i++) {
		const struct bad *c = &table[i];
		snprintf(o[i].dir, sizeof o[i].dir, "%s/case%03zu", tmpdir, i);
		snprintf(o[i].out_log, sizeof o[i].out_log, "%s/case%03zu.out", logs, i);
		snprintf(o[i].err_log, sizeof o[i].err_log, "%s/case%03zu.err", logs, i);
		snprintf(o[i].session_dir, sizeof o[i].session_dir, "%s/case%03zu.mpi", logs, i);
		ck_assert(mkdir(o[i].session_dir, 0755) == 0);
		ck_assert(mkdir(o[i].dir, 0755) == 0);
		ck_assert(chdir(o[i].dir) == 0);
		if (c->job)
			write_file("job.yaml", c->job, c->job_len ? c->job_len : strlen(c->job));
		if (c->make)
			c->make();
		if (c->plugin)
			copy_plugin(c->plugin, "p.so");
		ck_assert(chdir(tmpdir) == 0);
		snap(o[i].dir, &o[i].before);
	}

	double t0 = now_s();
	run_all(o);
	double wall = now_s() - t0;

	int failed = 0;
	for (size_t i = 0; i < N_CASES; i++) {
		const struct bad *c = &table[i];
		struct snapshot after;
		char *out = slurp(o[i].out_log), *err = slurp(o[i].err_log);
		const char *line;
		int lines = sweep_lines(err, &line);
		char why[1024] = "";
		snap(o[i].dir, &after);
		if (o[i].rc != c->rc)
			snprintf(why, sizeof why, "exit code %d, expected %d", o[i].rc, c->rc);
		else if (lines != 1)
			snprintf(why, sizeof why, "%d lines start with \"sweep: \", expected 1",
				 lines);
		else if (!strstr(line, c->msg) || strchrnul(line, '\n') < strstr(line, c->msg))
			snprintf(why, sizeof why, "the message lacks \"%s\"", c->msg);
		else if (c->msg2 && (!strstr(strstr(line, c->msg), c->msg2) ||
				     strchrnul(line, '\n') < strstr(strstr(line, c->msg), c->msg2)))
			snprintf(why, sizeof why, "the message lacks \"%s\" after \"%s\"", c->msg2,
				 c->msg);
		else if (out[0])
			snprintf(why, sizeof why, "stdout is not empty");
		else if (!same(&o[i].before, &after)) {
			char was[400], now[400];
			list(&o[i].before, was, sizeof was);
			list(&after, now, sizeof now);
			snprintf(why, sizeof why, "the directory changed: before [%s], after [%s]",
				 was, now);
		}
		if (why[0]) {
			fprintf(stderr, "FAIL %s: %s\n  stderr: %s\n", c->what, why, err);
			failed++;
		}
		free(out);
		free(err);
	}
	if (held >= 0)
		H5Fclose(held);
	while (n_locked)
		close(locked[--n_locked]);
	printf("%zu bad inputs in %.1f s, %d failed\n", N_CASES, wall, failed);
	ck_assert_int_eq(failed, 0);
}
END_TEST

/* B47: no axis product can overflow 64 bits (the largest, strided_read's
 * stride x n, is 2^7 x 2^32 elements); the largest values are accepted and
 * their figures come out exact, beyond 32 bits. */
START_TEST(test_largest_sizes_in_64_bit)
{
	char dir[512], out[600];
	snprintf(dir, sizeof dir, "%s/largest", tmpdir);
	ck_assert(mkdir(dir, 0755) == 0);
	ck_assert(chdir(dir) == 0);
	write_text(
		"job.yaml",
		"model:\n  ccs: [9.0]\nfamilies:\n"
		"  strided_read:\n    variants: course\n    axes:\n      stride: 128\n      n: 4G\n"
		"  rowsum:\n    variants: thread_per_row\n    axes:\n      rows: 1M\n      cols: "
		"64K\n");
	ck_assert(chdir(tmpdir) == 0);
	static const struct bad run = { .what = "B47", .args = { "-q", "job.yaml", O } };
	struct outcome o = { 0 };
	snprintf(o.dir, sizeof o.dir, "%s", dir);
	snprintf(o.out_log, sizeof o.out_log, "%s/run.out", tmpdir);
	snprintf(o.err_log, sizeof o.err_log, "%s/run.err", tmpdir);
	snprintf(o.session_dir, sizeof o.session_dir, "%s", tmpdir);
	int status;
	waitpid(launch(&run, &o), &status, 0);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", slurp(o.err_log));

	struct row {
		char family[32];
		int32_t status;
		double useful_bytes, flops, model_requests, model_moved_bytes;
	} rows[2];
	snprintf(out, sizeof out, "%s/out.h5", dir);
	hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t d = H5Dopen2(f, "measurements", H5P_DEFAULT);
	hid_t s = H5Dget_space(d);
	hsize_t n = 0;
	H5Sget_simple_extent_dims(s, &n, NULL);
	ck_assert_uint_eq(n, 2);
	hid_t str = H5Tcopy(H5T_C_S1);
	H5Tset_size(str, sizeof rows[0].family);
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof rows[0]);
	H5Tinsert(t, "family", HOFFSET(struct row, family), str);
	H5Tinsert(t, "status", HOFFSET(struct row, status), H5T_NATIVE_INT32);
	H5Tinsert(t, "useful_bytes", HOFFSET(struct row, useful_bytes), H5T_NATIVE_DOUBLE);
	H5Tinsert(t, "flops", HOFFSET(struct row, flops), H5T_NATIVE_DOUBLE);
	H5Tinsert(t, "model_requests", HOFFSET(struct row, model_requests), H5T_NATIVE_DOUBLE);
	H5Tinsert(t, "model_moved_bytes", HOFFSET(struct row, model_moved_bytes),
		  H5T_NATIVE_DOUBLE);
	ck_assert(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
	H5Tclose(t);
	H5Tclose(str);
	H5Sclose(s);
	H5Dclose(d);
	H5Fclose(f);
	for (int i = 0; i < 2; i++) {
		const struct row *r = &rows[i];
		ck_assert_int_eq(r->status, 0);
		if (!strcmp(r->family, "strided_read")) {
			/* every 128th of 2^32 floats: 2^25 reads, one 32-byte sector per lane */
			ck_assert(r->useful_bytes == 134217728.0);
			ck_assert(r->model_requests == 1048576.0);
			ck_assert(r->model_moved_bytes == 1073741824.0);
		} else {
			ck_assert_str_eq(r->family, "rowsum");
			/* 2^36 floats read and 2^20 sums written; 2^31 warp requests */
			ck_assert(r->useful_bytes == 274882101248.0);
			ck_assert(r->flops == 68719476736.0);
			ck_assert(r->model_requests == 2147483648.0);
			ck_assert(r->model_moved_bytes == 2199023255552.0);
		}
	}
}
END_TEST

/* ---- Plug-ins on some ranks only (MPMD: one rank's files differ) -------- */

/* Runs `mpirun -np 1 sweep A... : -np 1 sweep B...` in dir: the ranks see
 * the same job text and options but their own a/ or b/ files. Returns the
 * exit code; stderr in dir/err. */
static int run_mpmd(const char *dir, const char *a, const char *b)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && '%s' --oversubscribe -np 1 '%s' --backend model -q %s : -np 1 '%s' "
		 "--backend model -q %s >out 2>err </dev/null",
		 dir, env("SW_MPIEXEC"), env("SW_SWEEP"), a, env("SW_SWEEP"), b);
	int status = system(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void make_mpmd_dir(const char *dir, const char *plugin_b)
{
	static const char job[] = "plugins: [p.so]\nfamilies:\n  plugin_strided_read:\n";
	char path[1024], from[1024];
	ck_assert(mkdir(dir, 0755) == 0);
	ck_assert(chdir(dir) == 0);
	ck_assert(mkdir("a", 0755) == 0 && mkdir("b", 0755) == 0);
	write_text("a/job.yaml", job);
	write_text("b/job.yaml", job);
	write_text("a/plain.yaml", "families:\n  plugin_strided_read:\n"); /* for --plugin */
	copy_plugin("plugin_strided_read.so", "a/p.so");
	if (plugin_b) {
		snprintf(from, sizeof from, "%s/%s", env("SW_TEST_PLUGINS"), plugin_b);
		snprintf(path, sizeof path, "b/p.so");
		copy_file(from, path, -1);
	}
	ck_assert(chdir(tmpdir) == 0);
}

/* P13 to P16 in docs/bad-inputs.md: exit 2, the message names rank 1, and
 * no output was made. */
static void expect_rank_1(const char *dir, int rc, const char *msg)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/err", dir);
	char *err = slurp(path);
	ck_assert_msg(rc == 2, "exit code %d, expected 2: %s", rc, err);
	ck_assert_msg(strstr(err, "rank 1"), "no rank named: %s", err);
	ck_assert_msg(strstr(err, msg), "the messages lack \"%s\": %s", msg, err);
	snprintf(path, sizeof path, "%s/out.h5", dir);
	ck_assert_msg(access(path, F_OK) != 0, "%s was written", path);
	free(err);
}

/* The same plug-in file in a/ and b/, each beside its own build of the
 * library it links ($ORIGIN): dep_a's in a/, dep_b's (other) or dep_a's in b/. */
static void make_mpmd_dep_dir(const char *dir, const char *dep_b)
{
	char from[1024];
	ck_assert(mkdir(dir, 0755) == 0);
	ck_assert(chdir(dir) == 0);
	ck_assert(mkdir("a", 0755) == 0 && mkdir("b", 0755) == 0);
	write_text("a/hostile.yaml", "families:\n  hostile:\n");
	copy_plugin("plugin_hostile_dep.so", "a/p.so");
	copy_plugin("plugin_hostile_dep.so", "b/p.so");
	copy_plugin("dep_a/libswdep.so", "a/libswdep.so");
	snprintf(from, sizeof from, "%s/libswdep.so", dep_b);
	copy_plugin(from, "b/libswdep.so");
	ck_assert(chdir(tmpdir) == 0);
}

START_TEST(test_plugins_differ_between_ranks)
{
	char dir[600], err_at[700];

	/* P33: the same .so, another build of the library it links on rank 1 */
	snprintf(dir, sizeof dir, "%s/mpmd_dependency_other", tmpdir);
	make_mpmd_dep_dir(dir, "dep_b");
	expect_rank_1(dir,
		      run_mpmd(dir, "--plugin a/p.so a/hostile.yaml -o out.h5",
			       "--plugin b/p.so a/hostile.yaml -o out.h5"),
		      "rank 1 differs from rank 0 in its plug-ins (the library libswdep.so of the "
		      "plug-in p.so: rank 0 loads ");
	/* H4G07: both libraries named, each with its content */
	snprintf(err_at, sizeof err_at, "%s/err", dir);
	char *said = slurp(err_at);
	ck_assert_msg(strstr(said, "/a/libswdep.so (content ") &&
			      strstr(said, "), rank 1 loads ") &&
			      strstr(said, "/b/libswdep.so (content "),
		      "%s", said);
	free(said);

	/* P34: the same library in two places agrees, and runs */
	snprintf(dir, sizeof dir, "%s/mpmd_dependency_same", tmpdir);
	make_mpmd_dep_dir(dir, "dep_a");
	int rc = run_mpmd(dir, "--plugin a/p.so a/hostile.yaml -o out.h5",
			  "--plugin b/p.so a/hostile.yaml -o out.h5");
	char err_path[700];
	snprintf(err_path, sizeof err_path, "%s/err", dir);
	ck_assert_msg(rc == 0, "exit code %d: %s", rc, slurp(err_path));

	snprintf(dir, sizeof dir, "%s/mpmd_job_missing", tmpdir);
	make_mpmd_dir(dir, NULL);
	expect_rank_1(dir, run_mpmd(dir, "a/job.yaml -o out.h5", "b/job.yaml -o out.h5"),
		      "plug-in b/p.so: No such file or directory");

	snprintf(dir, sizeof dir, "%s/mpmd_job_other", tmpdir);
	make_mpmd_dir(dir, "other/plugin_strided_read.so");
	expect_rank_1(dir, run_mpmd(dir, "a/job.yaml -o out.h5", "b/job.yaml -o out.h5"),
		      "rank 1 differs from rank 0 in its plug-ins (rank 0 loads the plug-in ");

	snprintf(dir, sizeof dir, "%s/mpmd_option_missing", tmpdir);
	make_mpmd_dir(dir, NULL);
	expect_rank_1(dir,
		      run_mpmd(dir, "--plugin a/p.so a/plain.yaml -o out.h5",
			       "--plugin b/p.so a/plain.yaml -o out.h5"),
		      "plug-in b/p.so: No such file or directory");

	snprintf(dir, sizeof dir, "%s/mpmd_option_other", tmpdir);
	make_mpmd_dir(dir, "other/plugin_strided_read.so");
	expect_rank_1(dir,
		      run_mpmd(dir, "--plugin a/p.so a/plain.yaml -o out.h5",
			       "--plugin b/p.so a/plain.yaml -o out.h5"),
		      "rank 1 differs from rank 0 in its plug-ins (rank 0 loads the plug-in ");
	snprintf(err_at, sizeof err_at, "%s/err", dir);
	said = slurp(err_at);
	ck_assert_msg(strstr(said, "/a/p.so (content ") && strstr(said, "rank 1 loads none of that "
									"content"),
		      "%s", said);
	free(said);
}
END_TEST

/* A long legal output name: the hidden temporary name beside it must not
 * push it past what the file system takes (255 bytes a name). */
START_TEST(test_long_output_name)
{
	char dir[512], name[256], path[800];
	snprintf(dir, sizeof dir, "%s/longname", tmpdir);
	ck_assert(mkdir(dir, 0755) == 0);
	memset(name, 'a', 252);
	memcpy(name + 252, ".h5", 4); /* 255 bytes */
	static struct bad run = { .what = "A41", .args = { "-q", "@ci", "-o", NULL } };
	run.args[3] = name;
	struct outcome o = { 0 };
	snprintf(o.dir, sizeof o.dir, "%s", dir);
	snprintf(o.out_log, sizeof o.out_log, "%s/longname.out", tmpdir);
	snprintf(o.err_log, sizeof o.err_log, "%s/longname.err", tmpdir);
	snprintf(o.session_dir, sizeof o.session_dir, "%s", tmpdir);
	int status;
	waitpid(launch(&run, &o), &status, 0);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", slurp(o.err_log));
	snprintf(path, sizeof path, "%s/%s", dir, name);
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert_msg(f >= 0, "no file %s", path);
	H5Fclose(f);
	struct snapshot after;
	snap(dir, &after);
	ck_assert_int_eq(after.n, 1); /* no temporary left beside it */
}
END_TEST

/* A legal path of total bytes ("./" repeated, then a name of name_len
 * bytes: "o.h5" for 4, else a's and ".h5") in a folder of its own,
 * written by sweep (with force, over a sweep file made there first): the
 * file opens, and no temporary is left beside it. */
static void long_path_written(const char *what, const char *sub, size_t total, size_t name_len,
			      int force)
{
	static char path[4096];
	char dir[512], full[4700];
	size_t n = 0;
	snprintf(dir, sizeof dir, "%s/%s", tmpdir, sub);
	ck_assert(mkdir(dir, 0755) == 0);
	if ((total - name_len) % 2)
		n += (size_t)sprintf(path, ".//");
	while (n < total - name_len)
		n += (size_t)sprintf(path + n, "./");
	if (name_len == 4) {
		memcpy(path + n, "o.h5", 5);
	} else {
		memset(path + n, 'a', name_len - 3);
		memcpy(path + n + name_len - 3, ".h5", 4);
	}
	ck_assert_uint_eq(strlen(path), total);
	snprintf(full, sizeof full, "%s/%s", dir, path + n);
	static struct bad run = { .args = { "-q", "@ci", "-o", NULL, NULL } };
	run.what = what;
	run.args[3] = path;
	run.args[4] = force ? "--force" : NULL;
	struct outcome o = { 0 };
	snprintf(o.dir, sizeof o.dir, "%s", dir);
	snprintf(o.out_log, sizeof o.out_log, "%s/%s.out", tmpdir, sub);
	snprintf(o.err_log, sizeof o.err_log, "%s/%s.err", tmpdir, sub);
	snprintf(o.session_dir, sizeof o.session_dir, "%s", tmpdir);
	int status;
	if (force)
		copy_file(good_h5, full, -1);
	waitpid(launch(&run, &o), &status, 0);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: %s", what,
		      slurp(o.err_log));
	hid_t f = H5Fopen(full, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert_msg(f >= 0, "%s: no file %s", what, full);
	H5Fclose(f);
	struct snapshot after;
	snap(dir, &after);
	ck_assert_int_eq(after.n, 1); /* no temporary left beside it */
}

/* H36-B14 (issue 36, cause 14): a legal output path of 4080 bytes through
 * real folders (39 of 100 bytes, one of 80) to a 60-byte name, below a
 * session folder whose own path takes the real path past PATH_MAX: HDF5,
 * given a name that is a link, resolved it and failed (was: refused, the
 * message cut before its reason). The file is written and opens, a
 * --resume of it too, and no temporary is left beside it. */
START_TEST(test_deep_output_path)
{
	static char path[4096];
	char dir[512], name[64];
	size_t n = 0;
	snprintf(dir, sizeof dir, "%s/deep", tmpdir);
	ck_assert(mkdir(dir, 0755) == 0);
	int fd = open(dir, O_PATH | O_DIRECTORY), next;
	ck_assert_int_ge(fd, 0);
	memset(name, 'a', 57);
	memcpy(name + 57, ".h5", 4);
	while (n < 4080 - 60) {
		size_t part = 4080 - 60 - n >= 101 ? 100 : 4080 - 60 - n - 1;
		char comp[128];
		memset(comp, n ? 'd' : 'e', part);
		comp[part] = '\0';
		ck_assert(mkdirat(fd, comp, 0755) == 0);
		next = openat(fd, comp, O_PATH | O_DIRECTORY);
		ck_assert_int_ge(next, 0);
		close(fd);
		fd = next;
		n += (size_t)sprintf(path + n, "%s/", comp);
	}
	memcpy(path + n, name, sizeof name - 3);
	ck_assert_uint_eq(strlen(path), 4080);
	ck_assert_uint_gt(strlen(dir) + 1 + strlen(path), 4095);
	for (int resume = 0; resume < 2; resume++) {
		static struct bad run = { .what = "H36-B14",
					  .args = { "-q", "@ci", "-o", NULL, NULL } };
		run.args[3] = path;
		run.args[4] = resume ? "--resume" : NULL;
		struct outcome o = { 0 };
		snprintf(o.dir, sizeof o.dir, "%s", dir);
		snprintf(o.out_log, sizeof o.out_log, "%s/deep.out", tmpdir);
		snprintf(o.err_log, sizeof o.err_log, "%s/deep.err", tmpdir);
		snprintf(o.session_dir, sizeof o.session_dir, "%s", tmpdir);
		int status;
		waitpid(launch(&run, &o), &status, 0);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s",
			      slurp(o.err_log));
	}
	/* the file, read through the folder that holds it, and nothing else */
	char through[128];
	snprintf(through, sizeof through, "/proc/self/fd/%d/%s", fd, name);
	hid_t f = H5Fopen(through, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert_msg(f >= 0, "no file %s", path);
	H5Fclose(f);
	int list = openat(fd, ".", O_RDONLY | O_DIRECTORY);
	DIR *d = fdopendir(list);
	struct dirent *e;
	int entries = 0;
	while (d && (e = readdir(d)))
		entries += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	ck_assert_int_eq(entries, 1);
	closedir(d);
	close(fd);
}
END_TEST

/* O08: a legal path of 4095 bytes (PATH_MAX with its NUL) and a long name:
 * the temporary name beside it gives up the name's end, not the run. */
START_TEST(test_long_output_path)
{
	long_path_written("O08", "longpath", 4095, 203, 0);
}
END_TEST

/* O05, O07, H4P01 (issue 30, cause 10): a legal path of 4095 or 4088 bytes
 * whose name is 4 bytes: the hidden temporary is named in the output's
 * folder, held open, so its path is never longer than the output's (was:
 * refused, the temporary's path past PATH_MAX with a long pid). */
START_TEST(test_long_path_short_name)
{
	long_path_written("O05", "short4095", 4095, 4, 0);
	long_path_written("O07", "short4095f", 4095, 4, 1);
	long_path_written("H4P01", "short4088", 4088, 4, 0);
}
END_TEST

int main(void)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	snprintf(ci_job, sizeof ci_job, "%s/jobs/ci.yaml", env("SW_SOURCE_DIR"));
	snprintf(measured_h5, sizeof measured_h5, "%s/docs/results/h100-fleet.h5",
		 env("SW_SOURCE_DIR"));
	snprintf(tmpdir, sizeof tmpdir, "%s/sweep-bad-XXXXXX", P_tmpdir);
	if (!mkdtemp(tmpdir))
		return EXIT_FAILURE;

	/* One real sweep file for the --resume rows to copy and spoil. */
	snprintf(good_h5, sizeof good_h5, "%s/good.h5", tmpdir);
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "'%s' --backend model -q '%s' -o '%s'", env("SW_SWEEP"), ci_job,
		 good_h5);
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot make %s: %s\n", good_h5, cmd);
		return EXIT_FAILURE;
	}

	/* One of a job with a plug-in, made in a folder of its own. */
	snprintf(plug_h5, sizeof plug_h5, "%s/plug/plug.h5", tmpdir);
	snprintf(cmd, sizeof cmd,
		 "mkdir '%s/plug' && cd '%s/plug' && cp '%s/plugin_hostile.so' p.so && "
		 "printf '" PLUG_JOB "' > job.yaml && '%s' --backend model -q job.yaml -o plug.h5",
		 tmpdir, tmpdir, env("SW_TEST_PLUGINS"), env("SW_SWEEP"));
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot make %s: %s\n", plug_h5, cmd);
		return EXIT_FAILURE;
	}

	/* One whose plug-in links a library beside it, one of a --plugin run. */
	snprintf(dep_h5, sizeof dep_h5, "%s/dep/dep.h5", tmpdir);
	snprintf(cmd, sizeof cmd,
		 "mkdir '%s/dep' && cd '%s/dep' && cp '%s/plugin_hostile_dep.so' p.so && "
		 "cp '%s/dep_a/libswdep.so' . && printf '" PLUG_JOB "' > job.yaml && "
		 "'%s' --backend model -q job.yaml -o dep.h5",
		 tmpdir, tmpdir, env("SW_TEST_PLUGINS"), env("SW_TEST_PLUGINS"), env("SW_SWEEP"));
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot make %s: %s\n", dep_h5, cmd);
		return EXIT_FAILURE;
	}
	snprintf(opt_h5, sizeof opt_h5, "%s/opt/opt.h5", tmpdir);
	snprintf(cmd, sizeof cmd,
		 "mkdir '%s/opt' && cd '%s/opt' && cp '%s/plugin_hostile.so' q.so && "
		 "printf '" HOSTILE_JOB "' > job.yaml && "
		 "'%s' --backend model -q --plugin q.so job.yaml -o opt.h5",
		 tmpdir, tmpdir, env("SW_TEST_PLUGINS"), env("SW_SWEEP"));
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot make %s: %s\n", opt_h5, cmd);
		return EXIT_FAILURE;
	}

	Suite *s = suite_create("bad_input");
	TCase *tc = tcase_create("binary");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_bad_inputs);
	tcase_add_test(tc, test_largest_sizes_in_64_bit);
	tcase_add_test(tc, test_plugins_differ_between_ranks);
	tcase_add_test(tc, test_long_output_name);
	tcase_add_test(tc, test_long_output_path);
	tcase_add_test(tc, test_long_path_short_name);
	tcase_add_test(tc, test_deep_output_path);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (!failed) { /* keep the files of a failure for a look */
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	} else {
		fprintf(stderr, "files kept in %s\n", tmpdir);
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
