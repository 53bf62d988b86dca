/*
 * What the replay backend takes from a result file beside its wall times:
 * the recorded device (what an emulated device, or a plain replay, stands
 * for) and, for --replay-devices, each point's recorded raw samples. Read
 * once per rank with the one read-only open (h5open.c); it judges nothing,
 * and a point's wall time stays durations.h's.
 */
#ifndef SW_H5REPLAY_H
#define SW_H5REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* One point's recorded timing: its first ok row with samples, in file order. */
struct sw_replay_row {
	uint64_t point_id;
	uint32_t n_samples, launches_per_sample;
	int32_t l2_flushed;
	double timed_s;       /* s */
	size_t sample_offset; /* into sw_replay_file.samples_ns */
};

/* The GPU a recording measured on: its first /devices row's description
 * (docs/hdf5-schema.md, "Emulated devices"); 0 and "" where the file has no
 * row, or is too old to hold a column. */
struct sw_replay_device {
	char name[64], emulates[64];
	char backend[8]; /* the row's: cuda measured on the GPU named */
	int32_t cc, sm_count, mem_clock_khz, mem_bus_width_bits;
	double peak_gbps; /* GB/s */
	int64_t l2_bytes, mem_bytes;
};

struct sw_replay_file {
	struct sw_replay_row *rows; /* owned; sorted by point id, one per id */
	size_t n;
	double *samples_ns; /* owned: the file's /samples, ns */
	size_t n_samples;
	struct sw_replay_device dev;
};

/* The name of the GPU d stands for: a measured row's own (backend cuda),
 * a replayed row's emulated one (its emulates); "" for none (a model row). */
const char *sw_replay_device_gpu(const struct sw_replay_device *d);

/* The recorded device of path alone into *dev: the first /devices row of
 * class cls where one has it, else the first row (cls NULL or ""). SW_OK;
 * SW_EIO, SW_EINVAL (no sweep result file: no /devices), SW_EHDF5 as
 * sw_replay_file_read. Any single process may call it. */
enum sw_status sw_replay_device_read(const char *path, const char *cls,
				     struct sw_replay_device *dev, struct sw_err *err);

/*
 * Reads path's /measurements (point_id, status, n_samples, sample_offset,
 * launches_per_sample, l2_flushed, timed_s, rank, session), /samples and its
 * first /devices row into out; with cls (NULL or "": any), only the rows of
 * the ranks and sessions /devices labels cls, and the device as
 * sw_replay_device_read gives it (a recording of several classes' rows). Returns SW_OK; SW_EIO or SW_EINVAL as sw_durations_read does
 * for the file; SW_EINVAL when a column is missing or a row's samples lie
 * outside /samples (the message names them); SW_ENOMEM; SW_EHDF5. On failure
 * out is empty. Any single process may call it.
 */
enum sw_status sw_replay_file_read(const char *path, const char *cls, struct sw_replay_file *out,
				   struct sw_err *err);

/* The row of point id, or NULL. */
const struct sw_replay_row *sw_replay_file_find(const struct sw_replay_file *f, uint64_t id);

/* Frees out's arrays; it becomes empty. Safe on an empty or zeroed one. */
void sw_replay_file_fini(struct sw_replay_file *f);

#endif
