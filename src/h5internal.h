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

#include "h5out.h"
#include "status.h"

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
};

/* The /devices columns (struct sw_device_info), as sw_record_columns are
 * those of /measurements. */
extern const struct sw_column sw_h5_device_columns[];
extern const int sw_h5_n_device_columns;

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

/* Starts SWMR writing on h's file, once every object and attribute exists. */
enum sw_status sw_h5_start_swmr(struct sw_h5 *h, struct sw_err *err);

#endif
