/*
 * --resume and --extend of a result file (docs/hdf5-schema.md, "Sessions
 * and --resume"): every check first (a sweep file of this job and backend,
 * its tables able to grow, its stored job's settings and plug-ins, the
 * plug-ins and libraries its rows were measured with), then the writes:
 * consistency flags a killed writer left cleared (under our lock), the
 * next session started, and last, in sw_h5_resume_begin, an extend's job
 * adopted and SWMR writing; their --dry-run makes the same
 * checks read-only. The checks of a table are h5table.c's, the opens
 * h5open.c's, a grown table h5grow.c's; appending and closing h5write.c's.
 */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC */
#include "h5/h5out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "h5/h5extend.h"
#include "h5/h5internal.h"
#include "h5/h5plugins.h"
#include "job/job.h"
#include "core/record.h"
#include "core/safe_open.h"
#include "job/plan.h"

/* The table exists, is 1-D, chunked and growable, has every column we
 * write in the type we write it, and tells its row count. */
static enum sw_status open_table(struct sw_h5 *h, const char *name, const struct sw_column *cols,
				 size_t n_cols, int may_lack, hid_t *dset, uint64_t *rows,
				 struct sw_err *err)
{
	enum sw_status st;
	hid_t space;
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
	if ((st = sw_h5_check_layout(*dset, h->path, name, err)) ||
	    (st = sw_h5_check_columns(*dset, h->path, name, cols, n_cols, may_lack, err)))
		return st;
	space = H5Dget_space(*dset);
	if (space < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot get the extent of /%s", h->path, name);
	H5Sget_simple_extent_dims(space, &dims, NULL);
	H5Sclose(space);
	*rows = dims;
	return SW_OK;
}

/* Sorted, without duplicates and without never-written rows. */
static size_t tidy_ids(uint64_t *ids, size_t n)
{
	size_t k = 0;

	qsort(ids, n, sizeof *ids, sw_h5_cmp_u64);
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
	st = sw_h5_read_column(dset, table, "session", H5T_NATIVE_INT32, rows, s, err);
	for (uint64_t i = 0; st == SW_OK && i < rows; i++)
		if (s[i] > *max)
			*max = s[i];
	free(s);
	return st;
}

/* The root attributes a resume reads, and the class each must have. */
static const struct {
	const char *name;
	H5T_class_t cls;
	int required; /* 0: older sweeps wrote files without it */
} root_attrs[] = {
	{ "schema_version", H5T_INTEGER, 1 }, { "plan_fingerprint", H5T_INTEGER, 1 },
	{ "plan_points", H5T_INTEGER, 1 },    { "sessions", H5T_INTEGER, 1 },
	{ "measure_method", H5T_INTEGER, 0 }, { "backend", H5T_STRING, 0 },
	{ "job_text", H5T_STRING, 1 },        { "command_line_history", H5T_STRING, 1 },
	{ "placement", H5T_STRING, 0 },
};

/* 1: attribute name of loc is one value of class cls; 0: absent; -1: it is
 * another class or not one value (*found then its class). */
static int attr_is(hid_t loc, const char *name, H5T_class_t cls, H5T_class_t *found)
{
	hid_t a, t, sp;
	int ok = sw_h5_open_attr(loc, name, &a);

	*found = H5T_NO_CLASS;
	if (ok <= 0)
		return ok;
	t = H5Aget_type(a);
	sp = H5Aget_space(a);
	*found = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
	ok = *found == cls && sp >= 0 && H5Sget_simple_extent_npoints(sp) == 1;
	if (t >= 0)
		H5Tclose(t);
	if (sp >= 0)
		H5Sclose(sp);
	H5Aclose(a);
	return ok ? 1 : -1;
}

static enum sw_status check_attr_types(hid_t file, const char *path, struct sw_err *err)
{
	for (size_t i = 0; i < sizeof root_attrs / sizeof root_attrs[0]; i++) {
		H5T_class_t found;
		int rc = attr_is(file, root_attrs[i].name, root_attrs[i].cls, &found);

		if (rc == 0 && root_attrs[i].required)
			return sw_fail(err, SW_EINVAL,
				       "%s is not a sweep file: it has no %s attribute", path,
				       root_attrs[i].name);
		if (rc < 0)
			return sw_fail(err, SW_EINVAL,
				       "cannot resume %s: its %s attribute is %s, not one value of "
				       "%s type as sweep writes it; write a new file",
				       path, root_attrs[i].name, sw_h5_class_name(found),
				       sw_h5_class_noun(root_attrs[i].cls));
	}
	return SW_OK;
}

/* The schema, plan and method that make this file this job's. */
static enum sw_status check_identity(hid_t file, const char *path, const struct sw_h5_meta *meta,
				     struct sw_err *err)
{
	int schema = 0, method = 1; /* before the attribute, the method was 1 */
	uint64_t fingerprint = 0, points = 0;

