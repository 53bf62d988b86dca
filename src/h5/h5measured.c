/*
 * The measured rows of a result file (core/measured.h), by the one
 * read-only open (h5open.c). The axis columns are read by the names the
 * registry gives them; a file without one of them leaves it -1, as an
 * unused axis is, and the caller checks the point's id against its axes.
 */
#include "core/measured.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "core/hash.h"
#include "h5/h5internal.h"

struct row {
	uint64_t point_id;
	int32_t rank, session, status, calibration;
	char backend[8];
	char family[SW_TEXT_LEN];
	char variant[SW_TEXT_LEN];
	double median_ns;
	int64_t axis[SW_MAX_AXIS_COLUMNS];
};

struct dev {
	int32_t rank, session;
	char name[SW_DURATION_CLASS_LEN], device_class[SW_DURATION_CLASS_LEN];
};

/* Inserts member name at offset with memory type mt when ftype has it;
 * required ones missing fail. */
static int insert(hid_t ftype, hid_t t, const char *name, size_t offset, hid_t mt, int required)
{
	if (H5Tget_member_index(ftype, name) < 0)
		return required ? -1 : 0;
	return H5Tinsert(t, name, offset, mt) < 0 ? -1 : 0;
}

static hid_t row_type(hid_t ftype)
{
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct row));
	hid_t s8 = sw_h5_str_type(8, NULL), st = sw_h5_str_type(SW_TEXT_LEN, NULL);
	int bad = t < 0 || s8 < 0 || st < 0;
#define IN(field, mt, req)                                                                         \
	(bad = bad || insert(ftype, t, #field, offsetof(struct row, field), mt, req))
	IN(point_id, H5T_NATIVE_UINT64, 1);
	IN(rank, H5T_NATIVE_INT32, 1);
	IN(session, H5T_NATIVE_INT32, 1);
	IN(status, H5T_NATIVE_INT32, 1);
	IN(calibration, H5T_NATIVE_INT32, 0);
	IN(backend, s8, 1);
	IN(family, st, 1);
	IN(variant, st, 1);
	IN(median_ns, H5T_NATIVE_DOUBLE, 1);
#undef IN
	for (int c = 0; !bad && c < sw_axis_column_count(); c++)
		bad = insert(ftype, t, sw_axis_column_name(c),
			     offsetof(struct row, axis) + c * sizeof(int64_t), H5T_NATIVE_INT64, 0);
	if (s8 >= 0)
		H5Tclose(s8);
	if (st >= 0)
		H5Tclose(st);
	if (bad && t >= 0) {
		H5Tclose(t);
		t = H5I_INVALID_HID;
	}
	return t;
}

static hid_t dev_type(hid_t ftype)
{
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct dev));
	hid_t s = sw_h5_str_type(SW_DURATION_CLASS_LEN, NULL);
	int bad = t < 0 || s < 0 ||
		  insert(ftype, t, "rank", offsetof(struct dev, rank), H5T_NATIVE_INT32, 1) ||
		  insert(ftype, t, "session", offsetof(struct dev, session), H5T_NATIVE_INT32, 1) ||
		  insert(ftype, t, "name", offsetof(struct dev, name), s, 1) ||
		  insert(ftype, t, "device_class", offsetof(struct dev, device_class), s, 0);
	if (s >= 0)
		H5Tclose(s);
	if (bad && t >= 0) {
		H5Tclose(t);
		t = H5I_INVALID_HID;
	}
	return t;
}

/* Reads the 1-D compound dataset name of file into a malloc'ed array of
 * rows of size bytes each, through the memory type make() builds. */
