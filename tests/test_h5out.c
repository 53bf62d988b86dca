/* Unit tests for the writer (h5create.c, h5write.c) and h5resume.c: a round trip read back through the
 * plain HDF5 C API (every column, the axis columns, strings and samples by
 * offset), refusals and --force at creation, resume and its refusals,
 * writers killed with SIGKILL whose flushed rows must stay readable (in
 * SWMR-read mode, the consistency flags being set) and resumable without
 * h5clear, the end time written at close while a SWMR reader holds the file,
 * a second writer refused while the first lives, a 1.8-format file resumed
 * as such, docs/hdf5-schema.md describing every column the file has, two
 * creations of one file (one wins), rows counted back after a failed flush,
 * the axis_columns attribute naming exactly the axis columns,
 * resume dropping unwritten rows and comparing parsed settings, and
 * --dry-run's resume check changing nothing. */
#define _GNU_SOURCE

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "column_check.h"
#include "h5/h5internal.h" /* the /devices column table */
#include "h5/h5out.h"
#include "job/plugin.h"
#include "kernel.h"

#define N_RECS          5
#define AUTO_FLUSH_ROWS 1024 /* docs/hdf5-schema.md: append flushes at this many rows */

static char dir[256];

/* ---- fixtures -------------------------------------------------------- */

static void make_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof dir, "%s/test_h5out.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_tree(const char *path)
{
	struct stat sb;
	DIR *d;
	struct dirent *e;
	char sub[512];

	if (lstat(path, &sb) != 0)
		return;
	if (!S_ISDIR(sb.st_mode)) {
		unlink(path);
		return;
	}
	chmod(path, 0700);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
		remove_tree(sub);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

static void remove_dir(void)
{
	remove_tree(dir);
}

static const char *in_dir(const char *name)
{
	static char path[4][512];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, sizeof path[0], "%s/%s", dir, name);
	return p;
}

/* Hidden files in dir: what a failed or finished creation must not leave. */
static int hidden_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* ---- rows ------------------------------------------------------------ */

static struct sw_h5_meta test_meta(uint64_t fingerprint)
{
	struct sw_h5_meta m = {
		.tool_version = "0.1.0 (git test)",
		.job_text = "kernels:\n  strided_read: {}\n# caf\xc3\xa9\n",
		.job_path = "jobs/test.yaml",
		.command_line = "sweep jobs/test.yaml -o out.h5",
		.backend = "cuda",
		.mpi_size = 2,
		.plan_fingerprint = fingerprint,
		.plan_points = 10,
		.start_unix = 1700000000.5,
	};
	return m;
}

static void make_record(struct sw_record *r, int i, int session)
{
	sw_record_init(r);
	r->point_id = 1000 + (uint64_t)i;
	r->plan_index = (uint32_t)i;
	r->rank = i % 2;
	r->session = session;
	strcpy(r->family, "strided_read");
	memset(r->variant, 'x', sizeof r->variant); /* junk after the NUL must not reach the file */
	strcpy(r->variant, i % 2 ? "tuned" : "seed");
	strcpy(r->backend, "cuda");
	r->is_reference = i == 0;
	r->cc = 90;
	for (int c = 0; c < sw_axis_column_count(); c++)
		r->axis[c] = c == 1 && i == 3 ? -1 : 10 * i + c;
	r->status = i % 4;
	snprintf(r->message, sizeof r->message, "message of row %d", i);
	strcpy(r->check_mode, i ? "full" : "sampled");
	r->checked_elems = 4096 + (uint64_t)i;
	r->max_rel_err = 1e-7 * i;
	r->seed = UINT64_C(0xABCDEF0000) + (uint64_t)i;
	r->n_samples = (uint32_t)i + 1;
	r->launches_per_sample = 2;
	r->l2_flushed = i % 2;
	r->median_ns = 1000.0 + i;
	r->min_ns = 900.0 + i;
	r->mean_ns = 1010.5 + i;
	r->stddev_ns = 3.25 * i;
	r->rse = i == 2 ? NAN : 0.001 * i;
	r->useful_bytes = 1 << 20;
	r->flops = 0.0;
	r->gbps = 1048.576 / (1000.0 + i);
	r->gflops = 0.0;
	r->timed_s = 0.125 * i;
	r->sm_clock_mhz = 1980;
	r->mem_clock_mhz = 2619;
	r->throttle_reasons = UINT64_C(1) << i;
	r->alloc_s = i == 1 ? NAN : 0.001 * i;
	r->fill_s = 0.002 * i;
	r->check_launch_s = 0.003 * i;
	r->warmup_s = 0.004 * i;
	r->flush_s = 0.005 * i;
	r->sampling_s = 0.25 * i;
	r->check_wait_s = 0.006 * i;
	r->check_cpu_s = 0.007 * i;
	r->model_requests = 32.0 * i;
	r->model_sectors_per_request = 4.0 + i;
	r->model_moved_bytes = 4096.0 * i;
	r->model_efficiency = 1.0 / (1 + i);
	r->model_transactions_per_request = 8.0 + i;
	r->model_conflict_degree = 2.0 + i;
	r->model_time_bound_ns = 100.0 * i;
	snprintf(r->model_device, sizeof r->model_device, "H100-SXM");
	r->model_time_ns = 1000.0 + i;
	snprintf(r->model_time_term, sizeof r->model_time_term, "dram");
	snprintf(r->model_time_basis, sizeof r->model_time_basis, "datasheet");
	/* the totals and counters: distinct per column, so a swap shows */
	double *totals[] = {
		&r->model_ld_requests,
		&r->model_ld_transactions,
		&r->model_st_requests,
		&r->model_st_transactions,
		&r->model_shared_ld_requests,
		&r->model_shared_ld_wavefronts,
		&r->model_shared_ld_conflicts,
		&r->ctr_ld_requests,
		&r->ctr_ld_sectors,
		&r->ctr_st_requests,
		&r->ctr_st_sectors,
		&r->ctr_shared_ld_requests,
		&r->ctr_shared_ld_wavefronts,
		&r->ctr_shared_ld_conflicts,
		&r->ctr_shared_st_requests,
		&r->ctr_shared_st_wavefronts,
		&r->ctr_shared_st_conflicts,
		&r->ctr_dram_read_bytes,
		&r->ctr_dram_write_bytes,
	};
	for (size_t k = 0; k < sizeof totals / sizeof totals[0]; k++)
		*totals[k] = 1000.0 * (double)k + i + 0.5;
	snprintf(r->counter_note, sizeof r->counter_note, "note of row %d", i);
	r->counter_passes = 3 + i;
	r->start_unix = 1700000001.0 + i;
	r->end_unix = r->start_unix + 0.25;
	r->sample_offset = 777; /* the writer overwrites it */
	for (uint32_t k = 0; k < r->n_samples; k++)
		r->samples_ns[k] = 100.0 * i + k + 0.25;
}

static void make_device(struct sw_device_info *d, int rank)
{
	memset(d, 0, sizeof *d);
	d->rank = rank;
	d->session = 0;
	snprintf(d->host, sizeof d->host, "node%02d", rank);
	d->local_rank = rank;
	d->device_index = rank;
	strcpy(d->backend, "cuda");
	snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "00000000:%02X:00.0", 0x19 + rank);
	snprintf(d->uuid, sizeof d->uuid, "GPU-%08x-aaaa-bbbb-cccc-dddddddddddd", rank);
	strcpy(d->name, "NVIDIA H200");
	if (rank % 2) /* an emulated one's column round-trips too */
		strcpy(d->emulates, "NVIDIA H100 80GB HBM3");
	d->cc = 90;
	d->sm_count = 132;
	d->mem_clock_khz = 2619000;
	d->mem_bus_width_bits = 6144;
	d->peak_gbps = 4022.784;
	d->l2_bytes = 52428800;
	d->mem_bytes = INT64_C(150) << 30;
	d->driver_version = 13000;
	d->runtime_version = 13000 + rank;
	strcpy(d->visible_devices, rank ? "1" : "0");
}

/* ---- reading back with the plain C API ------------------------------- */

static hid_t open_dset(hid_t file, const char *name, hsize_t *rows)
{
	hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
	hid_t s;

	ck_assert_msg(d >= 0, "open %s", name);
	s = H5Dget_space(d);
	ck_assert_int_eq(H5Sget_simple_extent_ndims(s), 1);
	H5Sget_simple_extent_dims(s, rows, NULL);
	H5Sclose(s);
	return d;
}

/* Column name of dset (which must exist) into buf as type. */
static void read_col(hid_t dset, const char *name, hid_t type, void *buf)
{
	hid_t ft = H5Dget_type(dset), one;

	ck_assert_msg(H5Tget_member_index(ft, name) >= 0, "no column %s", name);
	H5Tclose(ft);
	one = H5Tcreate(H5T_COMPOUND, H5Tget_size(type));
	ck_assert(one >= 0);
	ck_assert(H5Tinsert(one, name, 0, type) >= 0);
	ck_assert_msg(H5Dread(dset, one, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "read %s", name);
	H5Tclose(one);
}

static hid_t fixed_str(size_t len)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	H5Tset_size(t, len);
	return t;
}

