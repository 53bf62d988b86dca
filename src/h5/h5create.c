/*
 * Creating a result file (docs/hdf5-schema.md): its root attributes, its
 * tables and their first /sessions row, then SWMR writing, all under the
 * temporary name h5publish.c makes and locks, which then gives the file its
 * name. What the tables are is h5table.c's; writing rows is h5write.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "h5/h5extend.h"
#include "h5/h5internal.h"
#include "core/safe_open.h"
#include "job/plan.h"

#define MEAS_CHUNK_ROWS 256
#define DEV_CHUNK_ROWS  16
#define SAMPLES_CHUNK   4096

#define METRIC_CHUNK_ROWS 1024

static const char meas_about[] =
	"One row per plan point and backend. Axis columns hold -1 where the "
	"family has no such axis. Row r's raw sample times are "
	"/samples[sample_offset : sample_offset + n_samples]. status: 0 ok, "
	"1 skipped, 2 invalid, 3 failed (message says why). Units in the "
	"attributes units:<column>.";
static const char dev_about[] =
	"One row per rank and session: the GPU it measured on (device_index -1 "
	"for the model backend). Units in the attributes units:<column>.";
static const char samples_about[] =
	"Raw time of every sample of every /measurements row, in ns; a row "
	"points into it with sample_offset and n_samples.";
static const char metrics_about[] =
	"One row per --metrics value of a point: the CUPTI metric `name` of "
	"point point_id, counted in launches apart from the timed ones, and "
	"its `unit` as CUPTI gives it. Where a point has several rows of a "
	"name (a resumed run), the last one counts.";

static enum sw_status write_root(hid_t file, const struct sw_h5_meta *m, struct sw_err *err)
{
	enum sw_status st;

	if ((st = sw_h5_put_i32(file, "schema_version", SW_SCHEMA_VERSION, err)) ||
	    (st = sw_h5_put_str(file, "tool_version", m->tool_version, err)) ||
	    (st = sw_h5_put_str(file, "job_path", m->job_path, err)) ||
	    (st = sw_h5_put_str(file, "job_text", m->job_text, err)) ||
	    (st = sw_h5_put_str(file, "command_line", m->command_line, err)) ||
	    (st = sw_h5_put_str(file, "command_line_history", m->command_line, err)) ||
	    (st = sw_h5_put_str(file, "backend", m->backend, err)) ||
	    (st = sw_h5_put_str(file, "placement", m->placement ? m->placement : "once", err)) ||
	    (st = sw_h5_put_i32(file, "mpi_size", m->mpi_size, err)) ||
	    (st = sw_h5_put_u64(file, "plan_fingerprint", m->plan_fingerprint, err)) ||
	    (st = sw_h5_put_u64(file, "plan_points", m->plan_points, err)) ||
	    (st = sw_h5_put_time(file, "start_time", "start_unix", m->start_unix, err)) ||
	    (st = sw_h5_put_i32(file, "sessions", 1, err)) ||
	    (st = sw_h5_put_i32(file, "measure_method", m->measure_method, err)) ||
	    (st = sw_h5extend_put_plugins(file, m->job, err)))
		return sw_wrap(err, "cannot write the root attributes");
	return SW_OK;
}

static enum sw_status create_tables(struct sw_h5 *h, struct sw_err *err)
{
	struct sw_record blank;
	struct sw_device_info no_device = { 0 };
	double no_sample = NAN;

	/* What a row allocated but never written reads as: see FILL_POINT_ID. */
	sw_record_init(&blank);
	blank.point_id = FILL_POINT_ID;
	blank.status = -1;
	blank.check_mode[0] = '\0';
	no_device.rank = no_device.session = no_device.device_index = -1;

	const struct sw_h5_table devices = {
		"devices",      dev_about,    sw_h5_device_columns, N_DEV_COLS,
		DEV_CHUNK_ROWS, h->dev_mtype, &no_device,
	};
	const struct sw_h5_table measurements = {
		"measurements", meas_about, sw_record_columns, N_MEAS_COLS, MEAS_CHUNK_ROWS,
		h->meas_mtype,  &blank,
	};
	const struct sw_h5_table samples = {
		"samples", samples_about, NULL, 0, SAMPLES_CHUNK, H5T_NATIVE_DOUBLE, &no_sample,
	};

	if ((h->devices = sw_h5_create_table(h->file, &devices, err)) < 0 ||
	    (h->measurements = sw_h5_create_table(h->file, &measurements, err)) < 0 ||
	    (h->samples = sw_h5_create_table(h->file, &samples, err)) < 0)
		return err ? err->status : SW_EHDF5;
	return sw_h5_put_str(h->samples, "units", "ns", err);
}

/* With --metrics: the /metrics table and the names in the root attribute
 * `metrics`, which a resume compares. Without: neither, as in schema 2. */
static enum sw_status create_metrics_table(struct sw_h5 *h, const struct sw_h5_meta *meta,
					   struct sw_err *err)
{
	struct sw_metric_row none = { .point_id = FILL_POINT_ID, .value = NAN };
	char names[SW_MAX_METRICS * SW_METRIC_NAME_LEN];
	enum sw_status st;

