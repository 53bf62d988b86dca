/*
 * Progress lines of progress.h. Takes the time from the caller, so tests
 * drive it with fake clocks; writes only to the FILE it was given and never
 * reads a clock, the environment or MPI state itself.
 */
#define _POSIX_C_SOURCE 200809L

#include "progress.h"

#include <math.h>
#include <unistd.h>

#define SW_PROGRESS_TTY_INTERVAL_S 0.1 /* redraws: at most ~10 per second */
#define SW_PROGRESS_LOG_INTERVAL_S 5.0 /* full lines into a log file */

/* "0:54", "12:03" or, from an hour on, "1:02:03"; "--" when unknown. */
static void format_duration(char *buf, size_t len, double s)
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

void sw_progress_format_cost(char *buf, size_t len, size_t done, size_t total, double done_s,
			     double total_s, double elapsed_s)
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
		format_duration(eta, sizeof(eta), 0.0);
	else if (done == 0 || !(elapsed_s > 0.0))
		format_duration(eta, sizeof(eta), NAN);
	else if (total_s > 0 && done_s > 0) /* by expected time: points differ a millionfold */
		format_duration(eta, sizeof(eta),
				(total_s > done_s ? total_s - done_s : 0) * elapsed_s / done_s);
	else
		format_duration(eta, sizeof(eta),
				(double)(total - done) * elapsed_s / (double)done);

	snprintf(buf, len, "  %zu/%zu points (%u%%)  %s  ETA %s", done, total, pct, rate, eta);
}

void sw_progress_init(struct sw_progress *p, FILE *f, size_t total, int quiet, double now_s)
{
	int fd = f ? fileno(f) : -1;

	p->f = f;
	p->quiet = quiet || !f;
	/* Streams without a descriptor (fmemopen) report -1: not a terminal. */
	p->tty = fd >= 0 && isatty(fd);
	p->total = total;
	p->t0_s = now_s;
	p->last_s = -INFINITY; /* nothing drawn yet: the first update shows */
	p->total_s = p->done_s = 0;
	p->last_done = 0;
}

void sw_progress_update(struct sw_progress *p, size_t done, double now_s)
{
	double interval = p->tty ? SW_PROGRESS_TTY_INTERVAL_S : SW_PROGRESS_LOG_INTERVAL_S;
	char line[160];

	if (p->quiet || now_s - p->last_s < interval)
		return;
	sw_progress_format_cost(line, sizeof(line), done, p->total, p->done_s, p->total_s,
				now_s - p->t0_s);
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
	format_duration(took, sizeof(took), elapsed_s);
	format_rate(rate, sizeof(rate), done, elapsed_s);
	fprintf(p->f, "%s  %zu/%zu points in %s (%s)%s\n", p->tty ? "\r" : "", done, p->total, took,
		rate, p->tty ? "\033[K" : "");
	fflush(p->f);
	p->last_s = now_s;
	p->last_done = done;
}