/* Each compares rows [0, n) of column `field` with rows[i].field, and counts it. */
#define EXPECT_INT(dset, rows, n, field, counter)                                                  \
	do {                                                                                       \
		int64_t got_[16];                                                                  \
		read_col(dset, #field, H5T_NATIVE_INT64, got_);                                    \
		for (size_t i_ = 0; i_ < (n); i_++)                                                \
			ck_assert_msg(got_[i_] == (int64_t)(rows)[i_].field, "%s[%zu]: %lld",      \
				      #field, i_, (long long)got_[i_]);                            \
		(counter)++;                                                                       \
	} while (0)
#define EXPECT_U64(dset, rows, n, field, counter)                                                  \
	do {                                                                                       \
		uint64_t got_[16];                                                                 \
		read_col(dset, #field, H5T_NATIVE_UINT64, got_);                                   \
		for (size_t i_ = 0; i_ < (n); i_++)                                                \
			ck_assert_msg(got_[i_] == (rows)[i_].field, "%s[%zu]", #field, i_);        \
		(counter)++;                                                                       \
	} while (0)
#define EXPECT_F64(dset, rows, n, field, counter)                                                  \
	do {                                                                                       \
		double got_[16];                                                                   \
		read_col(dset, #field, H5T_NATIVE_DOUBLE, got_);                                   \
		for (size_t i_ = 0; i_ < (n); i_++) {                                              \
			double want_ = (rows)[i_].field;                                           \
			ck_assert_msg(isnan(want_) ? isnan(got_[i_]) : got_[i_] == want_,          \
				      "%s[%zu]: %g, want %g", #field, i_, got_[i_], want_);        \
		}                                                                                  \
		(counter)++;                                                                       \
	} while (0)
#define EXPECT_STR(dset, rows, n, field, counter)                                                  \
	do {                                                                                       \
		char got_[16][sizeof(rows)[0].field];                                              \
		hid_t t_ = fixed_str(sizeof(rows)[0].field);                                       \
		read_col(dset, #field, t_, got_);                                                  \
		H5Tclose(t_);                                                                      \
		for (size_t i_ = 0; i_ < (n); i_++) {                                              \
			size_t len_ = strlen((rows)[i_].field);                                    \
			ck_assert_str_eq(got_[i_], (rows)[i_].field);                              \
			for (size_t k_ = len_; k_ < sizeof got_[i_]; k_++)                         \
				ck_assert_int_eq(got_[i_][k_], 0);                                 \
		}                                                                                  \
		(counter)++;                                                                       \
	} while (0)

static void expect_measurements(hid_t file, const struct sw_record *recs, size_t n)
{
	hsize_t rows;
	hid_t d = open_dset(file, "measurements", &rows), ft;
	int cols = 0;

	ck_assert_uint_eq(rows, n);
	EXPECT_U64(d, recs, n, point_id, cols);
	EXPECT_INT(d, recs, n, plan_index, cols);
	EXPECT_INT(d, recs, n, rank, cols);
	EXPECT_INT(d, recs, n, session, cols);
	EXPECT_INT(d, recs, n, calibration, cols);
	EXPECT_STR(d, recs, n, family, cols);
	EXPECT_STR(d, recs, n, variant, cols);
	EXPECT_STR(d, recs, n, backend, cols);
	EXPECT_INT(d, recs, n, is_reference, cols);
	EXPECT_INT(d, recs, n, cc, cols);
	EXPECT_INT(d, recs, n, status, cols);
	EXPECT_STR(d, recs, n, message, cols);
	EXPECT_STR(d, recs, n, check_mode, cols);
	EXPECT_U64(d, recs, n, checked_elems, cols);
	EXPECT_F64(d, recs, n, max_rel_err, cols);
	EXPECT_U64(d, recs, n, seed, cols);
	EXPECT_INT(d, recs, n, n_samples, cols);
	EXPECT_INT(d, recs, n, launches_per_sample, cols);
	EXPECT_INT(d, recs, n, l2_flushed, cols);
	EXPECT_F64(d, recs, n, median_ns, cols);
	EXPECT_F64(d, recs, n, min_ns, cols);
	EXPECT_F64(d, recs, n, mean_ns, cols);
	EXPECT_F64(d, recs, n, stddev_ns, cols);
	EXPECT_F64(d, recs, n, rse, cols);
	EXPECT_F64(d, recs, n, useful_bytes, cols);
	EXPECT_F64(d, recs, n, flops, cols);
	EXPECT_F64(d, recs, n, gbps, cols);
	EXPECT_F64(d, recs, n, gflops, cols);
	EXPECT_F64(d, recs, n, timed_s, cols);
	EXPECT_INT(d, recs, n, sm_clock_mhz, cols);
	EXPECT_INT(d, recs, n, mem_clock_mhz, cols);
	EXPECT_U64(d, recs, n, throttle_reasons, cols);
	EXPECT_F64(d, recs, n, alloc_s, cols);
	EXPECT_F64(d, recs, n, fill_s, cols);
	EXPECT_F64(d, recs, n, check_launch_s, cols);
	EXPECT_F64(d, recs, n, warmup_s, cols);
	EXPECT_F64(d, recs, n, flush_s, cols);
	EXPECT_F64(d, recs, n, sampling_s, cols);
	EXPECT_F64(d, recs, n, check_wait_s, cols);
	EXPECT_F64(d, recs, n, check_cpu_s, cols);
	EXPECT_F64(d, recs, n, model_requests, cols);
	EXPECT_F64(d, recs, n, model_sectors_per_request, cols);
	EXPECT_F64(d, recs, n, model_moved_bytes, cols);
	EXPECT_F64(d, recs, n, model_efficiency, cols);
	EXPECT_F64(d, recs, n, model_transactions_per_request, cols);
	EXPECT_F64(d, recs, n, model_conflict_degree, cols);
	EXPECT_F64(d, recs, n, model_time_bound_ns, cols);
	EXPECT_STR(d, recs, n, model_device, cols);
	EXPECT_F64(d, recs, n, model_time_ns, cols);
	EXPECT_STR(d, recs, n, model_time_term, cols);
	EXPECT_STR(d, recs, n, model_time_basis, cols);
	EXPECT_F64(d, recs, n, model_ld_requests, cols);
	EXPECT_F64(d, recs, n, model_ld_transactions, cols);
	EXPECT_F64(d, recs, n, model_st_requests, cols);
	EXPECT_F64(d, recs, n, model_st_transactions, cols);
	EXPECT_F64(d, recs, n, model_shared_ld_requests, cols);
	EXPECT_F64(d, recs, n, model_shared_ld_wavefronts, cols);
	EXPECT_F64(d, recs, n, model_shared_ld_conflicts, cols);
	EXPECT_STR(d, recs, n, counter_note, cols);
	EXPECT_INT(d, recs, n, counter_passes, cols);
	EXPECT_F64(d, recs, n, ctr_ld_requests, cols);
	EXPECT_F64(d, recs, n, ctr_ld_sectors, cols);
	EXPECT_F64(d, recs, n, ctr_st_requests, cols);
	EXPECT_F64(d, recs, n, ctr_st_sectors, cols);
	EXPECT_F64(d, recs, n, ctr_shared_ld_requests, cols);
	EXPECT_F64(d, recs, n, ctr_shared_ld_wavefronts, cols);
	EXPECT_F64(d, recs, n, ctr_shared_ld_conflicts, cols);
	EXPECT_F64(d, recs, n, ctr_shared_st_requests, cols);
	EXPECT_F64(d, recs, n, ctr_shared_st_wavefronts, cols);
	EXPECT_F64(d, recs, n, ctr_shared_st_conflicts, cols);
	EXPECT_F64(d, recs, n, ctr_dram_read_bytes, cols);
	EXPECT_F64(d, recs, n, ctr_dram_write_bytes, cols);
	EXPECT_F64(d, recs, n, start_unix, cols);
	EXPECT_F64(d, recs, n, end_unix, cols);
	EXPECT_U64(d, recs, n, sample_offset, cols);

	/* One int64 column per axis name, -1 kept as -1. */
	ck_assert_int_ge(sw_axis_column_count(), 1);
	for (int c = 0; c < sw_axis_column_count(); c++) {
		int64_t got[16];
		hid_t ftype = H5Dget_type(d);
		int m = H5Tget_member_index(ftype, sw_axis_column_name(c));
		hid_t mt = H5Tget_member_type(ftype, (unsigned)m);

		ck_assert(H5Tequal(mt, H5T_STD_I64LE) > 0);
		H5Tclose(mt);
		H5Tclose(ftype);
		read_col(d, sw_axis_column_name(c), H5T_NATIVE_INT64, got);
		for (size_t i = 0; i < n; i++)
			ck_assert_int_eq(got[i], recs[i].axis[c]);
		cols++;
	}
	/* Every column of the file was compared above. */
	ft = H5Dget_type(d);
	ck_assert_int_eq(H5Tget_nmembers(ft), cols);
	H5Tclose(ft);
	H5Dclose(d);
}

static void expect_devices(hid_t file, const struct sw_device_info *devs, size_t n)
{
	hsize_t rows;
	hid_t d = open_dset(file, "devices", &rows), ft;
	int cols = 0;

	ck_assert_uint_eq(rows, n);
	EXPECT_INT(d, devs, n, rank, cols);
	EXPECT_INT(d, devs, n, session, cols);
	EXPECT_STR(d, devs, n, host, cols);
	EXPECT_INT(d, devs, n, local_rank, cols);
	EXPECT_INT(d, devs, n, device_index, cols);
	EXPECT_STR(d, devs, n, backend, cols);
	EXPECT_STR(d, devs, n, pci_bus_id, cols);
	EXPECT_STR(d, devs, n, uuid, cols);
	EXPECT_STR(d, devs, n, name, cols);
	EXPECT_STR(d, devs, n, device_class, cols);
	EXPECT_STR(d, devs, n, emulates, cols);
	EXPECT_INT(d, devs, n, cc, cols);
	EXPECT_INT(d, devs, n, sm_count, cols);
	EXPECT_INT(d, devs, n, mem_clock_khz, cols);
	EXPECT_INT(d, devs, n, mem_bus_width_bits, cols);
	EXPECT_F64(d, devs, n, peak_gbps, cols);
	EXPECT_INT(d, devs, n, l2_bytes, cols);
	EXPECT_INT(d, devs, n, mem_bytes, cols);
	EXPECT_INT(d, devs, n, driver_version, cols);
	EXPECT_INT(d, devs, n, runtime_version, cols);
	EXPECT_STR(d, devs, n, visible_devices, cols);
	ft = H5Dget_type(d);
	ck_assert_int_eq(H5Tget_nmembers(ft), cols);
	H5Tclose(ft);
	H5Dclose(d);
}

/* Each row's samples, found through its sample_offset and n_samples. */
static void expect_samples(hid_t file, const struct sw_record *recs, size_t n)
{
	hsize_t rows, total = 0;
	hid_t d = open_dset(file, "samples", &rows);
	uint64_t offsets[16];
	double *s;

	for (size_t i = 0; i < n; i++)
		total += recs[i].n_samples;
	ck_assert_uint_eq(rows, total);
	s = malloc((rows ? rows : 1) * sizeof *s);
	if (rows)
		ck_assert(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) >= 0);
	H5Dclose(d);
	d = open_dset(file, "measurements", &rows);
	read_col(d, "sample_offset", H5T_NATIVE_UINT64, offsets);
	H5Dclose(d);
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < recs[i].n_samples; k++)
			ck_assert_double_eq(s[offsets[i] + k], recs[i].samples_ns[k]);
	free(s);
}

static int has_attr(hid_t loc, const char *name)
{
	return H5Aexists(loc, name) > 0;
}

/* A string attribute, which must be variable-length (h5py reads it as str). */
static void expect_str_attr(hid_t loc, const char *name, const char *want)
{
	hid_t a, t, mt;
	char *got = NULL;

	ck_assert_msg(has_attr(loc, name), "no attribute %s", name);
	a = H5Aopen(loc, name, H5P_DEFAULT);
	t = H5Aget_type(a);
	ck_assert_int_eq(H5Tget_class(t), H5T_STRING);
	ck_assert_msg(H5Tis_variable_str(t) > 0, "%s is not variable-length", name);
	mt = H5Tcopy(H5T_C_S1);
	H5Tset_size(mt, H5T_VARIABLE);
	H5Tset_cset(mt, H5T_CSET_UTF8);
	ck_assert(H5Aread(a, mt, &got) >= 0);
	ck_assert_str_eq(got, want);
	H5free_memory(got);
	H5Tclose(mt);
	H5Tclose(t);
	H5Aclose(a);
}

static double num_attr(hid_t loc, const char *name)
{
	double v = NAN;
	hid_t a;

	ck_assert_msg(has_attr(loc, name), "no attribute %s", name);
	a = H5Aopen(loc, name, H5P_DEFAULT);
	ck_assert(H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0);
	H5Aclose(a);
	return v;
}

static uint64_t u64_attr(hid_t loc, const char *name)
{
	uint64_t v = 0;
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT), t;

	ck_assert_msg(a >= 0, "no attribute %s", name);
	t = H5Aget_type(a);
	ck_assert(H5Tequal(t, H5T_STD_U64LE) > 0);
	H5Tclose(t);
	ck_assert(H5Aread(a, H5T_NATIVE_UINT64, &v) >= 0);
	H5Aclose(a);
	return v;
}

static void set_int_attr(const char *path, const char *name, int v)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), a;

	ck_assert(f >= 0);
	a = H5Aopen(f, name, H5P_DEFAULT);
	ck_assert(a >= 0);
	ck_assert(H5Awrite(a, H5T_NATIVE_INT, &v) >= 0);
	H5Aclose(a);
	H5Fclose(f);
}

/* Rows of a table, the file opened as any reader would (flags) or as a
 * SWMR reader, which also reads a file whose writer is alive or was killed. */
static hsize_t rows_opened(const char *path, const char *name, unsigned flags)
{
	hid_t f = H5Fopen(path, flags, H5P_DEFAULT), d;
	hsize_t rows;

	ck_assert_msg(f >= 0, "open %s", path);
	d = open_dset(f, name, &rows);
	H5Dclose(d);
	H5Fclose(f);
	return rows;
}

static hsize_t count_rows(const char *path, const char *name)
{
	return rows_opened(path, name, H5F_ACC_RDONLY);
}

static hsize_t count_rows_swmr(const char *path, const char *name)
{
	return rows_opened(path, name, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ);
}

/* A plain read-only open fails: HDF5's consistency flags say a writer has
 * the file open (or had it, and was killed). */
static int flags_set(const char *path)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);

	if (f < 0)
		return 1;
	H5Fclose(f);
	return 0;
}

