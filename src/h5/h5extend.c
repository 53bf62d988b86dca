/*
 * /sessions and --extend (src/h5/h5extend.h). A session's row is written before
 * SWMR starts, since it holds variable-length strings. --extend trusts the
 * point ids: an old point outside the new plan, or one measured with other
 * settings, would leave rows the new job does not describe, so both refuse.
 */
#include "h5/h5extend.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "h5/h5internal.h"

#define SESSION_CHUNK_ROWS 16

/* One /sessions row in memory. */
struct session_row {
	int32_t session;
	char mode[8];
	double start_unix;
	char start_time[SW_H5_ISO_LEN];
	uint64_t plan_fingerprint;
	uint64_t plan_points;
	const char *tool_version;
	const char *job_text;
};

static const char *const mode_names[] = {
	[SW_SESSION_NEW] = "new",
	[SW_SESSION_RESUME] = "resume",
	[SW_SESSION_EXTEND] = "extend",
};

/* The row type, in memory and in the file alike (little-endian on the hosts
 * sweep runs on); H5I_INVALID_HID on failure, with every id closed. */
static hid_t session_type(void)
{
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct session_row));
	hid_t mode = H5Tcopy(H5T_C_S1), when = H5Tcopy(H5T_C_S1), text = H5Tcopy(H5T_C_S1);
	int bad = t < 0 || mode < 0 || when < 0 || text < 0;

	bad = bad || H5Tset_size(mode, sizeof((struct session_row *)0)->mode) < 0 ||
	      H5Tset_size(when, sizeof((struct session_row *)0)->start_time) < 0 ||
	      H5Tset_size(text, H5T_VARIABLE) < 0 || H5Tset_cset(text, H5T_CSET_UTF8) < 0;
	bad = bad ||
	      H5Tinsert(t, "session", HOFFSET(struct session_row, session), H5T_NATIVE_INT32) < 0 ||
	      H5Tinsert(t, "mode", HOFFSET(struct session_row, mode), mode) < 0 ||
	      H5Tinsert(t, "start_unix", HOFFSET(struct session_row, start_unix),
			H5T_NATIVE_DOUBLE) < 0 ||
	      H5Tinsert(t, "start_time", HOFFSET(struct session_row, start_time), when) < 0 ||
	      H5Tinsert(t, "plan_fingerprint", HOFFSET(struct session_row, plan_fingerprint),
			H5T_NATIVE_UINT64) < 0 ||
	      H5Tinsert(t, "plan_points", HOFFSET(struct session_row, plan_points),
			H5T_NATIVE_UINT64) < 0 ||
	      H5Tinsert(t, "tool_version", HOFFSET(struct session_row, tool_version), text) < 0 ||
	      H5Tinsert(t, "job_text", HOFFSET(struct session_row, job_text), text) < 0;
	if (mode >= 0)
		H5Tclose(mode);
	if (when >= 0)
		H5Tclose(when);
	if (text >= 0)
		H5Tclose(text);
	if (bad && t >= 0) {
		H5Tclose(t);
		t = H5I_INVALID_HID;
	}
	return t;
}

/* /sessions, opened, or created empty (chunked, unlimited) where it is absent. */
static hid_t open_sessions(hid_t file, hid_t type, struct sw_err *err)
{
	hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = SESSION_CHUNK_ROWS;
	htri_t exists = H5Lexists(file, "sessions", H5P_DEFAULT);
	hid_t space, dcpl, dset = H5I_INVALID_HID;

	if (exists < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot look up /sessions");
		return H5I_INVALID_HID;
	}
	if (exists) {
		dset = H5Dopen2(file, "sessions", H5P_DEFAULT);
		if (dset < 0)
			sw_h5_fail(err, SW_EHDF5, "cannot open /sessions");
		return dset;
	}
	space = H5Screate_simple(1, &dims, &maxdims);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, 1, &chunk) >= 0)
		dset = H5Dcreate2(file, "sessions", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (dset < 0)
		sw_h5_fail(err, SW_EHDF5, "cannot create /sessions");
	else if (sw_h5_put_str(dset, "description",
			       "one row per session: new, resume or extend, with its job", err)) {
		H5Dclose(dset);
		dset = H5I_INVALID_HID;
	}
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (space >= 0)
		H5Sclose(space);
	return dset;
}

/* Writes row at the end of dset, one row longer. */
static enum sw_status append_row(hid_t dset, hid_t type, const struct session_row *row,
				 struct sw_err *err)
{
	enum sw_status st = SW_OK;
	hsize_t n, one = 1;
	hid_t space = H5Dget_space(dset), mem = H5I_INVALID_HID;

