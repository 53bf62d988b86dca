/*
 * Per-point wall durations from a result file (durations.h), opened by the
 * one read-only open (h5open.c: a SWMR reader without HDF5's lock, as
 * sweep_analysis opens it), so a running sweep is not disturbed.
 * It reads the few columns it needs by name and checks their types, and
 * /devices' labels where it can (a row's class); beyond the one open's
 * check of the schema version (a newer one is refused), it checks nothing
 * else the writer owns.
 */
#include "core/durations.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "core/device_info.h"
#include "h5/h5internal.h"

_Static_assert(sizeof(((struct sw_device_info *)0)->device_class) == SW_DURATION_CLASS_LEN,
	       "a duration's class holds a /devices label");

/* The columns read, in memory. */
struct in_row {
	uint64_t point_id;
	int32_t rank, session, status;
	char family[SW_TEXT_LEN];
	char variant[SW_TEXT_LEN];
	double useful_bytes, flops, timed_s, start_unix, end_unix;
};

enum in_kind { IN_U64, IN_I32, IN_F64, IN_STR };

struct in_col {
	const char *name;
	size_t offset, size;
	enum in_kind kind;
	int optional; /* absent: the field stays NaN */
};

#define ICOL(field, kind, optional)                                                                \
	{                                                                                          \
#field, offsetof(struct in_row, field), sizeof(((struct in_row *)0)->field), kind, \
			optional                                                                   \
	}

static const struct in_col in_cols[] = {
	ICOL(point_id, IN_U64, 0),     ICOL(rank, IN_I32, 0),     ICOL(session, IN_I32, 0),
	ICOL(status, IN_I32, 0),       ICOL(family, IN_STR, 0),   ICOL(variant, IN_STR, 0),
	ICOL(useful_bytes, IN_F64, 0), ICOL(flops, IN_F64, 0),    ICOL(timed_s, IN_F64, 0),
	ICOL(start_unix, IN_F64, 0),   ICOL(end_unix, IN_F64, 1),
};

#define N_IN_COLS (sizeof in_cols / sizeof in_cols[0])

/* ---- columns --------------------------------------------------------- */

static const char *kind_name(enum in_kind k)
{
	switch (k) {
	case IN_U64: return "an unsigned 64-bit integer";
	case IN_I32: return "an integer";
	case IN_F64: return "a float";
	case IN_STR: return "a fixed-length string";
	}
	return "?";
}

/* Whether member type t can hold column c: the class, and for point_id the
 * width and sign (a hash needs all 64 bits), for strings a fixed length. */
static int type_fits(hid_t t, const struct in_col *c)
{
	H5T_class_t cls = H5Tget_class(t);

	switch (c->kind) {
	case IN_U64:
		return cls == H5T_INTEGER && H5Tget_size(t) == 8 && H5Tget_sign(t) == H5T_SGN_NONE;
	case IN_I32: return cls == H5T_INTEGER;
	case IN_F64: return cls == H5T_FLOAT;
	case IN_STR: return cls == H5T_STRING && H5Tis_variable_str(t) == 0;
	}
	return 0;
}

static hid_t mem_type_of(const struct in_col *c)
{
	switch (c->kind) {
	case IN_U64: return H5Tcopy(H5T_NATIVE_UINT64);
	case IN_I32: return H5Tcopy(H5T_NATIVE_INT32);
	case IN_F64: return H5Tcopy(H5T_NATIVE_DOUBLE);
	case IN_STR: break;
	}
	return sw_h5_str_type(c->size, NULL);
}

/* Adds column c to mtype if ftype has it, after checking its type. */
static enum sw_status add_column(hid_t ftype, hid_t mtype, const struct in_col *c, int *present,
				 const char *path, struct sw_err *err)
{
	int idx = H5Tget_member_index(ftype, c->name);
	enum sw_status st = SW_OK;
	hid_t member, mt;

	*present = idx >= 0;
	if (idx < 0)
		return c->optional ? SW_OK
				   : sw_fail(err, SW_EINVAL,
					     "%s: /measurements lacks the column %s: not a sweep "
					     "result file",
					     path, c->name);
	member = H5Tget_member_type(ftype, (unsigned)idx);
	if (member < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot read the type of column %s", path,
				  c->name);
	if (!type_fits(member, c))
		st = sw_fail(err, SW_EINVAL, "%s: column %s of /measurements is %s, not %s", path,
			     c->name, sw_h5_class_name(H5Tget_class(member)), kind_name(c->kind));
	H5Tclose(member);
	if (st)
		return st;
	mt = mem_type_of(c);
	if (mt < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot make the memory type of column %s",
				  c->name);
	if (H5Tinsert(mtype, c->name, c->offset, mt) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "cannot add column %s to the memory type", c->name);
	H5Tclose(mt);
	return st;
}