static unsigned superblock_version(const char *path)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	H5F_info2_t info;

	ck_assert_msg(f >= 0, "open %s", path);
	ck_assert(H5Fget_info2(f, &info) >= 0);
	H5Fclose(f);
	return info.super.version;
}

/* h5dump -H must open the file; skipped where h5dump is not on PATH. */
static void expect_h5dump_opens(const char *path)
{
	char cmd[1024];

	if (system("command -v h5dump >/dev/null 2>&1") != 0)
		return;
	snprintf(cmd, sizeof cmd, "h5dump -H '%s' >/dev/null 2>&1", path);
	ck_assert_msg(system(cmd) == 0, "h5dump -H %s failed", path);
}

/* A file with recs[0..n) and two devices, closed at 1700000100. */
static void write_file(const char *path, uint64_t fingerprint, struct sw_record *recs, size_t n,
		       struct sw_device_info *devs)
{
	struct sw_h5_meta m = test_meta(fingerprint);
	struct sw_h5 *h;
	struct sw_err e = { 0 };

	ck_assert_msg(sw_h5_create(path, 0, &m, &h, &e) == SW_OK, "%s", e.msg);
	make_device(&devs[0], 0);
	make_device(&devs[1], 1);
	ck_assert_int_eq(sw_h5_append_devices(h, devs, 2, &e), SW_OK);
	for (size_t i = 0; i < n; i++) {
		make_record(&recs[i], (int)i, 0);
		ck_assert_msg(sw_h5_append(h, &recs[i], &e) == SW_OK, "%s", e.msg);
	}
	ck_assert_msg(sw_h5_close(&h, 1700000100.0, &e) == SW_OK, "%s", e.msg);
	ck_assert_ptr_null(h);
}

/* The type of column i of a table as docs/hdf5-schema.md writes it. */
static void doc_type_of(hid_t ftype, unsigned i, char *buf, size_t len)
{
	hid_t t = H5Tget_member_type(ftype, i);
	size_t size = H5Tget_size(t);

	switch (H5Tget_class(t)) {
	case H5T_INTEGER:
		snprintf(buf, len, "%sint%zu", H5Tget_sign(t) == H5T_SGN_NONE ? "u" : "", 8 * size);
		break;
	case H5T_FLOAT: snprintf(buf, len, "float%zu", 8 * size); break;
	case H5T_STRING: snprintf(buf, len, "string[%zu]", size); break;
	default: snprintf(buf, len, "?"); break;
	}
	H5Tclose(t);
}

/* The units:<column> attribute of dset, "" when it has none. */
static void units_of(hid_t dset, const char *column, char *buf, size_t len)
{
	char name[96], *got = NULL;
	hid_t a, mt;

	snprintf(name, sizeof name, "units:%s", column);
	buf[0] = '\0';
	if (!has_attr(dset, name))
		return;
	a = H5Aopen(dset, name, H5P_DEFAULT);
	mt = H5Tcopy(H5T_C_S1);
	H5Tset_size(mt, H5T_VARIABLE);
	H5Tset_cset(mt, H5T_CSET_UTF8);
	ck_assert(H5Aread(a, mt, &got) >= 0);
	snprintf(buf, len, "%s", got);
	H5free_memory(got);
	H5Tclose(mt);
	H5Aclose(a);
}

static int is_axis_column(const char *name)
{
	for (int c = 0; c < sw_axis_column_count(); c++)
		if (strcmp(sw_axis_column_name(c), name) == 0)
			return 1;
	return 0;
}

/* Every column of table `name` in the file has a row in the doc's table
 * under heading, with the file's type and units, and the doc names no
 * column the file lacks. Axis columns share one row of their own. */
static void expect_documented(hid_t file, const char *name, const char *heading)
{
	static struct doc_column doc[128];
	int n = doc_columns(heading, doc, 128);
	hid_t d = H5Dopen2(file, name, H5P_DEFAULT), ft = H5Dget_type(d);
	int members = H5Tget_nmembers(ft);

	ck_assert_msg(n > 0, "no table under %s in $SW_SOURCE_DIR/docs/hdf5-schema.md", heading);
	for (int i = 0; i < members; i++) {
		char *col = H5Tget_member_name(ft, (unsigned)i), type[32], units[64];
		const struct doc_column *row = doc_find(doc, n, col);

		if (!is_axis_column(col) || strcmp(name, "measurements") != 0) {
			ck_assert_msg(row, "docs/hdf5-schema.md: /%s has no row for column %s",
				      name, col);
			doc_type_of(ft, (unsigned)i, type, sizeof type);
			ck_assert_msg(strcmp(row->type, type) == 0,
				      "docs/hdf5-schema.md says /%s column %s is %s; it is %s",
				      name, col, row->type, type);
			units_of(d, col, units, sizeof units);
			ck_assert_msg(strcmp(row->units, units) == 0,
				      "docs/hdf5-schema.md gives /%s column %s units '%s'; it has "
				      "'%s'",
				      name, col, row->units, units);
		}
		H5free_memory(col);
	}
	for (int k = 0; k < n; k++)
		ck_assert_msg(H5Tget_member_index(ft, doc[k].name) >= 0,
			      "docs/hdf5-schema.md names a /%s column %s the file lacks", name,
			      doc[k].name);
	H5Tclose(ft);
	H5Dclose(d);
}

/* ---- tests ----------------------------------------------------------- */

START_TEST(round_trip)
{
	static struct sw_record recs[N_RECS];
	struct sw_device_info devs[2];
	const char *path = in_dir("out.h5");
	uint64_t offset = 0;
	hid_t f, d;

	write_file(path, 42, recs, N_RECS, devs);
	for (int i = 0; i < N_RECS; i++) {
		ck_assert_uint_eq(recs[i].sample_offset, offset); /* set by the writer */
		offset += recs[i].n_samples;
	}
	ck_assert_int_eq(hidden_files(), 0);
	ck_assert_uint_ge(superblock_version(path), 3); /* the format SWMR needs */

	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert(f >= 0);
	expect_measurements(f, recs, N_RECS);
	expect_devices(f, devs, 2);
	expect_samples(f, recs, N_RECS);

	ck_assert_double_eq(num_attr(f, "schema_version"), SW_SCHEMA_VERSION);
	expect_str_attr(f, "tool_version", "0.1.0 (git test)");
	expect_str_attr(f, "job_path", "jobs/test.yaml");
	expect_str_attr(f, "job_text", test_meta(0).job_text);
	expect_str_attr(f, "command_line", "sweep jobs/test.yaml -o out.h5");
	expect_str_attr(f, "command_line_history", "sweep jobs/test.yaml -o out.h5");
	expect_str_attr(f, "backend", "cuda");
	ck_assert_double_eq(num_attr(f, "mpi_size"), 2);
	ck_assert_uint_eq(u64_attr(f, "plan_fingerprint"), 42);
	ck_assert_uint_eq(u64_attr(f, "plan_points"), 10);
	expect_str_attr(f, "start_time", "2023-11-14T22:13:20Z");
	ck_assert_double_eq(num_attr(f, "start_unix"), 1700000000.5);
	expect_str_attr(f, "end_time", "2023-11-14T22:15:00Z");
	ck_assert_double_eq(num_attr(f, "end_unix"), 1700000100.0);
	ck_assert_double_eq(num_attr(f, "sessions"), 1);

	d = H5Dopen2(f, "measurements", H5P_DEFAULT);
	ck_assert(has_attr(d, "description"));
	expect_str_attr(d, "units:median_ns", "ns");
	expect_str_attr(d, "units:useful_bytes", "bytes");
	expect_str_attr(d, "units:gbps", "GB/s");
	expect_str_attr(d, "units:sm_clock_mhz", "MHz");
	ck_assert(!has_attr(d, "units:point_id"));
	for (int c = 0; c < sw_axis_column_count(); c++) {
		const struct sw_family *fam = sw_family_at(0);
		int a = sw_axis_find(fam, sw_axis_column_name(c));
		char name[64];

		snprintf(name, sizeof name, "units:%s", sw_axis_column_name(c));
		if (a >= 0 && sw_family_count() == 1 && fam->axes[a].units)
			expect_str_attr(d, name, fam->axes[a].units);
	}
	H5Dclose(d);
	d = H5Dopen2(f, "devices", H5P_DEFAULT);
	ck_assert(has_attr(d, "description"));
	expect_str_attr(d, "units:peak_gbps", "GB/s");
	expect_str_attr(d, "units:l2_bytes", "bytes");
	H5Dclose(d);
	d = H5Dopen2(f, "samples", H5P_DEFAULT);
	ck_assert(has_attr(d, "description"));
	expect_str_attr(d, "units", "ns");
	H5Dclose(d);
	H5Fclose(f);

	expect_h5dump_opens(path);
}
END_TEST

/* docs/hdf5-schema.md describes both tables as the file has them, and the
 * /devices column table covers struct sw_device_info. */
START_TEST(columns_documented_and_complete)
{
	static struct sw_record recs[2];
	struct sw_device_info devs[2];
	const char *path = in_dir("out.h5");
	char why[256];
	hid_t f;

	write_file(path, 42, recs, 2, devs);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert(f >= 0);
	expect_documented(f, "measurements", "## `/measurements`");
	expect_documented(f, "devices", "## `/devices`");
	expect_documented(f, "replays", "## `/replays`");
	H5Fclose(f);
	ck_assert_msg(columns_tile(sw_h5_device_columns, sw_h5_n_device_columns,
				   sizeof(struct sw_device_info), why, sizeof why),
		      "h5out.c's /devices columns: %s", why);
}
END_TEST

/* The columns of /measurements that are not in sw_record_columns' fixed
 * list, in file order: the axis columns, found without axis_columns. */
