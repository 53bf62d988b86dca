/*
 * The HDF5 toolbox every file of src/h5 uses: errors that end with HDF5's
 * own description, the string types, scalar attributes written and read,
 * times in both forms, and the names of HDF5 type classes for messages.
 * It knows no dataset and no file of sweep's: the layers above do.
 */
#define _POSIX_C_SOURCE 200809L /* gmtime_r, strdup */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hdf5.h>

#include "h5/h5internal.h"

/* ---- errors ---------------------------------------------------------- */

struct h5_innermost {
	char text[256];
	hid_t minor; /* its minor error number */
	hid_t major;
};

static herr_t keep_innermost(unsigned n, const H5E_error2_t *e, void *data)
{
	struct h5_innermost *in = data;

	if (n != 0)
		return 0;
	in->minor = e->min_num;
	in->major = e->maj_num;
	if (e->desc && e->desc[0])
		snprintf(in->text, sizeof in->text, "%s", e->desc);
	else if (H5Eget_msg(e->min_num, NULL, in->text, sizeof in->text) < 0)
		in->text[0] = '\0';
	return 0;
}

enum sw_status sw_h5_fail(struct sw_err *err, enum sw_status s, const char *fmt, ...)
{
	struct h5_innermost in = { "", H5I_INVALID_HID, H5I_INVALID_HID };
	char small[256], *context = small;
	va_list ap, again;

	va_start(ap, fmt);
	va_copy(again, ap);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	/* a long context (a path near PATH_MAX) whole: sw_fail cuts its
	 * middle, never HDF5's reason after it */
	if (n >= (int)sizeof small && (context = malloc((size_t)n + 1)) != NULL)
		vsnprintf(context, (size_t)n + 1, fmt, again);
	va_end(again);
	if (!context)
		context = small;
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &in);
	/* HDF5 out of memory is out of memory, whatever the call was doing:
	 * the exit code --help gives it (1), not an HDF5 error's (4); a file's
	 * space that cannot be allocated is an I/O matter, not memory */
	if (in.major == H5E_RESOURCE && (in.minor == H5E_NOSPACE || in.minor == H5E_CANTALLOC) &&
	    !strstr(in.text, "file"))
		s = SW_ENOMEM;
	if (in.text[0])
		sw_fail(err, s, "%s: %s", context, in.text);
	else
		sw_fail(err, s, "%s", context);
	if (context != small)
		free(context);
	return s;
}

void sw_h5_innermost_text(char *text, size_t len)
{
	struct h5_innermost in = { "", H5I_INVALID_HID, H5I_INVALID_HID };

	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &in);
	snprintf(text, len, "%s", in.text);
}

/* The minor number of the innermost error of the current stack, or
 * H5I_INVALID_HID; leaves the stack as it is, for sw_h5_fail. */
hid_t sw_h5_innermost_minor(void)
{
	struct h5_innermost in = { "", H5I_INVALID_HID, H5I_INVALID_HID };

	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &in);
	return in.minor;
}

/* ---- types ----------------------------------------------------------- */

hid_t sw_h5_str_type(size_t len, struct sw_err *err)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	if (t < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot copy the string type");
		return t;
	}
	if (H5Tset_size(t, len) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
	    H5Tset_cset(t, H5T_CSET_ASCII) < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot make a %zu-byte string type", len);
		H5Tclose(t);
		return H5I_INVALID_HID;
	}
	return t;
}

/* Variable-length UTF-8: what h5py returns as str for an attribute. */
hid_t sw_h5_vstr_type(struct sw_err *err)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	if (t < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot copy the string type");
		return t;
	}
	if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot make a variable-length string type");
		H5Tclose(t);
		return H5I_INVALID_HID;
	}
	return t;
}

/* ---- attributes ------------------------------------------------------ */