/* The memory type of the columns of in_cols the dataset has; *has_end
 * says whether end_unix is among them. */
static enum sw_status build_mem_type(hid_t dset, hid_t *mtype, int *has_end, const char *path,
				     struct sw_err *err)
{
	enum sw_status st = SW_OK;
	hid_t ftype = H5Dget_type(dset);

	*mtype = H5I_INVALID_HID;
	if (ftype < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot read the type of /measurements", path);
	if (H5Tget_class(ftype) != H5T_COMPOUND) {
		H5Tclose(ftype);
		return sw_fail(err, SW_EINVAL,
			       "%s: /measurements is not a table: not a sweep result file", path);
	}
	*mtype = H5Tcreate(H5T_COMPOUND, sizeof(struct in_row));
	if (*mtype < 0)
		st = sw_h5_fail(err, SW_EHDF5, "cannot create a compound type");
	for (size_t i = 0; st == SW_OK && i < N_IN_COLS; i++) {
		int present;

		st = add_column(ftype, *mtype, &in_cols[i], &present, path, err);
		if (!strcmp(in_cols[i].name, "end_unix"))
			*has_end = present;
	}
	H5Tclose(ftype);
	if (st && *mtype >= 0) {
		H5Tclose(*mtype);
		*mtype = H5I_INVALID_HID;
	}
	return st;
}

/* ---- the classes ------------------------------------------------------ */

_Static_assert(sizeof(((struct sw_h5_dev_label *)0)->label) == SW_DURATION_CLASS_LEN,
	       "a /devices label holds a duration's class");

/* The memory type of struct sw_h5_dev_label from /devices' type ftype: the label
 * from device_class (schema 5), else name; -1 when a column is missing. */
static hid_t dev_mem_type(hid_t ftype)
{
	const char *label =
		H5Tget_member_index(ftype, "device_class") >= 0 ? "device_class" : "name";
	hid_t t, s;

	if (H5Tget_member_index(ftype, label) < 0 || H5Tget_member_index(ftype, "rank") < 0 ||
	    H5Tget_member_index(ftype, "session") < 0)
		return H5I_INVALID_HID;
	t = H5Tcreate(H5T_COMPOUND, sizeof(struct sw_h5_dev_label));
	s = sw_h5_str_type(SW_DURATION_CLASS_LEN, NULL);
	if (t < 0 || s < 0 ||
	    H5Tinsert(t, "rank", offsetof(struct sw_h5_dev_label, rank), H5T_NATIVE_INT32) < 0 ||
	    H5Tinsert(t, "session", offsetof(struct sw_h5_dev_label, session), H5T_NATIVE_INT32) <
		    0 ||
	    H5Tinsert(t, label, offsetof(struct sw_h5_dev_label, label), s) < 0) {
		if (t >= 0)
			H5Tclose(t);
		t = H5I_INVALID_HID;
	}
	if (s >= 0)
		H5Tclose(s);
	return t;
}

/* Only labels come from /devices, so a file without a /devices this can
 * read still gives every duration. */
void sw_h5_device_labels(hid_t file, struct sw_h5_dev_label **devs, size_t *n)
{
	hid_t d, ftype, space, mtype = H5I_INVALID_HID;
	hsize_t rows = 0;

	*devs = NULL;
	*n = 0;
	if (H5Lexists(file, "devices", H5P_DEFAULT) <= 0 ||
	    (d = H5Dopen2(file, "devices", H5P_DEFAULT)) < 0)
		return;
	ftype = H5Dget_type(d);
	space = H5Dget_space(d);
	if (ftype >= 0 && H5Tget_class(ftype) == H5T_COMPOUND)
		mtype = dev_mem_type(ftype);
	if (mtype >= 0 && space >= 0 && H5Sget_simple_extent_ndims(space) == 1 &&
	    H5Sget_simple_extent_dims(space, &rows, NULL) >= 0 && rows &&
	    (*devs = calloc(rows, sizeof **devs)) != NULL) {
		if (H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, *devs) >= 0) {
			*n = (size_t)rows;
		} else {
			free(*devs);
			*devs = NULL;
		}
	}
	if (mtype >= 0)
		H5Tclose(mtype);
	if (space >= 0)
		H5Sclose(space);
	if (ftype >= 0)
		H5Tclose(ftype);
	H5Dclose(d);
}