static int axis_members(hid_t ftype, char names[][64], int max)
{
	int n = 0;

	for (int i = 0; i < H5Tget_nmembers(ftype); i++) {
		char *col = H5Tget_member_name(ftype, (unsigned)i);
		int fixed = 0;

		for (int c = 0; c < sw_record_n_columns; c++)
			fixed |= sw_record_columns[c].kind != SW_COL_AXES &&
				 strcmp(sw_record_columns[c].name, col) == 0;
		if (!fixed && n < max)
			snprintf(names[n++], 64, "%s", col);
		H5free_memory(col);
	}
	return n;
}

/* Schema 4: /measurements' axis_columns attribute names its axis columns,
 * every one and nothing else, in file order, as an array of strings. */
START_TEST(axis_columns_attribute)
{
	static struct sw_record recs[2];
	struct sw_device_info devs[2];
	const char *path = in_dir("out.h5");
	char want[64][64], *got[64];
	hsize_t rows, n = 0;
	hid_t f, d, ft, a, sp, st;
	int n_want;

	write_file(path, 42, recs, 2, devs);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert(f >= 0);
	ck_assert_int_eq((int)num_attr(f, "schema_version"), SW_SCHEMA_VERSION);
	d = open_dset(f, "measurements", &rows);
	ft = H5Dget_type(d);
	n_want = axis_members(ft, want, 64);
	ck_assert_int_gt(n_want, 0);
	ck_assert_int_eq(n_want, sw_axis_column_count());
	a = H5Aopen(d, "axis_columns", H5P_DEFAULT);
	ck_assert_msg(a >= 0, "/measurements has no axis_columns attribute");
	sp = H5Aget_space(a);
	ck_assert_int_eq(H5Sget_simple_extent_ndims(sp), 1);
	H5Sget_simple_extent_dims(sp, &n, NULL);
	ck_assert_int_eq((int)n, n_want);
	st = H5Tcopy(H5T_C_S1);
	H5Tset_size(st, H5T_VARIABLE);
	H5Tset_cset(st, H5T_CSET_UTF8);
	ck_assert(H5Aread(a, st, got) >= 0);
	for (int i = 0; i < n_want; i++) {
		ck_assert_str_eq(got[i], want[i]);
		ck_assert_int_eq(H5Tget_member_class(ft, (unsigned)H5Tget_member_index(ft, got[i])),
				 H5T_INTEGER);
	}
	H5Dvlen_reclaim(st, sp, H5P_DEFAULT, got);
	H5Tclose(st);
	H5Sclose(sp);
	H5Aclose(a);
	H5Tclose(ft);
	H5Dclose(d);
	H5Fclose(f);
}
END_TEST

/* ---- /metrics (--metrics) ------------------------------------------ */

static const char *const metric_names[] = { "dram__bytes_read.sum",
					    "lts__t_sectors_srcunit_tex_op_read.sum" };

static struct sw_h5_meta metrics_meta(void)
{
	struct sw_h5_meta m = test_meta(42);

	m.metric_names = metric_names;
	m.n_metrics = 2;
	return m;
}

/* Record i counted both metrics (value 10 i + k), except record 1, not counted. */
static void add_metric_values(struct sw_record *r, int i)
{
	r->metrics.n = i == 1 ? 0 : 2;
	for (int k = 0; k < r->metrics.n; k++) {
		r->metrics.values[k] = 10.0 * i + k + 0.5;
		snprintf(r->metrics.units[k], sizeof r->metrics.units[k], "%s",
			 k ? "sector" : "byte");
	}
}

/* The /metrics rows of path, in file order. */
static hsize_t read_metric_rows(const char *path, struct sw_metric_row *rows, hsize_t max)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d, t, s8, s16;
	hsize_t n;

	ck_assert(f >= 0);
	d = open_dset(f, "metrics", &n);
	ck_assert_uint_le(n, max);
	t = H5Tcreate(H5T_COMPOUND, sizeof *rows);
	s8 = H5Tcopy(H5T_C_S1);
	H5Tset_size(s8, SW_METRIC_NAME_LEN);
	s16 = H5Tcopy(H5T_C_S1);
	H5Tset_size(s16, SW_METRIC_UNIT_LEN);
	H5Tinsert(t, "point_id", offsetof(struct sw_metric_row, point_id), H5T_NATIVE_UINT64);
	H5Tinsert(t, "name", offsetof(struct sw_metric_row, name), s8);
	H5Tinsert(t, "value", offsetof(struct sw_metric_row, value), H5T_NATIVE_DOUBLE);
	H5Tinsert(t, "unit", offsetof(struct sw_metric_row, unit), s16);
	if (n)
		ck_assert(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
	H5Tclose(s8);
	H5Tclose(s16);
	H5Tclose(t);
	H5Dclose(d);
	H5Fclose(f);
	return n;
}

static void write_metrics_file(const char *path, const struct sw_h5_meta *m, int n_recs)
{
	static struct sw_record recs[4];
	struct sw_h5 *h;
	struct sw_err e = { 0 };

	ck_assert_msg(sw_h5_create(path, 0, m, &h, &e) == SW_OK, "%s", e.msg);
	for (int i = 0; i < n_recs; i++) {
		make_record(&recs[i], i, 0);
		add_metric_values(&recs[i], i);
		ck_assert_int_eq(sw_h5_append(h, &recs[i], &e), SW_OK);
	}
	ck_assert_int_eq(sw_h5_close(&h, 1700000100.0, &e), SW_OK);
}