static enum sw_status read_all(hid_t file, const char *name, hid_t (*make)(hid_t), size_t size,
			       void **out, size_t *n, const char *path, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	hid_t d, ftype = H5I_INVALID_HID, space = H5I_INVALID_HID, mt = H5I_INVALID_HID;
	hsize_t rows = 0;
	*out = NULL;
	*n = 0;
	if (H5Lexists(file, name, H5P_DEFAULT) <= 0 || (d = H5Dopen2(file, name, H5P_DEFAULT)) < 0)
		return sw_fail(err, SW_EINVAL, "%s: no /%s: not a sweep result file", path, name);
	if ((ftype = H5Dget_type(d)) < 0 || H5Tget_class(ftype) != H5T_COMPOUND ||
	    (mt = make(ftype)) < 0)
		st = sw_fail(err, SW_EINVAL, "%s: /%s lacks a column sweep needs", path, name);
	else if ((space = H5Dget_space(d)) < 0 || H5Sget_simple_extent_ndims(space) != 1 ||
		 H5Sget_simple_extent_dims(space, &rows, NULL) < 0)
		st = sw_fail(err, SW_EINVAL, "%s: /%s is not one-dimensional", path, name);
	else if (rows && !(*out = calloc(rows, size)))
		st = sw_fail(err, SW_ENOMEM, "out of memory for %llu rows of %s",
			     (unsigned long long)rows, path);
	if (st == SW_OK && rows && !strcmp(name, "measurements"))
		for (hsize_t i = 0; i < rows; i++)
			for (int c = 0; c < SW_MAX_AXIS_COLUMNS; c++)
				((struct row *)*out)[i].axis[c] = -1;
	if (st == SW_OK && rows && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "%s: cannot read /%s", path, name);
	if (st == SW_OK)
		*n = (size_t)rows;
	else {
		free(*out);
		*out = NULL;
	}
	if (mt >= 0)
		H5Tclose(mt);
	if (space >= 0)
		H5Sclose(space);
	if (ftype >= 0)
		H5Tclose(ftype);
	H5Dclose(d);
	return st;
}

static void fill(const struct row *in, size_t n, const struct dev *devs, size_t n_devs,
		 struct sw_measured *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &in[i];
		if (r->status != SW_ROW_OK || strcmp(r->backend, "cuda") || !(r->median_ns > 0) ||
		    !isfinite(r->median_ns) || !r->family[0])
			continue;
		struct sw_measured_row *m = &out->rows[out->n++];
		m->point_id = r->point_id;
		memcpy(m->family, r->family, sizeof m->family);
		memcpy(m->variant, r->variant, sizeof m->variant);
		m->family[sizeof m->family - 1] = m->variant[sizeof m->variant - 1] = '\0';
		memcpy(m->axis, r->axis, sizeof m->axis);
		m->median_ns = r->median_ns;
		m->calibration = r->calibration;
		for (size_t k = 0; k < n_devs; k++)
			if (devs[k].rank == r->rank && devs[k].session == r->session) {
				snprintf(m->device_name, sizeof m->device_name, "%s", devs[k].name);
				snprintf(m->device_class, sizeof m->device_class, "%s",
					 devs[k].device_class[0] ? devs[k].device_class
								 : devs[k].name);
			}
	}
}

enum sw_status sw_measured_read(const char *path, struct sw_measured *out, struct sw_err *err)
{
	struct row *rows = NULL;
	struct dev *devs = NULL;
	size_t n = 0, n_devs = 0;
	hid_t file;
	memset(out, 0, sizeof *out);
	enum sw_status st = sw_h5_open_read(path, "cannot read measured times from", &file, err);
	if (st)
		return st;
	st = read_all(file, "measurements", row_type, sizeof *rows, (void **)&rows, &n, path, err);
	if (st == SW_OK)
		st = read_all(file, "devices", dev_type, sizeof *devs, (void **)&devs, &n_devs,
			      path, err);
	H5Fclose(file);
	if (st == SW_OK && n && !(out->rows = calloc(n, sizeof *out->rows)))
		st = sw_fail(err, SW_ENOMEM, "out of memory for the rows of %s", path);
	if (st == SW_OK) {
		fill(rows, n, devs, n_devs, out);
		out->content_hash = sw_file_hash(path);
	}
	free(rows);
	free(devs);
	if (st)
		sw_measured_fini(out);
	return st;
}

void sw_measured_fini(struct sw_measured *m)
{
	free(m->rows);
	memset(m, 0, sizeof *m);
}