const char *sw_h5_label_of(const struct sw_h5_dev_label *devs, size_t n, int32_t rank,
			   int32_t session)
{
	for (size_t i = 0; i < n; i++)
		if (devs[i].rank == rank && devs[i].session == session)
			return devs[i].label;
	return "";
}

/* ---- reading --------------------------------------------------------- */

static enum sw_status read_rows(hid_t dset, hid_t mtype, struct in_row **rows, size_t *n,
				const char *path, struct sw_err *err)
{
	hid_t space = H5Dget_space(dset);
	hsize_t dims[1] = { 0 };
	enum sw_status st = SW_OK;

	*rows = NULL;
	*n = 0;
	if (space < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot read the extent of /measurements",
				  path);
	if (H5Sget_simple_extent_ndims(space) != 1 ||
	    H5Sget_simple_extent_dims(space, dims, NULL) < 0)
		st = sw_fail(err, SW_EINVAL, "%s: /measurements is not one-dimensional", path);
	H5Sclose(space);
	if (st || dims[0] == 0)
		return st;
	*rows = malloc(dims[0] * sizeof **rows);
	if (!*rows)
		return sw_fail(err, SW_ENOMEM, "out of memory for %llu rows of %s",
			       (unsigned long long)dims[0], path);
	for (hsize_t i = 0; i < dims[0]; i++)
		(*rows)[i].end_unix = NAN; /* stays so when the file has no end_unix */
	if (H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, *rows) < 0) {
		st = sw_h5_fail(err, SW_EHDF5, "%s: cannot read /measurements", path);
		free(*rows);
		*rows = NULL;
		return st;
	}
	*n = (size_t)dims[0];
	return SW_OK;
}

static enum sw_status read_table(const char *path, struct in_row **rows, size_t *n, int *has_end,
				 struct sw_h5_dev_label **devs, size_t *n_devs, struct sw_err *err)
{
	enum sw_status st;
	hid_t file, dset, mtype;
	htri_t exists;

	st = sw_h5_open_read(path, "cannot read durations from", &file, err);
	if (st)
		return st;
	exists = H5Lexists(file, "measurements", H5P_DEFAULT);
	if (exists <= 0) {
		st = sw_fail(err, SW_EINVAL, "%s: no /measurements: not a sweep result file", path);
		goto close_file;
	}
	dset = H5Dopen2(file, "measurements", H5P_DEFAULT);
	if (dset < 0) {
		st = sw_fail(err, SW_EINVAL, "%s: /measurements is not a dataset", path);
		goto close_file;
	}
	st = build_mem_type(dset, &mtype, has_end, path, err);
	if (st == SW_OK) {
		st = read_rows(dset, mtype, rows, n, path, err);
		H5Tclose(mtype);
	}
	H5Dclose(dset);
	if (st == SW_OK)
		sw_h5_device_labels(file, devs, n_devs);
close_file:
	H5Fclose(file);
	return st;
}

/* ---- the gap rule ---------------------------------------------------- */

struct in_order {
	int32_t rank, session;
	double start;
	size_t row;
};

static int by_rank_session_start(const void *pa, const void *pb)
{
	const struct in_order *a = pa, *b = pb;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->session != b->session)
		return a->session < b->session ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->row > b->row) - (a->row < b->row);
}

static double timed_or_zero(const struct in_row *r)
{
	return isnan(r->timed_s) ? 0.0 : r->timed_s;
}

/* wall[i] of every row: end_unix - start_unix where both are finite, else
 * the gap to the next start of its rank and session, else its timed_s. */
static enum sw_status wall_times(const struct in_row *in, size_t n, double *wall,
				 struct sw_err *err)
{
	struct in_order *o = malloc((n ? n : 1) * sizeof *o);
	size_t k = 0;

