/*
 * Growing /measurements by axis columns, for an --extend whose job brings a
 * family with an axis name the file has no column for (a plug-in's `nx`,
 * say). A compound dataset cannot gain a member, so the table is copied
 * once into one with the new columns at its end (-1 in every existing row,
 * as for any axis a family lacks), its attributes with it, and takes the
 * old one's name. It does not touch any other table, nor reorder a column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "h5/h5internal.h"
#include "core/record.h"

#define GROWN_NAME "measurements.grown" /* the copy, until it takes the name */
#define COPY_ROWS  8192                 /* rows copied at a time */

int sw_h5_missing_axes(hid_t dset, int *missing)
{
	hid_t ft = H5Dget_type(dset);
	int n = 0;

	if (ft < 0)
		return -1;
	for (int a = 0; a < sw_axis_column_count(); a++)
		if (H5Tget_member_index(ft, sw_axis_column_name(a)) < 0)
			missing[n++] = a;
	H5Tclose(ft);
	return n;
}

/* The file's row type with the n missing axis columns after its last byte,
 * int64 little-endian like every axis column. */
static hid_t grown_type(hid_t old, const int *missing, int n, struct sw_err *err)
{
	size_t at = H5Tget_size(old);
	hid_t t = H5Tcopy(old);

	if (t < 0 || H5Tset_size(t, at + (size_t)n * sizeof(int64_t)) < 0)
		goto fail;
	for (int i = 0; i < n; i++)
		if (H5Tinsert(t, sw_axis_column_name(missing[i]), at + (size_t)i * sizeof(int64_t),
			      H5T_STD_I64LE) < 0)
			goto fail;
	return t;
fail:
	sw_h5_fail(err, SW_EHDF5, "cannot build /measurements' type with its new columns");
	if (t >= 0)
		H5Tclose(t);
	return H5I_INVALID_HID;
}

/* The new columns of a row of old_bytes: -1, all ones in either byte order. */
static void widen(unsigned char *dst, const unsigned char *src, size_t rows, size_t old_bytes,
		  size_t new_bytes)
{
	for (size_t r = rows; r-- > 0;) {
		memmove(dst + r * new_bytes, src + r * old_bytes, old_bytes);
		memset(dst + r * new_bytes + old_bytes, 0xFF, new_bytes - old_bytes);
	}
}

/* An empty copy of dset's layout (chunks, fill value) of type nt, rows long. */
static hid_t make_copy(hid_t file, hid_t dset, hid_t ot, hid_t nt, hsize_t rows, struct sw_err *err)
{
	hsize_t maxdims = H5S_UNLIMITED, chunk = 0;
	size_t nb = H5Tget_size(nt);
	unsigned char *fill = calloc(1, nb);
	hid_t old = H5Dget_create_plist(dset), dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hid_t space = H5Screate_simple(1, &rows, &maxdims), copy = H5I_INVALID_HID;

	if (fill && old >= 0 && dcpl >= 0 && space >= 0 && H5Pget_chunk(old, 1, &chunk) == 1 &&
	    H5Pget_fill_value(old, ot, fill) >= 0) {
		widen(fill, fill, 1, H5Tget_size(ot), nb);
		if (H5Pset_chunk(dcpl, 1, &chunk) >= 0 && H5Pset_fill_value(dcpl, nt, fill) >= 0)
			copy = H5Dcreate2(file, GROWN_NAME, nt, space, H5P_DEFAULT, dcpl,
					  H5P_DEFAULT);
	}
	if (copy < 0)
		sw_h5_fail(err, SW_EHDF5, "cannot make a copy of /measurements to grow");
	if (space >= 0)
		H5Sclose(space);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (old >= 0)
		H5Pclose(old);
	free(fill);
	return copy;
}

/* Rows [at, at + n) of one dataset to the other, through buf. */
static herr_t copy_rows(hid_t from, hid_t ot, hid_t to, hid_t nt, hsize_t at, hsize_t n,
			unsigned char *buf)
{
	hid_t fs = H5Dget_space(from), ts = H5Dget_space(to), mem = H5Screate_simple(1, &n, NULL);
	herr_t rc = -1;

	if (fs >= 0 && ts >= 0 && mem >= 0 &&
	    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at, NULL, &n, NULL) >= 0 &&
	    H5Sselect_hyperslab(ts, H5S_SELECT_SET, &at, NULL, &n, NULL) >= 0 &&
	    H5Dread(from, ot, mem, fs, H5P_DEFAULT, buf) >= 0) {
		widen(buf, buf, n, H5Tget_size(ot), H5Tget_size(nt));
		rc = H5Dwrite(to, nt, mem, ts, H5P_DEFAULT, buf);
	}
	if (mem >= 0)
		H5Sclose(mem);
	if (ts >= 0)
		H5Sclose(ts);
	if (fs >= 0)
		H5Sclose(fs);
	return rc;
}