	if (space < 0 || H5Sget_simple_extent_dims(space, &n, NULL) != 1) {
		st = sw_h5_fail(err, SW_EHDF5, "cannot get the extent of /sessions");
		goto close_space;
	}
	H5Sclose(space);
	space = H5I_INVALID_HID;
	hsize_t grown = n + 1;
	if (H5Dset_extent(dset, &grown) < 0) {
		st = sw_h5_fail(err, SW_EHDF5, "cannot grow /sessions");
		goto close_space;
	}
	space = H5Dget_space(dset);
	mem = H5Screate_simple(1, &one, NULL);
	if (space < 0 || mem < 0 ||
	    H5Sselect_hyperslab(space, H5S_SELECT_SET, &n, NULL, &one, NULL) < 0 ||
	    H5Dwrite(dset, type, mem, space, H5P_DEFAULT, row) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "cannot write a row of /sessions");
	if (mem >= 0)
		H5Sclose(mem);
close_space:
	if (space >= 0)
		H5Sclose(space);
	return st;
}

enum sw_status sw_h5extend_add_session(struct sw_h5 *h, const struct sw_h5_meta *meta, int session,
				       struct sw_err *err)
{
	struct session_row row = {
		.session = session,
		.start_unix = meta->start_unix,
		.plan_fingerprint = meta->plan_fingerprint,
		.plan_points = meta->plan_points,
		.tool_version = meta->tool_version ? meta->tool_version : "",
		.job_text = meta->job_text ? meta->job_text : "",
	};
	enum sw_status st;
	hid_t type, dset;

	snprintf(row.mode, sizeof row.mode, "%s", mode_names[meta->mode]);
	sw_h5_iso_time(meta->start_unix, row.start_time, sizeof row.start_time);
	type = session_type();
	if (type < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot build the /sessions type");
	dset = open_sessions(h->file, type, err);
	st = dset < 0 ? (err ? err->status : SW_EHDF5) : append_row(dset, type, &row, err);
	if (dset >= 0)
		H5Dclose(dset);
	H5Tclose(type);
	return st ? sw_wrap(err, "%s", h->path) : SW_OK;
}

enum sw_status sw_h5extend_check_points(const uint64_t *done, size_t n_done,
					const struct sw_plan *plan, const char *path,
					struct sw_err *err)
{
	enum sw_status st = SW_OK;
	uint64_t *ids = malloc((plan->n ? plan->n : 1) * sizeof *ids);
	size_t absent = 0, first = 0;

	if (!ids)
		return sw_fail(err, SW_ENOMEM, "no memory for %zu plan ids", plan->n);
	for (size_t i = 0; i < plan->n; i++)
		ids[i] = plan->points[i].id;
	qsort(ids, plan->n, sizeof *ids, sw_h5_cmp_u64);
	for (size_t i = 0; i < n_done; i++)
		if (!bsearch(&done[i], ids, plan->n, sizeof *ids, sw_h5_cmp_u64) && absent++ == 0)
			first = i;
	if (absent)
		st = sw_fail(err, SW_EINVAL,
			     "cannot extend %s: %zu of its %zu points are not in this job (point "
			     "%016" PRIx64 " is one); --extend only adds points, so keep every "
			     "family, variant and axis value the file was made with",
			     path, absent, n_done, done[first]);
	free(ids);
	return st;
}

enum sw_status sw_h5extend_adopt_job(struct sw_h5 *h, const struct sw_h5_meta *meta,
				     struct sw_err *err)
{
	const char *names[] = { "plan_fingerprint", "plan_points" };
	const uint64_t values[] = { meta->plan_fingerprint, meta->plan_points };
	enum sw_status st;

	if ((st = sw_h5_put_str(h->file, "job_text", meta->job_text, err)) ||
	    (st = sw_h5_put_str(h->file, "job_path", meta->job_path, err)))
		return st;
	for (int i = 0; i < 2; i++) {
		hid_t a = H5Aopen(h->file, names[i], H5P_DEFAULT);
		herr_t rc = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_UINT64, &values[i]);

		if (a >= 0)
			H5Aclose(a);
		if (rc < 0)
			return sw_h5_fail(err, SW_EHDF5, "%s: cannot write attribute %s", h->path,
					  names[i]);
	}
	return SW_OK;
}

enum sw_status sw_h5extend_check(struct sw_h5 *h, const struct sw_h5_meta *meta,
				 const uint64_t *done, size_t n_done, struct sw_err *err)
{
	enum sw_status st;

	if (!meta->job || !meta->plan)
		return sw_fail(err, SW_EINVAL, "--extend needs the job and its plan");
	/* the measure and model settings: checked as for --resume (h5resume.c) */
	st = sw_h5extend_check_points(done, n_done, meta->plan, h->path, err);
	return st ? st : sw_h5extend_adopt_job(h, meta, err);
}