	if (!meta || meta->n_metrics <= 0)
		return SW_OK;
	if ((st = sw_h5_keep_metric_names(h, meta, err)) ||
	    (st = sw_h5_metrics_attr(meta, names, sizeof names, err)) ||
	    (st = sw_h5_put_str(h->file, "metrics", names, err)))
		return st;
	const struct sw_h5_table metrics = {
		"metrics",     metrics_about,     sw_h5_metric_columns,
		N_METRIC_COLS, METRIC_CHUNK_ROWS, h->metric_mtype,
		&none,
	};
	h->metrics = sw_h5_create_table(h->file, &metrics, err);
	return h->metrics < 0 ? (err ? err->status : SW_EHDF5) : SW_OK;
}

/* What a new file takes up to its first row of /measurements (h5room.c):
 * the metadata of its objects, of starting SWMR and of the flush of its
 * /devices rows, /plan, and the texts the root attributes and the first
 * /sessions row hold (the job, the command line, each in more than one
 * place): a disk without that room refuses the file before it is made. */
static uint64_t create_room(const struct sw_h5_meta *meta)
{
	uint64_t texts = strlen(meta->job_text ? meta->job_text : "") +
			 strlen(meta->command_line ? meta->command_line : "");

	return 3 * SW_H5_ROOM_METADATA + (meta->plan ? sw_h5_plan_room(meta->plan->n) : 0) +
	       4 * texts;
}

/* Every object and attribute of a new file, in h->file, then SWMR: in the
 * temporary file h holds, opened through its descriptor, not its name. */
static enum sw_status build_file(struct sw_h5 *h, const struct sw_h5_meta *meta, struct sw_err *err)
{
	enum sw_status st;
	char own[SW_H5_OWN_NAME_LEN], name[160];
	hid_t fapl;

	/* the whole of it reserved before HDF5 writes a byte: a full disk
	 * refuses here, and HDF5 never holds what it cannot write */
	if ((st = sw_h5_room_reserve(h, SW_H5_AT_CREATE, create_room(meta), err)))
		return sw_wrap(err, "cannot create %s",
			       sw_safe_open_brief(h->path, name, sizeof name));
	/* Without HDF5's flock(): our OFD lock is taken already, and on NFS,
	 * which emulates flock() with byte-range locks, the two would collide. */
	fapl = sw_h5_file_access(FMT_SWMR, 0, 1, err);
	if (fapl < 0)
		return err ? err->status : SW_EHDF5;
	h->file = H5Fcreate(sw_h5_own_name(h, own, sizeof own), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	/* HDF5's reason first: closing fapl clears its error stack */
	st = h->file < 0 ? sw_h5_fail(err, SW_EIO, "cannot create %s", h->path) : SW_OK;
	H5Pclose(fapl);
	if (st)
		return st;
	if ((st = sw_h5_own_opened(h, h->file, err)) || (st = write_root(h->file, meta, err)) ||
	    (st = create_tables(h, err)) || (st = sw_h5_named_create(h, err)) ||
	    (meta->plan && (st = sw_h5_write_plan(h, meta->plan, err))) ||
	    (st = sw_h5_write_rates(h->file, meta->rates, meta->n_rates, err)) ||
	    (st = sw_h5_write_recordings(h->file, meta->recordings, meta->n_recordings, err)) ||
	    (st = create_metrics_table(h, meta, err)) ||
	    (st = sw_h5extend_add_session(h, meta, 0, err)) || (st = sw_h5_start_swmr(h, err)))
		return st;
	if (H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0)
		return sw_h5_fail(err, SW_EIO, "cannot write %s", h->path);
	return SW_OK;
}

enum sw_status sw_h5_check_create(const char *path, int force, const struct sw_h5_meta *meta,
				  struct sw_err *err)
{
	return sw_h5_check_target(path, force, meta, err);
}

enum sw_status sw_h5_create(const char *path, int force, const struct sw_h5_meta *meta,
			    struct sw_h5 **out, struct sw_err *err)
{
	enum sw_status st;
	struct sw_h5 *h;
	struct sw_h5_temp tmp;
	int old_fd = -1, replace = 0, made = 0;

	*out = NULL;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	st = sw_h5_check_target(path, force, meta, err);
	if (st)
		return st;
	if (force && (st = sw_h5_hold_old_file(path, &replace, &old_fd, err)))
		return st;
	st = sw_h5_new_handle(path, &h, err);
	if (st)
		goto release_old;
	/* Built under a temporary name, so that path never names a half-made
	 * file and --force keeps the old file until the new one is complete. */
	if ((st = sw_h5_temp_init(path, &tmp, err)) || (st = sw_h5_make_locked_temp(&tmp, h, err)))
		goto fini_tmp;
	made = 1;
	if ((st = build_file(h, meta, err)) || (st = sw_h5_publish(&tmp, path, replace, err)))
		goto remove_tmp;
	/* the file is held through its name from here on, and checked at the end */
	h->held_name[0] = '\0';
	if ((st = sw_h5_own_retake(h, err)))
		goto fini_tmp;
	sw_h5_temp_fini(&tmp);
	if (old_fd >= 0)
		close(old_fd);
	*out = h;
	return SW_OK;

remove_tmp:
	sw_h5_close_ids(h);
	if (made)
		sw_h5_temp_remove(&tmp);
fini_tmp:
	sw_h5_temp_fini(&tmp);
	sw_h5_destroy(h);
release_old:
	if (old_fd >= 0)
		close(old_fd);
	return st;
}
