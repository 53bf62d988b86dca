/*
 * The open result file's handle and its rows: rows wait in memory and every
 * HDF5 write happens in sw_h5_flush, which ends in H5Fflush, so a process
 * killed between flushes leaves the file as the last flush wrote it; then
 * closing, and the end time a SWMR writer may not add while it writes,
 * written into the file this sweep holds, whose name is checked last.
 * Creating is h5create.c's, reopening h5resume.c's: both end in a handle.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "core/faults.h"
#include "core/safe_open.h"
#include "h5/h5internal.h"
#include "kernel.h"

#define AUTO_FLUSH_ROWS    1024         /* sw_h5_append flushes at this many rows */
#define AUTO_FLUSH_SAMPLES (256 * 1024) /* ... or this many buffered samples (2 MiB) */

/* A /measurements row in memory: struct sw_record up to its samples. */
#define MEAS_ROW_BYTES offsetof(struct sw_record, samples_ns)
_Static_assert(MEAS_ROW_BYTES % 8 == 0, "rows of a buffer must stay aligned");

/* ---- the handle ------------------------------------------------------ */

void sw_h5_close_ids(struct sw_h5 *h)
{
	hid_t *datasets[] = { &h->devices, &h->measurements, &h->samples, &h->metrics,
			      &h->accesses };
	hid_t *types[] = { &h->dev_mtype, &h->meas_mtype, &h->metric_mtype, &h->access_mtype };

	for (size_t i = 0; i < sizeof datasets / sizeof datasets[0]; i++)
		if (*datasets[i] >= 0) {
			H5Dclose(*datasets[i]);
			*datasets[i] = H5I_INVALID_HID;
		}
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (*types[i] >= 0) {
			H5Tclose(*types[i]);
			*types[i] = H5I_INVALID_HID;
		}
	if (h->file >= 0) {
		H5Fclose(h->file);
		h->file = H5I_INVALID_HID;
	}
}

void sw_h5_destroy(struct sw_h5 *h)
{
	if (!h)
		return;
	sw_h5_close_ids(h);
	sw_h5_room_release(h); /* after the file: its size is final */
	if (h->lock_fd >= 0)   /* after the file: no other sweep may open it before */
		close(h->lock_fd);
	if (h->held_fd >= 0)
		close(h->held_fd);
	if (h->dir_fd >= 0)
		close(h->dir_fd);
	free(h->dev_buf);
	free(h->meas_buf);
	free(h->samples_buf);
	free(h->metric_buf);
	free(h->metric_names);
	free(h->access_buf);
	free(h->path);
	free(h);
}

/* A handle with its memory row types and no file yet. */
enum sw_status sw_h5_new_handle(const char *path, struct sw_h5 **out, struct sw_err *err)
{
	struct sw_h5 *h = calloc(1, sizeof *h);

	*out = NULL;
	if (!h)
		return sw_fail(err, SW_ENOMEM, "out of memory for the result file handle");
	h->file = h->devices = h->measurements = h->samples = H5I_INVALID_HID;
	h->dev_mtype = h->meas_mtype = H5I_INVALID_HID;
	h->metrics = h->metric_mtype = H5I_INVALID_HID;
	h->accesses = h->access_mtype = H5I_INVALID_HID;
	h->lock_fd = h->held_fd = h->room_fd = h->dir_fd = -1;
	h->path = strdup(path);
	if (!h->path) {
		sw_h5_destroy(h);
		return sw_fail(err, SW_ENOMEM, "out of memory for the result file handle");
	}
	h->meas_mtype = sw_h5_table_type(sw_record_columns, N_MEAS_COLS, MEAS_ROW_BYTES, 0, err);
	if (h->meas_mtype < 0)
		goto destroy_h;
	h->dev_mtype = sw_h5_table_type(sw_h5_device_columns, N_DEV_COLS,
					sizeof(struct sw_device_info), 0, err);
	if (h->dev_mtype < 0)
		goto destroy_h;
	h->access_mtype = sw_h5_table_type(sw_h5_access_columns, (size_t)sw_h5_n_access_columns,
					   sizeof(struct sw_access_row), 0, err);
	if (h->access_mtype < 0)
		goto destroy_h;
	*out = h;
	return SW_OK;

destroy_h:
	sw_h5_destroy(h);
	return sw_wrap(err, "cannot build the row types");
}