START_TEST(metrics_round_trip)
{
	struct sw_h5_meta m = metrics_meta();
	struct sw_metric_row rows[8];
	const char *path = in_dir("metrics.h5");
	hid_t f, d;

	write_metrics_file(path, &m, 3);
	/* records 0 and 2 counted, 1 not: four rows, in append order */
	ck_assert_uint_eq(read_metric_rows(path, rows, 8), 4);
	for (int r = 0; r < 4; r++) {
		int i = r < 2 ? 0 : 2, k = r % 2;

		ck_assert_uint_eq(rows[r].point_id, 1000 + (uint64_t)i);
		ck_assert_str_eq(rows[r].name, metric_names[k]);
		ck_assert_double_eq(rows[r].value, 10.0 * i + k + 0.5);
		ck_assert_str_eq(rows[r].unit, k ? "sector" : "byte");
	}
	ck_assert_uint_eq(count_rows(path, "measurements"), 3);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert(f >= 0);
	expect_str_attr(f, "metrics",
			"dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum");
	ck_assert_double_eq(num_attr(f, "schema_version"),
			    SW_SCHEMA_VERSION); /* /metrics came with 3 */
	d = H5Dopen2(f, "metrics", H5P_DEFAULT);
	ck_assert(has_attr(d, "description"));
	H5Dclose(d);
	expect_documented(f, "metrics", "## `/metrics`");
	H5Fclose(f);
	ck_assert_msg(columns_tile(sw_h5_metric_columns, sw_h5_n_metric_columns,
				   sizeof(struct sw_metric_row), (char[256]){ 0 }, 256),
		      "h5out.c's /metrics columns do not cover struct sw_metric_row");

	/* without --metrics: no table and no attribute, the schema-2 layout */
	static struct sw_record recs[2];
	struct sw_device_info devs[2];
	write_file(in_dir("plain.h5"), 42, recs, 2, devs);
	f = H5Fopen(in_dir("plain.h5"), H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert(f >= 0);
	ck_assert_int_eq(H5Lexists(f, "metrics", H5P_DEFAULT), 0);
	ck_assert(!has_attr(f, "metrics"));
	H5Fclose(f);
}
END_TEST

/* The named_tables file: three rows, the second of `hostile`'s variant,
 * which names one access (`data`), with its figures. */
static void write_named_file(const char *path, struct sw_h5_meta *m)
{
	static struct sw_record rec;
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	char so[4096];

	/* the test plug-in's family names an access; no built-in does */
	snprintf(so, sizeof so, "%s/plugin_hostile.so", getenv("SW_TEST_PLUGINS"));
	ck_assert_msg(sw_family_find("hostile") || sw_plugin_load(so, &e) == SW_OK, "%s", e.msg);
	ck_assert_msg(sw_h5_create(path, 0, m, &h, &e) == SW_OK, "%s", e.msg);
	for (int i = 0; i < 3; i++) {
		make_record(&rec, i, 0);
		strcpy(rec.family, "texture_read"); /* a variant that names no access */
		strcpy(rec.variant, "global");
		if (i == 1) {
			strcpy(rec.family, "hostile");
			strcpy(rec.variant, "plain");
			rec.accesses.n = 1;
			rec.accesses.a[0] = (struct sw_access_figures){ .requests = 32,
									.transactions = 128,
									.wavefronts = NAN,
									.costed = 32,
									.counts = SW_COUNTS_EXACT };
		}
		ck_assert_msg(sw_h5_append(h, &rec, &e) == SW_OK, "%s", e.msg);
	}
	ck_assert_msg(sw_h5_close(&h, 1700000100.0, &e) == SW_OK, "%s", e.msg);
}

/* Text column `name` of the one row of dset. */
static void read_text(hid_t dset, const char *name, char *buf, size_t len)
{
	hid_t t = fixed_str(len);
	read_col(dset, name, t, buf);
	H5Tclose(t);
}

/* The categorical axes' named values of every registered family. */
static hsize_t registry_names(void)
{
	hsize_t want = 0;
	for (int i = 0; i < sw_family_count(); i++)
		for (int a = 0; a < sw_family_at(i)->n_axes; a++)
			want += (hsize_t)sw_axis_name_count(&sw_family_at(i)->axes[a]);
	return want;
}

/* Schema 8: a record's per-access figures become /model_accesses rows
 * keyed by its row and point, named as its variant names them; /axis_names
 * holds every registered family's named values. */
START_TEST(named_tables)
{
	struct sw_h5_meta m = test_meta(42);
	const char *path = in_dir("named.h5");
	hsize_t n;
	uint64_t row = 9, point = 0;
	char name[SW_NAME_LEN], counts[16];

	write_named_file(path, &m);
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert(f >= 0);
	expect_documented(f, "model_accesses", "## `/model_accesses`");
	expect_documented(f, "axis_names", "## `/axis_names`");
	hid_t d = open_dset(f, "model_accesses", &n);
	ck_assert_uint_eq(n, 1);
	read_col(d, "row", H5T_NATIVE_UINT64, &row);
	read_col(d, "point_id", H5T_NATIVE_UINT64, &point);
	ck_assert_uint_eq(row, 1);
	ck_assert_uint_eq(point, 1001);
	read_text(d, "name", name, sizeof name);
	read_text(d, "counts", counts, sizeof counts);
	ck_assert_str_eq(name, "data");
	ck_assert_str_eq(counts, "exact");
	H5Dclose(d);
	ck_assert_uint_ge(registry_names(), 6); /* histogram's dist, texture_read's pattern */
	ck_assert_uint_eq(count_rows(path, "axis_names"), registry_names());
	H5Fclose(f);
	ck_assert_msg(columns_tile(sw_h5_access_columns, sw_h5_n_access_columns,
				   sizeof(struct sw_access_row), (char[256]){ 0 }, 256),
		      "the /model_accesses columns do not cover struct sw_access_row");
	ck_assert_msg(columns_tile(sw_h5_axis_name_columns, sw_h5_n_axis_name_columns,
				   sizeof(struct sw_axis_name_row), (char[256]){ 0 }, 256),
		      "the /axis_names columns do not cover struct sw_axis_name_row");
}
END_TEST

/* A file before schema 8 has neither table: its resume makes both, and
 * the rows it writes go on in /model_accesses, after the file's rows. */
START_TEST(named_tables_added_by_resume)
{
	static struct sw_record rec;
	struct sw_h5_meta m = test_meta(42);
	const char *path = in_dir("named.h5");
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	uint64_t *ids, row = 9;
	size_t done;
	int session;
	hsize_t n;

	write_named_file(path, &m);
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(H5Ldelete(f, "model_accesses", H5P_DEFAULT) >= 0);
	ck_assert(H5Ldelete(f, "axis_names", H5P_DEFAULT) >= 0);
	H5Fclose(f);
	m.command_line = "sweep jobs/test.yaml -o out.h5 --resume";
	ck_assert_msg(sw_h5_resume(path, &m, &h, &ids, &done, &session, &e) == SW_OK, "%s", e.msg);
	free(ids);
	ck_assert_msg(sw_h5_resume_begin(h, &m, &e) == SW_OK, "%s", e.msg);
	make_record(&rec, 5, session);
	strcpy(rec.family, "hostile");
	strcpy(rec.variant, "plain");
	rec.accesses.n = 1;
	ck_assert_int_eq(sw_h5_append(h, &rec, &e), SW_OK);
	ck_assert_msg(sw_h5_close(&h, 1700000200.0, &e) == SW_OK, "%s", e.msg);
	ck_assert_uint_eq(count_rows(path, "axis_names"), registry_names());
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t d = open_dset(f, "model_accesses", &n);
	ck_assert_uint_eq(n, 1);
	read_col(d, "row", H5T_NATIVE_UINT64, &row);
	ck_assert_uint_eq(row, 3); /* after the file's three rows */
	H5Dclose(d);
	H5Fclose(f);
}
END_TEST

static enum sw_status try_resume(const char *path, const struct sw_h5_meta *m, struct sw_err *e)
{
	struct sw_h5 *h;
	uint64_t *ids = NULL;
	size_t n;
	int session;
	enum sw_status st = sw_h5_resume(path, m, &h, &ids, &n, &session, e);

	free(ids);
	if (st == SW_OK)
		st = sw_h5_resume_begin(h, m, e);
	if (st == SW_OK) {
		static struct sw_record rec;

		/* one more counted point, appended after the file's rows */
		make_record(&rec, 3, session);
		add_metric_values(&rec, 3);
		ck_assert_int_eq(sw_h5_append(h, &rec, e), SW_OK);
		ck_assert_int_eq(sw_h5_close(&h, 1700000200.0, e), SW_OK);
	}
	return st;
}

START_TEST(metrics_resume_layouts)
{
	static const char *const other[] = { "dram__bytes_write.sum" };
	struct sw_h5_meta with = metrics_meta(), without = test_meta(42), changed = metrics_meta();
	struct sw_metric_row rows[8];
	struct sw_err e = { 0 };
	const char *path = in_dir("metrics.h5"), *plain = in_dir("plain.h5");

	write_metrics_file(path, &with, 2);
	ck_assert_uint_eq(read_metric_rows(path, rows, 8), 2);
	/* the same names: the rows go on */
	ck_assert_msg(try_resume(path, &with, &e) == SW_OK, "%s", e.msg);
	ck_assert_uint_eq(read_metric_rows(path, rows, 8), 4);
	ck_assert_uint_eq(rows[2].point_id, 1003);
	ck_assert_str_eq(rows[3].name, metric_names[1]);
	/* other names, or none: refused */
	changed.metric_names = other;
	changed.n_metrics = 1;
	ck_assert_int_eq(try_resume(path, &changed, &e), SW_EINVAL);
	ck_assert_msg(strstr(e.msg, "has --metrics dram__bytes_write.sum: the /metrics layouts "
				    "differ"),
		      "%s", e.msg);
	ck_assert_int_eq(try_resume(path, &without, &e), SW_EINVAL);
	ck_assert_msg(strstr(e.msg, "this run has none"), "%s", e.msg);
	ck_assert_uint_eq(read_metric_rows(path, rows, 8), 4);

	/* a file without /metrics, schema 2's as well: resumed only without --metrics */
	write_metrics_file(plain, &without, 1);
	set_int_attr(plain, "schema_version", 2);
	ck_assert_int_eq(try_resume(plain, &with, &e), SW_EINVAL);
	ck_assert_msg(strstr(e.msg, "was written without --metrics"), "%s", e.msg);
	ck_assert_msg(try_resume(plain, &without, &e) == SW_OK, "%s", e.msg);
	ck_assert_uint_eq(count_rows(plain, "measurements"), 2);
}
END_TEST

START_TEST(refuses_existing_file)
{
	static struct sw_record recs[2];
	struct sw_device_info devs[2];
	struct sw_h5_meta m = test_meta(42);
	const char *path = in_dir("out.h5");
	struct sw_h5 *h = (struct sw_h5 *)&m;
	struct sw_err e = { 0 };

	write_file(path, 42, recs, 2, devs);
	ck_assert_int_eq(sw_h5_create(path, 0, &m, &h, &e), SW_EIO);
	ck_assert_ptr_null(h);
	ck_assert_ptr_nonnull(strstr(e.msg, path));
	ck_assert_ptr_nonnull(strstr(e.msg, "--force"));
	ck_assert_ptr_nonnull(strstr(e.msg, "--resume"));
	ck_assert_uint_eq(count_rows(path, "measurements"), 2); /* untouched */

	ck_assert_msg(sw_h5_create(path, 1, &m, &h, &e) == SW_OK, "%s", e.msg);
	ck_assert_int_eq(sw_h5_close(&h, 1700000100.0, &e), SW_OK);
	ck_assert_uint_eq(count_rows(path, "measurements"), 0);
	ck_assert_uint_eq(count_rows(path, "samples"), 0);
	ck_assert_int_eq(hidden_files(), 0);
}
END_TEST

START_TEST(refuses_bad_location)
{
	struct sw_h5_meta m = test_meta(42);
	struct sw_h5 *h = NULL;
	struct sw_err e = { 0 };
	struct stat sb;
	FILE *fp;

	ck_assert_int_eq(sw_h5_create(in_dir("nope/out.h5"), 0, &m, &h, &e), SW_EIO);
	ck_assert_ptr_null(h);
	ck_assert_ptr_nonnull(strstr(e.msg, in_dir("nope")));
	ck_assert_ptr_nonnull(strstr(e.msg, "does not exist"));
	ck_assert_int_ne(stat(in_dir("nope"), &sb), 0);

	fp = fopen(in_dir("plain"), "w");
	ck_assert_ptr_nonnull(fp);
	fclose(fp);
	ck_assert_int_eq(sw_h5_create(in_dir("plain/out.h5"), 1, &m, &h, &e), SW_EIO);
	ck_assert_ptr_nonnull(strstr(e.msg, "not a directory"));

	ck_assert_int_eq(mkdir(in_dir("sub"), 0700), 0);
	ck_assert_int_eq(sw_h5_create(in_dir("sub"), 1, &m, &h, &e), SW_EIO);
	ck_assert_ptr_nonnull(strstr(e.msg, "is a directory"));

	/* root writes anywhere: the unwritable case needs another user. */
	if (geteuid() != 0) {
		ck_assert_int_eq(mkdir(in_dir("ro"), 0500), 0);
		ck_assert_int_eq(sw_h5_create(in_dir("ro/out.h5"), 0, &m, &h, &e), SW_EIO);
		ck_assert_ptr_nonnull(strstr(e.msg, "not writable"));
	}
	ck_assert_int_eq(hidden_files(), 0);
}
END_TEST

START_TEST(rejects_too_many_samples)
{
	static struct sw_record r;
	struct sw_h5_meta m = test_meta(42);
	struct sw_h5 *h = NULL;
	struct sw_err e = { 0 };

	ck_assert_int_eq(sw_h5_create(in_dir("out.h5"), 0, &m, &h, &e), SW_OK);
	make_record(&r, 0, 0);
	r.n_samples = SW_MAX_SAMPLES + 1;
	ck_assert_int_eq(sw_h5_append(h, &r, &e), SW_EINVAL);
	ck_assert_int_eq(sw_h5_close(&h, 0.0, &e), SW_OK);
	ck_assert_int_eq(sw_h5_close(&h, 0.0, &e), SW_OK); /* safe on NULL */
	ck_assert_int_eq(sw_h5_close(NULL, 0.0, &e), SW_OK);
	ck_assert_uint_eq(count_rows(in_dir("out.h5"), "measurements"), 0);
}
END_TEST

START_TEST(resume_continues)
{
	static struct sw_record recs[N_RECS + 1];
	struct sw_device_info devs[2];
	struct sw_h5_meta m = test_meta(42);
	const char *path = in_dir("out.h5");
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	uint64_t *ids;
	size_t n;
	int session;
	hid_t f;

	write_file(path, 42, recs, 3, devs);
	m.command_line = "sweep jobs/test.yaml -o out.h5 --resume";
	ck_assert_msg(sw_h5_resume(path, &m, &h, &ids, &n, &session, &e) == SW_OK, "%s", e.msg);
	ck_assert_msg(sw_h5_resume_begin(h, &m, &e) == SW_OK, "%s", e.msg);
	ck_assert_int_eq(session, 1);
	ck_assert_uint_eq(n, 3);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(ids[i], 1000 + i);
	free(ids);

	/* Session 1 adds a device, point 1003, and a second row of point 1001. */
	make_device(&devs[0], 0);
	devs[0].session = 1;
	ck_assert_int_eq(sw_h5_append_devices(h, devs, 1, &e), SW_OK);
	make_record(&recs[3], 3, 1);
	ck_assert_int_eq(sw_h5_append(h, &recs[3], &e), SW_OK);
	ck_assert_uint_eq(recs[3].sample_offset, 1 + 2 + 3);
	make_record(&recs[4], 1, 1);
	strcpy(recs[4].backend, "model");
	ck_assert_int_eq(sw_h5_append(h, &recs[4], &e), SW_OK);
	ck_assert_int_eq(sw_h5_close(&h, 1700000200.0, &e), SW_OK);

	m.command_line = "sweep again";
	ck_assert_msg(sw_h5_resume(path, &m, &h, &ids, &n, &session, &e) == SW_OK, "%s", e.msg);
	ck_assert_msg(sw_h5_resume_begin(h, &m, &e) == SW_OK, "%s", e.msg);
	ck_assert_int_eq(session, 2);
	ck_assert_uint_eq(n, 4); /* 1001 once */
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(ids[i], 1000 + i);
	free(ids);
	ck_assert_int_eq(sw_h5_close(&h, 1700000300.0, &e), SW_OK);

	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert(f >= 0);
	expect_measurements(f, recs, 5);
	expect_samples(f, recs, 5);
	ck_assert_double_eq(num_attr(f, "sessions"), 3);
	expect_str_attr(f, "command_line", "sweep jobs/test.yaml -o out.h5");
	expect_str_attr(f, "command_line_history",
			"sweep jobs/test.yaml -o out.h5\n"
			"sweep jobs/test.yaml -o out.h5 --resume\n"
			"sweep again");
	expect_str_attr(f, "start_time", "2023-11-14T22:13:20Z");
	ck_assert_double_eq(num_attr(f, "end_unix"), 1700000300.0);
	H5Fclose(f);
	ck_assert_uint_eq(count_rows(path, "devices"), 3);
	expect_h5dump_opens(path);
}
END_TEST

START_TEST(resume_empty_file)
{
	struct sw_h5_meta m = test_meta(7);
	const char *path = in_dir("out.h5");
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	uint64_t *ids = (uint64_t *)&m;
	size_t n = 99;
	int session = -1;

	ck_assert_int_eq(sw_h5_create(path, 0, &m, &h, &e), SW_OK);
	ck_assert_int_eq(sw_h5_close(&h, 1.0, &e), SW_OK);
	ck_assert_msg(sw_h5_resume(path, &m, &h, &ids, &n, &session, &e) == SW_OK, "%s", e.msg);
	ck_assert_msg(sw_h5_resume_begin(h, &m, &e) == SW_OK, "%s", e.msg);
	ck_assert_int_eq(session, 1); /* from the sessions attribute */
	ck_assert_uint_eq(n, 0);
	free(ids);
	ck_assert_int_eq(sw_h5_close(&h, 2.0, &e), SW_OK);
}
END_TEST

/* Each refusal leaves *out, *done_ids and *n_done empty. */
static void expect_resume_refused(const char *path, uint64_t fingerprint, const char *backend,
				  enum sw_status want, const char *says)
{
	struct sw_h5_meta m = test_meta(fingerprint);
	struct sw_h5 *h = (struct sw_h5 *)&m;
	struct sw_err e = { 0 };
	uint64_t *ids = (uint64_t *)&m;
	size_t n = 99;
	int session = -1;

	m.backend = backend;
	ck_assert_int_eq(sw_h5_resume(path, &m, &h, &ids, &n, &session, &e), want);
	ck_assert_ptr_null(h);
	ck_assert_ptr_null(ids);
	ck_assert_uint_eq(n, 0);
	ck_assert_msg(strstr(e.msg, says) != NULL, "message '%s' lacks '%s'", e.msg, says);
	ck_assert_ptr_nonnull(strstr(e.msg, path));
}

START_TEST(resume_refusals)
{
	static struct sw_record recs[2];
	struct sw_device_info devs[2];
	const char *path = in_dir("out.h5");
	hid_t f;
	FILE *fp;

	write_file(path, 42, recs, 2, devs);
	expect_resume_refused(path, 43, "cuda", SW_EINVAL, "different job");
	expect_resume_refused(path, 42, "model", SW_EINVAL, "--backend cuda");
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert(f >= 0);
	ck_assert_double_eq(num_attr(f, "sessions"), 1); /* refusals change nothing */
	ck_assert(has_attr(f, "end_time"));
	H5Fclose(f);

	set_int_attr(path, "schema_version", SW_SCHEMA_VERSION + 1);
	expect_resume_refused(path, 42, "cuda", SW_EINVAL, "newer");

	fp = fopen(in_dir("text.h5"), "w");
	ck_assert_ptr_nonnull(fp);
	fputs("not hdf5 at all\n", fp);
	fclose(fp);
	expect_resume_refused(in_dir("text.h5"), 42, "cuda", SW_EINVAL, "not an HDF5 file");

	f = H5Fcreate(in_dir("other.h5"), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
	ck_assert(f >= 0);
	H5Fclose(f);
	expect_resume_refused(in_dir("other.h5"), 42, "cuda", SW_EINVAL, "not a sweep file");

	expect_resume_refused(in_dir("missing.h5"), 42, "cuda", SW_EIO, "missing.h5");
}
END_TEST

START_TEST(resume_refuses_missing_table)
{
	static struct sw_record recs[1];
	struct sw_device_info devs[2];
	const char *path = in_dir("out.h5");
	hid_t f;

	write_file(path, 42, recs, 1, devs);
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(f >= 0);
	ck_assert(H5Ldelete(f, "samples", H5P_DEFAULT) >= 0);
	H5Fclose(f);
	expect_resume_refused(path, 42, "cuda", SW_EINVAL, "/samples");
}
END_TEST

/* A child appends `flushed` rows and flushes them (when there are any),
 * appends `unflushed` more without flushing, and dies by SIGKILL. Point ids
 * are 1000, 1001, ... */
static void killed_writer(const char *path, int flushed, int unflushed)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		static struct sw_record r;
		struct sw_device_info dev;
		struct sw_h5_meta m = test_meta(42);
		struct sw_h5 *h;
		struct sw_err e;

		if (sw_h5_create(path, 0, &m, &h, &e) != SW_OK)
			_exit(1);
		make_device(&dev, 0);
		if (sw_h5_append_devices(h, &dev, 1, &e) != SW_OK)
			_exit(1);
		for (int i = 0; i < flushed + unflushed; i++) {
			if (i == flushed && flushed > 0 && sw_h5_flush(h, &e) != SW_OK)
				_exit(1);
			make_record(&r, i % N_RECS, 0);
			r.point_id = 1000 + (uint64_t)i;
			if (sw_h5_append(h, &r, &e) != SW_OK)
				_exit(1);
		}
		raise(SIGKILL);
		_exit(2);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		      "the writer did not die by SIGKILL (status %d)", status);
}

