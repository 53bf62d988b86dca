/*
 * Schema 8's two tables beside /measurements (docs/hdf5-schema.md):
 * /model_accesses, the model's figures of each named access of a row's
 * variant (its rows h5write.c buffers with the row), and /axis_names, the
 * names of a categorical axis's values, family by family, which the int64
 * axis columns hold by value. Made with a new file; a resume or extend
 * checks them, then opens or completes them (a file before schema 8
 * gains them). Rows are never rewritten: a reader takes the last of a key.
 */
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "h5/h5internal.h"
#include "kernel.h"

#define ACCESS_CHUNK_ROWS 1024
#define NAME_CHUNK_ROWS   64

static const char accesses_about[] =
	"One row per named access (a load or store instruction the variant's "
	"model requests name) of each /measurements row with model figures: its "
	"warp-level requests, global transactions (sectors from CC 6.0 on), "
	"shared wavefronts and bytes over the whole point. counts: exact (every "
	"request costed), requests_exact (the request count is exact, the rest "
	"sampled) or sampled. Keyed by row (of /measurements) and point_id; "
	"where a key repeats, the last row counts.";
static const char names_about[] =
	"The names of the values of each family's categorical axes: the axis "
	"column of /measurements holds `value`, readers show `name`. Where a "
	"(family, axis, value) repeats, the last row counts.";

#define N_ACCESS_COLS ((size_t)sw_h5_n_access_columns)
#define N_NAME_COLS   ((size_t)sw_h5_n_axis_name_columns)

/* Every registered family's named values not in have[0..n_have), appended
 * to *rows (*n of them, malloc'd). */
static enum sw_status names_missing(const struct sw_axis_name_row *have, size_t n_have,
				    struct sw_axis_name_row **rows, size_t *n, struct sw_err *err)
{
	size_t cap = 0;

	*rows = NULL;
	*n = 0;
	for (int i = 0; i < sw_family_count(); i++) {
		const struct sw_family *f = sw_family_at(i);
		for (int a = 0; a < f->n_axes; a++)
			for (int k = 0; k < sw_axis_name_count(&f->axes[a]); k++) {
				struct sw_axis_name_row r = { .value = f->axes[a].min + k };
				snprintf(r.family, sizeof r.family, "%s", f->name);
				snprintf(r.axis, sizeof r.axis, "%s", f->axes[a].name);
				snprintf(r.name, sizeof r.name, "%s", f->axes[a].names[k]);
				size_t j = 0;
				while (j < n_have && memcmp(&have[j], &r, sizeof r) != 0)
					j++;
				if (j < n_have)
					continue;
				if (*n == cap) {
					void *p = realloc(*rows, (cap ? 2 * cap : 16) * sizeof r);
					if (!p)
						return sw_fail(err, SW_ENOMEM,
							       "out of memory for /axis_names");
					*rows = p;
					cap = cap ? 2 * cap : 16;
				}
				(*rows)[(*n)++] = r;
			}
	}
	return SW_OK;
}

/* Appends to /axis_names (dset, *rows on disk) the named values it lacks. */
static enum sw_status add_names(struct sw_h5 *h, hid_t dset, const struct sw_axis_name_row *have,
				uint64_t *rows, struct sw_err *err)
{
	struct sw_axis_name_row *add = NULL;
	size_t n = 0;
	hid_t mtype = sw_h5_table_type(sw_h5_axis_name_columns, N_NAME_COLS, sizeof *add, 0, err);
	enum sw_status st = mtype < 0 ? SW_EHDF5 : names_missing(have, *rows, &add, &n, err);

	for (size_t i = 0; st == SW_OK && i < n; i++)
		sw_h5_tidy_strings(sw_h5_axis_name_columns, N_NAME_COLS, (unsigned char *)&add[i]);
	if (st == SW_OK)
		st = sw_h5_write_rows(dset, "/axis_names", mtype, add, n, rows, err);
	if (st != SW_OK)
		sw_wrap(err, "%s", h->path);
	if (mtype >= 0)
		H5Tclose(mtype);
	free(add);
	return st;
}

static hid_t make_accesses(struct sw_h5 *h, struct sw_err *err)
{
	struct sw_access_row none = { .row = UINT64_MAX, .point_id = FILL_POINT_ID };
	const struct sw_h5_table t = {
		"model_accesses",
		accesses_about,
		sw_h5_access_columns,
		N_ACCESS_COLS,
		ACCESS_CHUNK_ROWS,
		h->access_mtype,
		&none,
	};
	return sw_h5_create_table(h->file, &t, err);
}

static hid_t make_names(struct sw_h5 *h, hid_t mtype, struct sw_err *err)
{
	struct sw_axis_name_row none = { .value = -1 };
	const struct sw_h5_table t = {
		"axis_names", names_about, sw_h5_axis_name_columns, N_NAME_COLS, NAME_CHUNK_ROWS,
		mtype,        &none,
	};
	return sw_h5_create_table(h->file, &t, err);
}

/* /axis_names made, with every registered family's named values. */
static enum sw_status create_names(struct sw_h5 *h, struct sw_err *err)
{
	uint64_t rows = 0;
	hid_t mtype = sw_h5_table_type(sw_h5_axis_name_columns, N_NAME_COLS,
				       sizeof(struct sw_axis_name_row), 0, err);
	hid_t dset = mtype < 0 ? H5I_INVALID_HID : make_names(h, mtype, err);
	enum sw_status st =
		dset < 0 ? (err ? err->status : SW_EHDF5) : add_names(h, dset, NULL, &rows, err);

