/* Unit tests for progress.c: the line format at the start, midway, at the
 * end and with an hour-long ETA; the last point and its result, cut to 80
 * columns on a terminal; rate limiting driven by fake clocks into a plain
 * file and into a pseudo-terminal; quiet writes nothing. */
#define _XOPEN_SOURCE 700

#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "kernel.h"
#include "run/progress.h"

/* Everything written to f so far, NUL-terminated in buf. */
static size_t slurp(FILE *f, char *buf, size_t len)
{
	size_t n;

	fflush(f);
	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	return n;
}

static int count(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

START_TEST(test_format_start)
{
	char buf[128];

	sw_progress_format(buf, sizeof(buf), 0, 400, 0.0);
	ck_assert_str_eq(buf, "  0/400 points (0%)  -- points/s  ETA --");
	sw_progress_format(buf, sizeof(buf), 0, 400, 30.0);
	ck_assert_str_eq(buf, "  0/400 points (0%)  -- points/s  ETA --");
}
END_TEST

START_TEST(test_format_mid)
{
	char buf[128];

	/* 5.2 points/s; 280 left take 53.8 s. */
	sw_progress_format(buf, sizeof(buf), 120, 400, 120 / 5.2);
	ck_assert_str_eq(buf, "  120/400 points (30%)  5.2 points/s  ETA 0:54");
	/* Never 100% before the last point. */
	sw_progress_format(buf, sizeof(buf), 999, 1000, 10.0);
	ck_assert_ptr_nonnull(strstr(buf, "(99%)"));
}
END_TEST

START_TEST(test_format_done)
{
	char buf[128];

	sw_progress_format(buf, sizeof(buf), 400, 400, 72.0);
	ck_assert_str_eq(buf, "  400/400 points (100%)  5.6 points/s  ETA 0:00");
	sw_progress_format(buf, sizeof(buf), 0, 0, 0.0);
	ck_assert_str_eq(buf, "  0/0 points (100%)  -- points/s  ETA 0:00");
}
END_TEST

/* The ETA follows expected time, not the count: 10 of 400 points done in
 * 30 s, but they were a quarter of the expected work, so 90 s remain. */
START_TEST(test_format_by_cost)
{
	char buf[128];

	sw_progress_format_cost(buf, sizeof(buf), 10, 400, 25.0, 100.0, 30.0);
	ck_assert_str_eq(buf, "  10/400 points (2%)  3.0 s/point  ETA 1:30");
	/* without expected times, by count: 390 more at 3 s each */
	sw_progress_format_cost(buf, sizeof(buf), 10, 400, 0, 0, 30.0);
	ck_assert_str_eq(buf, "  10/400 points (2%)  3.0 s/point  ETA 19:30");
}
END_TEST

START_TEST(test_format_hours)
{
	char buf[128];

	/* 6 s a point, 990 left: 5940 s. */
	sw_progress_format(buf, sizeof(buf), 10, 1000, 60.0);
	ck_assert_str_eq(buf, "  10/1000 points (1%)  6.0 s/point  ETA 1:39:00");
	/* Exactly one hour. */
	sw_progress_format(buf, sizeof(buf), 1, 2, 3600.0);
	ck_assert_ptr_nonnull(strstr(buf, "ETA 1:00:00"));
	/* Just under: minutes and seconds. */
	sw_progress_format(buf, sizeof(buf), 1, 2, 3599.0);
	ck_assert_ptr_nonnull(strstr(buf, "ETA 59:59"));
}
END_TEST

START_TEST(test_format_truncates)
{
	char buf[8];

	memset(buf, 'x', sizeof(buf));
	sw_progress_format(buf, sizeof(buf), 120, 400, 10.0);
	ck_assert_uint_eq(strlen(buf), sizeof(buf) - 1);
	ck_assert_str_eq(buf, "  120/4");
}
END_TEST

/* A plan point of strided_read/course with stride 4 and n 64M (the other
 * axes unused), and an ok row of it at 2301.4 GB/s. */
static void strided_point(struct sw_plan_point *pt, struct sw_record *rec)
{
	const struct sw_family *f = NULL;
	memset(pt, 0, sizeof *pt);
	for (int i = 0; i < sw_family_count(); i++)
		if (strcmp(sw_family_at(i)->name, "strided_read") == 0)
			pt->family = i, f = sw_family_at(i);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->variants[0].name, "course");
	for (int a = 0; a < SW_MAX_AXES; a++)
		pt->p.axis[a] = SW_AXIS_UNUSED;
	for (int a = 0; a < f->n_axes; a++) {
		if (strcmp(f->axes[a].name, "stride") == 0)
			pt->p.axis[a] = 4;
		if (strcmp(f->axes[a].name, "n") == 0)
			pt->p.axis[a] = 64 << 20;
	}
	sw_record_init(rec);
	rec->status = SW_ROW_OK;
	rec->gbps = 2301.4;
}