START_TEST(survives_sigkill)
{
	static struct sw_record recs[3];
	const char *path = in_dir("killed.h5");
	struct sw_h5_meta m = test_meta(42);
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	uint64_t *ids;
	size_t n;
	int session;
	hid_t f;

	killed_writer(path, 3, 2);
	for (int i = 0; i < 3; i++)
		make_record(&recs[i], i, 0);
	recs[0].sample_offset = 0;
	recs[1].sample_offset = 1;
	recs[2].sample_offset = 3;

	/* The killed writer left the consistency flags set: a plain open
	 * fails, a SWMR reader reads every flushed row. */
	ck_assert(flags_set(path));
	f = H5Fopen(path, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT);
	ck_assert_msg(f >= 0, "a file left by a killed writer must open for a SWMR reader");
	expect_measurements(f, recs, 3); /* the flushed rows, not the 2 after */
	expect_samples(f, recs, 3);
	ck_assert(!has_attr(f, "end_time"));
	H5Fclose(f);
	ck_assert_uint_eq(count_rows_swmr(path, "devices"), 1);

	/* --resume clears the flags itself: no h5clear needed */
	ck_assert_msg(sw_h5_resume(path, &m, &h, &ids, &n, &session, &e) == SW_OK, "%s", e.msg);
	ck_assert_msg(sw_h5_resume_begin(h, &m, &e) == SW_OK, "%s", e.msg);
	ck_assert_int_eq(session, 1);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(ids[0], 1000);
	ck_assert_uint_eq(ids[2], 1002);
	free(ids);
	make_record(&recs[0], 4, 1);
	ck_assert_int_eq(sw_h5_append(h, &recs[0], &e), SW_OK);
	ck_assert_uint_eq(recs[0].sample_offset, 1 + 2 + 3);
	ck_assert_int_eq(sw_h5_close(&h, 1700000100.0, &e), SW_OK);
	ck_assert(!flags_set(path));
	ck_assert_uint_eq(count_rows(path, "measurements"), 4);
	expect_h5dump_opens(path);
}
END_TEST

/* A writer killed while it had the file open without SWMR (as sweep does
 * for a moment at resume and at close) leaves only the write flag set,
 * which even a SWMR reader refuses; resume clears it all the same. */
START_TEST(resume_after_plain_writer_killed)
{
	static struct sw_record recs[2];
	struct sw_device_info devs[2];
	struct sw_h5_meta m = test_meta(42);
	const char *path = in_dir("out.h5");
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	uint64_t *ids;
	size_t n;
	int session, status;
	pid_t pid;

	write_file(path, 42, recs, 2, devs);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT) < 0)
			_exit(1);
		raise(SIGKILL);
		_exit(2);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert(flags_set(path));
	ck_assert_msg(sw_h5_resume(path, &m, &h, &ids, &n, &session, &e) == SW_OK, "%s", e.msg);
	ck_assert_msg(sw_h5_resume_begin(h, &m, &e) == SW_OK, "%s", e.msg);
	ck_assert_uint_eq(n, 2);
	free(ids);
	ck_assert_int_eq(sw_h5_close(&h, 1700000100.0, &e), SW_OK);
	ck_assert(!flags_set(path));
	ck_assert_uint_eq(count_rows(path, "measurements"), 2);
}
END_TEST

START_TEST(append_flushes_when_full)
{
	const char *path = in_dir("killed.h5");

	killed_writer(path, 0, AUTO_FLUSH_ROWS + 6); /* never calls sw_h5_flush */
	ck_assert_uint_eq(count_rows_swmr(path, "measurements"), AUTO_FLUSH_ROWS);
	ck_assert_uint_eq(count_rows_swmr(path, "devices"), 1);
}
END_TEST

/* ---- a second process on the file ------------------------------------ */

static void send_byte(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		_exit(9);
}

/* 1 when a byte came, 0 at end of file (the other side died). */
static int wait_byte(int fd)
{
	char c;

	return read(fd, &c, 1) == 1;
}

/* Rows of an open dataset after a refresh, as a SWMR reader sees them. */
static hsize_t refreshed_rows(hid_t d)
{
	hsize_t rows = 0;
	hid_t s;

	if (H5Drefresh(d) < 0)
		return (hsize_t)-1;
	s = H5Dget_space(d);
	H5Sget_simple_extent_dims(s, &rows, NULL);
	H5Sclose(s);
	return rows;
}

/* A SWMR reader in another process sees the rows of each flush appear, and
 * holds the file open while the writer closes it: the end time, written
 * after the close, must still go in (the reader holds a shared HDF5 lock). */
START_TEST(close_with_live_reader)
{
	static struct sw_record r;
	struct sw_h5_meta m = test_meta(42);
	const char *path = in_dir("live.h5");
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	int to_reader[2], to_writer[2], status;
	pid_t pid;
	hid_t f;

	ck_assert(pipe(to_reader) == 0 && pipe(to_writer) == 0);
	pid = fork(); /* before any file is open: the child's HDF5 holds nothing */
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		hsize_t first, second, last;
		hid_t rf, d;

		close(to_reader[1]);
		close(to_writer[0]);
		if (!wait_byte(to_reader[0]))
			_exit(3);
		rf = H5Fopen(path, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT);
		d = rf < 0 ? H5I_INVALID_HID : H5Dopen2(rf, "measurements", H5P_DEFAULT);
		if (d < 0)
			_exit(4);
		first = refreshed_rows(d);
		send_byte(to_writer[1]);
		if (!wait_byte(to_reader[0]))
			_exit(3);
		second = refreshed_rows(d);
		send_byte(to_writer[1]);
		if (!wait_byte(to_reader[0]))
			_exit(3);
		last = refreshed_rows(d);
		H5Dclose(d);
		H5Fclose(rf);
		_exit(first == 2 && second == 5 && last == 5 ? 0 : 5);
	}
	close(to_reader[0]);
	close(to_writer[1]);
	ck_assert_msg(sw_h5_create(path, 0, &m, &h, &e) == SW_OK, "%s", e.msg);
	for (int i = 0; i < 5; i++) {
		make_record(&r, i, 0);
		ck_assert_int_eq(sw_h5_append(h, &r, &e), SW_OK);
		if (i == 1 || i == 4) {
			ck_assert_int_eq(sw_h5_flush(h, &e), SW_OK);
			send_byte(to_reader[1]);
			ck_assert_msg(wait_byte(to_writer[0]), "the reader died");
		}
	}
	ck_assert_msg(sw_h5_close(&h, 1700000100.0, &e) == SW_OK, "%s", e.msg);
	send_byte(to_reader[1]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "reader status %d", status);

	ck_assert(!flags_set(path));
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert(f >= 0);
	ck_assert_double_eq(num_attr(f, "end_unix"), 1700000100.0);
	expect_str_attr(f, "end_time", "2023-11-14T22:15:00Z");
	H5Fclose(f);
	expect_h5dump_opens(path);
}
END_TEST