	if (sw_h5_get_attr(file, "schema_version", H5T_NATIVE_INT, &schema) != 1 ||
	    sw_h5_get_attr(file, "plan_fingerprint", H5T_NATIVE_UINT64, &fingerprint) != 1 ||
	    sw_h5_get_attr(file, "plan_points", H5T_NATIVE_UINT64, &points) != 1 ||
	    sw_h5_get_attr(file, "measure_method", H5T_NATIVE_INT, &method) < 0)
		return sw_h5_fail(err, SW_EINVAL, "%s: unreadable root attributes", path);
	/* the check every reader's open makes (h5open.c), made again here:
	 * a resume opens the file for writing */
	enum sw_status st = sw_h5_check_schema(file, path, "cannot resume", err);
	if (st)
		return st;
	if (schema < 1)
		return sw_fail(err, SW_EINVAL, "%s is not a sweep file: schema_version is %d", path,
			       schema);
	/* --extend checks the points themselves, after reading them */
	if (fingerprint != meta->plan_fingerprint && meta->mode != SW_SESSION_EXTEND)
		return sw_fail(err, SW_EINVAL,
			       "%s was made from a different job (plan fingerprint %016llx, this "
			       "job's %016llx); write a new file or use --force to overwrite it",
			       path, (unsigned long long)fingerprint,
			       (unsigned long long)meta->plan_fingerprint);
	if (points != meta->plan_points && meta->mode != SW_SESSION_EXTEND)
		return sw_fail(err, SW_EINVAL,
			       "%s is damaged: plan_points is %llu, its plan has %llu points", path,
			       (unsigned long long)points, (unsigned long long)meta->plan_points);
	/* Rows measured another way would mix in one file. */
	if (meta->measure_method > 0 && method != meta->measure_method)
		return sw_fail(err, SW_EINVAL,
			       "%s was measured by method %d, this sweep measures by method %d "
			       "(docs/hdf5-schema.md); write a new file rather than mix them",
			       path, method, meta->measure_method);
	return SW_OK;
}

/* A file's rows mean one placement: which (point, GPU) pairs are missing
 * depends on it. Files before schema 5 have no attribute: once. */
static enum sw_status check_placement(hid_t file, const char *path, const struct sw_h5_meta *meta,
				      struct sw_err *err)
{
	enum sw_status st = SW_OK;
	const char *want = meta->placement ? meta->placement : "once";
	char *have = sw_h5_get_vstr(file, "placement");

	if (!have)
		return sw_fail(err, SW_EINVAL, "out of memory");
	if (strcmp(have[0] ? have : "once", want) != 0)
		st = sw_fail(err, SW_EINVAL,
			     "cannot %s %s: it was run with placement %s, this run asks for "
			     "placement %s; %s with --placement %s, or write a new file",
			     meta->mode == SW_SESSION_EXTEND ? "extend" : "resume", path,
			     have[0] ? have : "once", want,
			     meta->mode == SW_SESSION_EXTEND ? "extend it" : "resume it",
			     have[0] ? have : "once");
	free(have);
	return st;
}

/* The root attributes, their types and this job's identity (schema, plan
 * fingerprint and points, backend, measure_method). */
static enum sw_status check_attributes(hid_t file, const char *path, const struct sw_h5_meta *meta,
				       struct sw_err *err)
{
	enum sw_status st;
	char *backend;