START_TEST(test_result_words)
{
	struct sw_plan_point pt;
	struct sw_record rec;
	char buf[32];

	strided_point(&pt, &rec);
	sw_progress_format_result(buf, sizeof buf, &rec);
	ck_assert_str_eq(buf, "2301 GB/s");
	rec.gbps = 37.52;
	sw_progress_format_result(buf, sizeof buf, &rec);
	ck_assert_str_eq(buf, "37.5 GB/s");
	rec.gbps = NAN; /* matmul: flops, no useful bytes */
	rec.gflops = 512.2;
	sw_progress_format_result(buf, sizeof buf, &rec);
	ck_assert_str_eq(buf, "512 GFLOP/s");
	rec.gflops = NAN; /* a model row: no timing, the model's efficiency */
	rec.model_efficiency = 0.25;
	sw_progress_format_result(buf, sizeof buf, &rec);
	ck_assert_str_eq(buf, "efficiency 25%");
	rec.model_efficiency = NAN;
	sw_progress_format_result(buf, sizeof buf, &rec);
	ck_assert_str_eq(buf, "ok");
	rec.status = SW_ROW_SKIPPED;
	rec.gbps = 100;
	sw_progress_format_result(buf, sizeof buf, &rec);
	ck_assert_str_eq(buf, "skipped");
	rec.status = SW_ROW_INVALID;
	sw_progress_format_result(buf, sizeof buf, &rec);
	ck_assert_str_eq(buf, "invalid");
	rec.status = SW_ROW_FAILED;
	sw_progress_format_result(buf, sizeof buf, &rec);
	ck_assert_str_eq(buf, "failed");
}
END_TEST

/* A log line carries the last point and its result whole. */
START_TEST(test_last_in_log)
{
	char mem[1024] = { 0 };
	FILE *f = fmemopen(mem, sizeof(mem), "w");
	struct sw_plan_point pt;
	struct sw_record rec;
	struct sw_progress p;

	ck_assert_ptr_nonnull(f);
	strided_point(&pt, &rec);
	sw_progress_init(&p, f, 400, 0, 0.0);
	ck_assert_int_eq(p.cols, 0);
	sw_progress_update_last(&p, 120, 120 / 5.2, &pt, &rec);
	sw_progress_update_last(&p, 121, 120 / 5.2 + 1, &pt, &rec); /* within 5 s: dropped */
	fclose(f);
	ck_assert_str_eq(mem, "  120/400 points (30%)  5.2 points/s  ETA 0:54"
			      "  last: strided_read/course stride=4 n=64M 2301 GB/s\n");
}
END_TEST

/* On an 80-column terminal the head gives up the rate for the label, and a
 * label still too long is cut, never the count, the ETA or the result. */