/* One attribute of the old table onto the copy, as it is. */
static herr_t copy_attr(hid_t loc, const char *name, const H5A_info_t *info, void *to)
{
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
	hid_t t = a < 0 ? H5I_INVALID_HID : H5Aget_type(a);
	hid_t sp = a < 0 ? H5I_INVALID_HID : H5Aget_space(a);
	hssize_t n = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
	void *buf = n < 0 || t < 0 ? NULL : calloc((size_t)(n ? n : 1), H5Tget_size(t));
	hid_t b = H5I_INVALID_HID;
	herr_t rc = -1;

	(void)info;
	if (buf && H5Aread(a, t, buf) >= 0) {
		b = H5Acreate2(*(hid_t *)to, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
		rc = b < 0 ? -1 : H5Awrite(b, t, buf);
		/* variable-length texts were allocated by the read */
		if (H5Tdetect_class(t, H5T_VLEN) > 0 || H5Tis_variable_str(t) > 0)
			H5Dvlen_reclaim(t, sp, H5P_DEFAULT, buf);
	}
	free(buf);
	if (b >= 0)
		H5Aclose(b);
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	if (a >= 0)
		H5Aclose(a);
	return rc;
}

/* The old axis_columns (schema 4 on) with the new names after them, and a
 * units:<name> for each new one that has units. */
static enum sw_status describe_new(hid_t copy, const int *missing, int n, struct sw_err *err)
{
	char **old = NULL;
	size_t n_old = 0;
	enum sw_status st = sw_h5_get_str_list(copy, SW_H5_AXES_ATTR, &old, &n_old, err);
	const char **names = st ? NULL : malloc((n_old + (size_t)n) * sizeof *names);

	if (st == SW_OK && !names)
		st = sw_fail(err, SW_ENOMEM, "out of memory for the axis names");
	for (size_t i = 0; names && i < n_old; i++)
		names[i] = old[i];
	for (int i = 0; st == SW_OK && i < n; i++) {
		const char *name = sw_axis_column_name(missing[i]), *units = sw_h5_axis_units(name);
		char attr[80];

		names[n_old + (size_t)i] = name;
		snprintf(attr, sizeof attr, "units:%s", name);
		if (units)
			st = sw_h5_put_str(copy, attr, units, err);
	}
	if (st == SW_OK)
		st = sw_h5_put_str_list(copy, SW_H5_AXES_ATTR, names, n_old + (size_t)n, err);
	free(names);
	sw_h5_str_list_fini(old, n_old);
	return st;
}

/* Every row of dset into copy, then the attributes. */
static enum sw_status fill_copy(hid_t dset, hid_t ot, hid_t copy, hid_t nt, hsize_t rows,
				const int *missing, int n, struct sw_err *err)
{
	unsigned char *buf = malloc(COPY_ROWS * H5Tget_size(nt));
	hsize_t at = 0;

	if (!buf)
		return sw_fail(err, SW_ENOMEM, "out of memory to copy /measurements");
	for (; at < rows; at += COPY_ROWS)
		if (copy_rows(dset, ot, copy, nt, at, rows - at < COPY_ROWS ? rows - at : COPY_ROWS,
			      buf) < 0)
			break;
	free(buf);
	if (at < rows)
		return sw_h5_fail(err, SW_EHDF5, "cannot copy the rows of /measurements");
	if (H5Aiterate2(dset, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, copy_attr, &copy) < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot copy the attributes of /measurements");
	return describe_new(copy, missing, n, err);
}

enum sw_status sw_h5_add_axis_columns(hid_t file, hid_t *dset, const int *missing, int n,
				      struct sw_err *err)
{
	hid_t ot = H5Dget_type(*dset), nt = H5I_INVALID_HID, copy = H5I_INVALID_HID;
	hid_t space = H5Dget_space(*dset);
	hsize_t rows = 0;
	enum sw_status st = SW_OK;

	if (ot < 0 || space < 0 || H5Sget_simple_extent_dims(space, &rows, NULL) != 1)
		st = sw_h5_fail(err, SW_EHDF5, "cannot read the type and size of /measurements");
	if (st == SW_OK && (nt = grown_type(ot, missing, n, err)) < 0)
		st = SW_EHDF5;
	if (st == SW_OK && (copy = make_copy(file, *dset, ot, nt, rows, err)) < 0)
		st = SW_EHDF5;
	if (st == SW_OK)
		st = fill_copy(*dset, ot, copy, nt, rows, missing, n, err);
	/* the copy takes the name last: a failure before leaves the table as it was */
	if (st == SW_OK &&
	    (H5Ldelete(file, "measurements", H5P_DEFAULT) < 0 ||
	     H5Lmove(file, GROWN_NAME, file, "measurements", H5P_DEFAULT, H5P_DEFAULT) < 0))
		st = sw_h5_fail(err, SW_EHDF5, "cannot put the grown /measurements in place");
	if (st == SW_OK) {
		H5Dclose(*dset);
		*dset = copy;
		copy = H5I_INVALID_HID;
	} else if (copy >= 0 && H5Lexists(file, GROWN_NAME, H5P_DEFAULT) > 0) {
		H5Ldelete(file, GROWN_NAME, H5P_DEFAULT);
	}
	if (copy >= 0)
		H5Dclose(copy);
	if (nt >= 0)
		H5Tclose(nt);
	if (space >= 0)
		H5Sclose(space);
	if (ot >= 0)
		H5Tclose(ot);
	return st;
}
