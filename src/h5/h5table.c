/*
 * The tables of a result file: their column lists (/measurements has
 * sw_record_columns, /devices and /metrics theirs here), their compound
 * types, how a table is made (chunked, unlimited, with its description,
 * units and axis columns) and the checks that an existing one is still
 * such a table, and reading one column of it by name.
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "h5/h5internal.h"
#include "kernel.h"

/* The /devices columns, in the order of struct sw_device_info (device.h);
 * test_h5out checks that they cover it. /measurements has sw_record_columns. */
#define DCOL(field, kind, units)                                                                   \
	{                                                                                          \
#field, offsetof(struct sw_device_info, field),                                    \
			sizeof(((struct sw_device_info *)0)->field), kind, units                   \
	}

const struct sw_column sw_h5_device_columns[] = {
	DCOL(rank, SW_COL_I32, NULL),
	DCOL(session, SW_COL_I32, NULL),
	DCOL(host, SW_COL_TEXT, NULL),
	DCOL(local_rank, SW_COL_I32, NULL),
	DCOL(device_index, SW_COL_I32, NULL),
	DCOL(backend, SW_COL_TEXT, NULL),
	DCOL(pci_bus_id, SW_COL_TEXT, NULL),
	DCOL(uuid, SW_COL_TEXT, NULL),
	DCOL(name, SW_COL_TEXT, NULL),
	DCOL(device_class, SW_COL_TEXT, NULL),
	DCOL(emulates, SW_COL_TEXT, NULL),
	DCOL(cc, SW_COL_I32, NULL),
	DCOL(sm_count, SW_COL_I32, NULL),
	DCOL(mem_clock_khz, SW_COL_I32, "kHz"),
	DCOL(mem_bus_width_bits, SW_COL_I32, "bits"),
	DCOL(peak_gbps, SW_COL_F64, "GB/s"),
	DCOL(l2_bytes, SW_COL_I64, "bytes"),
	DCOL(mem_bytes, SW_COL_I64, "bytes"),
	DCOL(driver_version, SW_COL_I32, NULL),
	DCOL(runtime_version, SW_COL_I32, NULL),
	DCOL(visible_devices, SW_COL_TEXT, NULL),
};
const int sw_h5_n_device_columns =
	(int)(sizeof sw_h5_device_columns / sizeof sw_h5_device_columns[0]);

#define N_MEAS_COLS ((size_t)sw_record_n_columns)
#define N_DEV_COLS  ((size_t)sw_h5_n_device_columns)

/* The /metrics columns (struct sw_metric_row); units are per row. */
#define MCOL(field, kind)                                                                          \
	{                                                                                          \
#field, offsetof(struct sw_metric_row, field),                                     \
			sizeof(((struct sw_metric_row *)0)->field), kind, NULL                     \
	}
const struct sw_column sw_h5_metric_columns[] = {
	MCOL(point_id, SW_COL_U64),
	MCOL(name, SW_COL_TEXT),
	MCOL(value, SW_COL_F64),
	MCOL(unit, SW_COL_TEXT),
};
#undef MCOL
const int sw_h5_n_metric_columns =
	(int)(sizeof sw_h5_metric_columns / sizeof sw_h5_metric_columns[0]);
#define N_METRIC_COLS ((size_t)sw_h5_n_metric_columns)

/* The /model_accesses columns (struct sw_access_row, schema 8). */
#define ACOL(field, kind, units)                                                                   \
	{                                                                                          \
#field, offsetof(struct sw_access_row, field),                                     \
			sizeof(((struct sw_access_row *)0)->field), kind, units                    \
	}