/* While one sweep writes a file, another's --resume and --force are
 * refused on our lock (HDF5's own is gone: a SWMR writer drops it) and
 * change nothing: the live writer's flags stay set and it finishes. */
START_TEST(second_writer_refused)
{
	static struct sw_record r;
	struct sw_h5_meta m = test_meta(42);
	const char *path = in_dir("out.h5");
	struct sw_h5 *h = NULL;
	struct sw_err e = { 0 };
	uint64_t *ids = NULL;
	size_t n = 99;
	int to_child[2], to_parent[2], session, status;
	pid_t pid;
	hid_t f;

	ck_assert(pipe(to_child) == 0 && pipe(to_parent) == 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		if (sw_h5_create(path, 0, &m, &h, &e) != SW_OK)
			_exit(3);
		make_record(&r, 0, 0);
		if (sw_h5_append(h, &r, &e) != SW_OK || sw_h5_flush(h, &e) != SW_OK)
			_exit(4);
		send_byte(to_parent[1]);
		if (!wait_byte(to_child[0]))
			_exit(5);
		make_record(&r, 1, 0);
		if (sw_h5_append(h, &r, &e) != SW_OK || sw_h5_close(&h, 1700000100.0, &e) != SW_OK)
			_exit(6);
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	ck_assert_msg(wait_byte(to_parent[0]), "the writer died");

	ck_assert_int_eq(sw_h5_resume(path, &m, &h, &ids, &n, &session, &e), SW_EIO);
	ck_assert_ptr_null(h);
	ck_assert_ptr_null(ids);
	ck_assert_uint_eq(n, 0);
	ck_assert_msg(strstr(e.msg, "another sweep is writing it"), "%s", e.msg);
	ck_assert_ptr_nonnull(strstr(e.msg, path));
	ck_assert_int_eq(sw_h5_create(path, 1, &m, &h, &e), SW_EIO);
	ck_assert_ptr_null(h);
	ck_assert_msg(strstr(e.msg, "cannot replace"), "%s", e.msg);
	ck_assert_int_eq(hidden_files(), 0);
	ck_assert(flags_set(path)); /* not cleared under the live writer */
	ck_assert_uint_eq(count_rows_swmr(path, "measurements"), 1);

	send_byte(to_child[1]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer status %d", status);
	ck_assert_uint_eq(count_rows(path, "measurements"), 2);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert(f >= 0);
	ck_assert_double_eq(num_attr(f, "sessions"), 1);
	H5Fclose(f);
}
END_TEST

/* A file of an older layout (here the 1.8 format, as sweeps before SWMR
 * wrote: tests/data/sweep-v18.h5.gz, by main's writer of commit 01698ae)
 * lacks the columns added since (end_unix, schema 2; the block, grid, vec
 * and elem_bytes axes; /devices' device_class, schema 5): resume refuses
 * it, naming the first it lacks in layout order (/devices is checked
 * first), and leaves it as it was. */
START_TEST(resume_keeps_old_format)
{
	struct sw_h5_meta m = test_meta(42);
	const char *data = getenv("SW_TEST_DATA"), *path = in_dir("old.h5");
	struct sw_h5 *h = NULL;
	struct sw_err e = { 0 };
	uint64_t *ids = NULL;
	size_t n;
	int session;
	char cmd[1024];

	ck_assert_msg(data, "SW_TEST_DATA is not set: run this test through ctest");
	snprintf(cmd, sizeof cmd, "gzip -dc '%s/sweep-v18.h5.gz' > '%s'", data, path);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_uint_eq(superblock_version(path), 0);
	ck_assert_int_eq(sw_h5_resume(path, &m, &h, &ids, &n, &session, &e), SW_EINVAL);
	ck_assert_msg(strstr(e.msg, "no column 'device_class'") && strstr(e.msg, "older sweep"),
		      "%s", e.msg);
	ck_assert_ptr_null(h);
	ck_assert_uint_eq(superblock_version(path), 0);
	ck_assert_uint_eq(count_rows(path, "measurements"), 2);
	expect_h5dump_opens(path);
}
END_TEST

/* Starts a child that creates path (force as given, fingerprint 8) held by
 * SW_TEST_FAULT=publish-wait:GO between its lock and its name, so that a
 * race runs in the same order every time; returns once it has passed its
 * checks and holds its temporary file. Its status and message go to
 * wait_child. */
static pid_t start_held_creator(const char *path, int force, const char *go, const char *said)
{
	struct sw_h5_meta theirs = test_meta(8);
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	char tmp[600];
	int status;
	pid_t child = fork();

	ck_assert_int_ge(child, 0);
	if (child == 0) {
		char fault[600];
		FILE *f;
		snprintf(fault, sizeof fault, "publish-wait:%s", go);
		setenv("SW_TEST_FAULT", fault, 1);
		enum sw_status st = sw_h5_create(path, force, &theirs, &h, &e);
		if (st == SW_OK)
			st = sw_h5_close(&h, 1700000200.0, &e);
		f = fopen(said, "w");
		if (f) {
			fputs(e.msg, f);
			fclose(f);
		}
		_exit(st);
	}
	snprintf(tmp, sizeof tmp, "%s/.out.h5.tmp%ld", dir, (long)child);
	while (access(tmp, F_OK) != 0)
		ck_assert_int_eq(waitpid(child, &status, WNOHANG), 0);
	return child;
}

/* Lets the held child go; its exit status, and its message in msg. */
static int finish_held_creator(pid_t child, const char *go, const char *said, char *msg,
			       size_t size)
{
	int status;
	FILE *f;

	close(open(go, O_WRONLY | O_CREAT, 0644));
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status));
	msg[0] = 0;
	f = fopen(said, "r");
	ck_assert_ptr_nonnull(f);
	if (!fgets(msg, (int)size, f))
		msg[0] = 0;
	fclose(f);
	return WEXITSTATUS(status);
}

static uint64_t fingerprint_of(const char *path)
{
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	uint64_t fp = 0;

	ck_assert(file >= 0);
	ck_assert_int_eq(sw_h5_get_attr(file, "plan_fingerprint", H5T_NATIVE_UINT64, &fp), 1);
	H5Fclose(file);
	return fp;
}

/* One sweep (fingerprint 7) creates, writes and closes path while a held
 * one (8) has its temporary file ready. */
static void create_and_close(const char *path, int force, uint64_t fingerprint)
{
	struct sw_h5_meta mine = test_meta(fingerprint);
	struct sw_h5 *h;
	struct sw_err e = { 0 };

	ck_assert_msg(sw_h5_create(path, force, &mine, &h, &e) == SW_OK, "%s", e.msg);
	ck_assert_int_eq(sw_h5_close(&h, 1700000100.0, &e), SW_OK);
}

/* Two sweeps create one new file at once: the first to publish wins, the
 * other fails with SW_EIO and leaves no temporary file; the file is the
 * winner's. With --force on both the same: the held one found no file to
 * replace, so it must not rename over the one that appeared meanwhile. */
static void race_for_new_file(int force)
{
	const char *path = in_dir("out.h5"), *go = in_dir("go"), *said = in_dir("said");
	char msg[512];
	pid_t child = start_held_creator(path, force, go, said);

	create_and_close(path, force, 7);
	ck_assert_int_eq(finish_held_creator(child, go, said, msg, sizeof msg), SW_EIO);
	ck_assert_msg(strstr(msg, "another sweep created it") && strstr(msg, "nothing was run"),
		      "%s", msg);
	ck_assert_int_eq(hidden_files(), 0);
	ck_assert_uint_eq(fingerprint_of(path), 7);
}

START_TEST(race_one_wins)
{
	race_for_new_file(0);
}
END_TEST

START_TEST(race_force_new_file)
{
	race_for_new_file(1);
}
END_TEST

/* Two --force over one existing file: the held one holds the old file's
 * lock, so the other is refused before it makes anything, and the file is
 * the held one's once it publishes; neither replaces the other's file. */
START_TEST(race_force_replace)
{
	const char *path = in_dir("out.h5"), *go = in_dir("go"), *said = in_dir("said");
	struct sw_h5_meta mine = test_meta(7);
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	char msg[512];

	create_and_close(path, 0, 6);
	pid_t child = start_held_creator(path, 1, go, said);
	ck_assert_int_eq(sw_h5_create(path, 1, &mine, &h, &e), SW_EIO);
	ck_assert_msg(strstr(e.msg, "another sweep is writing or replacing it"), "%s", e.msg);
	ck_assert_ptr_null(h);
	ck_assert_uint_eq(fingerprint_of(path), 6); /* the old file, until the held one publishes */
	ck_assert_int_eq(finish_held_creator(child, go, said, msg, sizeof msg), SW_OK);
	ck_assert_int_eq(hidden_files(), 0);
	ck_assert_uint_eq(fingerprint_of(path), 8);
}
END_TEST

/* The summary's count comes from the file: a flush that fails (the
 * SW_TEST_FAULT enospc switch, as a full disk) leaves the rows of the
 * flushes before it, which is what sw_h5_count_session reads back, and
 * --resume completes the file once writes work again. */
START_TEST(count_after_disk_full)
{
	static struct sw_record recs[N_RECS];
	struct sw_h5_meta m = test_meta(42);
	const char *path = in_dir("out.h5");
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	struct sw_h5_rows in;
	uint64_t *ids;
	size_t n;
	int session;

	setenv("SW_TEST_FAULT", "enospc:2", 1);
	ck_assert_msg(sw_h5_create(path, 0, &m, &h, &e) == SW_OK, "%s", e.msg);
	for (int i = 0; i < N_RECS; i++) {
		make_record(&recs[i], i, 0);
		ck_assert_int_eq(sw_h5_append(h, &recs[i], &e), SW_OK);
		if (i == 1)
			ck_assert_int_eq(sw_h5_flush(h, &e), SW_OK);
	}
	ck_assert_int_eq(sw_h5_flush(h, &e), SW_EIO);
	ck_assert_msg(strstr(e.msg, "No space left on device"), "%s", e.msg);
	ck_assert_int_eq(sw_h5_close(&h, 1700000100.0, &e), SW_EIO);
	unsetenv("SW_TEST_FAULT");
	ck_assert_int_eq(sw_h5_count_session(path, 0, &in, &e), SW_OK);
	ck_assert_uint_eq(in.rows, 2); /* appended 5, flushed 2 */
	ck_assert_uint_eq(in.by_status[0] + in.by_status[1], 2);

	ck_assert_msg(sw_h5_resume(path, &m, &h, &ids, &n, &session, &e) == SW_OK, "%s", e.msg);
	ck_assert_msg(sw_h5_resume_begin(h, &m, &e) == SW_OK, "%s", e.msg);
	ck_assert_uint_eq(n, 2);
	free(ids);
	for (int i = 2; i < N_RECS; i++) {
		make_record(&recs[i], i, session);
		ck_assert_int_eq(sw_h5_append(h, &recs[i], &e), SW_OK);
	}
	ck_assert_int_eq(sw_h5_close(&h, 1700000200.0, &e), SW_OK);
	ck_assert_int_eq(sw_h5_count_session(path, 1, &in, &e), SW_OK);
	ck_assert_uint_eq(in.rows, N_RECS - 2);
	ck_assert_uint_eq(count_rows(path, "measurements"), N_RECS);
}
END_TEST

