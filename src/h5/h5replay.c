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
	int32_t status, l2_flushed, rank, session;
	uint32_t n_samples, launches_per_sample;
	double timed_s;
};

enum in_kind { IN_U64, IN_I32, IN_U32, IN_F64, IN_I64, IN_TEXT, IN_BACKEND };

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
	{ "rank", offsetof(struct in_row, rank), IN_I32 },
	{ "session", offsetof(struct in_row, session), IN_I32 },
};
#define N_IN_COLS (sizeof in_cols / sizeof in_cols[0])

static hid_t native(enum in_kind k)
{
	switch (k) {
	case IN_U64: return H5T_NATIVE_UINT64;
	case IN_I32: return H5T_NATIVE_INT32;
	case IN_U32: return H5T_NATIVE_UINT32;
	case IN_I64: return H5T_NATIVE_INT64;
	case IN_F64:
	case IN_TEXT:
	case IN_BACKEND: break;
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

/* The /devices columns a recorded device is made of: the first three are
 * in every sweep file, the rest are read where the file has them. */
static const struct {
	const char *name;
	size_t offset;
	enum in_kind kind; /* IN_TEXT: name[64] */
	int required;
} dev_cols[] = {
	{ "cc", offsetof(struct sw_replay_device, cc), IN_I32, 1 },
	{ "sm_count", offsetof(struct sw_replay_device, sm_count), IN_I32, 1 },
	{ "mem_bytes", offsetof(struct sw_replay_device, mem_bytes), IN_I64, 1 },
	{ "name", offsetof(struct sw_replay_device, name), IN_TEXT, 0 },
	{ "emulates", offsetof(struct sw_replay_device, emulates), IN_TEXT, 0 },
	{ "backend", offsetof(struct sw_replay_device, backend), IN_BACKEND, 0 },
	{ "mem_clock_khz", offsetof(struct sw_replay_device, mem_clock_khz), IN_I32, 0 },
	{ "mem_bus_width_bits", offsetof(struct sw_replay_device, mem_bus_width_bits), IN_I32, 0 },
	{ "peak_gbps", offsetof(struct sw_replay_device, peak_gbps), IN_F64, 0 },
	{ "l2_bytes", offsetof(struct sw_replay_device, l2_bytes), IN_I64, 0 },
};
#define N_RECORDED_COLS (sizeof dev_cols / sizeof dev_cols[0])

/* The memory type of the dev_cols dset holds (a required one missing is
 * SW_EINVAL); *mtype is closed by the caller. */
static enum sw_status device_type(hid_t dset, const char *path, hid_t *mtype, struct sw_err *err)
{
	hid_t ftype = H5Dget_type(dset), str = sw_h5_str_type(64, err),
	      word = sw_h5_str_type(8, err);
	enum sw_status st = SW_OK;

	*mtype = H5Tcreate(H5T_COMPOUND, sizeof(struct sw_replay_device));
	if (ftype < 0 || str < 0 || word < 0 || *mtype < 0)
		st = sw_h5_fail(err, SW_EHDF5, "%s: cannot read the type of /devices", path);
	for (size_t i = 0; st == SW_OK && i < N_RECORDED_COLS; i++) {
		if (H5Tget_member_index(ftype, dev_cols[i].name) < 0) {
			if (dev_cols[i].required)
				st = sw_fail(err, SW_EINVAL, "%s: /devices lacks the column %s",
					     path, dev_cols[i].name);
			continue;
		}
		hid_t t = dev_cols[i].kind == IN_TEXT      ? str
			  : dev_cols[i].kind == IN_BACKEND ? word
							   : native(dev_cols[i].kind);
		if (H5Tinsert(*mtype, dev_cols[i].name, dev_cols[i].offset, t) < 0)
			st = sw_h5_fail(err, SW_EHDF5, "cannot add column %s", dev_cols[i].name);
	}
	if (ftype >= 0)
		H5Tclose(ftype);
	if (str >= 0)
		H5Tclose(str);
	if (word >= 0)
		H5Tclose(word);
	return st;
}

/* /devices row first of file into *dev; left 0 without that row. */
static enum sw_status read_device(hid_t file, const char *path, hsize_t first,
				  struct sw_replay_device *dev, struct sw_err *err)
{
	hid_t dset, mtype = H5I_INVALID_HID, fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID;
	hsize_t rows, one = 1;
	enum sw_status st = open_table(file, path, "devices", &dset, &rows, err);

	memset(dev, 0, sizeof *dev);
	if (st || rows <= first)
		goto close;
	if ((st = device_type(dset, path, &mtype, err)) != SW_OK)
		goto close;
	fspace = H5Dget_space(dset);
	mspace = H5Screate_simple(1, &one, NULL);
	if (fspace < 0 || mspace < 0 ||
	    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &first, NULL, &one, NULL) < 0 ||
	    H5Dread(dset, mtype, mspace, fspace, H5P_DEFAULT, dev) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "%s: cannot read /devices", path);
	dev->name[sizeof dev->name - 1] = dev->emulates[sizeof dev->emulates - 1] = '\0';
	dev->backend[sizeof dev->backend - 1] = '\0';
close:
	if (mspace >= 0)
		H5Sclose(mspace);
	if (fspace >= 0)
		H5Sclose(fspace);
	if (mtype >= 0)
		H5Tclose(mtype);
	if (dset >= 0)
		H5Dclose(dset);
	return st;
}

const char *sw_replay_device_gpu(const struct sw_replay_device *d)
{
	if (!strcmp(d->backend, "cuda"))
		return d->name;
	return strcmp(d->backend, "replay") ? "" : d->emulates;
}

/* The /devices row of file's class cls: the first of its label, else
 * the first row (cls NULL or "", or a label no row has). */
static hsize_t device_row_of(hid_t file, const char *cls)
{
	struct sw_h5_dev_label *labels = NULL;
	size_t n = 0, first = 0;
	if (!cls || !*cls)
		return 0;
	sw_h5_device_labels(file, &labels, &n);
	while (first < n && strcmp(labels[first].label, cls))
		first++;
	free(labels);
	return first < n ? (hsize_t)first : 0;
}

enum sw_status sw_replay_device_read(const char *path, const char *cls,
				     struct sw_replay_device *dev, struct sw_err *err)
{
	hid_t file;
	enum sw_status st = sw_h5_open_read(path, "cannot read the recorded device of", &file, err);

	memset(dev, 0, sizeof *dev);
	if (st)
		return st;
	st = read_device(file, path, device_row_of(file, cls), dev, err);
	H5Fclose(file);
	return st;
}

static int by_id_then_row(const void *pa, const void *pb)
{
	const struct sw_replay_row *a = pa, *b = pb;

	if (a->point_id != b->point_id)
		return a->point_id < b->point_id ? -1 : 1;
	return (a->sample_offset > b->sample_offset) - (a->sample_offset < b->sample_offset);
}

/* The class a row of file's ranks and sessions: labels[0..n_labels). */
struct row_class {
	const char *cls; /* NULL: any */
	const struct sw_h5_dev_label *labels;
	size_t n_labels;
};

/* out->rows from in: ok rows with samples of class c, the first (lowest
 * offset: the writer appends) of each point id. */
static enum sw_status fill_rows(const struct in_row *in, size_t n, const struct row_class *c,
				const char *path, struct sw_replay_file *out, struct sw_err *err)
{
	size_t k = 0;

	out->rows = malloc((n ? n : 1) * sizeof *out->rows);
	if (!out->rows)
		return sw_fail(err, SW_ENOMEM, "out of memory for %zu rows of %s", n, path);
	for (size_t i = 0; i < n; i++) {
		if (in[i].status != SW_ROW_OK || in[i].n_samples == 0)
			continue;
		if (c->cls && strcmp(c->cls, sw_h5_label_of(c->labels, c->n_labels, in[i].rank,
							    in[i].session)))
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

enum sw_status sw_replay_file_read(const char *path, const char *cls, struct sw_replay_file *out,
				   struct sw_err *err)
{
	struct in_row *in = NULL;
	struct sw_h5_dev_label *labels = NULL;
	size_t n = 0, n_labels = 0;
	hid_t file;
	enum sw_status st;

	memset(out, 0, sizeof *out);
	st = sw_h5_open_read(path, "cannot read samples from", &file, err);
	if (st)
		return st;
	if (cls && *cls)
		sw_h5_device_labels(file, &labels, &n_labels);
	const struct row_class c = { cls && *cls ? cls : NULL, labels, n_labels };
	st = read_table(file, path, "measurements", 1, (void **)&in, &n, err);
	if (st == SW_OK)
		st = read_table(file, path, "samples", 0, (void **)&out->samples_ns,
				&out->n_samples, err);
	if (st == SW_OK)
		st = read_device(file, path, device_row_of(file, cls), &out->dev, err);
	if (st == SW_OK)
		st = fill_rows(in, n, &c, path, out, err);
	free(in);
	free(labels);
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