START_TEST(test_last_fits_80)
{
	char mem[1024] = { 0 }, *line;
	FILE *f = fmemopen(mem, sizeof(mem), "w");
	struct sw_plan_point pt;
	struct sw_record rec;
	struct sw_progress p;

	ck_assert_ptr_nonnull(f);
	strided_point(&pt, &rec);
	sw_progress_init(&p, f, 400, 0, 0.0);
	p.cols = SW_PROGRESS_TTY_COLS; /* as on a terminal, into a stream tests can read */
	sw_progress_update_last(&p, 120, 120 / 5.2, &pt, &rec);
	pt.cc = 13; /* a model point's label is longer */
	rec.status = SW_ROW_SKIPPED;
	sw_progress_update_last(&p, 121, 1200.0, &pt, &rec);
	fclose(f);
	line = strtok(mem, "\n");
	ck_assert_ptr_nonnull(line);
	ck_assert_str_eq(line, "  120/400 (30%)  ETA 0:54"
			       "  last: strided_read/course stride=4 n=64M 2301 GB/s");
	line = strtok(NULL, "\n");
	ck_assert_ptr_nonnull(line);
	ck_assert_uint_eq(strlen(line), SW_PROGRESS_TTY_COLS - 1);
	/* "strided_read/course stride=4 n=64M cc=1.3" cut to fit */
	ck_assert_str_eq(line, "  121/400 (30%)  ETA 46:07"
			       "  last: strided_read/course stride=4 n=64M... skipped");
}
END_TEST

/* Where not even a short label fits, the line is the count alone; a head
 * longer than the terminal is cut too. */
START_TEST(test_last_no_room)
{
	struct sw_plan_point pt;
	struct sw_record rec;
	struct sw_progress p;
	char mem[1024] = { 0 };
	FILE *f = fmemopen(mem, sizeof(mem), "w");

	ck_assert_ptr_nonnull(f);
	strided_point(&pt, &rec);
	sw_progress_init(&p, f, 400, 0, 0.0);
	p.cols = 40;
	sw_progress_update_last(&p, 120, 120 / 5.2, &pt, &rec);
	p.cols = 20;
	sw_progress_update_last(&p, 121, 100.0, &pt, &rec);
	sw_progress_update(&p, 122, 200.0);
	fclose(f);
	ck_assert_str_eq(mem, "  120/400 (30%)  ETA 0:54\n"
			      "  121/400 (30%)  ET\n"
			      "  122/400 points (3\n");
}
END_TEST

START_TEST(test_log_rate_limited)
{
	FILE *f = tmpfile();
	struct sw_progress p;
	char buf[4096];
	int i;

	ck_assert_ptr_nonnull(f);
	sw_progress_init(&p, f, 100, 0, 1000.0);
	ck_assert_int_eq(p.tty, 0);
	/* An update every 0.5 s for 20 s: lines at 0, 5, 10, 15 and 20 s. */
	for (i = 0; i <= 40; i++)
		sw_progress_update(&p, (size_t)i, 1000.0 + 0.5 * i);
	slurp(f, buf, sizeof(buf));
	ck_assert_int_eq(count(buf, "\n"), 5);
	ck_assert_int_eq(count(buf, "\r"), 0);
	ck_assert_int_eq(count(buf, "\033"), 0);
	ck_assert_ptr_nonnull(strstr(buf, "  0/100 points (0%)"));
	ck_assert_ptr_nonnull(strstr(buf, "  10/100 points (10%)  2.0 points/s  ETA 0:45\n"));
	ck_assert_ptr_nonnull(strstr(buf, "  40/100 points (40%)"));

	sw_progress_finish(&p, 100, 1050.0);
	slurp(f, buf, sizeof(buf));
	ck_assert_int_eq(count(buf, "\n"), 6);
	ck_assert_ptr_nonnull(strstr(buf, "\n  100/100 points in 0:50 (2.0 points/s)\n"));
	fclose(f);
}
END_TEST

START_TEST(test_fmemopen)
{
	char mem[1024] = { 0 };
	FILE *f = fmemopen(mem, sizeof(mem), "w");
	struct sw_progress p;

	ck_assert_ptr_nonnull(f);
	sw_progress_init(&p, f, 400, 0, 0.0);
	ck_assert_int_eq(p.tty, 0);
	sw_progress_update(&p, 1, 1.0);
	sw_progress_update(&p, 2, 2.0); /* within 5 s: dropped */
	sw_progress_finish(&p, 400, 72.0);
	fclose(f);
	ck_assert_str_eq(mem, "  1/400 points (0%)  1.0 points/s  ETA 6:39\n"
			      "  400/400 points in 1:12 (5.6 points/s)\n");
}
END_TEST