const struct sw_column sw_h5_access_columns[] = {
	ACOL(row, SW_COL_U64, NULL),
	ACOL(point_id, SW_COL_U64, NULL),
	ACOL(cc, SW_COL_I32, NULL),
	ACOL(access, SW_COL_I32, NULL),
	ACOL(name, SW_COL_TEXT, NULL),
	ACOL(space, SW_COL_TEXT, NULL),
	ACOL(is_store, SW_COL_I32, NULL),
	ACOL(requests, SW_COL_F64, "requests"),
	ACOL(transactions, SW_COL_F64, "transactions"),
	ACOL(wavefronts, SW_COL_F64, "wavefronts"),
	ACOL(useful_bytes, SW_COL_F64, "bytes"),
	ACOL(moved_bytes, SW_COL_F64, "bytes"),
	ACOL(costed, SW_COL_F64, "requests"),
	ACOL(counts, SW_COL_TEXT, NULL),
};
#undef ACOL
const int sw_h5_n_access_columns =
	(int)(sizeof sw_h5_access_columns / sizeof sw_h5_access_columns[0]);

/* The /axis_names columns (struct sw_axis_name_row, schema 8). */
#define NCOL(field, kind)                                                                          \
	{                                                                                          \
#field, offsetof(struct sw_axis_name_row, field),                                  \
			sizeof(((struct sw_axis_name_row *)0)->field), kind, NULL                  \
	}
const struct sw_column sw_h5_axis_name_columns[] = {
	NCOL(family, SW_COL_TEXT),
	NCOL(axis, SW_COL_TEXT),
	NCOL(value, SW_COL_I64),
	NCOL(name, SW_COL_TEXT),
};
#undef NCOL
const int sw_h5_n_axis_name_columns =
	(int)(sizeof sw_h5_axis_name_columns / sizeof sw_h5_axis_name_columns[0]);

static hid_t num_type(enum sw_column_kind kind, int in_file)
{
	switch (kind) {
	case SW_COL_I32: return in_file ? H5T_STD_I32LE : H5T_NATIVE_INT32;
	case SW_COL_U32: return in_file ? H5T_STD_U32LE : H5T_NATIVE_UINT32;
	case SW_COL_AXES:
	case SW_COL_I64: return in_file ? H5T_STD_I64LE : H5T_NATIVE_INT64;
	case SW_COL_U64: return in_file ? H5T_STD_U64LE : H5T_NATIVE_UINT64;
	case SW_COL_F64: return in_file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
	case SW_COL_TEXT: break;
	}
	return H5I_INVALID_HID;
}

static size_t type_bytes(const struct sw_column *cols, size_t n_cols)
{
	size_t bytes = 0;

	for (size_t i = 0; i < n_cols; i++)
		bytes += cols[i].kind == SW_COL_AXES
				 ? (size_t)sw_axis_column_count() * sizeof(int64_t)
				 : cols[i].size;
	return bytes;
}

static herr_t insert(hid_t ctype, const char *name, size_t offset, const struct sw_column *c,
		     int in_file, struct sw_err *err)
{
	hid_t mt =
		c->kind == SW_COL_TEXT ? sw_h5_str_type(c->size, err) : num_type(c->kind, in_file);
	herr_t rc;

	if (mt < 0)
		return -1;
	rc = H5Tinsert(ctype, name, offset, mt);
	if (rc < 0)
		sw_h5_fail(err, SW_EHDF5, "cannot add column '%s'", name);
	if (c->kind == SW_COL_TEXT)
		H5Tclose(mt);
	return rc;
}

/* The compound type of a table: in memory at the struct's offsets with
 * native types (row_bytes apart), or packed in table order with
 * little-endian types for the file. */
hid_t sw_h5_table_type(const struct sw_column *cols, size_t n_cols, size_t row_bytes, int in_file,
		       struct sw_err *err)
{
	size_t at = 0;
	hid_t t = H5Tcreate(H5T_COMPOUND, in_file ? type_bytes(cols, n_cols) : row_bytes);

