/*
 * The checks beside the GPU (src/backend/checks.h, issue 22): up to
 * SW_CHECKS_IN_FLIGHT queued without holding the feeder, records complete in
 * the order their points were queued, unchecked ones included, and a host
 * set is reused only once its record is returned.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_run.h"
#include "backend/checks.h"
#include "backend/pinned_pool.h"

/* Checks of axis[2] != 0 wait, up to 60 s, until the test opens the gate. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open, gate_waiting;

static int through_gate(void)
{
	struct timespec until;
	int ok = 1;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 60;
	pthread_mutex_lock(&gate_lock);
	gate_waiting++;
	pthread_cond_broadcast(&gate_cond);
	while (ok && !gate_open)
		ok = pthread_cond_timedwait(&gate_cond, &gate_lock, &until) == 0;
	pthread_mutex_unlock(&gate_lock);
	return ok;
}

/* A check that takes axis[0] milliseconds and passes, or fails on axis[1];
 * with axis[2], it waits at the gate first. */
static void slow_check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	struct timespec ts = { 0, (long)p->axis[0] * 1000000L };
	(void)o;
	nanosleep(&ts, NULL);
	sw_check_begin(c, 1, 1);
	c->ok = p->axis[1] == 0 && (p->axis[2] == 0 || through_gate());
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
	sw_checks_init(&c);
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
	sw_checks_fini(&c);
	return got;
}