	struct sw_plugin_ref *refs = NULL;
	int n_refs = 0;

	if ((st = check_attr_types(file, path, err)) ||
	    (st = check_identity(file, path, meta, err)))
		return st;
	/* the plug-in record's shape, whether or not the job is read again */
	if ((st = sw_h5extend_get_plugins(file, path, &refs, &n_refs, err)))
		return st;
	sw_h5extend_plugins_fini(refs, n_refs);
	/* Done ids are not per backend: the other backend would skip them all. */
	backend = sw_h5_get_vstr(file, "backend");
	if (!backend)
		return sw_fail(err, SW_ENOMEM, "out of memory");
	if (backend[0] && meta->backend && strcmp(backend, meta->backend) != 0)
		st = sw_fail(err, SW_EINVAL,
			     "%s holds %s rows; resume it with --backend %s or write a new file",
			     path, backend, backend);
	free(backend);
	return st ? st : check_placement(file, path, meta, err);
}

/* The first setting of measure and model where a and b differ, as
 * "measure.warmup is 2 in the file, 5 in this job"; 0 when none does. The
 * model's targets (ccs) count for a resume only: an --extend may add
 * targets, and one it drops takes points the extend check finds missing. */
static int first_difference(const struct sw_job *a, const struct sw_job *b, int extend, char *say,
			    size_t len)
{
	const char *fmt = "%s is %g in the file, %g in this job";
	struct {
		const char *name;
		double in_file, here;
	} v[] = {
		{ "model.kepler_bank_bytes", a->kepler_bank_bytes, b->kepler_bank_bytes },
		{ "the number of model.ccs", a->n_ccs, b->n_ccs },
	};

	if (sw_measure_diff(&a->measure, &b->measure, say, len))
		return 1;
	for (size_t i = 0; i < (extend ? 1 : sizeof v / sizeof v[0]); i++)
		if (v[i].in_file != v[i].here) {
			snprintf(say, len, fmt, v[i].name, v[i].in_file, v[i].here);
			return 1;
		}
	for (int i = 0; !extend && i < a->n_ccs; i++)
		if (a->ccs[i] != b->ccs[i]) {
			snprintf(say, len, "model.ccs[%d] is %d.%d in the file, %d.%d in this job",
				 i, a->ccs[i] / 10, a->ccs[i] % 10, b->ccs[i] / 10, b->ccs[i] % 10);
			return 1;
		}
	return 0;
}

/* The file's job_text parsed again, its plug-ins those the file records
 * (sw_job_parse_stored): plug-ins of the recorded content that this run
 * loaded; none is loaded for it, none is found by name in the working
 * directory. */
static enum sw_status parse_stored(hid_t file, const char *path, const struct sw_h5_meta *meta,
				   const char *text, struct sw_job *old, struct sw_err *err)
{
	const char *verb = meta->mode == SW_SESSION_EXTEND ? "extend" : "resume";
	struct sw_plugin_where where = { .job_path = meta->job_path };
	struct sw_plugin_ref *refs = NULL;
	struct sw_err perr = { 0 };
	enum sw_status st;
	int n = 0;

	if ((st = sw_h5extend_get_plugins(file, path, &refs, &n, err)))
		return st;
	where.recorded = refs;
	where.n_recorded = n;
	if (sw_job_parse_stored("job_text", text, strlen(text), &where, old, &perr) == SW_OK)
		st = SW_OK;
	else if (where.failed)
		st = sw_fail(err, SW_EINVAL,
			     "cannot %s %s: %s; a file's job takes the plug-ins its first run "
			     "loaded, by content, never a file of that name in another folder: "
			     "load that one (plugins: or --plugin), or write a new file",
			     verb, path, perr.msg);
	else
		st = sw_fail(err, SW_EINVAL,
			     "cannot %s %s: its job_text does not parse (%s), so its settings "
			     "cannot be compared with this job's; write a new file",
			     verb, path, perr.msg);
	sw_h5extend_plugins_fini(refs, n);
	return st;
}

/* The parsed measure and model settings of the file's job_text against
 * meta->job_text's (the job's name is a label and may differ). */
static enum sw_status check_settings(hid_t file, const char *path, const struct sw_h5_meta *meta,
				     struct sw_err *err)
{
	enum sw_status st = SW_OK;
	struct sw_job old = { 0 }, now = { 0 };
	struct sw_err perr = { 0 };
	char *text = sw_h5_get_vstr(file, "job_text"), say[256];
	const char *here = meta->job_text ? meta->job_text : "";

