/*
 * Progress lines of progress.h. Takes the time from the caller, so tests
 * drive it with fake clocks; writes only to the FILE it was given and never
 * reads a clock, the environment or MPI state itself.
 */
#define _POSIX_C_SOURCE 200809L

#include "run/progress.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#define SW_PROGRESS_TTY_INTERVAL_S 0.1 /* redraws: at most ~10 per second */
#define SW_PROGRESS_LOG_INTERVAL_S 5.0 /* full lines into a log file */

void sw_progress_format_duration(char *buf, size_t len, double s)
{
	unsigned long t, h, m;

	/* A year's bound keeps the conversion defined and the line short. */
	if (!(s >= 0.0) || s > 365.0 * 24 * 3600) {
		snprintf(buf, len, "--");
		return;
	}
	t = (unsigned long)lround(s);
	h = t / 3600;
	m = t / 60 % 60;
	if (h)
		snprintf(buf, len, "%lu:%02lu:%02lu", h, m, t % 60);
	else
		snprintf(buf, len, "%lu:%02lu", m, t % 60);
}

/* "5.2 points/s", or "12.5 s/point" when slower than one a second. */
static void format_rate(char *buf, size_t len, size_t done, double elapsed_s)
{
	double rate;

	if (done == 0 || !(elapsed_s > 0.0)) {
		snprintf(buf, len, "-- points/s");
		return;
	}
	rate = (double)done / elapsed_s;
	if (rate >= 1.0)
		snprintf(buf, len, "%.1f points/s", rate);
	else
		snprintf(buf, len, "%.1f s/point", 1.0 / rate);
}

void sw_progress_format(char *buf, size_t len, size_t done, size_t total, double elapsed_s)
{
	sw_progress_format_cost(buf, len, done, total, 0, 0, elapsed_s);
}

/* compact: "  120/400 (30%)  ETA 0:54", for a terminal line with a label. */
static void format_head(char *buf, size_t len, size_t done, size_t total, double done_s,
			double total_s, double elapsed_s, int compact)
{
	char rate[32], eta[32];
	unsigned pct;

	if (!buf || len == 0)
		return;
	if (total == 0 || done >= total)
		pct = 100;
	else
		pct = (unsigned)(done * 100.0 / (double)total); /* 100% only when done */

	format_rate(rate, sizeof(rate), done, elapsed_s);
	if (done >= total)
		sw_progress_format_duration(eta, sizeof(eta), 0.0);
	else if (done == 0 || !(elapsed_s > 0.0))
		sw_progress_format_duration(eta, sizeof(eta), NAN);
	else if (total_s > 0 && done_s > 0) /* by expected time: points differ a millionfold */
		sw_progress_format_duration(eta, sizeof(eta),
					    (total_s > done_s ? total_s - done_s : 0) * elapsed_s /
						    done_s);
	else
		sw_progress_format_duration(eta, sizeof(eta),
					    (double)(total - done) * elapsed_s / (double)done);

	if (compact)
		snprintf(buf, len, "  %zu/%zu (%u%%)  ETA %s", done, total, pct, eta);
	else
		snprintf(buf, len, "  %zu/%zu points (%u%%)  %s  ETA %s", done, total, pct, rate,
			 eta);
}

void sw_progress_format_cost(char *buf, size_t len, size_t done, size_t total, double done_s,
			     double total_s, double elapsed_s)
{
	format_head(buf, len, done, total, done_s, total_s, elapsed_s, 0);
}

/* Up to 3 significant digits, no exponent: "2301", "37.5", "0.42". */
static void format_rate_value(char *buf, size_t len, double v, const char *unit)
{
	snprintf(buf, len, v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, unit);
}

void sw_progress_format_result(char *buf, size_t len, const struct sw_record *rec)
{
	if (rec->status == SW_ROW_SKIPPED)
		snprintf(buf, len, "skipped");
	else if (rec->status == SW_ROW_INVALID)
		snprintf(buf, len, "invalid");
	else if (rec->status == SW_ROW_FAILED)
		snprintf(buf, len, "failed");
	else if (rec->gbps > 0) /* NaN when not timed */
		format_rate_value(buf, len, rec->gbps, "GB/s");
	else if (rec->gflops > 0)
		format_rate_value(buf, len, rec->gflops, "GFLOP/s");
	else if (rec->model_efficiency >= 0)
		snprintf(buf, len, "efficiency %.0f%%", 100 * rec->model_efficiency);
	else
		snprintf(buf, len, "ok");
}