enum sw_status sw_h5_metrics_attr(const struct sw_h5_meta *meta, char *buf, size_t len,
				  struct sw_err *err)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < meta->n_metrics; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? "," : "",
				 meta->metric_names[i]);

		if (w < 0 || (size_t)w >= len - used)
			return sw_fail(err, SW_EINVAL, "too many --metrics names for one file");
		used += (size_t)w;
	}
	return SW_OK;
}

enum sw_status sw_h5_keep_metric_names(struct sw_h5 *h, const struct sw_h5_meta *meta,
				       struct sw_err *err)
{
	if (!meta || meta->n_metrics <= 0)
		return SW_OK;
	if (meta->n_metrics > SW_MAX_METRICS)
		return sw_fail(err, SW_EINVAL, "%d --metrics names, more than %d", meta->n_metrics,
			       SW_MAX_METRICS);
	h->metric_names = calloc((size_t)meta->n_metrics, sizeof *h->metric_names);
	if (!h->metric_names)
		return sw_fail(err, SW_ENOMEM, "out of memory for the --metrics names");
	for (int i = 0; i < meta->n_metrics; i++) {
		if (strlen(meta->metric_names[i]) >= SW_METRIC_NAME_LEN)
			return sw_fail(err, SW_EINVAL, "--metrics name %s is too long",
				       meta->metric_names[i]);
		snprintf(h->metric_names[i], SW_METRIC_NAME_LEN, "%s", meta->metric_names[i]);
	}
	h->n_metric_names = meta->n_metrics;
	h->metric_mtype = sw_h5_table_type(sw_h5_metric_columns, N_METRIC_COLS,
					   sizeof(struct sw_metric_row), 0, err);
	return h->metric_mtype < 0 ? sw_wrap(err, "cannot build the /metrics row type") : SW_OK;
}

/* Objects first, then SWMR: a SWMR writer may append to datasets but not
 * create objects or attributes, and writes no variable-length data (the
 * tables hold fixed-length strings only). H5Fstart_swmr_write closes the
 * open datasets, flushes and opens them again: a flush failing in it
 * leaves their ids dangling, and the file is then closed at exit on freed
 * memory. So the room comes first, and everything is flushed before it,
 * where a failure leaves every id whole. */
enum sw_status sw_h5_start_swmr(struct sw_h5 *h, struct sw_err *err)
{
	enum sw_status st = sw_h5_room_reserve(h, SW_H5_AT_SWMR, SW_H5_ROOM_METADATA, err);
	char name[160];

	if (st)
		return sw_wrap(err, "%s: cannot start writing in SWMR mode",
			       sw_safe_open_brief(h->path, name, sizeof name));
	if (H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0)
		return sw_h5_fail(err, SW_EIO, "cannot write %s", h->path);
	if (H5Fstart_swmr_write(h->file) < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot start writing in SWMR mode", h->path);
	h->swmr = 1;
	return SW_OK;
}

/* ---- append, flush, close -------------------------------------------- */

/* p with room for len + need items of size bytes (*cap of them), or NULL
 * when out of memory, p still valid then. */
static void *grow(void *p, size_t *cap, size_t len, size_t need, size_t size)
{
	size_t want = *cap ? *cap : 64;

	if (p && len + need <= *cap)
		return p;
	while (want < len + need)
		want *= 2;
	p = realloc(p, want * size);
	if (p)
		*cap = want;
	return p;
}

/* rec's --metrics values as /metrics rows, named in the order the file's
 * names are; nothing when the file has no /metrics or rec was not counted. */
static enum sw_status buffer_metrics(struct sw_h5 *h, const struct sw_record *rec,
				     struct sw_err *err)
{
	int n = rec->metrics.n < h->n_metric_names ? rec->metrics.n : h->n_metric_names;