	if (dset >= 0)
		H5Dclose(dset);
	if (mtype >= 0)
		H5Tclose(mtype);
	return st;
}

enum sw_status sw_h5_named_create(struct sw_h5 *h, struct sw_err *err)
{
	h->accesses = make_accesses(h, err);
	if (h->accesses < 0)
		return err ? err->status : SW_EHDF5;
	h->n_access_rows = 0;
	return create_names(h, err);
}

/* 1: the file has table `name`; 0: it has not; -1: it cannot tell. */
static int has_table(const struct sw_h5 *h, const char *name)
{
	htri_t e = H5Lexists(h->file, name, H5P_DEFAULT);
	return e < 0 ? -1 : e > 0;
}

/* Opens table name of the file (it has it), checked against cols; *rows:
 * its rows. The caller closes *dset, even on failure. */
static enum sw_status open_checked(struct sw_h5 *h, const char *name, const struct sw_column *cols,
				   size_t n_cols, hid_t *dset, uint64_t *rows, struct sw_err *err)
{
	hsize_t dims = 0;
	hid_t space;
	enum sw_status st;

	*dset = H5Dopen2(h->file, name, H5P_DEFAULT);
	if (*dset < 0)
		return sw_h5_fail(err, SW_EINVAL, "%s: cannot open /%s", h->path, name);
	if ((st = sw_h5_check_layout(*dset, h->path, name, err)) ||
	    (st = sw_h5_check_columns(*dset, h->path, name, cols, n_cols, 0, err)))
		return st;
	if ((space = H5Dget_space(*dset)) < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot get the extent of /%s", h->path, name);
	H5Sget_simple_extent_dims(space, &dims, NULL);
	H5Sclose(space);
	*rows = dims;
	return SW_OK;
}

enum sw_status sw_h5_named_check(struct sw_h5 *h, struct sw_err *err)
{
	static const char *const names[] = { "model_accesses", "axis_names" };
	const struct sw_column *cols[] = { sw_h5_access_columns, sw_h5_axis_name_columns };
	const size_t n_cols[] = { N_ACCESS_COLS, N_NAME_COLS };
	enum sw_status st = SW_OK;

	for (int i = 0; st == SW_OK && i < 2; i++) {
		hid_t dset = H5I_INVALID_HID;
		uint64_t rows;
		int e = has_table(h, names[i]);
		if (e < 0)
			return sw_h5_fail(err, SW_EINVAL, "%s: cannot look up /%s", h->path,
					  names[i]);
		if (e)
			st = open_checked(h, names[i], cols[i], n_cols[i], &dset, &rows, err);
		if (dset >= 0)
			H5Dclose(dset);
	}
	return st;
}

/* The file's /axis_names rows, read whole (a few dozen), into *have. */
static enum sw_status read_names(struct sw_h5 *h, hid_t dset, uint64_t rows,
				 struct sw_axis_name_row **have, struct sw_err *err)
{
	hid_t mtype = sw_h5_table_type(sw_h5_axis_name_columns, N_NAME_COLS, sizeof **have, 0, err);
	enum sw_status st = SW_OK;

	*have = calloc(rows ? rows : 1, sizeof **have);
	if (!*have)
		st = sw_fail(err, SW_ENOMEM, "out of memory for /axis_names");
	else if (mtype < 0)
		st = SW_EHDF5;
	else if (rows && H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, *have) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "%s: cannot read /axis_names", h->path);
	for (uint64_t i = 0; st == SW_OK && i < rows; i++)
		sw_h5_tidy_strings(sw_h5_axis_name_columns, N_NAME_COLS,
				   (unsigned char *)&(*have)[i]);
	if (mtype >= 0)
		H5Tclose(mtype);
	return st;
}

/* /axis_names given what it lacks, or made where the file has none. */
static enum sw_status resume_names(struct sw_h5 *h, struct sw_err *err)
{
	struct sw_axis_name_row *have = NULL;
	hid_t dset = H5I_INVALID_HID;
	uint64_t rows = 0;
	enum sw_status st;

	if (!has_table(h, "axis_names"))
		return create_names(h, err);
	st = open_checked(h, "axis_names", sw_h5_axis_name_columns, N_NAME_COLS, &dset, &rows, err);
	if (st == SW_OK)
		st = read_names(h, dset, rows, &have, err);
	if (st == SW_OK)
		st = add_names(h, dset, have, &rows, err);
	free(have);
	if (dset >= 0)
		H5Dclose(dset);
	return st;
}

enum sw_status sw_h5_named_resume(struct sw_h5 *h, struct sw_err *err)
{
	enum sw_status st;

	if (!has_table(h, "model_accesses")) {
		h->accesses = make_accesses(h, err);
		h->n_access_rows = 0;
		st = h->accesses < 0 ? (err ? err->status : SW_EHDF5) : SW_OK;
	} else {
		st = open_checked(h, "model_accesses", sw_h5_access_columns, N_ACCESS_COLS,
				  &h->accesses, &h->n_access_rows, err);
	}
	return st != SW_OK ? st : resume_names(h, err);
}