	if (t < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot create a compound type");
		return t;
	}
	for (size_t i = 0; i < n_cols; i++) {
		const struct sw_column *c = &cols[i];

		if (c->kind != SW_COL_AXES) {
			if (insert(t, c->name, in_file ? at : c->offset, c, in_file, err) < 0)
				goto close_type;
			at += c->size;
			continue;
		}
		for (int a = 0; a < sw_axis_column_count(); a++) {
			size_t off = in_file ? at : c->offset + (size_t)a * sizeof(int64_t);

			if (insert(t, sw_axis_column_name(a), off, c, in_file, err) < 0) {
				sw_wrap(err, "axis column %d", a);
				goto close_type;
			}
			at += sizeof(int64_t);
		}
	}
	return t;

close_type:
	H5Tclose(t);
	return H5I_INVALID_HID;
}

const char *sw_h5_axis_units(const char *name)
{
	const char *units = NULL;

	for (int f = 0; f < sw_family_count(); f++)
		for (int a = 0; a < sw_family_at(f)->n_axes; a++) {
			const struct sw_axis_def *d = &sw_family_at(f)->axes[a];

			if (strcmp(d->name, name) != 0 || !d->units)
				continue;
			if (units && strcmp(units, d->units) != 0)
				return NULL;
			units = d->units;
		}
	return units;
}

/* Fixed-length strings get their terminator and nothing but zeros after it,
 * so readers see "abc", never "abc\0garbage". */
void sw_h5_tidy_strings(const struct sw_column *cols, size_t n_cols, unsigned char *row)
{
	for (size_t i = 0; i < n_cols; i++) {
		char *s = (char *)row + cols[i].offset;
		size_t len;

		if (cols[i].kind != SW_COL_TEXT)
			continue;
		len = strnlen(s, cols[i].size);
		if (len == cols[i].size)
			len--;
		memset(s + len, 0, cols[i].size - len);
	}
}

/* ---- making a table --------------------------------------------------- */

/* The units:<column> attributes of the axis columns, and `axis_columns`,
 * which names them in file order: a reader takes the axes from it, not by
 * elimination (schema 4 on). */
static enum sw_status describe_axes(hid_t dset, struct sw_err *err)
{
	int n = sw_axis_column_count();
	const char **names = malloc((n > 0 ? (size_t)n : 1) * sizeof *names);
	enum sw_status st = SW_OK;

	if (!names)
		return sw_fail(err, SW_ENOMEM, "out of memory for the axis names");
	for (int a = 0; st == SW_OK && a < n; a++) {
		const char *units = sw_h5_axis_units(sw_axis_column_name(a));
		char attr[80];

		names[a] = sw_axis_column_name(a);
		snprintf(attr, sizeof attr, "units:%s", names[a]);
		if (units)
			st = sw_h5_put_str(dset, attr, units, err);
	}
	if (st == SW_OK)
		st = sw_h5_put_str_list(dset, SW_H5_AXES_ATTR, names, (size_t)n, err);
	free(names);
	return st;
}

/* A table's description, the units of its columns and its axis columns. */
static enum sw_status describe_table(hid_t dset, const char *about, const struct sw_column *cols,
				     size_t n_cols, struct sw_err *err)
{
	enum sw_status st = sw_h5_put_str(dset, "description", about, err);

	for (size_t i = 0; st == SW_OK && i < n_cols; i++) {
		char attr[80];

		if (cols[i].kind == SW_COL_AXES) {
			st = describe_axes(dset, err);
			continue;
		}
		if (!cols[i].units)
			continue;
		snprintf(attr, sizeof attr, "units:%s", cols[i].name);
		st = sw_h5_put_str(dset, attr, cols[i].units, err);
	}
	return st;
}

