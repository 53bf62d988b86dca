/*
 * Progress of a sweep on stderr (rank 0): points done of total, rate, ETA,
 * and the last point written with its result. Redrawn in place on a
 * terminal, within 80 columns; one line every few seconds otherwise.
 */
#ifndef SW_PROGRESS_H
#define SW_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

#include "job/plan.h"
#include "core/record.h"

#define SW_PROGRESS_TTY_COLS 80

struct sw_progress {
	FILE *f;
	int tty, quiet;
	int cols; /* a line holds at most cols - 1 characters; 0: no limit (a log) */
	size_t total;
	double t0_s, last_s;
	size_t last_done;
	double total_s, done_s; /* expected seconds of all points and of those done; 0: by count */
};

/* now_s: a monotonic clock in seconds. */
void sw_progress_init(struct sw_progress *p, FILE *f, size_t total, int quiet, double now_s);
void sw_progress_update(struct sw_progress *p, size_t done, double now_s);
/* The same, and the line ends with the point just written and its result
 * ("  last: strided_read/course stride=4 n=64M 2301 GB/s"), the label cut
 * short to fit cols; pt and rec are read only when a line is drawn. */
void sw_progress_update_last(struct sw_progress *p, size_t done, double now_s,
			     const struct sw_plan_point *pt, const struct sw_record *rec);
/* Final line, whatever the interval. */
void sw_progress_finish(struct sw_progress *p, size_t done, double now_s);

/* "  120/400 points (30%)  5.2 points/s  ETA 0:54" */
void sw_progress_format(char *buf, size_t len, size_t done, size_t total, double elapsed_s);
/* The same with the ETA from expected seconds (cost.h) rather than the
 * count, when total_s and done_s are > 0: the rest takes elapsed x
 * (total_s - done_s) / done_s. */
void sw_progress_format_cost(char *buf, size_t len, size_t done, size_t total, double done_s,
			     double total_s, double elapsed_s);

/* "0:54", "12:03", from an hour on "1:02:03"; "--" when unknown or over a year. */
void sw_progress_format_duration(char *buf, size_t len, double s);

/* A row's result in a few words: "2301 GB/s", "512 GFLOP/s", "efficiency
 * 25%" (a model row), "skipped", "invalid", "failed", or "ok". */
void sw_progress_format_result(char *buf, size_t len, const struct sw_record *rec);

#endif
