/*
 * The checks beside the GPU (src/backend/checks.h, issue 22): several in
 * flight, records complete in the order their points were queued whatever
 * order the checks finish in, and a host set is reused only once free.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "check_run.h"
#include "backend/checks.h"

/* Checks of axis[2] != 0 wait, up to 60 s, until that many have started:
 * only checks that run side by side all get there. */
static pthread_mutex_t met_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t met_cond = PTHREAD_COND_INITIALIZER;
static int met_started;

static int all_met(int want)
{
	struct timespec until;
	int ok = 1;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 60;
	pthread_mutex_lock(&met_lock);
	met_started++;
	pthread_cond_broadcast(&met_cond);
	while (ok && met_started < want)
		ok = pthread_cond_timedwait(&met_cond, &met_lock, &until) == 0;
	pthread_mutex_unlock(&met_lock);
	return ok;
}

/* A check that takes axis[0] milliseconds and passes, or fails on axis[1];
 * or, with axis[2], meets axis[2] - 1 others first and fails without them. */
static void slow_check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	struct timespec ts = { 0, (long)p->axis[0] * 1000000L };
	(void)o;
	nanosleep(&ts, NULL);
	sw_check_begin(c, 1, 1);
	c->ok = p->axis[1] == 0 && (p->axis[2] == 0 || all_met((int)p->axis[2]));
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
	/* SW_CHECKS_IN_FLIGHT checks each wait for all of them to have started:
	 * one by one, the first would wait alone and fail */
	static struct sw_checks c;
	static struct sw_record recs[SW_CHECKS_IN_FLIGHT];
	struct outcopy oc = { 0 };
	memset(&c, 0, sizeof c);
	for (int i = 0; i < SW_CHECKS_IN_FLIGHT; i++) {
		struct sw_point p = { 0, { 0, 0, SW_CHECKS_IN_FLIGHT } };
		ck_assert(!sw_checks_next_held(&c));
		sw_checks_queue(&c, &fake, &p, &oc, &recs[i]);
	}
	for (int i = 0; i < SW_CHECKS_IN_FLIGHT; i++) {
		struct sw_record *r = sw_checks_settle(&c);
		ck_assert_ptr_eq(r, &recs[i]);
		ck_assert_msg(r->status == SW_ROW_OK, "check %d: %s", i, r->message);
	}
	ck_assert_int_eq(met_started, SW_CHECKS_IN_FLIGHT);
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