/* The dataset of t, empty, with the fill value of rows never written. */
static hid_t make_dataset(hid_t file, const struct sw_h5_table *t, hid_t ftype, struct sw_err *err)
{
	hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = t->chunk_rows;
	hid_t space, dcpl, dset = H5I_INVALID_HID;

	space = H5Screate_simple(1, &dims, &maxdims);
	if (space < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot create the dataspace of %s", t->name);
		return space;
	}
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (dcpl < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot create the properties of %s", t->name);
		goto close_space;
	}
	if (H5Pset_chunk(dcpl, 1, &chunk) < 0 ||
	    H5Pset_fill_value(dcpl, t->fill_type, t->fill) < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot set chunks and fill value of %s", t->name);
		goto close_dcpl;
	}
	dset = H5Dcreate2(file, t->name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (dset < 0)
		sw_h5_fail(err, SW_EHDF5, "cannot create %s", t->name);
close_dcpl:
	H5Pclose(dcpl);
close_space:
	H5Sclose(space);
	return dset;
}

hid_t sw_h5_create_table(hid_t file, const struct sw_h5_table *t, struct sw_err *err)
{
	hid_t ftype = t->cols ? sw_h5_table_type(t->cols, t->n_cols, 0, 1, err) : H5T_IEEE_F64LE;
	hid_t dset;

	if (ftype < 0) {
		sw_wrap(err, "cannot build the /%s type", t->name);
		return ftype;
	}
	dset = make_dataset(file, t, ftype, err);
	if (t->cols)
		H5Tclose(ftype);
	if (dset >= 0 && describe_table(dset, t->about, t->cols, t->n_cols, err)) {
		H5Dclose(dset);
		dset = H5I_INVALID_HID;
	}
	return dset;
}

/* ---- an existing table ----------------------------------------------- */

/* One column of the first rows of a table, into buf (rows x H5Tget_size(type)). */
enum sw_status sw_h5_read_column(hid_t dset, const char *table, const char *name, hid_t type,
				 uint64_t rows, void *buf, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	hid_t one;

	if (rows == 0)
		return SW_OK;
	one = H5Tcreate(H5T_COMPOUND, H5Tget_size(type));
	if (one < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot create a compound type");
	if (H5Tinsert(one, name, 0, type) < 0) {
		st = sw_h5_fail(err, SW_EHDF5, "cannot add column '%s'", name);
		goto close_one;
	}
	if (H5Dread(dset, one, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "cannot read column %s of /%s", name, table);
close_one:
	H5Tclose(one);
	return st;
}

enum sw_status sw_h5_write_table(hid_t file, struct sw_h5_table t, size_t row_bytes,
				 const void *rows, int n, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	hid_t mtype = sw_h5_table_type(t.cols, t.n_cols, row_bytes, 0, err);
	if (mtype < 0)
		return sw_wrap(err, "cannot build the /%s type", t.name);
	t.fill_type = mtype;
	hid_t dset = sw_h5_create_table(file, &t, err);
	hsize_t size = (hsize_t)n;
	if (dset < 0)
		st = err ? err->status : SW_EHDF5;
	else if (n && (H5Dset_extent(dset, &size) < 0 ||
		       H5Dwrite(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0))
		st = sw_h5_fail(err, SW_EHDF5, "cannot write /%s", t.name);
	if (dset >= 0)
		H5Dclose(dset);
	H5Tclose(mtype);
	return st;
}

enum sw_status sw_h5_read_table(hid_t file, const char *name, const struct sw_column *cols,
				size_t n_cols, size_t row_bytes, void **rows, int *n,
				struct sw_err *err)
{
	*rows = NULL;
	*n = 0;
	if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
		return SW_OK;
	enum sw_status st = SW_OK;
	hid_t d = H5Dopen2(file, name, H5P_DEFAULT), space = H5I_INVALID_HID;
	hid_t mtype = sw_h5_table_type(cols, n_cols, row_bytes, 0, err);
	hsize_t count = 0;
	if (d < 0 || mtype < 0 || (space = H5Dget_space(d)) < 0 ||
	    H5Sget_simple_extent_dims(space, &count, NULL) != 1 || count > INT32_MAX)
		st = sw_h5_fail(err, SW_EHDF5, "cannot read /%s", name);
	else if (count && !(*rows = calloc(count, row_bytes)))
		st = sw_fail(err, SW_ENOMEM, "out of memory for /%s", name);
	else if (count && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, *rows) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "cannot read /%s", name);
	else
		*n = (int)count;
	if (st != SW_OK) {
		free(*rows);
		*rows = NULL;
	}
	if (space >= 0)
		H5Sclose(space);
	if (mtype >= 0)
		H5Tclose(mtype);
	if (d >= 0)
		H5Dclose(d);
	return st;
}

enum sw_status sw_h5_check_layout(hid_t dset, const char *path, const char *name,
				  struct sw_err *err)
{
	enum sw_status st = SW_OK;
	hid_t dcpl = H5Dget_create_plist(dset), space = H5Dget_space(dset);
	hsize_t dims, maxdims;

	if (dcpl < 0 || space < 0) {
		st = sw_h5_fail(err, SW_EHDF5, "%s: cannot read the layout of /%s", path, name);
		goto close;
	}
	if (H5Sget_simple_extent_ndims(space) != 1 ||
	    H5Sget_simple_extent_dims(space, &dims, &maxdims) != 1)
		st = sw_fail(err, SW_EINVAL, "%s is not a sweep file: /%s is not 1-D", path, name);
	else if (H5Pget_layout(dcpl) != H5D_CHUNKED)
		st = sw_fail(err, SW_EINVAL,
			     "cannot resume %s: /%s is not chunked, so it cannot grow; write a "
			     "new file",
			     path, name);
	else if (maxdims != H5S_UNLIMITED)
		st = sw_fail(err, SW_EINVAL,
			     "cannot resume %s: /%s cannot grow past %llu rows; write a new file",
			     path, name, (unsigned long long)maxdims);
close:
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (space >= 0)
		H5Sclose(space);
	return st;
}

/* "uint64", "float64", "a string of 64 bytes": for messages; with detail,
 * a string's padding and character set too ("a string of 64 bytes,
 * NUL-terminated ASCII"), which tell apart two strings of one width. */
static void type_name(hid_t t, int detail, char *buf, size_t len)
{
	H5T_class_t c = H5Tget_class(t);
	size_t bits = H5Tget_size(t) * 8;

	if (c == H5T_INTEGER) {
		snprintf(buf, len, "%s%zu", H5Tget_sign(t) == H5T_SGN_NONE ? "uint" : "int", bits);
	} else if (c == H5T_FLOAT) {
		snprintf(buf, len, "float%zu", bits);
	} else if (c == H5T_STRING && H5Tis_variable_str(t) > 0) {
		snprintf(buf, len, "a variable-length string");
	} else if (c == H5T_STRING && detail) {
		H5T_str_t pad = H5Tget_strpad(t);
		snprintf(buf, len, "a string of %zu bytes, %s %s", bits / 8,
			 pad == H5T_STR_NULLTERM   ? "NUL-terminated"
			 : pad == H5T_STR_NULLPAD  ? "NUL-padded"
			 : pad == H5T_STR_SPACEPAD ? "space-padded"
						   : "unknown-padded",
			 H5Tget_cset(t) == H5T_CSET_UTF8 ? "UTF-8" : "ASCII");
	} else if (c == H5T_STRING) {
		snprintf(buf, len, "a string of %zu bytes", bits / 8);
	} else {
		snprintf(buf, len, "%s", sw_h5_class_name(c));
	}
}

/* 1: have and want read alike in type_name: two strings of one width. */
static int same_words(hid_t have, hid_t want)
{
	return H5Tget_class(have) == H5T_STRING && H5Tget_class(want) == H5T_STRING &&
	       H5Tget_size(have) == H5Tget_size(want) &&
	       H5Tis_variable_str(have) == H5Tis_variable_str(want);
}

/* Equal up to byte order, which HDF5 converts on every write: a file of
 * big-endian columns grows as safely as one of little-endian ones. */
static htri_t same_type(hid_t have, hid_t want)
{
	hid_t a = H5Tget_native_type(have, H5T_DIR_ASCEND),
	      b = H5Tget_native_type(want, H5T_DIR_ASCEND);
	htri_t same = a >= 0 && b >= 0 ? H5Tequal(a, b) : -1;

	if (a >= 0)
		H5Tclose(a);
	if (b >= 0)
		H5Tclose(b);
	return same;
}

/* Column i of the file type ftype (named name) against want. */
/* 1: name is the name of an axis column (of this registry). */
static int is_axis(const char *name)
{
	for (int a = 0; a < sw_axis_column_count(); a++)
		if (!strcmp(sw_axis_column_name(a), name))
			return 1;
	return 0;
}

/* 1: name is a column schema 8 added to /measurements or /devices
 * (docs/hdf5-schema.md, schema_version). */
static int is_schema_8(const char *name)
{
	static const char *const added[] = { "model_device", "model_time_ns", "model_time_term",
					     "model_time_basis", "emulates" };
	for (size_t i = 0; i < sizeof added / sizeof added[0]; i++)
		if (!strcmp(added[i], name))
			return 1;
	return 0;
}

static enum sw_status check_member(hid_t ftype, const char *col, hid_t want, const char *path,
				   const char *table, int may_lack, struct sw_err *err)
{
	int idx = H5Tget_member_index(ftype, col);
	hid_t have;
	char a[80], b[80];
	htri_t same;

	if (idx < 0 && (may_lack & SW_H5_MAY_LACK_AXES) && is_axis(col))
		return SW_OK; /* an --extend adds it (h5grow.c) */
	if (idx < 0 && (may_lack & SW_H5_MAY_LACK_SCHEMA_8) && is_schema_8(col))
		return SW_OK; /* a row written to it goes without it */
	if (idx < 0)
		return sw_fail(err, SW_EINVAL,
			       "%s: /%s has no column '%s'; it was written by an older sweep or "
			       "one with other kernels, so write a new file",
			       path, table, col);
	have = H5Tget_member_type(ftype, (unsigned)idx);
	if (have < 0)
		return sw_h5_fail(err, SW_EINVAL, "%s: cannot read column %s of /%s", path, col,
				  table);
	same = same_type(have, want);
	if (same <= 0) {
		int detail = same_words(have, want);
		type_name(have, detail, a, sizeof a);
		type_name(want, detail, b, sizeof b);
	}
	H5Tclose(have);
	if (same <= 0)
		return sw_fail(err, SW_EINVAL,
			       "cannot resume %s: column %s of /%s is stored as %s, sweep writes "
			       "%s; write a new file",
			       path, col, table, a, b);
	return SW_OK;
}

enum sw_status sw_h5_check_columns(hid_t dset, const char *path, const char *name,
				   const struct sw_column *cols, size_t n_cols, int may_lack,
				   struct sw_err *err)
{
	enum sw_status st = SW_OK;
	hid_t ftype = H5Dget_type(dset), want;
	char a[80];

	if (ftype < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot get the type of /%s", path, name);
	if (!cols) {
		if (same_type(ftype, H5T_IEEE_F64LE) <= 0) {
			type_name(ftype, 0, a, sizeof a);
			st = sw_fail(err, SW_EINVAL,
				     "cannot resume %s: /%s is stored as %s, sweep writes float64; "
				     "write a new file",
				     path, name, a);
		}
		goto close_ftype;
	}
	if (H5Tget_class(ftype) != H5T_COMPOUND) {
		st = sw_fail(err, SW_EINVAL, "%s is not a sweep file: /%s is not a table", path,
			     name);
		goto close_ftype;
	}
	want = sw_h5_table_type(cols, n_cols, 0, 1, err);
	if (want < 0) {
		st = err ? err->status : SW_EHDF5;
		goto close_ftype;
	}
	for (int i = 0; st == SW_OK && i < H5Tget_nmembers(want); i++) {
		char *col = H5Tget_member_name(want, (unsigned)i);
		hid_t mt = H5Tget_member_type(want, (unsigned)i);

		st = check_member(ftype, col ? col : "?", mt, path, name, may_lack, err);
		H5Tclose(mt);
		H5free_memory(col);
	}
	H5Tclose(want);
close_ftype:
	H5Tclose(ftype);
	return st;
}
