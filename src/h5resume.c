/*
 * --resume of a result file (docs/hdf5-schema.md, "Sessions and --resume"):
 * checks that the file is a sweep file of this job and backend, clears the
 * consistency flags a killed writer left (under our lock), reads the point
 * ids already recorded and starts the next session. Creating, appending and
 * closing are h5out.c's, which shares the handle through h5internal.h.
 */
#include "h5out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "h5extend.h"
#include "h5internal.h"

/* The table exists, is 1-D, has a column for every field we write, and
 * tells its row count. */
static enum sw_status open_table(struct sw_h5 *h, const char *name, hid_t mem_type, hid_t *dset,
				 uint64_t *rows, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	hid_t space, ftype = H5I_INVALID_HID;
	hsize_t dims;
	htri_t exists = H5Lexists(h->file, name, H5P_DEFAULT);

	if (exists < 0) /* a damaged file: bad input, as when H5Dopen fails below */
		return sw_h5_fail(err, SW_EINVAL, "%s: cannot look up /%s", h->path, name);
	if (!exists)
		return sw_fail(err, SW_EINVAL, "%s is not a sweep file: it has no /%s dataset",
			       h->path, name);
	*dset = H5Dopen2(h->file, name, H5P_DEFAULT);
	if (*dset < 0)
		return sw_h5_fail(err, SW_EINVAL, "%s: cannot open /%s", h->path, name);
	space = H5Dget_space(*dset);
	if (space < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot get the extent of /%s", h->path, name);
	if (H5Sget_simple_extent_ndims(space) != 1 ||
	    H5Sget_simple_extent_dims(space, &dims, NULL) != 1) {
		st = sw_fail(err, SW_EINVAL, "%s is not a sweep file: /%s is not 1-D", h->path,
			     name);
		goto close_space;
	}
	*rows = dims;
	if (mem_type < 0)
		goto close_space;
	ftype = H5Dget_type(*dset);
	if (ftype < 0) {
		st = sw_h5_fail(err, SW_EHDF5, "%s: cannot get the type of /%s", h->path, name);
		goto close_space;
	}
	if (H5Tget_class(ftype) != H5T_COMPOUND) {
		st = sw_fail(err, SW_EINVAL, "%s is not a sweep file: /%s is not a table", h->path,
			     name);
		goto close_ftype;
	}
	for (int i = 0; i < H5Tget_nmembers(mem_type); i++) {
		char *col = H5Tget_member_name(mem_type, (unsigned)i);
		int found = col && H5Tget_member_index(ftype, col) >= 0;

		if (!found)
			st = sw_fail(err, SW_EINVAL,
				     "%s: /%s has no column '%s'; it was written by an older sweep "
				     "or one with other kernels, so write a new file",
				     h->path, name, col ? col : "?");
		H5free_memory(col);
		if (!found)
			break;
	}
close_ftype:
	H5Tclose(ftype);
close_space:
	H5Sclose(space);
	return st;
}

/* One column of the first rows of a table, into buf (rows x H5Tget_size(type)). */
static enum sw_status read_column(hid_t dset, const char *table, const char *name, hid_t type,
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Sorted, without duplicates and without never-written rows. */
static size_t tidy_ids(uint64_t *ids, size_t n)
{
	size_t k = 0;

	qsort(ids, n, sizeof *ids, cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (ids[i] != FILL_POINT_ID && (k == 0 || ids[k - 1] != ids[i]))
			ids[k++] = ids[i];
	return k;
}

static enum sw_status max_session(hid_t dset, const char *table, uint64_t rows, int *max,
				  struct sw_err *err)
{
	enum sw_status st;
	int32_t *s;

	if (rows == 0)
		return SW_OK;
	s = malloc(rows * sizeof *s);
	if (!s)
		return sw_fail(err, SW_ENOMEM, "out of memory for %llu rows of /%s",
			       (unsigned long long)rows, table);
	st = read_column(dset, table, "session", H5T_NATIVE_INT32, rows, s, err);
	for (uint64_t i = 0; st == SW_OK && i < rows; i++)
		if (s[i] > *max)
			*max = s[i];
	free(s);
	return st;
}

/* The checks that make this our file and this job's file. */
static enum sw_status check_identity(struct sw_h5 *h, const struct sw_h5_meta *meta,
				     struct sw_err *err)
{
	enum sw_status st = SW_OK;
	int schema = 0;
	uint64_t fingerprint = 0;
	char *backend;
	int rc;

	rc = sw_h5_get_attr(h->file, "schema_version", H5T_NATIVE_INT, &schema);
	if (rc != 1)
		return sw_fail(err, SW_EINVAL,
			       "%s is not a sweep file: %s schema_version attribute", h->path,
			       rc == 0 ? "it has no" : "it has an unreadable");
	if (schema > SW_SCHEMA_VERSION)
		return sw_fail(err, SW_EINVAL,
			       "%s has schema version %d, newer than the %d this sweep writes; "
			       "resume it with a newer sweep",
			       h->path, schema, SW_SCHEMA_VERSION);
	if (schema < 1)
		return sw_fail(err, SW_EINVAL, "%s is not a sweep file: schema_version is %d",
			       h->path, schema);
	rc = sw_h5_get_attr(h->file, "plan_fingerprint", H5T_NATIVE_UINT64, &fingerprint);
	if (rc != 1)
		return sw_fail(err, SW_EINVAL,
			       "%s is not a sweep file: %s plan_fingerprint attribute", h->path,
			       rc == 0 ? "it has no" : "it has an unreadable");
	/* --extend checks the points themselves, after reading them */
	if (fingerprint != meta->plan_fingerprint && meta->mode != SW_SESSION_EXTEND)
		return sw_fail(err, SW_EINVAL,
			       "%s was made from a different job (plan fingerprint %016llx, this "
			       "job's %016llx); write a new file or use --force to overwrite it",
			       h->path, (unsigned long long)fingerprint,
			       (unsigned long long)meta->plan_fingerprint);
	/* Rows measured another way would mix in one file; before the attribute,
	 * the method was 1. */
	int method = 1;
	if (sw_h5_get_attr(h->file, "measure_method", H5T_NATIVE_INT, &method) < 0)
		return sw_fail(err, SW_EINVAL, "%s: unreadable measure_method attribute", h->path);
	if (meta->measure_method > 0 && method != meta->measure_method)
		return sw_fail(err, SW_EINVAL,
			       "%s was measured by method %d, this sweep measures by method %d "
			       "(docs/hdf5-schema.md); write a new file rather than mix them",
			       h->path, method, meta->measure_method);
	/* Done ids are not per backend: the other backend would skip them all. */
	backend = sw_h5_get_vstr(h->file, "backend");
	if (!backend)
		return sw_fail(err, SW_ENOMEM, "out of memory");
	if (backend[0] && meta->backend && strcmp(backend, meta->backend) != 0)
		st = sw_fail(err, SW_EINVAL,
			     "%s holds %s rows; resume it with --backend %s or write a new file",
			     h->path, backend, backend);
	free(backend);
	return st;
}

static enum sw_status read_done(struct sw_h5 *h, uint64_t **done_ids, size_t *n_done,
				struct sw_err *err)
{
	enum sw_status st;
	uint64_t *ids;

	if (h->n_meas == 0)
		return SW_OK;
	ids = malloc(h->n_meas * sizeof *ids);
	if (!ids)
		return sw_fail(err, SW_ENOMEM, "out of memory for %llu point ids",
			       (unsigned long long)h->n_meas);
	st = read_column(h->measurements, "measurements", "point_id", H5T_NATIVE_UINT64, h->n_meas,
			 ids, err);
	if (st) {
		free(ids);
		return sw_wrap(err, "%s", h->path);
	}
	*n_done = tidy_ids(ids, h->n_meas);
	*done_ids = ids;
	return SW_OK;
}

/* sessions, command_line_history and the end time of the file as it now is:
 * a run killed from here on leaves no end time, so none is ever stale. */
static enum sw_status start_session(struct sw_h5 *h, const struct sw_h5_meta *meta, int session,
				    struct sw_err *err)
{
	enum sw_status st;
	char *old = sw_h5_get_vstr(h->file, "command_line_history"), *history;
	size_t len;
	htri_t has_end;

	if (!old)
		return sw_fail(err, SW_ENOMEM, "out of memory");
	len = strlen(old) + strlen(meta->command_line ? meta->command_line : "") + 2;
	history = malloc(len);
	if (!history) {
		free(old);
		return sw_fail(err, SW_ENOMEM, "out of memory");
	}
	snprintf(history, len, "%s%s%s", old, old[0] ? "\n" : "",
		 meta->command_line ? meta->command_line : "");
	free(old);
	st = sw_h5_put_i32(h->file, "sessions", session + 1, err);
	if (st == SW_OK)
		st = sw_h5_put_str(h->file, "command_line_history", history, err);
	free(history);
	for (int i = 0; st == SW_OK && i < 2; i++) {
		const char *name = i ? "end_unix" : "end_time";

		has_end = H5Aexists(h->file, name);
		if (has_end < 0 || (has_end && H5Adelete(h->file, name) < 0))
			st = sw_h5_fail(err, SW_EHDF5, "cannot remove attribute %s", name);
	}
	if (st == SW_OK && H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0)
		st = sw_h5_fail(err, SW_EIO, "cannot write %s", h->path);
	return st;
}

/* Opens h->path read-write under our lock and says which format it is in.
 * A killed writer leaves HDF5's consistency flags set, and every plain open
 * then fails on them; holding our lock proves that no sweep writes the
 * file, so this open clears them, as h5clear -s does. HDF5's own lock
 * stays on: it refuses a file another program has open. */
static enum sw_status open_for_resume(struct sw_h5 *h, enum sw_h5_format *fmt, struct sw_err *err)
{
	enum sw_h5_lock lock = sw_h5_take_lock(h->path, 1, &h->lock_fd);
	enum sw_status st;
	H5F_info2_t info;
	hid_t fapl;

	if (lock == LOCK_BUSY)
		return sw_fail(
			err, SW_EIO,
			"cannot resume %s: another sweep is writing it (it holds the file's lock)",
			h->path);
	if (lock == LOCK_ERROR)
		return sw_fail(err, SW_EIO, "cannot open %s for writing: %s", h->path,
			       strerror(errno));
	fapl = sw_h5_file_access(FMT_EITHER, lock == LOCK_OURS, 0, err);
	if (fapl < 0)
		return err ? err->status : SW_EHDF5;
	h->file = H5Fopen(h->path, H5F_ACC_RDWR, fapl);
	if (h->file < 0) {
		/* A lock or open(2) failing is the file system's doing; anything
		 * else is the content: cut short, damaged, or a newer format. */
		hid_t why = sw_h5_innermost_minor();

		if (why == H5E_CANTLOCKFILE)
			st = sw_h5_fail(err, SW_EIO,
					"cannot open %s for writing (is another program using it?)",
					h->path);
		else if (why == H5E_CANTOPENFILE)
			st = sw_h5_fail(err, SW_EIO, "cannot open %s for writing", h->path);
		else
			st = sw_h5_fail(
				err, SW_EINVAL,
				"cannot resume %s: HDF5 cannot open it as a sweep file (cut "
				"short, damaged, or in a format newer than sweep writes)",
				h->path);
		H5Pclose(fapl);
		if (lock == LOCK_NONE && err && strstr(err->msg, "h5clear")) {
			char why_msg[sizeof err->msg];

			snprintf(why_msg, sizeof why_msg, "%s", err->msg);
			st = sw_fail(err, st,
				     "%s; this file system takes no locks, so sweep cannot tell "
				     "whether a sweep still writes it: if none does, run h5clear "
				     "-s %s, then resume",
				     why_msg, h->path);
		}
		return st;
	}
	H5Pclose(fapl);
	if (H5Fget_info2(h->file, &info) < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot read the superblock version", h->path);
	*fmt = info.super.version >= 3 ? FMT_SWMR : FMT_V18;
	if (H5Fset_libver_bounds(h->file, sw_h5_format_low[*fmt], sw_h5_format_high[*fmt]) < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot select the HDF5 file format", h->path);
	return SW_OK;
}

enum sw_status sw_h5_resume(const char *path, const struct sw_h5_meta *meta, struct sw_h5 **out,
			    uint64_t **done_ids, size_t *n_done, int *session, struct sw_err *err)
{
	enum sw_status st;
	enum sw_h5_format fmt = FMT_V18;
	struct sw_h5 *h;
	struct stat sb;
	int previous = -1, sessions = 0;
	htri_t is_h5;

	*out = NULL;
	*done_ids = NULL;
	*n_done = 0;
	*session = 0;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (!path || stat(path, &sb) != 0)
		return sw_fail(err, SW_EIO, "cannot resume %s: %s", path ? path : "(null)",
			       path ? strerror(errno) : "no file name");
	if (!S_ISREG(sb.st_mode))
		return sw_fail(err, SW_EINVAL, "cannot resume %s: not a regular file", path);
	is_h5 = H5Fis_hdf5(path);
	if (is_h5 <= 0)
		return sw_fail(err, SW_EINVAL, "cannot resume %s: not an HDF5 file", path);

	st = sw_h5_new_handle(path, &h, err);
	if (st)
		return st;
	if ((st = open_for_resume(h, &fmt, err)) || (st = check_identity(h, meta, err)) ||
	    (st = open_table(h, "devices", h->dev_mtype, &h->devices, &h->n_dev, err)) ||
	    (st = open_table(h, "measurements", h->meas_mtype, &h->measurements, &h->n_meas,
			     err)) ||
	    (st = open_table(h, "samples", H5I_INVALID_HID, &h->samples, &h->n_samples, err)))
		goto destroy_h;

	if ((st = max_session(h->devices, "devices", h->n_dev, &previous, err)) ||
	    (st = max_session(h->measurements, "measurements", h->n_meas, &previous, err)))
		goto destroy_h;
	if (sw_h5_get_attr(h->file, "sessions", H5T_NATIVE_INT, &sessions) == 1 &&
	    sessions - 1 > previous)
		previous = sessions - 1;

	st = read_done(h, done_ids, n_done, err);
	if (st)
		goto destroy_h;
	if (meta->mode == SW_SESSION_EXTEND)
		st = sw_h5extend_check(h, meta, *done_ids, *n_done, err);
	if (st == SW_OK)
		st = sw_h5extend_add_session(h, meta, previous + 1, err);
	if (st == SW_OK)
		st = start_session(h, meta, previous + 1, err);
	if (st == SW_OK && fmt == FMT_SWMR)
		st = sw_h5_start_swmr(h, err);
	if (st)
		goto free_ids;
	*session = previous + 1;
	*out = h;
	return SW_OK;

free_ids:
	free(*done_ids);
	*done_ids = NULL;
	*n_done = 0;
destroy_h:
	sw_h5_destroy(h);
	return st;
}
