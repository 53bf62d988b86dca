/*
 * The measured rows of a result file, as the time model takes them for a
 * calibration or a transfer (model/time_fit.h, docs/model.md "Time"): each
 * ok row a GPU measured, with its point's family, variant and axes, its
 * median time and the GPU's name and class. Plain data; reading it
 * (h5measured.c, in sw_h5) is the only part that needs HDF5.
 */
#ifndef SW_MEASURED_H
#define SW_MEASURED_H

#include <stddef.h>
#include <stdint.h>

#include "core/durations.h"
#include "core/record.h"
#include "core/status.h"

struct sw_measured_row {
	uint64_t point_id;
	char family[SW_TEXT_LEN];
	char variant[SW_TEXT_LEN];
	int64_t axis[SW_MAX_AXIS_COLUMNS]; /* by sw_axis_column_name; -1 where absent */
	double median_ns;
	int calibration;                          /* a calibrate point (schema 5 on) */
	char device_name[SW_DURATION_CLASS_LEN];  /* /devices' name: the driver's */
	char device_class[SW_DURATION_CLASS_LEN]; /* its device_class, else its name */
};

struct sw_measured {
	struct sw_measured_row *rows; /* owned, in file order */
	size_t n;
	uint64_t content_hash; /* FNV-1a 64 of the file's bytes, as read */
};

/* Reads path's ok rows of a measuring backend (cuda; replay rows never
 * count) with a finite median above 0. SW_EIO when path is missing or
 * unreadable, SW_EINVAL when it is not a sweep result file, SW_ENOMEM,
 * SW_EHDF5. On failure out is empty. Any single process may call it. */
enum sw_status sw_measured_read(const char *path, struct sw_measured *out, struct sw_err *err);

void sw_measured_fini(struct sw_measured *m);

#endif