START_TEST(test_finish_hours)
{
	char mem[256] = { 0 };
	FILE *f = fmemopen(mem, sizeof(mem), "w");
	struct sw_progress p;

	ck_assert_ptr_nonnull(f);
	sw_progress_init(&p, f, 10, 0, 0.0);
	sw_progress_finish(&p, 7, 3723.0);
	fclose(f);
	ck_assert_str_eq(mem, "  7/10 points in 1:02:03 (531.9 s/point)\n");
}
END_TEST

START_TEST(test_quiet)
{
	FILE *f = tmpfile();
	struct sw_progress p;
	int i;

	ck_assert_ptr_nonnull(f);
	sw_progress_init(&p, f, 10, 1, 0.0);
	for (i = 0; i <= 10; i++)
		sw_progress_update(&p, (size_t)i, 10.0 * i);
	sw_progress_finish(&p, 10, 200.0);
	fflush(f);
	ck_assert_int_eq(ftell(f), 0);
	fclose(f);

	/* No stream at all behaves as quiet. */
	sw_progress_init(&p, NULL, 10, 0, 0.0);
	sw_progress_update(&p, 1, 10.0);
	sw_progress_finish(&p, 10, 20.0);
}
END_TEST

/* Reads what the terminal side received, until it stays quiet for 200 ms. */
static size_t drain(int master, char *buf, size_t len)
{
	struct pollfd pfd = { .fd = master, .events = POLLIN };
	size_t n = 0;

	while (n < len - 1 && poll(&pfd, 1, 200) > 0) {
		ssize_t r = read(master, buf + n, len - 1 - n);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return n;
}

START_TEST(test_tty_redraw)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	struct sw_progress p;
	char buf[16384];
	FILE *f;
	int i;

	if (master < 0 || grantpt(master) || unlockpt(master)) {
		if (master >= 0)
			close(master);
		return; /* no pseudo-terminals here: nothing to check */
	}
	f = fopen(ptsname(master), "w");
	ck_assert_ptr_nonnull(f);

	sw_progress_init(&p, f, 1000, 0, 0.0);
	ck_assert_int_eq(p.tty, 1);
	ck_assert_int_eq(p.cols, SW_PROGRESS_TTY_COLS);
	/* An update every 10 ms for one second: about ten redraws, not a hundred. */
	for (i = 0; i <= 100; i++)
		sw_progress_update(&p, (size_t)i, 0.01 * i);
	sw_progress_finish(&p, 1000, 2.0);
	drain(master, buf, sizeof(buf));
	fclose(f);
	close(master);

	ck_assert_int_ge(count(buf, "\033[K"), 10);
	ck_assert_int_le(count(buf, "\033[K"), 12);
	/* Redraws stay on one line; only the final line ends it. */
	ck_assert_int_eq(count(buf, "\n"), 1);
	ck_assert_ptr_nonnull(strstr(buf, "\r  1000/1000 points in 0:02 (500.0 points/s)\033[K"));
}
END_TEST

static Suite *progress_suite(void)
{
	Suite *s = suite_create("progress");
	TCase *fmt = tcase_create("format");
	TCase *out = tcase_create("output");

	tcase_add_test(fmt, test_format_start);
	tcase_add_test(fmt, test_format_mid);
	tcase_add_test(fmt, test_format_done);
	tcase_add_test(fmt, test_format_by_cost);
	tcase_add_test(fmt, test_format_hours);
	tcase_add_test(fmt, test_format_truncates);
	tcase_add_test(fmt, test_result_words);
	tcase_add_test(fmt, test_last_in_log);
	tcase_add_test(fmt, test_last_fits_80);
	tcase_add_test(fmt, test_last_no_room);
	suite_add_tcase(s, fmt);

	tcase_add_test(out, test_log_rate_limited);
	tcase_add_test(out, test_fmemopen);
	tcase_add_test(out, test_finish_hours);
	tcase_add_test(out, test_quiet);
	tcase_add_test(out, test_tty_redraw);
	suite_add_tcase(s, out);
	return s;
}

int main(void)
{
	return sw_check_run(progress_suite());
}
