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
#include "h5/h5plugins.h"

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

enum sw_status sw_h5extend_check_session_type(hid_t dset, const char *path, struct sw_err *err)
{
	hid_t want = session_type(), have = H5Dget_type(dset);
	enum sw_status st = SW_OK;

	if (want < 0 || have < 0)
		st = sw_h5_fail(err, SW_EHDF5, "%s: cannot read the type of /sessions", path);
	else if (H5Tget_class(have) != H5T_COMPOUND)
		st = sw_fail(err, SW_EINVAL, "%s is not a sweep file: /sessions is not a table",
			     path);
	for (int i = 0; st == SW_OK && i < H5Tget_nmembers(want); i++) {
		char *col = H5Tget_member_name(want, (unsigned)i);
		int k = col ? H5Tget_member_index(have, col) : -1;
		hid_t a = H5Tget_member_type(want, (unsigned)i);
		hid_t b = k < 0 ? H5I_INVALID_HID : H5Tget_member_type(have, (unsigned)k);

		H5T_class_t ca = H5Tget_class(a), cb = b < 0 ? H5T_NO_CLASS : H5Tget_class(b);
		int numbers = (ca == H5T_INTEGER || ca == H5T_FLOAT) &&
			      (cb == H5T_INTEGER || cb == H5T_FLOAT);

		/* a number converts to a number, a variable-length text only to one */
		if (!numbers && (ca != cb || (ca == H5T_STRING &&
					      H5Tis_variable_str(a) != H5Tis_variable_str(b))))
			st = sw_fail(err, SW_EINVAL,
				     "cannot resume %s: /sessions has %s column %s; sweep appends "
				     "a row to it in every session: write a new file",
				     path, b < 0 ? "no" : "another type of", col ? col : "?");
		if (b >= 0)
			H5Tclose(b);
		H5Tclose(a);
		H5free_memory(col);
	}
	if (have >= 0)
		H5Tclose(have);
	if (want >= 0)
		H5Tclose(want);
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

#define PLUGIN_PATHS  "plugin_paths"
#define PLUGIN_HASHES "plugin_hashes"

enum sw_status sw_h5extend_put_plugins(hid_t file, const struct sw_job *job, struct sw_err *err)
{
	int n = job ? job->n_plugins : 0;
	const char **paths = malloc((n ? (size_t)n : 1) * sizeof *paths);
	uint64_t *hashes = malloc((n ? (size_t)n : 1) * sizeof *hashes);
	enum sw_status st = SW_OK;

	if (!paths || !hashes)
		st = sw_fail(err, SW_ENOMEM, "out of memory for the plug-in record");
	for (int i = 0; st == SW_OK && i < n; i++) {
		paths[i] = job->plugins[i].path;
		hashes[i] = job->plugins[i].content_hash;
	}
	/* none: no attributes, which a file of schema 7 on reads as none */
	for (int i = 0; st == SW_OK && !n && i < 2; i++) {
		const char *name = i ? PLUGIN_HASHES : PLUGIN_PATHS;
		htri_t has = H5Aexists(file, name);

		if (has < 0 || (has && H5Adelete(file, name) < 0))
			st = sw_h5_fail(err, SW_EHDF5, "cannot remove attribute %s", name);
	}
	if (st == SW_OK && n &&
	    (st = sw_h5_put_str_list(file, PLUGIN_PATHS, paths, (size_t)n, err)) == SW_OK)
		st = sw_h5_put_u64_list(file, PLUGIN_HASHES, hashes, (size_t)n, err);
	/* and what the rows are measured with: every plug-in, by content */
	if (st == SW_OK)
		st = sw_h5plugins_put(file, err);
	free(paths);
	free(hashes);
	return st;
}

void sw_h5extend_plugins_fini(struct sw_plugin_ref *refs, int n)
{
	for (int i = 0; refs && i < n; i++)
		free(refs[i].path);
	free(refs);
}

/* Attribute name of file as a 1-D array of class cls: its length, or -1. */
static hssize_t array_length(hid_t file, const char *name, H5T_class_t cls)
{
	hid_t a = H5Aopen(file, name, H5P_DEFAULT);
	hid_t t = a < 0 ? H5I_INVALID_HID : H5Aget_type(a);
	hid_t sp = a < 0 ? H5I_INVALID_HID : H5Aget_space(a);
	hssize_t n = -1;

	if (t >= 0 && sp >= 0 && H5Tget_class(t) == cls && H5Sget_simple_extent_ndims(sp) == 1 &&
	    (cls != H5T_STRING || H5Tis_variable_str(t) > 0))
		n = H5Sget_simple_extent_npoints(sp);
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	if (a >= 0)
		H5Aclose(a);
	return n;
}

/* The two arrays into refs[0..n). */
static enum sw_status read_plugins(hid_t file, struct sw_plugin_ref *refs, int n,
				   struct sw_err *err)
{
	uint64_t *hashes = calloc((size_t)n, sizeof *hashes);
	char **paths = NULL;
	size_t n_paths = 0;
	enum sw_status st = hashes ? SW_OK : sw_fail(err, SW_ENOMEM, "out of memory");

