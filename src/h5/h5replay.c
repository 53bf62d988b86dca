/*
 * The recorded samples and device a replay's emulated devices take
 * (h5replay.h), read by the one read-only open (h5open.c). It reads the
 * columns it needs by name and checks that each row's samples lie inside
 * /samples; it checks nothing else the writer owns.
 */
#include "h5/h5replay.h"

#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "core/record.h"
#include "h5/h5internal.h"

/* The /measurements columns read, in memory. */
struct in_row {
	uint64_t point_id, sample_offset;
	int32_t status, l2_flushed;
	uint32_t n_samples, launches_per_sample;
	double timed_s;
};

enum in_kind { IN_U64, IN_I32, IN_U32, IN_F64 };

static const struct {
	const char *name;
	size_t offset;
	enum in_kind kind;
} in_cols[] = {
	{ "point_id", offsetof(struct in_row, point_id), IN_U64 },
	{ "sample_offset", offsetof(struct in_row, sample_offset), IN_U64 },
	{ "status", offsetof(struct in_row, status), IN_I32 },
	{ "l2_flushed", offsetof(struct in_row, l2_flushed), IN_I32 },
	{ "n_samples", offsetof(struct in_row, n_samples), IN_U32 },
	{ "launches_per_sample", offsetof(struct in_row, launches_per_sample), IN_U32 },
	{ "timed_s", offsetof(struct in_row, timed_s), IN_F64 },
};
#define N_IN_COLS (sizeof in_cols / sizeof in_cols[0])

static hid_t native(enum in_kind k)
{
	switch (k) {
	case IN_U64: return H5T_NATIVE_UINT64;
	case IN_I32: return H5T_NATIVE_INT32;
	case IN_U32: return H5T_NATIVE_UINT32;
	case IN_F64: break;
	}
	return H5T_NATIVE_DOUBLE;
}

/* Opens /name of file and its length (rows). */
static enum sw_status open_table(hid_t file, const char *path, const char *name, hid_t *dset,
				 hsize_t *rows, struct sw_err *err)
{
	hid_t space;
	enum sw_status st = SW_OK;

	*dset = H5I_INVALID_HID;
	if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
		return sw_fail(err, SW_EINVAL, "%s: no /%s: not a sweep result file", path, name);
	*dset = H5Dopen2(file, name, H5P_DEFAULT);
	if (*dset < 0)
		return sw_fail(err, SW_EINVAL, "%s: /%s is not a dataset", path, name);
	space = H5Dget_space(*dset);
	*rows = 0;
	if (space < 0 || H5Sget_simple_extent_ndims(space) != 1 ||
	    H5Sget_simple_extent_dims(space, rows, NULL) < 0)
		st = sw_fail(err, SW_EINVAL, "%s: /%s is not one-dimensional", path, name);
	if (space >= 0)
		H5Sclose(space);
	if (st) {
		H5Dclose(*dset);
		*dset = H5I_INVALID_HID;
	}
	return st;
}

/* The memory type of in_cols, each checked to be in dset first. */
static enum sw_status row_type(hid_t dset, const char *path, hid_t *mtype, struct sw_err *err)
{
	hid_t ftype = H5Dget_type(dset);
	enum sw_status st = SW_OK;

	*mtype = H5Tcreate(H5T_COMPOUND, sizeof(struct in_row));
	if (ftype < 0 || *mtype < 0)
		st = sw_h5_fail(err, SW_EHDF5, "%s: cannot read the type of /measurements", path);
	for (size_t i = 0; st == SW_OK && i < N_IN_COLS; i++) {
		if (H5Tget_member_index(ftype, in_cols[i].name) < 0)
			st = sw_fail(err, SW_EINVAL,
				     "%s: /measurements lacks the column %s: its samples cannot "
				     "be replayed",
				     path, in_cols[i].name);
		else if (H5Tinsert(*mtype, in_cols[i].name, in_cols[i].offset,
				   native(in_cols[i].kind)) < 0)
			st = sw_h5_fail(err, SW_EHDF5, "cannot add column %s", in_cols[i].name);
	}
	if (ftype >= 0)
		H5Tclose(ftype);
	if (st && *mtype >= 0) {
		H5Tclose(*mtype);
		*mtype = H5I_INVALID_HID;
	}
	return st;
}

/* Every row of /name into *buf and their count into *n: /measurements as
 * struct in_row (rows_in 1), /samples as doubles. The caller frees *buf
 * whatever this returns. */
static enum sw_status read_table(hid_t file, const char *path, const char *name, int rows_in,
				 void **buf, size_t *n, struct sw_err *err)
{
	hid_t dset, mtype = H5T_NATIVE_DOUBLE;
	hsize_t rows;
	size_t elem = rows_in ? sizeof(struct in_row) : sizeof(double);
	enum sw_status st = open_table(file, path, name, &dset, &rows, err);

	*buf = NULL;
	*n = 0;
	if (st)
		return st;
	if (rows_in && (st = row_type(dset, path, &mtype, err)) != SW_OK)
		goto close_dset;
	*buf = malloc((rows ? rows : 1) * elem);
	if (!*buf)
		st = sw_fail(err, SW_ENOMEM, "out of memory for %llu rows of /%s of %s",
			     (unsigned long long)rows, name, path);
	else if (rows && H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, *buf) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "%s: cannot read /%s", path, name);
	else
		*n = (size_t)rows;
	if (rows_in)
		H5Tclose(mtype);