	if (h->metrics < 0 || n <= 0)
		return SW_OK;
	void *buf = grow(h->metric_buf, &h->metric_cap, h->metric_len, (size_t)n,
			 sizeof *h->metric_buf);
	if (!buf)
		return sw_fail(err, SW_ENOMEM, "out of memory for buffered /metrics rows");
	h->metric_buf = buf;
	for (int i = 0; i < n; i++) {
		struct sw_metric_row *row = &h->metric_buf[h->metric_len++];

		memset(row, 0, sizeof *row);
		row->point_id = rec->point_id;
		snprintf(row->name, sizeof row->name, "%s", h->metric_names[i]);
		row->value = rec->metrics.values[i];
		snprintf(row->unit, sizeof row->unit, "%.*s", (int)sizeof rec->metrics.units[i],
			 rec->metrics.units[i]);
	}
	return SW_OK;
}

/* The words of /model_accesses' text columns. */
static const char *space_word(int space)
{
	return space == SW_SPACE_GLOBAL   ? "global"
	       : space == SW_SPACE_SHARED ? "shared"
					  : "constant";
}

static const char *counts_word(int counts)
{
	return counts == SW_COUNTS_EXACT      ? "exact"
	       : counts == SW_COUNTS_REQUESTS ? "requests_exact"
					      : "sampled";
}

/* rec's per-access model figures as /model_accesses rows of /measurements
 * row `row`, named as its variant names them; nothing when the file has no
 * such table (a file before schema 8 resumed read-only) or rec has none. */
static enum sw_status buffer_accesses(struct sw_h5 *h, const struct sw_record *rec, uint64_t row,
				      struct sw_err *err)
{
	const struct sw_family *f = sw_family_find(rec->family);
	int v = f ? sw_variant_find(f, rec->variant) : -1;
	int n = v < 0 ? 0 : sw_variant_access_count(&f->variants[v]);

	if (h->accesses < 0 || rec->accesses.n <= 0)
		return SW_OK;
	if (rec->accesses.n < n)
		n = rec->accesses.n;
	void *buf = grow(h->access_buf, &h->access_cap, h->access_len, (size_t)n,
			 sizeof *h->access_buf);
	if (!buf)
		return sw_fail(err, SW_ENOMEM, "out of memory for buffered /model_accesses rows");
	h->access_buf = buf;
	for (int i = 0; i < n; i++) {
		const struct sw_access_figures *a = &rec->accesses.a[i];
		struct sw_access_row *r = &h->access_buf[h->access_len++];

		*r = (struct sw_access_row){ .row = row,
					     .point_id = rec->point_id,
					     .cc = rec->cc,
					     .access = i,
					     .is_store = a->is_store,
					     .requests = a->requests,
					     .transactions = a->transactions,
					     .wavefronts = a->wavefronts,
					     .useful_bytes = a->useful_bytes,
					     .moved_bytes = a->moved_bytes,
					     .costed = a->costed };
		snprintf(r->name, sizeof r->name, "%s", f->variants[v].accesses[i]);
		snprintf(r->space, sizeof r->space, "%s", space_word(a->space));
		snprintf(r->counts, sizeof r->counts, "%s", counts_word(a->counts));
	}
	return SW_OK;
}

enum sw_status sw_h5_append_devices(struct sw_h5 *h, const struct sw_device_info *rows, size_t n,
				    struct sw_err *err)
{
	void *buf = grow(h->dev_buf, &h->dev_cap, h->dev_len, n, sizeof *rows);