/* Creates or replaces an attribute: one value, or an array of *dims. */
static enum sw_status put_attr(hid_t loc, const char *name, hid_t file_type, hid_t mem_type,
			       const hsize_t *dims, const void *value, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	htri_t exists = H5Aexists(loc, name);
	hid_t space, attr;

	if (exists < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot look up attribute %s", name);
	if (exists && H5Adelete(loc, name) < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot replace attribute %s", name);
	space = dims ? H5Screate_simple(1, dims, NULL) : H5Screate(H5S_SCALAR);
	if (space < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot create the dataspace of attribute %s",
				  name);
	attr = H5Acreate2(loc, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
	if (attr < 0) {
		st = sw_h5_fail(err, SW_EHDF5, "cannot create attribute %s", name);
		goto close_space;
	}
	if (H5Awrite(attr, mem_type, value) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "cannot write attribute %s", name);
	H5Aclose(attr);
close_space:
	H5Sclose(space);
	return st;
}

enum sw_status sw_h5_put_str(hid_t loc, const char *name, const char *value, struct sw_err *err)
{
	enum sw_status st;
	hid_t t = sw_h5_vstr_type(err);

	if (t < 0)
		return err ? err->status : SW_EHDF5;
	if (!value)
		value = "";
	st = put_attr(loc, name, t, t, NULL, &value, err);
	H5Tclose(t);
	return st;
}

enum sw_status sw_h5_put_i32(hid_t loc, const char *name, int32_t v, struct sw_err *err)
{
	return put_attr(loc, name, H5T_STD_I32LE, H5T_NATIVE_INT32, NULL, &v, err);
}

enum sw_status sw_h5_put_u64(hid_t loc, const char *name, uint64_t v, struct sw_err *err)
{
	return put_attr(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, NULL, &v, err);
}

enum sw_status sw_h5_put_f64(hid_t loc, const char *name, double v, struct sw_err *err)
{
	return put_attr(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, NULL, &v, err);
}

/* Both forms of a time: ISO 8601 UTC under name_time, seconds under name_unix. */
enum sw_status sw_h5_put_time(hid_t loc, const char *name_time, const char *name_unix,
			      double unix_s, struct sw_err *err)
{
	char iso[SW_H5_ISO_LEN];
	enum sw_status st;

	sw_h5_iso_time(unix_s, iso, sizeof iso);
	st = sw_h5_put_str(loc, name_time, iso, err);
	if (st == SW_OK)
		st = sw_h5_put_f64(loc, name_unix, unix_s, err);
	return st;
}

int sw_h5_open_attr(hid_t loc, const char *name, hid_t *attr)
{
	htri_t exists = H5Aexists(loc, name);

	*attr = H5I_INVALID_HID;
	if (exists <= 0)
		return exists < 0 ? -1 : 0;
	*attr = H5Aopen(loc, name, H5P_DEFAULT);
	return *attr < 0 ? -1 : 1;
}

int sw_h5_get_attr(hid_t loc, const char *name, hid_t mem_type, void *value)
{
	hid_t attr;
	int rc = sw_h5_open_attr(loc, name, &attr);

	if (rc <= 0)
		return rc;
	rc = H5Aread(attr, mem_type, value) < 0 ? -1 : 1;
	H5Aclose(attr);
	return rc;
}

/* A variable-length string attribute as a malloc'd copy; "" when absent or
 * of another type. NULL only when out of memory. */
char *sw_h5_get_vstr(hid_t loc, const char *name)
{
	hid_t t = sw_h5_vstr_type(NULL);
	char *s = NULL, *copy;

	if (t >= 0 && sw_h5_get_attr(loc, name, t, &s) != 1)
		s = NULL;
	copy = strdup(s ? s : "");
	if (s)
		H5free_memory(s);
	if (t >= 0)
		H5Tclose(t);
	return copy;
}

void sw_h5_iso_time(double unix_s, char *iso, size_t len)
{
	time_t t = (time_t)floor(unix_s);
	struct tm tm;

	iso[0] = '\0';
	if (isfinite(unix_s) && gmtime_r(&t, &tm))
		strftime(iso, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A 1-D array of variable-length strings: h5py gives a list of str, h5dump
 * one quoted value each, and no separator needs escaping. */
enum sw_status sw_h5_put_str_list(hid_t loc, const char *name, const char *const *values, size_t n,
				  struct sw_err *err)
{
	enum sw_status st;
	hsize_t dims = n;
	hid_t t = sw_h5_vstr_type(err);

	if (t < 0)
		return err ? err->status : SW_EHDF5;
	st = put_attr(loc, name, t, t, &dims, values, err);
	H5Tclose(t);
	return st;
}

enum sw_status sw_h5_put_u64_list(hid_t loc, const char *name, const uint64_t *values, size_t n,
				  struct sw_err *err)
{
	hsize_t dims = n;

	return put_attr(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &dims, values, err);
}

void sw_h5_str_list_fini(char **values, size_t n)
{
	for (size_t i = 0; values && i < n; i++)
		free(values[i]);
	free(values);
}

/* The length of attribute a as a 1-D array of variable-length strings; -1
 * when it is another type or shape. */
static hssize_t str_list_length(hid_t a)
{
	hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
	hssize_t k = -1;

	if (t >= 0 && sp >= 0 && H5Tis_variable_str(t) > 0 && H5Sget_simple_extent_ndims(sp) == 1)
		k = H5Sget_simple_extent_npoints(sp);
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	return k;
}

/* k texts of attribute a, read as type mt, into malloc'd copies. */
static enum sw_status read_texts(hid_t a, hid_t mt, const char *name, char **copies, hssize_t k,
				 struct sw_err *err)
{
	char **raw = calloc(k ? (size_t)k : 1, sizeof *raw);
	enum sw_status st = SW_OK;

	if (!raw)
		return sw_fail(err, SW_ENOMEM, "out of memory for attribute %s", name);
	if (H5Aread(a, mt, raw) < 0)
		st = sw_h5_fail(err, SW_EINVAL, "cannot read attribute %s", name);
	for (hssize_t i = 0; i < k; i++) {
		if (st == SW_OK && !(copies[i] = strdup(raw[i] ? raw[i] : "")))
			st = sw_fail(err, SW_ENOMEM, "out of memory for attribute %s", name);
		if (raw[i])
			H5free_memory(raw[i]);
	}
	free(raw);
	return st;
}

enum sw_status sw_h5_get_str_list(hid_t loc, const char *name, char ***values, size_t *n,
				  struct sw_err *err)
{
	hid_t a, mt;
	int rc = sw_h5_open_attr(loc, name, &a);
	hssize_t k;
	enum sw_status st;

	*values = NULL;
	*n = 0;
	if (rc <= 0)
		return rc < 0 ? sw_h5_fail(err, SW_EINVAL, "cannot open attribute %s", name)
			      : SW_OK;
	k = str_list_length(a);
	mt = k < 0 ? H5I_INVALID_HID : sw_h5_vstr_type(err);
	if (k < 0)
		st = sw_fail(err, SW_EINVAL, "attribute %s is not a list of texts", name);
	else if (mt < 0)
		st = err ? err->status : SW_EHDF5;
	else if (!(*values = calloc(k ? (size_t)k : 1, sizeof **values)))
		st = sw_fail(err, SW_ENOMEM, "out of memory for attribute %s", name);
	else
		st = read_texts(a, mt, name, *values, k, err);
	if (st == SW_OK) {
		*n = (size_t)k;
	} else if (*values) {
		sw_h5_str_list_fini(*values, (size_t)k);
		*values = NULL;
	}
	if (mt >= 0)
		H5Tclose(mt);
	H5Aclose(a);
	return st;
}

/* A 1-D array of integers as *n uint64 values in *values (malloc'd); none
 * when absent. SW_EINVAL when it is another type or shape, SW_ENOMEM. */
enum sw_status sw_h5_get_u64_list(hid_t loc, const char *name, uint64_t **values, size_t *n,
				  struct sw_err *err)
{
	hid_t a, t, sp;
	int rc = sw_h5_open_attr(loc, name, &a);
	hssize_t k = -1;
	enum sw_status st = SW_OK;

	*values = NULL;
	*n = 0;
	if (rc <= 0)
		return rc < 0 ? sw_h5_fail(err, SW_EINVAL, "cannot open attribute %s", name)
			      : SW_OK;
	t = H5Aget_type(a);
	sp = H5Aget_space(a);
	if (t >= 0 && sp >= 0 && H5Tget_class(t) == H5T_INTEGER &&
	    H5Sget_simple_extent_ndims(sp) == 1)
		k = H5Sget_simple_extent_npoints(sp);
	if (k < 0)
		st = sw_fail(err, SW_EINVAL, "attribute %s is not a list of integers", name);
	else if (!(*values = calloc(k ? (size_t)k : 1, sizeof **values)))
		st = sw_fail(err, SW_ENOMEM, "out of memory for attribute %s", name);
	else if (H5Aread(a, H5T_NATIVE_UINT64, *values) < 0)
		st = sw_h5_fail(err, SW_EINVAL, "cannot read attribute %s", name);
	if (st == SW_OK) {
		*n = (size_t)k;
	} else {
		free(*values);
		*values = NULL;
	}
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	H5Aclose(a);
	return st;
}

/* ---- names for messages ------------------------------------------------ */

const char *sw_h5_class_name(H5T_class_t c)
{
	switch (c) {
	case H5T_INTEGER: return "an integer";
	case H5T_FLOAT: return "a float";
	case H5T_STRING: return "a string";
	case H5T_COMPOUND: return "a compound";
	case H5T_ENUM: return "an enum";
	case H5T_ARRAY: return "an array";
	default: return "of another HDF5 class";
	}
}

const char *sw_h5_class_noun(H5T_class_t c)
{
	const char *name = sw_h5_class_name(c), *space = strchr(name, ' ');

	return space ? space + 1 : name;
}

int sw_h5_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}