	if (st == SW_OK && sw_h5_get_attr(file, PLUGIN_HASHES, H5T_NATIVE_UINT64, hashes) != 1)
		st = sw_h5_fail(err, SW_EINVAL, "cannot read attribute %s", PLUGIN_HASHES);
	if (st == SW_OK)
		st = sw_h5_get_str_list(file, PLUGIN_PATHS, &paths, &n_paths, err);
	for (int i = 0; st == SW_OK && i < n && (size_t)i < n_paths; i++) {
		refs[i].path = paths[i]; /* taken over */
		paths[i] = NULL;
		refs[i].content_hash = hashes[i];
	}
	sw_h5_str_list_fini(paths, n_paths);
	free(hashes);
	return st;
}

enum sw_status sw_h5extend_get_plugins(hid_t file, const char *path, struct sw_plugin_ref **refs,
				       int *n, struct sw_err *err)
{
	htri_t has_paths = H5Aexists(file, PLUGIN_PATHS),
	       has_hashes = H5Aexists(file, PLUGIN_HASHES);
	hssize_t np, nh;
	int schema = 0;
	enum sw_status st;

	*refs = NULL;
	*n = 0;
	if (has_paths < 0 || has_hashes < 0)
		return sw_h5_fail(err, SW_EINVAL, "%s: cannot look up the plug-in record", path);
	if (!has_paths && !has_hashes) {
		/* before schema 7 a file recorded no plug-in paths: unknown, not none */
		if (sw_h5_get_attr(file, "schema_version", H5T_NATIVE_INT, &schema) == 1 &&
		    schema < 7)
			*n = -1;
		return SW_OK;
	}
	np = has_paths ? array_length(file, PLUGIN_PATHS, H5T_STRING) : -1;
	nh = has_hashes ? array_length(file, PLUGIN_HASHES, H5T_INTEGER) : -1;
	if (np < 0 || nh != np || np > SW_MAX_PLUGINS)
		return sw_fail(err, SW_EINVAL,
			       "cannot resume %s: its %s and %s attributes are not two arrays of "
			       "plug-in paths (strings) and content hashes (integers) of one "
			       "length, at most %d; write a new file",
			       path, PLUGIN_PATHS, PLUGIN_HASHES, SW_MAX_PLUGINS);
	*refs = calloc(np ? (size_t)np : 1, sizeof **refs);
	if (!*refs)
		return sw_fail(err, SW_ENOMEM, "out of memory for the plug-in record");
	st = read_plugins(file, *refs, (int)np, err);
	if (st != SW_OK) {
		sw_h5extend_plugins_fini(*refs, (int)np);
		*refs = NULL;
		return sw_wrap(err, "%s", path);
	}
	*n = (int)np;
	return SW_OK;
}

enum sw_status sw_h5extend_adopt_job(struct sw_h5 *h, const struct sw_h5_meta *meta,
				     struct sw_err *err)
{
	const char *names[] = { "plan_fingerprint", "plan_points" };
	const uint64_t values[] = { meta->plan_fingerprint, meta->plan_points };
	enum sw_status st;

	if ((st = sw_h5_put_str(h->file, "job_text", meta->job_text, err)) ||
	    (st = sw_h5_put_str(h->file, "job_path", meta->job_path, err)) ||
	    (st = sw_h5extend_put_plugins(h->file, meta->job, err)))
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
	if (!meta->job || !meta->plan)
		return sw_fail(err, SW_EINVAL, "--extend needs the job and its plan");
	/* the measure and model settings: checked as for --resume (h5resume.c) */
	return sw_h5extend_check_points(done, n_done, meta->plan, h->path, err);
}