	if (!buf)
		return sw_fail(err, SW_ENOMEM, "out of memory for %zu device rows", n);
	h->dev_buf = buf;
	for (size_t i = 0; i < n; i++) {
		struct sw_device_info *d = &h->dev_buf[h->dev_len++];

		*d = rows[i];
		sw_h5_tidy_strings(sw_h5_device_columns, N_DEV_COLS, (unsigned char *)d);
	}
	return SW_OK;
}

enum sw_status sw_h5_append(struct sw_h5 *h, struct sw_record *rec, struct sw_err *err)
{
	unsigned char *row;
	void *buf;

	if (rec->n_samples > SW_MAX_SAMPLES)
		return sw_fail(err, SW_EINVAL, "point %llu has %u samples, more than %d",
			       (unsigned long long)rec->point_id, rec->n_samples, SW_MAX_SAMPLES);
	enum sw_status st = buffer_metrics(h, rec, err);
	if (st || (st = buffer_accesses(h, rec, h->n_meas + h->meas_len, err)))
		return st;
	buf = grow(h->meas_buf, &h->meas_cap, h->meas_len, 1, MEAS_ROW_BYTES);
	if (!buf)
		return sw_fail(err, SW_ENOMEM, "out of memory for buffered rows");
	h->meas_buf = buf;
	buf = grow(h->samples_buf, &h->samples_cap, h->samples_len, rec->n_samples, sizeof(double));
	if (!buf)
		return sw_fail(err, SW_ENOMEM, "out of memory for buffered samples");
	h->samples_buf = buf;

	rec->sample_offset = h->n_samples + h->samples_len;
	memcpy(h->samples_buf + h->samples_len, rec->samples_ns, rec->n_samples * sizeof(double));
	h->samples_len += rec->n_samples;
	row = h->meas_buf + h->meas_len++ * MEAS_ROW_BYTES;
	memcpy(row, rec, MEAS_ROW_BYTES);
	sw_h5_tidy_strings(sw_record_columns, N_MEAS_COLS, row);

