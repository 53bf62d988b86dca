/*
 * Progress of a sweep on stderr (rank 0): points done of total, rate, ETA.
 * Redrawn in place on a terminal; one line every few seconds otherwise.
 */
#ifndef SW_PROGRESS_H
#define SW_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

struct sw_progress {
	FILE *f;
	int tty, quiet;
	size_t total;
	double t0_s, last_s;
	size_t last_done;
	double total_s, done_s; /* expected seconds of all points and of those done; 0: by count */
};

/* now_s: a monotonic clock in seconds. */
void sw_progress_init(struct sw_progress *p, FILE *f, size_t total, int quiet, double now_s);
void sw_progress_update(struct sw_progress *p, size_t done, double now_s);
/* Final line, whatever the interval. */
void sw_progress_finish(struct sw_progress *p, size_t done, double now_s);

/* "  120/400 points (30%)  5.2 points/s  ETA 0:54" */
void sw_progress_format(char *buf, size_t len, size_t done, size_t total, double elapsed_s);
/* The same with the ETA from expected seconds (cost.h) rather than the
 * count, when total_s and done_s are > 0: the rest takes elapsed x
 * (total_s - done_s) / done_s. */
void sw_progress_format_cost(char *buf, size_t len, size_t done, size_t total, double done_s,
			     double total_s, double elapsed_s);

#endif