START_TEST(records_complete_in_point_order)
{
	/* long checks and unchecked points mixed, more than the ring holds */
	static const int ms[] = { 60, 5, -1, 1,  40, -1, 0,  2, 30, 1,  -1, 0, 20, -1, -1,
				  3,  0, 1,  -1, 9,  0,  -1, 4, 0,  -1, 2,  1, 0,  7 };
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

START_TEST(checks_queue_beside_the_feeder)
{
	/* SW_CHECKS_IN_FLIGHT checks queue while the first is held at the gate:
	 * the feeder never waits for them, none is returned early, and once the
	 * gate opens they all come back in order */
	static struct sw_checks c;
	static struct sw_record recs[SW_CHECKS_IN_FLIGHT];
	struct outcopy oc = { 0 };
	sw_checks_init(&c);
	for (int i = 0; i < SW_CHECKS_IN_FLIGHT; i++) {
		struct sw_point p = { 0, { 0, 0, 1 } };
		ck_assert(!sw_checks_next_held(&c));
		sw_checks_queue(&c, &fake, &p, &oc, &recs[i]);
	}
	pthread_mutex_lock(&gate_lock);
	while (gate_waiting == 0) /* the first check has started */
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
	ck_assert_ptr_null(sw_checks_ready(&c));
	ck_assert(!sw_checks_next_held(&c)); /* the thirteenth set is free */
	pthread_mutex_lock(&gate_lock);
	gate_open = 1;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
	for (int i = 0; i < SW_CHECKS_IN_FLIGHT; i++) {
		struct sw_record *r = sw_checks_settle(&c);
		ck_assert_ptr_eq(r, &recs[i]);
		ck_assert_msg(r->status == SW_ROW_OK, "check %d: %s", i, r->message);
	}
	ck_assert_ptr_null(sw_checks_settle(&c));
	ck_assert_int_eq(gate_waiting, SW_CHECKS_IN_FLIGHT);
	sw_checks_fini(&c);
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
	sw_checks_init(&c);
	ck_assert_ptr_null(sw_checks_settle(&c));
	ck_assert_ptr_null(sw_checks_ready(&c));
	ck_assert_ptr_null(sw_checks_settle(NULL));
	sw_checks_fini(&c);
}
END_TEST

/* The pinned pool on malloc, counting what it allocates and frees. */
static int allocs, frees, fail_next;

static void *count_alloc(size_t bytes)
{
	if (fail_next)
		return NULL;
	allocs++;
	return malloc(bytes);
}

static void count_free(void *p)
{
	frees++;
	free(p);
}

static struct sw_pinned_pool *fresh_pool(size_t budget)
{
	static struct sw_pinned_pool pp;
	allocs = frees = fail_next = 0;
	pp = (struct sw_pinned_pool){ .alloc = count_alloc,
				      .release = count_free,
				      .budget = budget };
	return &pp;
}

START_TEST(pinned_pool_reuses_the_smallest_block_that_fits)
{
	struct sw_pinned_pool *pp = fresh_pool(1000);
	void *a, *b, *c;
	ck_assert_int_eq(sw_pinned_get(pp, 300, 0, &a), SW_PINNED_OK);
	ck_assert_int_eq(sw_pinned_get(pp, 100, 0, &b), SW_PINNED_OK);
	sw_pinned_put(pp, a);
	sw_pinned_put(pp, b);
	ck_assert_int_eq(sw_pinned_get(pp, 50, 0, &c), SW_PINNED_OK);
	ck_assert_ptr_eq(c, b);
	ck_assert_int_eq(sw_pinned_get(pp, 200, 0, &c), SW_PINNED_OK);
	ck_assert_ptr_eq(c, a);
	ck_assert_int_eq(allocs, 2);
	/* a small request leaves a far larger block for one that needs it */
	void *big, *small;
	pp->budget = SIZE_MAX; /* room for both: the big one stays */
	ck_assert_int_eq(sw_pinned_get(pp, SW_PINNED_SMALL * 4, 1, &big), SW_PINNED_OK);
	sw_pinned_put(pp, big);
	ck_assert_int_eq(sw_pinned_get(pp, SW_PINNED_SMALL, 1, &small), SW_PINNED_OK);
	ck_assert_ptr_ne(small, big);
	ck_assert_int_eq(allocs, 4);
	sw_pinned_free_all(pp);
	ck_assert_int_eq(frees, 4);
}
END_TEST

START_TEST(pinned_pool_stays_within_its_budget)
{
	struct sw_pinned_pool *pp = fresh_pool(250);
	void *a, *b, *c;
	ck_assert_int_eq(sw_pinned_get(pp, 100, 0, &a), SW_PINNED_OK);
	ck_assert_int_eq(sw_pinned_get(pp, 100, 0, &b), SW_PINNED_OK);
	/* both in use: a third would pass the budget */
	ck_assert_int_eq(sw_pinned_get(pp, 100, 0, &c), SW_PINNED_FULL);
	sw_pinned_put(pp, a);
	ck_assert_int_eq(sw_pinned_get(pp, 100, 0, &c), SW_PINNED_OK);
	ck_assert_ptr_eq(c, a);
	/* an unused block too small for the request is freed to make room */
	sw_pinned_put(pp, c);
	ck_assert_int_eq(sw_pinned_get(pp, 150, 0, &c), SW_PINNED_OK);
	ck_assert_int_eq(frees, 1);
	ck_assert_uint_eq(pp->total, 250);
	/* with force, past the budget; a failing allocator says so */
	ck_assert_int_eq(sw_pinned_get(pp, 100, 1, &a), SW_PINNED_OK);
	ck_assert_uint_eq(pp->total, 350);
	fail_next = 1;
	ck_assert_int_eq(sw_pinned_get(pp, 100, 1, &a), SW_PINNED_NOMEM);
	sw_pinned_free_all(pp);
	ck_assert_uint_eq(pp->total, 0);
}
END_TEST

static Suite *checks_suite(void)
{
	Suite *s = suite_create("checks");
	TCase *t = tcase_create("checks");
	tcase_add_test(t, records_complete_in_point_order);
	tcase_add_test(t, checks_queue_beside_the_feeder);
	tcase_add_test(t, settle_on_nothing_is_null);
	tcase_add_test(t, pinned_pool_reuses_the_smallest_block_that_fits);
	tcase_add_test(t, pinned_pool_stays_within_its_budget);
	tcase_add_test(t, histogram_reference_counts_every_byte);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return sw_check_run(checks_suite());
}
