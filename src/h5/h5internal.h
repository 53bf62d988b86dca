/*
 * Private to the HDF5 writer files, h5out.c (create, append, flush, close),
 * h5resume.c (resume) and h5extend.c (/sessions, --extend), and to their
 * test: the handle and the helpers they share. With this header they are
 * the only writers in src/ that include hdf5.h.
 */
#ifndef SW_H5INTERNAL_H
#define SW_H5INTERNAL_H

#include <stdint.h>

#include <hdf5.h>

#include "h5/h5out.h"
#include "core/status.h"

struct sw_h5 {
	char *path;
	hid_t file;
	int swmr;    /* 1.10 format, SWMR writer; 0: a 1.8-format file resumed as such */
	int lock_fd; /* holds our lock on the file (see sw_h5_take_lock); -1 when none */
	hid_t devices, measurements, samples; /* datasets */
	hid_t dev_mtype, meas_mtype;          /* row types in memory */
	uint64_t n_dev, n_meas, n_samples;    /* rows on disk */

	/* Buffered rows, written by the next flush. */
	struct sw_device_info *dev_buf;
	size_t dev_len, dev_cap;
	unsigned char *meas_buf; /* rows of MEAS_ROW_BYTES */
	size_t meas_len, meas_cap;
	double *samples_buf;
	size_t samples_len, samples_cap;

	/* /metrics (--metrics): H5I_INVALID_HID when the file has none */
	hid_t metrics, metric_mtype;
	uint64_t n_metric_rows;
	char (*metric_names)[SW_METRIC_NAME_LEN];
	int n_metric_names;
	struct sw_metric_row *metric_buf;
	size_t metric_len, metric_cap;
};

/* The /metrics columns (struct sw_metric_row). */
extern const struct sw_column sw_h5_metric_columns[];
extern const int sw_h5_n_metric_columns;

/* The run's --metrics names as the file's `metrics` attribute holds them,
 * joined by ','; "" for none. SW_EINVAL when they do not fit len. */
enum sw_status sw_h5_metrics_attr(const struct sw_h5_meta *meta, char *buf, size_t len,
				  struct sw_err *err);

/* Keeps meta's --metrics names in h, for the rows sw_h5_append writes. */
enum sw_status sw_h5_keep_metric_names(struct sw_h5 *h, const struct sw_h5_meta *meta,
				       struct sw_err *err);

/* The /devices columns (struct sw_device_info), as sw_record_columns are
 * those of /measurements. */
extern const struct sw_column sw_h5_device_columns[];
extern const int sw_h5_n_device_columns;

/* The compound type of a table: in memory at the struct's offsets with
 * native types (row_bytes apart), or packed in table order with
 * little-endian types for the file (in_file). H5I_INVALID_HID on failure. */
hid_t sw_h5_table_type(const struct sw_column *cols, size_t n_cols, size_t row_bytes, int in_file,
		       struct sw_err *err);

/* Point id of a row that was allocated but never written (the fill value). */
#define FILL_POINT_ID UINT64_MAX

/* The formats a file is opened in. SWMR needs the 1.10 format (superblock
 * version 3) with no older objects; sweeps before SWMR wrote the 1.8 format,
 * which --resume keeps for such a file. */
enum sw_h5_format {
	FMT_SWMR,   /* what sweep writes */
	FMT_V18,    /* a file from an older sweep */
	FMT_EITHER, /* opening a file to see which it is */
};

extern const H5F_libver_t sw_h5_format_low[], sw_h5_format_high[]; /* by enum sw_h5_format */

/* Like sw_fail, then appends the innermost HDF5 error of the current stack.
 * Call it right after the failing call: any HDF5 call clears the stack. */
enum sw_status sw_h5_fail(struct sw_err *err, enum sw_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The minor number of the innermost error of the current stack, or
 * H5I_INVALID_HID; leaves the stack as it is, for sw_h5_fail. */
/* The description of the innermost error of the current stack, or "";
 * leaves the stack as it is. */
void sw_h5_innermost_text(char *text, size_t len);
hid_t sw_h5_innermost_minor(void);

/* Scalar attributes: created or replaced. */
enum sw_status sw_h5_put_str(hid_t loc, const char *name, const char *value, struct sw_err *err);
enum sw_status sw_h5_put_i32(hid_t loc, const char *name, int32_t v, struct sw_err *err);

/* 1: present and read; 0: absent; <0: present but unreadable as mem_type. */
int sw_h5_get_attr(hid_t loc, const char *name, hid_t mem_type, void *value);

/* A variable-length string attribute as a malloc'd copy; "" when absent or
 * of another type. NULL only when out of memory. */
char *sw_h5_get_vstr(hid_t loc, const char *name);

/* A handle with its memory row types and no file yet (SW_ENOMEM, SW_EHDF5);
 * sw_h5_destroy closes what it holds, drops our lock and frees it. */
enum sw_status sw_h5_new_handle(const char *path, struct sw_h5 **out, struct sw_err *err);
void sw_h5_destroy(struct sw_h5 *h);

/* A file access property list for fmt (see h5out.c); H5I_INVALID_HID on failure. */
hid_t sw_h5_file_access(enum sw_h5_format fmt, int clear_flags, int no_hdf5_lock,
			struct sw_err *err);

/* Our lock on a file (see h5out.c). */
enum sw_h5_lock { LOCK_OURS, LOCK_BUSY, LOCK_NONE, LOCK_ERROR };
enum sw_h5_lock sw_h5_take_lock(const char *path, int write, int *fd);

/* The checks --resume (and --dry-run --resume, and --extend) make before
 * anything runs (h5resume.c), each SW_OK or SW_EINVAL with the reason:
 * the root attributes, their types and this job's identity (schema,
 * plan fingerprint and points, backend, measure_method); */
enum sw_status sw_h5_check_attributes(hid_t file, const char *path, const struct sw_h5_meta *meta,
				      struct sw_err *err);
/* the parsed measure and model settings of the file's job_text against
 * meta->job_text's (the job's name is a label and may differ); */
enum sw_status sw_h5_check_settings(hid_t file, const char *path, const struct sw_h5_meta *meta,
				    struct sw_err *err);
/* a table's layout: 1-D, chunked, without a maximum size; */
enum sw_status sw_h5_check_layout(hid_t dset, const char *path, const char *name,
				  struct sw_err *err);
/* every column's type against what sweep writes (cols NULL: a table of
 * float64, /samples); */
enum sw_status sw_h5_check_columns(hid_t dset, const char *path, const char *name,
				   const struct sw_column *cols, size_t n_cols, struct sw_err *err);
/* the session counter: the largest session in the file, *previous, and the
 * `sessions` attribute leave room for one more session. */
enum sw_status sw_h5_check_counters(hid_t file, const char *path, int previous, struct sw_err *err);

/* Starts SWMR writing on h's file, once every object and attribute exists. */
enum sw_status sw_h5_start_swmr(struct sw_h5 *h, struct sw_err *err);

#endif