	if (!o)
		return sw_fail(err, SW_ENOMEM, "out of memory ordering %zu rows", n);
	for (size_t i = 0; i < n; i++) {
		wall[i] = timed_or_zero(&in[i]);
		if (in[i].status >= 0 && isfinite(in[i].start_unix))
			o[k++] =
				(struct in_order){ in[i].rank, in[i].session, in[i].start_unix, i };
	}
	qsort(o, k, sizeof *o, by_rank_session_start);
	for (size_t j = 0; j + 1 < k; j++)
		if (o[j].rank == o[j + 1].rank && o[j].session == o[j + 1].session)
			wall[o[j].row] = o[j + 1].start - o[j].start;
	free(o);
	for (size_t i = 0; i < n; i++)
		if (isfinite(in[i].end_unix) && isfinite(in[i].start_unix))
			wall[i] = in[i].end_unix - in[i].start_unix;
	return SW_OK;
}

/* ---- the table ------------------------------------------------------- */

/* Row i's wall time against the check the text table's reader makes too
 * (durations.h): a negative, endless or week-long time is a damaged file,
 * and it would cancel or stall a replay's sleeps. */
static enum sw_status check_wall(const struct in_row *r, size_t i, double wall, const char *path,
				 struct sw_err *err)
{
	char why[128];
	if (sw_duration_wall_ok(wall, why, sizeof why))
		return SW_OK;
	return sw_fail(err, SW_EINVAL,
		       "%s: row %zu of /measurements (point %016" PRIx64
		       "): its wall time (from start_unix, end_unix, timed_s) %s: a damaged file",
		       path, i, r->point_id, why);
}

static enum sw_status fill_table(const struct in_row *in, size_t n,
				 const struct sw_h5_dev_label *devs, size_t n_devs,
				 const char *path, struct sw_durations *out, struct sw_err *err)
{
	double *wall = malloc((n ? n : 1) * sizeof *wall);
	enum sw_status st;

	if (!wall)
		return sw_fail(err, SW_ENOMEM, "out of memory for %zu durations", n);
	out->rows = malloc((n ? n : 1) * sizeof *out->rows);
	st = out->rows ? wall_times(in, n, wall, err)
		       : sw_fail(err, SW_ENOMEM, "out of memory for %zu durations", n);
	for (size_t i = 0; st == SW_OK && i < n; i++) {
		struct sw_duration *d = &out->rows[out->n];

		if (in[i].status != SW_ROW_OK && in[i].status != SW_ROW_SKIPPED)
			continue;
		/* a damaged row (zeros, say) is no point's time (docs/hdf5-schema.md) */
		if (!in[i].family[0] || !in[i].variant[0])
			continue;
		if ((st = check_wall(&in[i], i, wall[i], path, err)) != SW_OK)
			break;
		d->point_id = in[i].point_id;
		memcpy(d->family, in[i].family, sizeof d->family);
		memcpy(d->variant, in[i].variant, sizeof d->variant);
		d->family[sizeof d->family - 1] = d->variant[sizeof d->variant - 1] = '\0';
		d->status = in[i].status;
		d->useful_bytes = in[i].useful_bytes;
		d->flops = in[i].flops;
		d->wall_s = wall[i];
		snprintf(d->device_class, sizeof d->device_class, "%s",
			 sw_h5_label_of(devs, n_devs, in[i].rank, in[i].session));
		out->n++;
	}
	free(wall);
	return st;
}

enum sw_status sw_durations_read(const char *path, struct sw_durations *out, struct sw_err *err)
{
	struct in_row *in = NULL;
	struct sw_h5_dev_label *devs = NULL;
	enum sw_status st;
	size_t n = 0, n_devs = 0, len = path ? strlen(path) : 0;
	int has_end = 0;

	memset(out, 0, sizeof *out);
	/* the text table checks its file the same way (durations_csv.c) */
	if (len > 4 && strcmp(path + len - 4, ".csv") == 0)
		return sw_durations_read_csv(path, out, err);
	st = read_table(path, &in, &n, &has_end, &devs, &n_devs, err);
	if (st == SW_OK)
		st = fill_table(in, n, devs, n_devs, path, out, err);
	free(in);
	free(devs);
	if (st)
		sw_durations_fini(out);
	else
		out->from_end_unix = has_end;
	return st;
}