close_dset:
	H5Dclose(dset);
	return st;
}

/* The first /devices row's CC, SMs and memory; left 0 without a row. */
static enum sw_status read_device(hid_t file, const char *path, struct sw_replay_file *out,
				  struct sw_err *err)
{
	hid_t dset;
	hsize_t rows;
	enum sw_status st = open_table(file, path, "devices", &dset, &rows, err);
	int32_t *cc = NULL, *sms = NULL;
	int64_t *mem = NULL;

	if (st || rows == 0)
		goto close;
	cc = malloc(rows * sizeof *cc);
	sms = malloc(rows * sizeof *sms);
	mem = malloc(rows * sizeof *mem);
	if (!cc || !sms || !mem)
		st = sw_fail(err, SW_ENOMEM, "out of memory for /devices of %s", path);
	if (st == SW_OK)
		st = sw_h5_read_column(dset, "devices", "cc", H5T_NATIVE_INT32, rows, cc, err);
	if (st == SW_OK)
		st = sw_h5_read_column(dset, "devices", "sm_count", H5T_NATIVE_INT32, rows, sms,
				       err);
	if (st == SW_OK)
		st = sw_h5_read_column(dset, "devices", "mem_bytes", H5T_NATIVE_INT64, rows, mem,
				       err);
	if (st == SW_OK) {
		out->cc = cc[0];
		out->sm_count = sms[0];
		out->mem_bytes = mem[0];
	}
close:
	free(cc);
	free(sms);
	free(mem);
	if (dset >= 0)
		H5Dclose(dset);
	return st;
}

static int by_id_then_row(const void *pa, const void *pb)
{
	const struct sw_replay_row *a = pa, *b = pb;

	if (a->point_id != b->point_id)
		return a->point_id < b->point_id ? -1 : 1;
	return (a->sample_offset > b->sample_offset) - (a->sample_offset < b->sample_offset);
}

/* out->rows from in: ok rows with samples, the first (lowest offset: the
 * writer appends) of each point id. */
static enum sw_status fill_rows(const struct in_row *in, size_t n, const char *path,
				struct sw_replay_file *out, struct sw_err *err)
{
	size_t k = 0;

	out->rows = malloc((n ? n : 1) * sizeof *out->rows);
	if (!out->rows)
		return sw_fail(err, SW_ENOMEM, "out of memory for %zu rows of %s", n, path);
	for (size_t i = 0; i < n; i++) {
		if (in[i].status != SW_ROW_OK || in[i].n_samples == 0)
			continue;
		if (in[i].n_samples > SW_MAX_SAMPLES || in[i].sample_offset > out->n_samples ||
		    in[i].n_samples > out->n_samples - in[i].sample_offset)
			return sw_fail(err, SW_EINVAL,
				       "%s: point %016llx's %u samples from %llu lie outside "
				       "/samples (%zu)",
				       path, (unsigned long long)in[i].point_id, in[i].n_samples,
				       (unsigned long long)in[i].sample_offset, out->n_samples);
		out->rows[k++] = (struct sw_replay_row){
			.point_id = in[i].point_id,
			.n_samples = in[i].n_samples,
			.launches_per_sample = in[i].launches_per_sample,
			.l2_flushed = in[i].l2_flushed,
			.timed_s = in[i].timed_s,
			.sample_offset = (size_t)in[i].sample_offset,
		};
	}
	qsort(out->rows, k, sizeof *out->rows, by_id_then_row);
	out->n = 0;
	for (size_t i = 0; i < k; i++)
		if (out->n == 0 || out->rows[out->n - 1].point_id != out->rows[i].point_id)
			out->rows[out->n++] = out->rows[i];
	return SW_OK;
}

enum sw_status sw_replay_file_read(const char *path, struct sw_replay_file *out, struct sw_err *err)
{
	struct in_row *in = NULL;
	size_t n = 0;
	hid_t file;
	enum sw_status st;

	memset(out, 0, sizeof *out);
	st = sw_h5_open_read(path, "cannot read samples from", &file, err);
	if (st)
		return st;
	st = read_table(file, path, "measurements", 1, (void **)&in, &n, err);
	if (st == SW_OK)
		st = read_table(file, path, "samples", 0, (void **)&out->samples_ns,
				&out->n_samples, err);
	if (st == SW_OK)
		st = read_device(file, path, out, err);
	if (st == SW_OK)
		st = fill_rows(in, n, path, out, err);
	free(in);
	H5Fclose(file);
	if (st)
		sw_replay_file_fini(out);
	return st;
}

const struct sw_replay_row *sw_replay_file_find(const struct sw_replay_file *f, uint64_t id)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->rows[mid].point_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n && f->rows[lo].point_id == id ? &f->rows[lo] : NULL;
}

void sw_replay_file_fini(struct sw_replay_file *f)
{
	free(f->rows);
	free(f->samples_ns);
	memset(f, 0, sizeof *f);
}