/* A disk that filled during a flush leaves the table grown by rows that
 * never came (fill rows, point id UINT64_MAX) at its end: resume drops
 * them, so the file it completes has every point once and no hole. */
START_TEST(resume_drops_unwritten_rows)
{
	static struct sw_record recs[N_RECS];
	struct sw_device_info devs[2];
	struct sw_h5_meta m = test_meta(42);
	const char *path = in_dir("out.h5");
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	uint64_t *ids;
	size_t n;
	int session;
	hsize_t grown = 2 + 1024;

	write_file(path, 42, recs, 2, devs);
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	hid_t d = H5Dopen2(f, "measurements", H5P_DEFAULT);
	ck_assert(d >= 0 && H5Dset_extent(d, &grown) >= 0);
	H5Dclose(d);
	H5Fclose(f);
	ck_assert_uint_eq(count_rows(path, "measurements"), grown);
	ck_assert_msg(sw_h5_resume(path, &m, &h, &ids, &n, &session, &e) == SW_OK, "%s", e.msg);
	ck_assert_msg(sw_h5_resume_begin(h, &m, &e) == SW_OK, "%s", e.msg);
	ck_assert_uint_eq(n, 2);
	free(ids);
	make_record(&recs[2], 2, session);
	ck_assert_int_eq(sw_h5_append(h, &recs[2], &e), SW_OK);
	ck_assert_int_eq(sw_h5_close(&h, 1700000200.0, &e), SW_OK);
	ck_assert_uint_eq(count_rows(path, "measurements"), 3);
}
END_TEST

/* Resume compares the parsed measure and model settings, not the text:
 * another name or a comment is the same job, another warm-up or bank
 * width is not (the plan fingerprint, here a constant, is the same). */
START_TEST(resume_settings)
{
	struct sw_h5_meta m = test_meta(42);
	const char *path = in_dir("out.h5");
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	uint64_t *ids;
	size_t n;
	int session;
	struct sw_h5_damage dmg;
	static const struct {
		const char *text, *refusal; /* NULL: accepted */
	} cases[] = {
		{ "name: b # another label\nfamilies:\n  strided_read:\n", NULL },
		{ "name: a\nmeasure:\n  warmup: 7\nfamilies:\n  strided_read:\n",
		  "measure.warmup is 2 in the file, 7 in this job" },
		{ "name: a\nmeasure:\n  rse_target: 0.01\nfamilies:\n  strided_read:\n",
		  "measure.rse_target is 0.005 in the file, 0.01 in this job" },
		{ "name: a\nmodel:\n  kepler_bank_bytes: 8\nfamilies:\n  strided_read:\n",
		  "model.kepler_bank_bytes is 4 in the file, 8 in this job" },
		{ "name: a\nmodel:\n  ccs: [7.0]\nfamilies:\n  strided_read:\n", "model.ccs" },
	};

	m.job_text = "name: a\nfamilies:\n  strided_read:\n";
	ck_assert_msg(sw_h5_create(path, 0, &m, &h, &e) == SW_OK, "%s", e.msg);
	ck_assert_int_eq(sw_h5_close(&h, 1700000100.0, &e), SW_OK);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sw_h5_meta other = m;
		enum sw_status want = cases[i].refusal ? SW_EINVAL : SW_OK;
		other.job_text = cases[i].text;
		ck_assert_int_eq(sw_h5_check_resume(path, &other, &n, &dmg, &e), want);
		ck_assert_int_eq(sw_h5_resume(path, &other, &h, &ids, &n, &session, &e), want);
		if (cases[i].refusal)
			ck_assert_msg(strstr(e.msg, cases[i].refusal), "case %zu: %s", i, e.msg);
		free(ids);
		ck_assert_int_eq(sw_h5_close(&h, 1700000200.0, &e), SW_OK);
	}
}
END_TEST

/* --dry-run --resume's check opens the file read-only: it refuses what
 * resume refuses (a sessions counter with no room left) and changes
 * nothing, not even the consistency flags; it accepts a good file. */
START_TEST(check_resume_changes_nothing)
{
	struct sw_h5_meta m = test_meta(42);
	const char *path = in_dir("out.h5");
	struct sw_h5 *h;
	struct sw_err e = { 0 };
	struct stat before, after;
	struct sw_h5_damage dmg;
	size_t n = 99;
	int big = INT32_MAX;

	ck_assert_msg(sw_h5_create(path, 0, &m, &h, &e) == SW_OK, "%s", e.msg);
	ck_assert_int_eq(sw_h5_close(&h, 1700000100.0, &e), SW_OK);
	ck_assert_msg(sw_h5_check_resume(path, &m, &n, &dmg, &e) == SW_OK, "%s", e.msg);
	ck_assert_uint_eq(n, 0);
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(f >= 0 && sw_h5_put_i32(f, "sessions", big, &e) == SW_OK);
	H5Fclose(f);
	ck_assert(stat(path, &before) == 0);
	ck_assert_int_eq(sw_h5_check_resume(path, &m, &n, &dmg, &e), SW_EINVAL);
	ck_assert_msg(strstr(e.msg, "as many as its counter holds"), "%s", e.msg);
	ck_assert(stat(path, &after) == 0);
	ck_assert_int_eq(before.st_mtime, after.st_mtime);
	ck_assert_int_eq(before.st_size, after.st_size);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT); /* a plain open: no flags left set */
	ck_assert(f >= 0);
	H5Fclose(f);
	ck_assert_int_eq(sw_h5_check_resume(in_dir("none.h5"), &m, &n, &dmg, &e), SW_EIO);
}
END_TEST

/* Issue 36: HDF5 out of memory is sweep's out of memory (exit 1, as
 * --help says), not an HDF5 error (4); a file's space stays an HDF5 one. */
START_TEST(hdf5_out_of_memory_is_out_of_memory)
{
	struct sw_err e = { 0 };
	H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_RESOURCE,
		 H5E_CANTALLOC, "memory allocation failed for raw data chunk");
	ck_assert_int_eq(sw_h5_fail(&e, SW_EHDF5, "out.h5: cannot read /measurements"), SW_ENOMEM);
	ck_assert_int_eq(sw_status_exit_code(e.status), 1);
	ck_assert_str_eq(e.msg, "out.h5: cannot read /measurements: memory allocation failed for "
				"raw data chunk");
	H5Eclear2(H5E_DEFAULT);
	H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_RESOURCE,
		 H5E_CANTALLOC, "file allocation failed");
	ck_assert_int_eq(sw_h5_fail(&e, SW_EHDF5, "x"), SW_EHDF5);
	H5Eclear2(H5E_DEFAULT);
	H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_DATASET, H5E_READERROR,
		 "can't read data");
	ck_assert_int_eq(sw_h5_fail(&e, SW_EHDF5, "x"), SW_EHDF5);
	H5Eclear2(H5E_DEFAULT);
}
END_TEST

/* Issue 36: a text column of the width sweep writes but another padding
 * or character set is refused, the message saying which differs. */
START_TEST(string_column_mismatch_says_what_differs)
{
	struct sw_err e = { 0 };
	struct row {
		char word[64];
	};
	static const struct sw_column cols[] = {
		{ "word", offsetof(struct row, word), 64, SW_COL_TEXT, NULL },
	};
	hid_t f = H5Fcreate(in_dir("str.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	hid_t str = H5Tcopy(H5T_C_S1), t = H5Tcreate(H5T_COMPOUND, 64);
	hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = 16;
	hid_t space = H5Screate_simple(1, &zero, &unlimited), dcpl = H5Pcreate(H5P_DATASET_CREATE);
	ck_assert(H5Tset_size(str, 64) >= 0 && H5Tset_strpad(str, H5T_STR_NULLPAD) >= 0 &&
		  H5Tset_cset(str, H5T_CSET_UTF8) >= 0 && H5Tinsert(t, "word", 0, str) >= 0 &&
		  H5Pset_chunk(dcpl, 1, &chunk) >= 0);
	hid_t d = H5Dcreate2(f, "words", t, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	ck_assert(d >= 0);
	ck_assert_int_eq(sw_h5_check_columns(d, "str.h5", "words", cols, 1, 0, &e), SW_EINVAL);
	ck_assert_msg(strstr(e.msg, "column word of /words is stored as a string of 64 bytes, "
				    "NUL-padded UTF-8, sweep writes a string of 64 bytes, "
				    "NUL-terminated ASCII"),
		      "%s", e.msg);
	H5Dclose(d), H5Pclose(dcpl), H5Sclose(space), H5Tclose(t), H5Tclose(str), H5Fclose(f);
}
END_TEST

static Suite *h5out_suite(void)
{
	Suite *s = suite_create("h5out");
	TCase *tc = tcase_create("file");

	tcase_add_checked_fixture(tc, make_dir, remove_dir);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, columns_documented_and_complete);
	tcase_add_test(tc, axis_columns_attribute);
	tcase_add_test(tc, refuses_existing_file);
	tcase_add_test(tc, refuses_bad_location);
	tcase_add_test(tc, rejects_too_many_samples);
	tcase_add_test(tc, resume_continues);
	tcase_add_test(tc, resume_empty_file);
	tcase_add_test(tc, resume_refusals);
	tcase_add_test(tc, resume_refuses_missing_table);
	tcase_add_test(tc, survives_sigkill);
	tcase_add_test(tc, append_flushes_when_full);
	tcase_add_test(tc, resume_after_plain_writer_killed);
	tcase_add_test(tc, close_with_live_reader);
	tcase_add_test(tc, second_writer_refused);
	tcase_add_test(tc, resume_keeps_old_format);
	tcase_add_test(tc, race_one_wins);
	tcase_add_test(tc, race_force_new_file);
	tcase_add_test(tc, race_force_replace);
	tcase_add_test(tc, count_after_disk_full);
	tcase_add_test(tc, resume_settings);
	tcase_add_test(tc, resume_drops_unwritten_rows);
	tcase_add_test(tc, check_resume_changes_nothing);
	tcase_add_test(tc, hdf5_out_of_memory_is_out_of_memory);
	tcase_add_test(tc, string_column_mismatch_says_what_differs);
	tcase_add_test(tc, metrics_round_trip);
	tcase_add_test(tc, named_tables);
	tcase_add_test(tc, named_tables_added_by_resume);
	tcase_add_test(tc, metrics_resume_layouts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(h5out_suite());
	int failed;

	/* The test's own HDF5 calls print nothing either. */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	H5close();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