	if (h->meas_len >= AUTO_FLUSH_ROWS || h->samples_len >= AUTO_FLUSH_SAMPLES)
		return sw_h5_flush(h, err);
	return SW_OK;
}

enum sw_status sw_h5_write_rows(hid_t dset, const char *name, hid_t mem_type, const void *buf,
				size_t n, uint64_t *rows, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	hsize_t start = *rows, count = n, size = *rows + n;
	hid_t fspace, mspace;

	if (n == 0)
		return SW_OK;
	if (H5Dset_extent(dset, &size) < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot extend %s", name);
	fspace = H5Dget_space(dset);
	if (fspace < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot get the extent of %s", name);
	if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0) {
		st = sw_h5_fail(err, SW_EHDF5, "cannot select rows of %s", name);
		goto close_fspace;
	}
	mspace = H5Screate_simple(1, &count, NULL);
	if (mspace < 0) {
		st = sw_h5_fail(err, SW_EHDF5, "cannot create a dataspace for %s", name);
		goto close_fspace;
	}
	if (H5Dwrite(dset, mem_type, mspace, fspace, H5P_DEFAULT, buf) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "cannot write %zu rows to %s", n, name);
	else
		*rows = size;
	H5Sclose(mspace);
close_fspace:
	H5Sclose(fspace);
	return st;
}

/* The room a flush of the rows h holds may take (h5room.c); 0 for none. */
static uint64_t flush_room(const struct sw_h5 *h)
{
	if (!h->samples_len && !h->metric_len && !h->meas_len && !h->dev_len)
		return 0;
	return SW_H5_ROOM_METADATA + sw_h5_room_rows(h->samples, h->n_samples, h->samples_len) +
	       (h->metric_len ? sw_h5_room_rows(h->metrics, h->n_metric_rows, h->metric_len) : 0) +
	       sw_h5_room_rows(h->measurements, h->n_meas, h->meas_len) +
	       sw_h5_room_rows(h->devices, h->n_dev, h->dev_len);
}

enum sw_status sw_h5_flush(struct sw_h5 *h, struct sw_err *err)
{
	enum sw_status st;
	struct sw_faults f;
	uint64_t room = flush_room(h);

	sw_faults_parse(getenv("SW_TEST_FAULT"), &f);
	if (f.enospc_rows >= 0 && h->n_meas + h->meas_len > (uint64_t)f.enospc_rows)
		return sw_fail(err, SW_EIO,
			       "cannot write %zu rows to /measurements: No space left on device "
			       "(SW_TEST_FAULT)",
			       h->meas_len);
	/* Before HDF5 writes a byte: a flush refused here leaves the file as
	 * the last one left it, and closing it then writes nothing new. */
	if (room && (st = sw_h5_room_reserve(h, SW_H5_AT_FLUSH, room, err)))
		return h->meas_len ? sw_wrap(err, "cannot write %zu rows", h->meas_len)
				   : sw_wrap(err, "cannot write this session's /devices rows");
	/* Samples before the rows that point into them. */
	st = sw_h5_write_rows(h->samples, "/samples", H5T_NATIVE_DOUBLE, h->samples_buf,
			      h->samples_len, &h->n_samples, err);
	if (st)
		return st;
	h->samples_len = 0;
	/* before the rows they belong to, as samples are: a cut between them
	 * leaves metrics of a point without its row, which its rerun writes again */
	st = sw_h5_write_rows(h->metrics, "/metrics", h->metric_mtype, h->metric_buf, h->metric_len,
			      &h->n_metric_rows, err);
	if (st)
		return st;
	h->metric_len = 0;
	/* the same for the per-access figures: keyed by row and point, so one
	 * of a row a cut lost is told from the row a rerun writes there */
	st = sw_h5_write_rows(h->accesses, "/model_accesses", h->access_mtype, h->access_buf,
			      h->access_len, &h->n_access_rows, err);
	if (st)
		return st;
	h->access_len = 0;
	st = sw_h5_write_rows(h->measurements, "/measurements", h->meas_mtype, h->meas_buf,
			      h->meas_len, &h->n_meas, err);
	if (st)
		return st;
	h->meas_len = 0;
	st = sw_h5_write_rows(h->devices, "/devices", h->dev_mtype, h->dev_buf, h->dev_len,
			      &h->n_dev, err);
	if (st)
		return st;
	h->dev_len = 0;
	if (H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0)
		return sw_h5_fail(err, SW_EIO, "cannot flush %s", h->path);
	return SW_OK;
}

/* A SWMR writer may not add attributes, so the end time goes in once the
 * file is closed (which clears its consistency flags), through a plain
 * writer that opens it for a moment: the file this sweep holds, whatever
 * its name names now (h5own.c). Without HDF5's lock: a SWMR reader holds a
 * shared one, and our lock still keeps other sweeps away. */
static enum sw_status write_end_time(struct sw_h5 *h, double end_unix, struct sw_err *err)
{
	enum sw_status st;
	hid_t fapl = sw_h5_file_access(FMT_SWMR, 0, 1, err), file;
	char own[SW_H5_OWN_NAME_LEN];

	if (fapl < 0)
		return err ? err->status : SW_EHDF5;
	file = H5Fopen(sw_h5_own_name(h, own, sizeof own), H5F_ACC_RDWR, fapl);
	if (file < 0) {
		st = sw_h5_fail(err, SW_EIO, "cannot reopen it to write the end time");
		H5Pclose(fapl);
		return st;
	}
	H5Pclose(fapl);
	st = sw_h5_own_opened(h, file, err);
	if (st == SW_OK)
		st = sw_h5_put_time(file, "end_time", "end_unix", end_unix, err);
	if (H5Fclose(file) < 0 && st == SW_OK)
		st = sw_h5_fail(err, SW_EIO, "cannot close %s", h->path);
	return st;
}

/* The end time's room (h5room.c), before HDF5 is asked to write it: on a
 * full disk the file is closed as the last flush left it, without it. */
static enum sw_status end_time_room(struct sw_h5 *h, struct sw_err *err)
{
	if (sw_h5_room_reserve(h, SW_H5_AT_CLOSE, SW_H5_ROOM_METADATA, err) == SW_OK)
		return SW_OK;
	return sw_wrap(err, "cannot write the end time");
}

/* The session's rows in the file h holds, read back as a reader sees them. */
static void count_rows(struct sw_h5 *h, struct sw_h5_end *end)
{
	char own[SW_H5_OWN_NAME_LEN];
	hid_t file;

	memset(&end->rows, 0, sizeof end->rows);
	end->count_st = sw_h5_open_read_as(sw_h5_own_name(h, own, sizeof own), h->path,
					   "cannot read back", &file, &end->count_err);
	if (end->count_st != SW_OK)
		return;
	end->count_st = sw_h5_own_opened(h, file, &end->count_err);
	if (end->count_st == SW_OK)
		end->count_st =
			sw_h5_count_in(file, h->path, h->session, &end->rows, &end->count_err);
	H5Fclose(file);
}

/* SW_TEST_FAULT=close-wait:FILE holds the end of a session, before its last
 * flush, until FILE exists, so a test can give the output's name to another
 * file first, every time. */
static void fault_close_wait(void)
{
	struct sw_faults f;

	sw_faults_parse(getenv("SW_TEST_FAULT"), &f);
	sw_h5_wait_for(f.close_wait);
}

enum sw_status sw_h5_finish(struct sw_h5 **hp, double end_unix, struct sw_h5_end *end,
			    struct sw_err *err)
{
	enum sw_status st, own_st;
	struct sw_err own_err = { 0 };
	char where[sizeof end->where];
	struct sw_h5 *h;
	hid_t file;

	if (!hp || !*hp)
		return SW_OK;
	h = *hp;
	*hp = NULL;
	fault_close_wait();
	st = sw_h5_flush(h, err);
	if (st == SW_OK && !h->swmr && (st = end_time_room(h, err)) == SW_OK)
		st = sw_h5_put_time(h->file, "end_time", "end_unix", end_unix, err);
	/* The file last, and checked: H5Fclose writes what is still cached. */
	file = h->file;
	h->file = H5I_INVALID_HID;
	sw_h5_close_ids(h);
	if (H5Fclose(file) < 0 && st == SW_OK)
		st = sw_h5_fail(err, SW_EIO, "cannot close %s", h->path);
	/* Before the end time: where the name names another file, or none, the
	 * rows are kept first, and the end time goes with them, never into the
	 * file now at the name, which is left alone. */
	own_st = sw_h5_own_at_end(h, where, sizeof where, &own_err);
	/* the room again: the close may have given back what was past its end */
	if (st == SW_OK && h->swmr && (st = end_time_room(h, err)) == SW_OK)
		st = write_end_time(h, end_unix, err);
	if (st)
		sw_wrap(err, "%s", where);
	if (own_st != SW_OK) { /* where the rows are outweighs an earlier failure */
		st = own_st;
		if (err)
			*err = own_err;
	}
	if (end) {
		snprintf(end->where, sizeof end->where, "%s", where);
		count_rows(h, end);
	}
	sw_h5_destroy(h); /* and with it our lock */
	return st;
}

enum sw_status sw_h5_close(struct sw_h5 **hp, double end_unix, struct sw_err *err)
{
	return sw_h5_finish(hp, end_unix, NULL, err);
}

void sw_h5_abandon(struct sw_h5 **hp)
{
	if (!hp)
		return;
	sw_h5_destroy(*hp);
	*hp = NULL;
}