	if (!text)
		return sw_fail(err, SW_ENOMEM, "out of memory");
	if (strcmp(text, here) == 0) /* the same text: the same settings */
		goto free_text;
	if ((st = parse_stored(file, path, meta, text, &old, err)))
		goto free_text;
	/* this run's job as it was read (its plug-ins beside its file), else
	 * its text read again from there */
	if (!meta->job && sw_job_parse(meta->job_path ? meta->job_path : "this job", here,
				       strlen(here), &now, &perr) != SW_OK) {
		st = sw_fail(err, SW_EINVAL, "cannot compare %s with this job: %s", path, perr.msg);
		goto fini_old;
	}
	if (first_difference(&old, meta->job ? meta->job : &now, meta->mode == SW_SESSION_EXTEND,
			     say, sizeof say))
		st = sw_fail(err, SW_EINVAL,
			     "%s was measured with other settings: %s; write a new file rather "
			     "than mix them",
			     path, say);
	sw_job_fini(&now);
fini_old:
	sw_job_fini(&old);
free_text:
	free(text);
	return st;
}

/* The session counter: the largest session in the file, previous, and the
 * `sessions` attribute leave room for one more session. */
static enum sw_status check_counters(hid_t file, const char *path, int previous, struct sw_err *err)
{
	int sessions = 0;

	if (sw_h5_get_attr(file, "sessions", H5T_NATIVE_INT, &sessions) != 1)
		return sw_h5_fail(err, SW_EINVAL, "%s: unreadable sessions attribute", path);
	if (sessions < 1 || previous < -1)
		return sw_fail(err, SW_EINVAL,
			       "cannot resume %s: its session counter is damaged (sessions %d, "
			       "largest session in its rows %d); write a new file",
			       path, sessions, previous);
	if (sessions - 1 > previous)
		previous = sessions - 1;
	if (previous >= INT32_MAX - 1)
		return sw_fail(err, SW_EINVAL,
			       "cannot resume %s: it has had %d sessions, as many as its counter "
			       "holds; write a new file",
			       path, previous + 1);
	return SW_OK;
}

/* Rows a failed flush left at the end (a full disk: the table grew, its
 * rows never came) go, so the resume's rows follow the last written one:
 * the first keep rows stay. */
static enum sw_status trim_unwritten(struct sw_h5 *h, uint64_t keep, struct sw_err *err)
{
	hsize_t rows = keep;

	if (keep == h->n_meas)
		return SW_OK;
	if (H5Dset_extent(h->measurements, &rows) < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot drop %llu unwritten rows", h->path,
				  (unsigned long long)(h->n_meas - keep));
	h->n_meas = keep;
	return SW_OK;
}

/* The file's --metrics against this run's: the same names in the same
 * order, or none on either side (files before schema 3 have none). Opens
 * /metrics to append to when there are names. */
static enum sw_status resume_metrics(struct sw_h5 *h, const struct sw_h5_meta *meta,
				     struct sw_err *err)
{
	char want[SW_MAX_METRICS * SW_METRIC_NAME_LEN];
	enum sw_status st = sw_h5_metrics_attr(meta, want, sizeof want, err);
	char *have;

