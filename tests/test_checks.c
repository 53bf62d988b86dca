/*
 * The checks beside the GPU (src/backend/checks.h, issue 22): several in
 * flight, records complete in the order their points were queued whatever
 * order the checks finish in, and a host set is reused only once free.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <string.h>
#include <time.h>

#include "check_run.h"
#include "backend/checks.h"

/* A check that takes axis[0] milliseconds and passes, or fails on axis[1]. */
static void slow_check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	struct timespec ts = { 0, (long)p->axis[0] * 1000000L };
	(void)o;
	nanosleep(&ts, NULL);
	sw_check_begin(c, 1, 1);
	c->ok = p->axis[1] == 0;
}

static const struct sw_family fake = { .name = "fake", .check = slow_check };

/* Runs n points through the ring as sw_measure_start_point does: the
 * oldest settled when the next set is held, then the point queued, then
 * every record ready; ms[i] < 0: a point with nothing to check. */
static int run_points(const int *ms, int n, struct sw_record *recs, struct sw_record **order)
{
	static struct sw_checks c;
	struct outcopy oc = { 0 };
	struct sw_record *r;
	int got = 0;
	memset(&c, 0, sizeof c);
	for (int i = 0; i < n; i++) {
		struct sw_point p = { 0, { ms[i] < 0 ? 0 : ms[i], 0 } };
		memset(&recs[i], 0, sizeof recs[i]);
		recs[i].point_id = (uint64_t)i;
		if (sw_checks_next_held(&c))
			order[got++] = sw_checks_settle(&c);
		ck_assert(!sw_checks_next_held(&c));
		sw_checks_queue(&c, ms[i] < 0 ? NULL : &fake, &p, &oc, &recs[i]);
		while ((r = sw_checks_ready(&c)))
			order[got++] = r;
	}
	while ((r = sw_checks_settle(&c)))
		order[got++] = r;
	return got;
}

START_TEST(records_complete_in_point_order)
{
	/* long checks first, short and unchecked ones after: they finish first */
	static const int ms[] = { 60, 5, -1, 1, 40, -1, 0, 2, 30, 1, -1, 0 };
	enum { N = sizeof ms / sizeof ms[0] };
	static struct sw_record recs[N];
	struct sw_record *order[N + 1];
	ck_assert_int_eq(run_points(ms, N, recs, order), N);
	for (int i = 0; i < N; i++) {
		ck_assert_uint_eq(order[i]->point_id, (uint64_t)i);
		ck_assert_str_eq(order[i]->check_mode, ms[i] < 0 ? "" : "full");
	}
}
END_TEST

START_TEST(checks_run_side_by_side)
{
	/* SW_CHECKS_IN_FLIGHT checks of 100 ms each overlap: well under their sum */
	int ms[SW_CHECKS_IN_FLIGHT];
	static struct sw_record recs[SW_CHECKS_IN_FLIGHT];
	struct sw_record *order[SW_CHECKS_IN_FLIGHT + 1];
	struct timespec t0, t1;
	for (int i = 0; i < SW_CHECKS_IN_FLIGHT; i++)
		ms[i] = 100;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(run_points(ms, SW_CHECKS_IN_FLIGHT, recs, order), SW_CHECKS_IN_FLIGHT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	ck_assert_msg(s < 0.1 * SW_CHECKS_IN_FLIGHT * 0.75, "%.3f s: the checks ran one by one", s);
}
END_TEST

/* The histogram's reference (issue 22 made "single" closed-form and the
 * recount parallel from 1M bytes on) against a byte-by-byte count of the
 * input as histogram.cuh defines it, n not a multiple of 8. */
static void histogram_check(int64_t dist)
{
	const struct sw_family *f = sw_family_find("histogram");
	const uint64_t n = (UINT64_C(1) << 21) + 5, seed = 0x5eedull + (uint64_t)dist;
	uint32_t counts[4] = { 0 };
	for (uint64_t i = 0; i < n; i++) {
		uint64_t word = dist == 2 ? (sw_mix64(seed) & 0xff) * 0x0101010101010101ull
					  : sw_mix64(seed ^ sw_mix64(i / 8));
		counts[(word >> (8 * (i % 8))) & 3]++;
	}
	struct sw_point p = { sw_variant_find(f, "shared_priv"), { 4, dist, (int64_t)n, 256 } };
	struct sw_host_out o = { .out = { NULL, counts },
				 .bytes = { 0, sizeof counts },
				 .seed = seed };
	struct sw_check c = { 0 };
	f->check(&p, &o, &c);
	ck_assert_msg(c.ok, "dist %d: %s", (int)dist, c.msg);
	ck_assert_uint_eq(c.checked, 4);
	counts[3]++;
	f->check(&p, &o, &c);
	ck_assert(!c.ok);
}

START_TEST(histogram_reference_counts_every_byte)
{
	histogram_check(0);
	histogram_check(2);
}
END_TEST

START_TEST(settle_on_nothing_is_null)
{
	static struct sw_checks c;
	memset(&c, 0, sizeof c);
	ck_assert_ptr_null(sw_checks_settle(&c));
	ck_assert_ptr_null(sw_checks_ready(&c));
	ck_assert_ptr_null(sw_checks_settle(NULL));
}
END_TEST

static Suite *checks_suite(void)
{
	Suite *s = suite_create("checks");
	TCase *t = tcase_create("checks");
	tcase_add_test(t, records_complete_in_point_order);
	tcase_add_test(t, checks_run_side_by_side);
	tcase_add_test(t, settle_on_nothing_is_null);
	tcase_add_test(t, histogram_reference_counts_every_byte);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return sw_check_run(checks_suite());
}
