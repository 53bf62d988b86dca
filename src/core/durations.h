/*
 * What each point cost in wall time the last time it ran, read back from a
 * sweep result file: the input of the cost model (cost.h) and of schedule
 * replays. The table is plain data any module may hold; reading it
 * (h5durations.c, in sw_h5) is the only part that needs HDF5. It does not
 * judge the measurements: a duration is wall time on the rank, nothing more.
 */
#ifndef SW_DURATIONS_H
#define SW_DURATIONS_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"
#include "core/status.h"

/* The longest wall time a duration may hold, in s: a week. A point's
 * timing is capped at an hour (measure.time_cap_s); anything near this is
 * a damaged or forged recording, and a sleep of it no replay wants. */
#define SW_DURATION_MAX_S (7 * 24 * 3600.0)

/* A device class label's room: /devices' device_class (device_info.h). */
#define SW_DURATION_CLASS_LEN 96

struct sw_duration {
	uint64_t point_id;
	char family[SW_TEXT_LEN];
	char variant[SW_TEXT_LEN];
	int32_t status;      /* SW_ROW_OK or SW_ROW_SKIPPED */
	double useful_bytes; /* bytes, as the row recorded them */
	double flops;        /* flop */
	double wall_s;       /* s: how long the point held its rank */
	/* the class of the GPU it ran on: /devices' device_class of its rank
	 * and session, or that row's name in a file before schema 5; "" when
	 * the file says nothing (no /devices row, a .csv table) */
	char device_class[SW_DURATION_CLASS_LEN];
};

struct sw_durations {
	struct sw_duration *rows; /* owned; in file order */
	size_t n;
	int from_end_unix; /* 1: the file has an end_unix column */
};

/*
 * Reads path's /measurements read-only, as a SWMR reader without HDF5's
 * file lock (a running sweep's file reads as of its last flush, a killed
 * one's as it was left), and fills out with one row per ok or skipped row.
 * Fill rows (status -1) and rows a resume marked damaged (-2) are dropped,
 * and so are rows without a family or variant (damaged: a block read back
 * as zeros); invalid and failed rows are left out but still end the gap of
 * the point before them.
 *
 * wall_s is end_unix - start_unix where the file has an end_unix column and
 * both are finite; otherwise the gap to the next start_unix of the same
 * rank and session (rows ordered by start_unix, ties in file order), and
 * for a rank's last row of a session its timed_s (0 when NaN).
 *
 * device_class is the label of the row's rank and session in /devices
 * (its device_class column, else its name); "" where /devices is missing
 * or has no such row. /devices is read only for that: a file without it,
 * or with one this reader cannot read, still gives every duration.
 *
 * Returns SW_OK; SW_EIO when path is missing or unreadable; SW_EINVAL when
 * it is not HDF5, HDF5 cannot open it, or it has no /measurements table or
 * lacks a column or holds one of the wrong type (the message names it), or
 * when an ok or skipped row's wall_s fails sw_duration_wall_ok (the message
 * names the row and its point);
 * SW_ENOMEM; SW_EHDF5 when reading fails. On failure out is empty.
 * Rank 0 only in a run (any single process may call it). Switches HDF5's
 * automatic error printing off, as the writer does.
 */
enum sw_status sw_durations_read(const char *path, struct sw_durations *out, struct sw_err *err);

/* The same from a text table (a name ending in .csv): a header line, then
 * `point_id_hex,family,variant,seconds` per row, every row ok, every
 * seconds passing sw_duration_wall_ok (else SW_EINVAL naming the line and
 * the point). Pure. */
enum sw_status sw_durations_read_csv(const char *path, struct sw_durations *out,
				     struct sw_err *err);

/* The one check of a wall time that both readers make (h5durations.c and
 * durations_csv.c): finite, at least 0, at most SW_DURATION_MAX_S. 1 when
 * wall_s passes; else 0, with why ("-5 s is negative; a duration is from 0
 * to 604800 s") in why (len bytes; why may be NULL). Pure. */
int sw_duration_wall_ok(double wall_s, char *why, size_t len);

/* Frees rows; d becomes empty. Safe on an empty or zeroed table. */
void sw_durations_fini(struct sw_durations *d);

#endif