	if (st)
		return st;
	if (!(have = sw_h5_get_vstr(h->file, "metrics")))
		return sw_fail(err, SW_ENOMEM, "out of memory");
	if (strcmp(have, want) != 0)
		st = sw_fail(err, SW_EINVAL,
			     "%s was written %s%s, this run %s%s: the /metrics layouts differ; "
			     "resume with the file's --metrics or write a new file",
			     h->path, have[0] ? "with --metrics " : "without --metrics", have,
			     want[0] ? "has --metrics " : "has none", want);
	free(have);
	if (st || !want[0])
		return st;
	st = sw_h5_keep_metric_names(h, meta, err);
	if (st == SW_OK)
		st = open_table(h, "metrics", sw_h5_metric_columns, (size_t)sw_h5_n_metric_columns,
				0, &h->metrics, &h->n_metric_rows, err);
	return st;
}

/* The ids already recorded (sorted, distinct, fill rows and damaged rows
 * (bad) aside); *keep: the rows up to the last written one
 * (trim_unwritten). Reads only. */
static enum sw_status read_done(struct sw_h5 *h, const uint8_t *bad, uint64_t **done_ids,
				size_t *n_done, uint64_t *keep, struct sw_err *err)
{
	enum sw_status st;
	uint64_t *ids;

	*keep = h->n_meas;
	if (h->n_meas == 0)
		return SW_OK;
	ids = malloc(h->n_meas * sizeof *ids);
	if (!ids)
		return sw_fail(err, SW_ENOMEM, "out of memory for %llu point ids",
			       (unsigned long long)h->n_meas);
	st = sw_h5_read_column(h->measurements, "measurements", "point_id", H5T_NATIVE_UINT64,
			       h->n_meas, ids, err);
	if (st) {
		free(ids);
		return sw_wrap(err, "%s", h->path);
	}
	while (*keep > 0 && ids[*keep - 1] == FILL_POINT_ID)
		(*keep)--;
	for (size_t i = 0; bad && i < h->n_meas; i++)
		if (bad[i])
			ids[i] = FILL_POINT_ID;
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

/* What a session's start writes up to its first row of /measurements
 * (h5room.c): the metadata of the open, of starting SWMR and of the flush
 * of its /devices rows, its /sessions row and its line of
 * command_line_history (the job's text and the command line, each in more
 * than one place): a disk without that room refuses the resume before the
 * file is opened to write. */
static uint64_t session_room(const struct sw_h5_meta *meta)
{
	uint64_t texts = strlen(meta->job_text ? meta->job_text : "") +
			 strlen(meta->command_line ? meta->command_line : "");

	return 3 * SW_H5_ROOM_METADATA + 4 * texts;
}

/* Opens h->path read-write under our lock and says which format it is in.
 * A killed writer leaves HDF5's consistency flags set, and every plain open
 * then fails on them; holding our lock proves that no sweep writes the
 * file, so this open clears them, as h5clear -s does. HDF5's own lock
 * stays on: it refuses a file another program has open. HDF5 opens the
 * file held and locked (h5own.c), not what the name names by then. */
static enum sw_status open_for_resume(struct sw_h5 *h, const struct sw_h5_meta *meta,
				      enum sw_h5_format *fmt, struct sw_err *err)
{
	int fd = open(h->path, O_RDWR | O_CLOEXEC);
	enum sw_h5_lock lock = LOCK_ERROR;
	enum sw_status st;
	H5F_info2_t info;
	char own[SW_H5_OWN_NAME_LEN], name[160];
	hid_t fapl;

	if (fd >= 0 && sw_h5_own_hold(h, fd, err) != SW_OK) {
		close(fd);
		return SW_EIO;
	}
	if (fd >= 0)
		lock = sw_h5_lock_fd(fd, 1, &h->lock_fd);
	if (lock == LOCK_BUSY)
		return sw_fail(
			err, SW_EIO,
			"cannot resume %s: another sweep is writing it (it holds the file's lock)",
			h->path);
	if (lock == LOCK_ERROR)
		return sw_fail(err, SW_EIO, "cannot open %s for writing: %s", h->path,
			       strerror(errno));
	/* HDF5 writes from this open on: the room first, or nothing is changed */
	if ((st = sw_h5_room_hold(h, h->held_fd, err)) ||
	    (st = sw_h5_room_reserve(h, SW_H5_AT_RESUME, session_room(meta), err)))
		return sw_wrap(err, "cannot resume %s (it is as it was)",
			       sw_safe_open_brief(h->path, name, sizeof name));
	fapl = sw_h5_file_access(FMT_EITHER, lock == LOCK_OURS, 0, err);
	if (fapl < 0)
		return err ? err->status : SW_EHDF5;
	h->file = H5Fopen(sw_h5_own_name(h, own, sizeof own), H5F_ACC_RDWR, fapl);
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
	if ((st = sw_h5_own_opened(h, h->file, err)) != SW_OK)
		return st;
	if (H5Fget_info2(h->file, &info) < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot read the superblock version", h->path);
	*fmt = info.super.version >= 3 ? FMT_SWMR : FMT_V18;
	if (H5Fset_libver_bounds(h->file, sw_h5_format_low[*fmt], sw_h5_format_high[*fmt]) < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot select the HDF5 file format", h->path);
	return SW_OK;
}

/* Every check of a resume, on h's open file, before anything is changed:
 * the attributes, the settings, the plug-ins and libraries the rows were
 * measured with (h5plugins.c), each table's layout and column types, and
 * the counters. *previous: the largest session recorded. */
static enum sw_status validate(struct sw_h5 *h, const struct sw_h5_meta *meta, int *previous,
			       struct sw_err *err)
{
	enum sw_status st;
	int schema = SW_SCHEMA_VERSION;

	*previous = -1;
	/* a file before schema 8 stays its layout: its rows go without the
	 * columns schema 8 added (docs/hdf5-schema.md) */
	sw_h5_get_attr(h->file, "schema_version", H5T_NATIVE_INT, &schema);
	int older = schema < 8 ? SW_H5_MAY_LACK_SCHEMA_8 : 0;
	if ((st = check_attributes(h->file, h->path, meta, err)) ||
	    (st = check_settings(h->file, h->path, meta, err)) ||
	    (st = sw_h5plugins_check(h->file, h->path, err)) ||
	    (st = open_table(h, "devices", sw_h5_device_columns, (size_t)sw_h5_n_device_columns,
			     older, &h->devices, &h->n_dev, err)) ||
	    (st = open_table(h, "measurements", sw_record_columns, (size_t)sw_record_n_columns,
			     older | SW_H5_MAY_LACK_AXES, &h->measurements, &h->n_meas, err)) ||
	    (st = open_table(h, "samples", NULL, 0, 0, &h->samples, &h->n_samples, err)))
		return st;
	if ((st = max_session(h->devices, "devices", h->n_dev, previous, err)) ||
	    (st = max_session(h->measurements, "measurements", h->n_meas, previous, err)))
		return st;
	return check_counters(h->file, h->path, *previous, err);
}

/* /sessions, where the file has one (schema 3 on): a table a session's row
 * can be appended to, checked before anything is written. */
static enum sw_status check_sessions(struct sw_h5 *h, struct sw_err *err)
{
	htri_t exists = H5Lexists(h->file, "sessions", H5P_DEFAULT);
	enum sw_status st;
	hid_t d;

	if (exists < 0)
		return sw_h5_fail(err, SW_EINVAL, "%s: cannot look up /sessions", h->path);
	if (!exists)
		return SW_OK;
	d = H5Dopen2(h->file, "sessions", H5P_DEFAULT);
	if (d < 0)
		return sw_h5_fail(err, SW_EINVAL,
				  "%s is not a sweep file: /sessions is not a table", h->path);
	st = sw_h5_check_layout(d, h->path, "sessions", err);
	if (st == SW_OK)
		st = sw_h5extend_check_session_type(d, h->path, err);
	H5Dclose(d);
	return st;
}

/* Every check of a resume or extend, before anything is changed: validate,
 * the --metrics, /sessions and, for --extend, the points. The ids the file
 * holds go to *done_ids (the caller frees them), *keep: its rows up to the
 * last written one. */
static enum sw_status check_all(struct sw_h5 *h, const struct sw_h5_meta *meta, int *previous,
				uint8_t **bad, struct sw_h5_damage *dmg, uint64_t **done_ids,
				size_t *n_done, uint64_t *keep, struct sw_err *err)
{
	enum sw_status st;

	if ((st = validate(h, meta, previous, err)) || (st = resume_metrics(h, meta, err)) ||
	    (st = sw_h5_check_rates(h->file, h->path, meta->rates, meta->n_rates, err)) ||
	    (st = sw_h5_check_recordings(h->file, h->path, meta->recordings, meta->n_recordings,
					 err)) ||
	    (st = check_sessions(h, err)) || (st = sw_h5_named_check(h, err)) ||
	    (st = sw_h5_find_damage(h, meta, bad, dmg, err)) ||
	    (st = read_done(h, *bad, done_ids, n_done, keep, err)))
		return st;
	return meta->mode == SW_SESSION_EXTEND ? sw_h5extend_check(h, meta, *done_ids, *n_done, err)
					       : SW_OK;
}

/* An --extend's refusals say so: "cannot extend", not "cannot resume". */
static enum sw_status said(const struct sw_h5_meta *meta, enum sw_status st, struct sw_err *err)
{
	static const char resume[] = "cannot resume ";

	if (st != SW_OK && err && meta->mode == SW_SESSION_EXTEND &&
	    !strncmp(err->msg, resume, sizeof resume - 1))
		memcpy(err->msg, "cannot extend ", sizeof resume - 1);
	return st;
}

/* What the changes before a session's rows may write (h5room.c): its
 * start, /plan written again, and a copy of /measurements with n_axes
 * more columns (8 bytes a row each, a chunk's worth over). Marking damaged
 * rows and dropping unwritten ones rewrite what the file holds. */
static uint64_t writing_room(const struct sw_h5 *h, const struct sw_h5_meta *meta, int n_axes)
{
	uint64_t room = session_room(meta);

	if (h->damage.plan_wrong && meta->plan)
		room += sw_h5_plan_room(meta->plan->n);
	if (n_axes > 0)
		room += sw_h5_room_rows(h->measurements, 0, h->n_meas) +
			(h->n_meas + 4096) * 8 * (uint64_t)n_axes;
	return room;
}

/* The changes a resume or extend makes before its rows, once every check
 * passed: an extend's new axis columns, unwritten rows dropped, the
 * session's row, its counters. */
static enum sw_status start_writing(struct sw_h5 *h, const struct sw_h5_meta *meta, int session,
				    const uint8_t *bad, uint64_t keep, struct sw_err *err)
{
	int missing[SW_MAX_AXIS_COLUMNS], n = 0;
	enum sw_status st;
	char name[160];

	/* an axis name the file has no column for: an extend's new family's,
	 * or one the registry gained since the file was made (a resume of a
	 * file of an older sweep); its rows read SW_AXIS_UNUSED there */
	if ((n = sw_h5_missing_axes(h->measurements, missing)) < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot read the type of /measurements",
				  h->path);
	if ((st = sw_h5_room_reserve(h, SW_H5_AT_RESUME, writing_room(h, meta, n), err)))
		return sw_wrap(err, "cannot %s %s (it is as it was)",
			       meta->mode == SW_SESSION_EXTEND ? "extend" : "resume",
			       sw_safe_open_brief(h->path, name, sizeof name));
	/* damaged rows are marked only once every check passed */
	if ((n > 0 && (st = sw_h5_add_axis_columns(h->file, &h->measurements, missing, n, err))) ||
	    (h->damage.rows && (st = sw_h5_mark_damage(h, bad, err))) ||
	    (h->damage.plan_wrong && (st = sw_h5_write_plan(h, meta->plan, err))) ||
	    (st = trim_unwritten(h, keep, err)) || (st = sw_h5_named_resume(h, err)) ||
	    (st = sw_h5extend_add_session(h, meta, session, err)))
		return st;
	return start_session(h, meta, session, err);
}

enum sw_status sw_h5_resume(const char *path, const struct sw_h5_meta *meta, struct sw_h5 **out,
			    uint64_t **done_ids, size_t *n_done, int *session, struct sw_err *err)
{
	enum sw_status st;
	enum sw_h5_format fmt = FMT_V18;
	struct sw_h5 *h;
	int previous = -1, sessions = 0;
	uint64_t keep = 0;
	uint8_t *bad = NULL;

	*out = NULL;
	*done_ids = NULL;
	*n_done = 0;
	*session = 0;
	if ((st = sw_h5_check_inputs(path, meta, err)) ||
	    (st = sw_h5_check_file(path, "cannot resume", err)))
		return said(meta, st, err);
	st = sw_h5_new_handle(path, &h, err);
	if (st)
		return st;
	if ((st = open_for_resume(h, meta, &fmt, err)) ||
	    (st = check_all(h, meta, &previous, &bad, &h->damage, done_ids, n_done, &keep, err)))
		goto free_ids;
	if (sw_h5_get_attr(h->file, "sessions", H5T_NATIVE_INT, &sessions) == 1 &&
	    sessions - 1 > previous)
		previous = sessions - 1;
	if ((st = start_writing(h, meta, previous + 1, bad, keep, err)))
		goto free_ids;
	h->swmr_pending = fmt == FMT_SWMR;
	*session = h->session = previous + 1;
	*out = h;
	free(bad);
	return SW_OK;

free_ids:
	free(bad);
	free(*done_ids);
	*done_ids = NULL;
	*n_done = 0;
	sw_h5_destroy(h);
	return said(meta, st, err);
}

enum sw_status sw_h5_resume_begin(struct sw_h5 *h, const struct sw_h5_meta *meta,
				  struct sw_err *err)
{
	enum sw_status st = sw_h5_flush(h, err);
	char name[160];

	if (st == SW_OK && meta->mode == SW_SESSION_EXTEND &&
	    (st = sw_h5_room_reserve(h, SW_H5_AT_RESUME, session_room(meta), err)))
		return sw_wrap(err, "cannot extend %s (its job is as it was)",
			       sw_safe_open_brief(h->path, name, sizeof name));
	if (st == SW_OK && meta->mode == SW_SESSION_EXTEND)
		st = sw_h5extend_adopt_job(h, meta, err);
	if (st == SW_OK && H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0)
		st = sw_h5_fail(err, SW_EIO, "cannot write %s", h->path);
	if (st == SW_OK && h->swmr_pending)
		st = sw_h5_start_swmr(h, err);
	h->swmr_pending = 0;
	return st;
}

const struct sw_h5_damage *sw_h5_damage_found(const struct sw_h5 *h)
{
	return &h->damage;
}

/* --dry-run --resume (and --extend): read-only, under a read lock of ours,
 * so a file another sweep writes is refused as a resume of it would be. */
enum sw_status sw_h5_check_resume(const char *path, const struct sw_h5_meta *meta, size_t *n_done,
				  struct sw_h5_damage *dmg, struct sw_err *err)
{
	return sw_h5_check_resume_placed(path, meta, n_done, dmg, NULL, err);
}

enum sw_status sw_h5_check_resume_placed(const char *path, const struct sw_h5_meta *meta,
					 size_t *n_done, struct sw_h5_damage *dmg,
					 struct sw_h5_placed *placed, struct sw_err *err)
{
	enum sw_status st;
	struct sw_h5 *h;
	uint64_t *ids = NULL, keep;
	uint8_t *bad = NULL;
	int previous;

	*n_done = 0;
	memset(dmg, 0, sizeof *dmg);
	if ((st = sw_h5_check_inputs(path, meta, err)) ||
	    (st = sw_h5_check_file(path, "cannot resume", err)) ||
	    (st = sw_h5_new_handle(path, &h, err)))
		return said(meta, st, err);
	if (sw_h5_take_lock(path, 0, &h->lock_fd) == LOCK_BUSY)
		st = sw_fail(err, SW_EIO,
			     "cannot resume %s: another sweep is writing it (it holds the file's "
			     "lock)",
			     path);
	if (st == SW_OK && (st = sw_h5_open_read(path, "cannot resume", &h->file, err)) == SW_OK)
		st = check_all(h, meta, &previous, &bad, dmg, &ids, n_done, &keep, err);
	if (st == SW_OK && placed) /* the damaged rows as a resume would mark them */
		st = sw_h5_read_placed_kept(h, bad, placed, err);
	free(ids);
	free(bad);
	sw_h5_destroy(h);
	return said(meta, st, err);
}