/* Appends "  last: LABEL RESULT" to line, cutting the label ("...") so the
 * line stays under cols; nothing when not even a short label fits. */
static void append_last(char *line, size_t len, int cols, const char *label, const char *result)
{
	size_t n = strlen(line), room = len - 1;
	if (cols > 0 && (size_t)cols - 1 < room)
		room = (size_t)cols - 1;
	size_t fixed = n + strlen("  last:  ") + strlen(result), lab = strlen(label);
	if (fixed + lab <= room)
		snprintf(line + n, len - n, "  last: %s %s", label, result);
	else if (fixed + 12 <= room) /* room for a label's first few words */
		snprintf(line + n, len - n, "  last: %.*s... %s", (int)(room - fixed - 3), label,
			 result);
	line[room] = '\0'; /* a head longer than the terminal: cut too */
}

void sw_progress_init(struct sw_progress *p, FILE *f, size_t total, int quiet, double now_s)
{
	int fd = f ? fileno(f) : -1;

	p->f = f;
	p->quiet = quiet || !f;
	/* Streams without a descriptor (fmemopen) report -1: not a terminal. */
	p->tty = fd >= 0 && isatty(fd);
	p->cols = p->tty ? SW_PROGRESS_TTY_COLS : 0;
	p->total = total;
	p->t0_s = now_s;
	p->last_s = -INFINITY; /* nothing drawn yet: the first update shows */
	p->total_s = p->done_s = 0;
	p->last_done = 0;
}

void sw_progress_update(struct sw_progress *p, size_t done, double now_s)
{
	sw_progress_update_last(p, done, now_s, NULL, NULL);
}

void sw_progress_update_last(struct sw_progress *p, size_t done, double now_s,
			     const struct sw_plan_point *pt, const struct sw_record *rec)
{
	double interval = p->tty ? SW_PROGRESS_TTY_INTERVAL_S : SW_PROGRESS_LOG_INTERVAL_S;
	double elapsed_s = now_s - p->t0_s;
	char line[512];

	if (p->quiet || now_s - p->last_s < interval)
		return;
	format_head(line, sizeof line, done, p->total, p->done_s, p->total_s, elapsed_s, 0);
	if (pt && rec) { /* labelled only when drawn: rank 0 writes thousands of rows a second */
		char label[256], result[32];
		sw_point_label(pt, label, sizeof label);
		sw_progress_format_result(result, sizeof result, rec);
		/* a terminal's line too short for it all: the head gives up the rate */
		if (p->cols > 0 &&
		    strlen(line) + strlen("  last:  ") + strlen(label) + strlen(result) >=
			    (size_t)p->cols)
			format_head(line, sizeof line, done, p->total, p->done_s, p->total_s,
				    elapsed_s, 1);
		append_last(line, sizeof line, p->cols, label, result);
	} else if (p->cols > 0 && strlen(line) >= (size_t)p->cols) {
		line[p->cols - 1] = '\0';
	}
	if (p->tty)
		fprintf(p->f, "\r%s\033[K", line);
	else
		fprintf(p->f, "%s\n", line);
	fflush(p->f);
	p->last_s = now_s;
	p->last_done = done;
}

void sw_progress_finish(struct sw_progress *p, size_t done, double now_s)
{
	double elapsed_s = now_s - p->t0_s;
	char took[32], rate[32];

	if (p->quiet)
		return;
	sw_progress_format_duration(took, sizeof(took), elapsed_s);
	format_rate(rate, sizeof(rate), done, elapsed_s);
	fprintf(p->f, "%s  %zu/%zu points in %s (%s)%s\n", p->tty ? "\r" : "", done, p->total, took,
		rate, p->tty ? "\033[K" : "");
	fflush(p->f);
	p->last_s = now_s;
	p->last_done = done;
}
