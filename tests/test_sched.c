/* Scheduling bookkeeping: every point handed out exactly once, for 1 to 8
 * ranks, static and dynamic, also when a rank gives its points back; LPT's
 * makespan on known inputs and against the bound max(T1/N, longest), on the
 * H200 sweep's durations too; the cost dispenser's longest-first order, its
 * batches by cost and its give-back, and what a give-back costs (counted
 * steps, not time). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "run/place.h"
#include "run/sched.h"

#define N 1000

static uint32_t todo[N];

static void setup(void)
{
	for (uint32_t i = 0; i < N; i++)
		todo[i] = i * 3 + 7; /* plan indices need not be dense */
}

static void assert_each_once(const int *seen)
{
	for (uint32_t i = 0; i < N; i++)
		ck_assert_msg(seen[i] == 1, "entry %u ran %d times", i, seen[i]);
}

static int position(uint32_t idx)
{
	return (int)((idx - 7) / 3);
}

START_TEST(test_static_once)
{
	for (int ranks = 1; ranks <= 8; ranks++) {
		int seen[N] = { 0 }, per_rank[8] = { 0 };
		for (int r = 0; r < ranks; r++)
			for (size_t i = 0; i < N; i++)
				if (sw_sched_static_owner(i, ranks, 1) == r) {
					seen[i]++;
					per_rank[r]++;
				}
		assert_each_once(seen);
		for (int r = 0; r < ranks; r++) /* block-cyclic: balanced within one */
			ck_assert_int_le(abs(per_rank[r] - N / ranks), 1);
	}
	ck_assert_int_eq(sw_sched_static_owner(5, 2, 4), 1); /* block 4: 0-3 rank 0, 4-7 rank 1 */
	ck_assert_int_eq(sw_sched_static_owner(8, 2, 4), 0);
}
END_TEST

/* Simulated ranks asking in turn for batches of different sizes. */
START_TEST(test_dynamic_once)
{
	for (int ranks = 1; ranks <= 8; ranks++) {
		struct sw_dispenser d;
		int seen[N] = { 0 };
		ck_assert_int_eq(sw_dispenser_init(&d, todo, N), 0);
		uint32_t out[16];
		size_t k;
		int r = 0;
		do {
			k = sw_dispenser_take(&d, 1 + (size_t)(r % 3) * 5, out);
			for (size_t i = 0; i < k; i++)
				seen[position(out[i])]++;
			r = (r + 1) % ranks;
		} while (k > 0);
		ck_assert_uint_eq(sw_dispenser_left(&d), 0);
		assert_each_once(seen);
		sw_dispenser_fini(&d);
	}
}
END_TEST

START_TEST(test_give_back)
{
	struct sw_dispenser d;
	int seen[N] = { 0 };
	uint32_t out[N];
	ck_assert_int_eq(sw_dispenser_init(&d, todo, N), 0);
	/* a rank takes 40 and dies after running 10: 30 come back */
	size_t k = sw_dispenser_take(&d, 40, out);
	ck_assert_uint_eq(k, 40);
	for (size_t i = 0; i < 10; i++)
		seen[position(out[i])]++;
	ck_assert_int_eq(sw_dispenser_give_back(&d, out + 10, 30), 0);
	ck_assert_uint_eq(sw_dispenser_left(&d), N - 10);
	while ((k = sw_dispenser_take(&d, 64, out)) > 0)
		for (size_t i = 0; i < k; i++)
			seen[position(out[i])]++;
	assert_each_once(seen);
	sw_dispenser_fini(&d);
}
END_TEST

START_TEST(test_empty)
{
	struct sw_dispenser d;
	uint32_t out[4];
	ck_assert_int_eq(sw_dispenser_init(&d, NULL, 0), 0);
	ck_assert_uint_eq(sw_dispenser_take(&d, 4, out), 0);
	ck_assert_int_eq(sw_dispenser_give_back(&d, todo, 3), 0);
	ck_assert_uint_eq(sw_dispenser_take(&d, 4, out), 3);
	ck_assert_uint_eq(out[2], todo[2]);
	sw_dispenser_fini(&d);
}
END_TEST

/* ---- LPT ------------------------------------------------------------- */

static double makespan(const double *load, int ranks)
{
	double m = 0;
	for (int r = 0; r < ranks; r++)
		m = load[r] > m ? load[r] : m;
	return m;
}

/* The loads owner[] implies must be the ones LPT reported. */
static void assert_loads(const double *cost, size_t n, const int *owner, const double *load,
			 int ranks)
{
	double *sum = calloc((size_t)ranks, sizeof *sum);
	ck_assert_ptr_nonnull(sum);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_ge(owner[i], 0);
		ck_assert_int_lt(owner[i], ranks);
		sum[owner[i]] += cost[i] > 0 ? cost[i] : 0;
	}
	for (int r = 0; r < ranks; r++)
		ck_assert_double_eq_tol(sum[r], load[r], 1e-9 * (1 + load[r]));
	free(sum);
}

START_TEST(test_lpt_known)
{
	/* Two ranks: 3,3 apart, then 2,2,2 to the lighter: 7 and 5 (the optimum is 6). */
	const double a[] = { 2, 3, 2, 3, 2 };
	int owner[7];
	double load[4]; /* the last call below has 4 ranks */
	ck_assert_int_eq(sw_sched_lpt(a, 5, 2, owner, load), SW_OK);
	const int want_a[] = { 0, 0, 1, 1, 0 };
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(owner[i], want_a[i]);
	ck_assert_double_eq(load[0], 7);
	ck_assert_double_eq(load[1], 5);

	/* Graham's worst case for three ranks: 11 against the optimum 9 = 4/3 - 1/9. */
	const double b[] = { 5, 5, 4, 4, 3, 3, 3 };
	ck_assert_int_eq(sw_sched_lpt(b, 7, 3, owner, load), SW_OK);
	const int want_b[] = { 0, 1, 2, 2, 0, 1, 0 };
	for (int i = 0; i < 7; i++)
		ck_assert_int_eq(owner[i], want_b[i]);
	ck_assert_double_eq(load[0], 11);
	ck_assert_double_eq(load[1], 8);
	ck_assert_double_eq(load[2], 8);

	/* Ties: equal costs go in entry order to ranks in turn; NaN and negative
	 * count 0, so both go to the lightest rank, the lower of two equal ones. */
	const double c[] = { 1, 1, 1, 1, NAN, -2 };
	ck_assert_int_eq(sw_sched_lpt(c, 6, 3, owner, NULL), SW_OK);
	const int want_c[] = { 0, 1, 2, 0, 1, 1 };
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(owner[i], want_c[i]);
	ck_assert_double_eq(sw_sched_bound_s(c, 6, 3), 4.0 / 3);

	ck_assert_int_eq(sw_sched_lpt(a, 5, 0, owner, load), SW_EINVAL);
	ck_assert_int_eq(sw_sched_lpt(NULL, 0, 4, owner, load), SW_OK);
	for (int r = 0; r < 4; r++)
		ck_assert_double_eq(load[r], 0);
}
END_TEST

/* The static split of a to-do list: entry i costs the plan point todo[i]
 * costs, so the split is LPT over those costs, whatever the plan's order. */
START_TEST(test_lpt_todo)
{
	/* The to-do list picks five of seven plan points, out of order. */
	const double plan_cost_s[] = { 9, 3, 2, 7, 3, 1, 2 };
	const uint32_t list[] = { 6, 1, 2, 4, 5 }; /* costs 2, 3, 2, 3, 1 */
	int owner[7], direct[7];
	double picked[5];
	ck_assert_int_eq(sw_sched_lpt_todo(plan_cost_s, list, 5, 2, owner), SW_OK);
	const int want[] = { 0, 0, 1, 1, 0 }; /* 3,3 apart; 2,2 in turn; 1 to rank 0 (5 = 5) */
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(owner[i], want[i]);
	for (int i = 0; i < 5; i++)
		picked[i] = plan_cost_s[list[i]];
	ck_assert_int_eq(sw_sched_lpt(picked, 5, 2, direct, NULL), SW_OK);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(owner[i], direct[i]);

	/* No to-do list: the plan itself, in plan order. */
	ck_assert_int_eq(sw_sched_lpt_todo(plan_cost_s, NULL, 7, 3, owner), SW_OK);
	ck_assert_int_eq(sw_sched_lpt(plan_cost_s, 7, 3, direct, NULL), SW_OK);
	for (int i = 0; i < 7; i++)
		ck_assert_int_eq(owner[i], direct[i]);
	ck_assert_int_eq(owner[0], 0); /* the 9 s point alone on rank 0 */
	ck_assert_int_eq(owner[3], 1);

	ck_assert_int_eq(sw_sched_lpt_todo(plan_cost_s, list, 5, 0, owner), SW_EINVAL);
	ck_assert_int_eq(sw_sched_lpt_todo(plan_cost_s, list, 0, 2, owner), SW_OK);
}
END_TEST

/* A point longer than T1/N bounds the makespan: it runs alone and the rest
 * share the other ranks; equal points divide evenly. */
START_TEST(test_lpt_longest_point)
{
	static double cost[N];
	static int owner[N];
	double load[8];
	cost[0] = 100;
	for (int i = 1; i <= 100; i++)
		cost[i] = 1;
	ck_assert_double_eq(sw_sched_bound_s(cost, 101, 4), 100); /* T1/N = 50 */
	ck_assert_int_eq(sw_sched_lpt(cost, 101, 4, owner, load), SW_OK);
	ck_assert_double_eq(makespan(load, 4), 100);
	for (int i = 1; i <= 100; i++)
		ck_assert_int_ne(owner[i], owner[0]);
	ck_assert_double_eq(load[owner[0]], 100);

	for (int i = 0; i < N; i++)
		cost[i] = 1;
	ck_assert_double_eq(sw_sched_bound_s(cost, N, 8), N / 8);
	ck_assert_int_eq(sw_sched_lpt(cost, N, 8, owner, load), SW_OK);
	ck_assert_double_eq(makespan(load, 8), N / 8);
}
END_TEST

/* Heavy-tailed costs like a real sweep's: for 1 to 16 ranks, the makespan
 * lies between the bound and the list-scheduling guarantee. */
START_TEST(test_lpt_bound)
{
	static double cost[N];
	static int owner[N];
	double load[16];
	uint64_t x = 12345;
	for (int i = 0; i < N; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		double u = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
		cost[i] = 1e-3 * exp(12 * u * u * u);              /* 1 ms to 160 s */
	}
	for (int ranks = 1; ranks <= 16; ranks++) {
		double t1 = 0, longest = 0;
		for (int i = 0; i < N; i++) {
			t1 += cost[i];
			longest = cost[i] > longest ? cost[i] : longest;
		}
		double bound = sw_sched_bound_s(cost, N, ranks);
		ck_assert_double_eq_tol(bound, fmax(t1 / ranks, longest), 1e-9 * bound);
		ck_assert_int_eq(sw_sched_lpt(cost, N, ranks, owner, load), SW_OK);
		assert_loads(cost, N, owner, load, ranks);
		double m = makespan(load, ranks);
		ck_assert(m >= bound * (1 - 1e-12));
		ck_assert(m <= t1 / ranks + (1 - 1.0 / ranks) * longest + 1e-9);
	}
}
END_TEST

/* The H200 full sweep's real durations: LPT reaches the bound. */
START_TEST(test_lpt_h200)
{
	static double cost[4096];
	static int owner[4096];
	double load[16];
	char path[1024], line[256];
	size_t n = 0;
	snprintf(path, sizeof path, "%s/replay/h200-full-durations.csv", getenv("SW_TEST_DATA"));
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* the header */
	while (fgets(line, sizeof line, f)) {
		const char *comma = strrchr(line, ',');
		ck_assert_ptr_nonnull(comma);
		ck_assert_uint_lt(n, 4096);
		cost[n++] = strtod(comma + 1, NULL);
	}
	fclose(f);
	ck_assert_uint_eq(n, 3937);
	for (int ranks = 2; ranks <= 16; ranks *= 2) {
		double bound = sw_sched_bound_s(cost, n, ranks);
		ck_assert_int_eq(sw_sched_lpt(cost, n, ranks, owner, load), SW_OK);
		assert_loads(cost, n, owner, load, ranks);
		ck_assert_msg(makespan(load, ranks) <= bound * 1.001, "%d ranks: %g s, bound %g s",
			      ranks, makespan(load, ranks), bound);
	}
}
END_TEST

/* ---- the dispenser with costs ---------------------------------------- */

#define PLAN_N (3 * N + 7) /* the largest index of todo[] is below it */

static double plan_cost[PLAN_N];

static void random_costs(uint64_t seed)
{
	for (int i = 0; i < PLAN_N; i++) {
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		plan_cost[i] = (double)(seed >> 54) * 1e-3; /* 0 to 1023 ms, many ties */
	}
}

START_TEST(test_longest_first)
{
	struct sw_dispenser d;
	int seen[N] = { 0 };
	uint32_t out[1];
	double total = 0, prev = INFINITY;
	uint32_t prev_idx = 0;
	random_costs(7);
	for (int i = 0; i < N; i++)
		total += plan_cost[todo[i]];
	ck_assert_int_eq(sw_dispenser_init_cost(&d, todo, N, plan_cost, PLAN_N), SW_OK);
	ck_assert_double_eq_tol(sw_dispenser_left_s(&d), total, 1e-9);
	while (sw_dispenser_take(&d, 1, out) == 1) {
		double c = plan_cost[out[0]];
		ck_assert(c <= prev);
		if (c == prev) /* ties: the lower plan index first */
			ck_assert_uint_gt(out[0], prev_idx);
		prev = c;
		prev_idx = out[0];
		seen[position(out[0])]++;
	}
	assert_each_once(seen);
	ck_assert_double_eq(sw_dispenser_left_s(&d), 0);
	sw_dispenser_fini(&d);

	/* an index outside the plan is refused */
	ck_assert_int_eq(sw_dispenser_init_cost(&d, todo, N, plan_cost, todo[N - 1]), SW_EINVAL);
	ck_assert_ptr_null(d.queue);
	sw_dispenser_fini(&d);
}
END_TEST

/* Three long points one per request, then a 30 ms point topped up with
 * 1/1024 s points to the 48/1024 s target, then 48 of those at a time. */
START_TEST(test_batches_by_cost)
{
	enum { SHORT = 100, ALL = SHORT + 4 };
	static uint32_t idx[ALL], out[ALL];
	static double cost[ALL];
	const double unit = 1.0 / 1024, target = 48 * unit;
	const size_t want[] = { 1, 1, 1, 19, 48, 34 };
	struct sw_dispenser d;
	int seen[ALL] = { 0 };
	double batch_s;
	for (int i = 0; i < ALL; i++) {
		idx[i] = (uint32_t)i;
		cost[i] = i < SHORT ? unit : i < SHORT + 3 ? 0.2 : 0.03;
	}
	ck_assert_int_eq(sw_dispenser_init_cost(&d, idx, ALL, cost, ALL), SW_OK);
	for (size_t r = 0; r < sizeof want / sizeof want[0]; r++) {
		size_t k = sw_dispenser_take_batch(&d, target, 64, out, &batch_s);
		ck_assert_uint_eq(k, want[r]);
		double sum = 0;
		for (size_t i = 0; i < k; i++) {
			sum += cost[out[i]];
			seen[out[i]]++;
		}
		ck_assert_double_eq(batch_s, sum);
		if (r == 3)
			ck_assert_double_eq(batch_s, 0.03 + 18 * unit);
	}
	ck_assert_uint_eq(sw_dispenser_take_batch(&d, target, 64, out, &batch_s), 0);
	ck_assert_double_eq(batch_s, 0);
	for (int i = 0; i < ALL; i++)
		ck_assert_int_eq(seen[i], 1);
	sw_dispenser_fini(&d);

	/* at most max a batch */
	ck_assert_int_eq(sw_dispenser_init_cost(&d, idx, SHORT, cost, ALL), SW_OK);
	ck_assert_uint_eq(sw_dispenser_take_batch(&d, target, 16, out, NULL), 16);
	ck_assert_uint_eq(sw_dispenser_take_batch(&d, target, 0, out, NULL), 0);
	ck_assert_uint_eq(sw_dispenser_left(&d), SHORT - 16);
	sw_dispenser_fini(&d);

	/* without costs: one point per request */
	ck_assert_int_eq(sw_dispenser_init(&d, idx, 5), 0);
	ck_assert_uint_eq(sw_dispenser_take_batch(&d, target, 64, out, &batch_s), 1);
	ck_assert_uint_eq(out[0], 0);
	ck_assert_double_eq(batch_s, 0);
	ck_assert_double_eq(sw_dispenser_left_s(&d), 0);
	sw_dispenser_fini(&d);
}
END_TEST

/* 100,000 points of 1 ms at a 50 ms target: each batch is the shortest
 * that reaches the target, about 2000 requests in all, not 100,000. */
START_TEST(test_many_short_points)
{
	enum { MANY = 100000 };
	static uint32_t idx[MANY], out[MANY];
	static double cost[MANY];
	struct sw_dispenser d;
	size_t requests = 0, k, handed = 0;
	double batch_s;
	for (int i = 0; i < MANY; i++) {
		idx[i] = (uint32_t)i;
		cost[i] = 1e-3;
	}
	ck_assert_int_eq(sw_dispenser_init_cost(&d, idx, MANY, cost, MANY), SW_OK);
	while ((k = sw_dispenser_take_batch(&d, 0.05, 1000, out, &batch_s)) > 0) {
		requests++;
		handed += k;
		if (sw_dispenser_left(&d) > 0) /* all but the last reach the target */
			ck_assert(batch_s >= 0.05);
		ck_assert(batch_s - 1e-3 < 0.05); /* one point fewer would not */
	}
	ck_assert_uint_eq(handed, MANY);
	ck_assert_uint_le(requests, MANY / 49 + 1);
	ck_assert_uint_ge(requests, MANY / 51);
	sw_dispenser_fini(&d);
}
END_TEST

/* A rank that dies gives its points back: they go into cost order and
 * every point still runs once; an index outside the plan changes nothing. */
START_TEST(test_give_back_cost)
{
	struct sw_dispenser d;
	int seen[N] = { 0 };
	static uint32_t out[N];
	random_costs(99);
	ck_assert_int_eq(sw_dispenser_init_cost(&d, todo, N, plan_cost, PLAN_N), SW_OK);
	size_t k = sw_dispenser_take_batch(&d, 1e9, 40, out, NULL); /* the 40 longest */
	ck_assert_uint_eq(k, 40);
	for (size_t i = 0; i < 10; i++)
		seen[position(out[i])]++;
	double before = sw_dispenser_left_s(&d);
	uint32_t bad = PLAN_N;
	ck_assert_int_eq(sw_dispenser_give_back(&d, &bad, 1), -1);
	ck_assert_uint_eq(sw_dispenser_left(&d), N - 40);
	ck_assert_int_eq(sw_dispenser_give_back(&d, out + 10, 30), 0);
	ck_assert_uint_eq(sw_dispenser_left(&d), N - 10);
	double back = 0;
	for (size_t i = 10; i < 40; i++)
		back += plan_cost[out[i]];
	ck_assert_double_eq_tol(sw_dispenser_left_s(&d), before + back, 1e-9);
	/* the returned points were the longest: they come out first again */
	uint32_t again[30];
	ck_assert_uint_eq(sw_dispenser_take(&d, 30, again), 30);
	for (size_t i = 0; i < 30; i++) {
		ck_assert_uint_eq(again[i], out[10 + i]);
		seen[position(again[i])]++;
	}
	double prev = INFINITY;
	while ((k = sw_dispenser_take_batch(&d, 0.5, 64, out, NULL)) > 0)
		for (size_t i = 0; i < k; i++) {
			ck_assert(plan_cost[out[i]] <= prev);
			prev = plan_cost[out[i]];
			seen[position(out[i])]++;
		}
	assert_each_once(seen);
	sw_dispenser_fini(&d);

	/* static schedule: rank 0 starts empty and runs a dead rank's points, longest first */
	ck_assert_int_eq(sw_dispenser_init_cost(&d, NULL, 0, plan_cost, PLAN_N), SW_OK);
	ck_assert_int_eq(sw_dispenser_give_back(&d, todo, 5), 0);
	prev = INFINITY;
	for (int i = 0; i < 5; i++) {
		ck_assert_uint_eq(sw_dispenser_take(&d, 1, out), 1);
		ck_assert(plan_cost[out[0]] <= prev);
		prev = plan_cost[out[0]];
	}
	ck_assert_uint_eq(sw_dispenser_take(&d, 1, out), 0);
	sw_dispenser_fini(&d);
}
END_TEST

/* ---- the cost of giving back (issue 30, cause 2) --------------------- */

enum { BIG = 200000 };

/* log2(n) rounded up, for the bounds below. */
static size_t log2_up(size_t n)
{
	size_t l = 0;
	while (((size_t)1 << l) < n)
		l++;
	return l;
}

/* A stopped rank's 200,000 points given back one at a time while 200,000
 * more wait in the queue: each costs O(log n), not a sort of the queue (was:
 * about 200,000 x 200,000 log 200,000 steps, minutes at full CPU after a
 * Ctrl-C). The work is the dispenser's own count of comparisons and moves;
 * then everything still comes out once, longest first (ties: lower index). */
START_TEST(test_give_back_cost_is_n_log_n)
{
	static uint32_t idx[2 * BIG], out[2 * BIG];
	static double cost[2 * BIG];
	static char seen[2 * BIG];
	struct sw_dispenser d;
	uint64_t seed = 30;
	for (uint32_t i = 0; i < 2 * BIG; i++) {
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		cost[i] = (double)(seed >> 56) * 1e-3; /* 256 values: many ties */
		idx[i] = i;
	}
	ck_assert_int_eq(sw_dispenser_init_cost(&d, idx, 2 * BIG, cost, 2 * BIG), SW_OK);
	ck_assert_uint_eq(sw_dispenser_take(&d, BIG, out), BIG); /* a rank's share */
	size_t before = d.work;
	for (size_t i = 0; i < BIG; i++)
		ck_assert_int_eq(sw_dispenser_give_back(&d, &out[i], 1), 0);
	size_t one_by_one = d.work - before, lg = log2_up(2 * BIG);
	ck_assert_msg(one_by_one <= 2 * BIG * (lg + 1), "%zu steps to give back %d points",
		      one_by_one, BIG);
	ck_assert_uint_eq(sw_dispenser_left(&d), 2 * BIG);

	before = d.work;
	size_t k = sw_dispenser_take(&d, 2 * BIG, out);
	ck_assert_uint_eq(k, 2 * BIG);
	ck_assert_msg(d.work - before <= 3 * 2 * BIG * (lg + 1), "%zu steps to hand out %d",
		      d.work - before, 2 * BIG);
	for (size_t i = 0; i < k; i++) {
		ck_assert_int_eq(seen[out[i]]++, 0);
		if (i > 0)
			ck_assert(cost[out[i]] < cost[out[i - 1]] ||
				  (cost[out[i]] == cost[out[i - 1]] && out[i] > out[i - 1]));
	}
	sw_dispenser_fini(&d);

	/* the same points in one batch cost no more */
	ck_assert_int_eq(sw_dispenser_init_cost(&d, NULL, 0, cost, 2 * BIG), SW_OK);
	before = d.work;
	ck_assert_int_eq(sw_dispenser_give_back(&d, idx, 2 * BIG), 0);
	ck_assert_uint_le(d.work - before, 2 * 2 * BIG * (lg + 1));
	sw_dispenser_fini(&d);
}
END_TEST

/* Without costs: a rank that takes one point and gives one back, 200,000
 * times over a queue of 200,000, moves O(1) entries a time on average (was:
 * the whole queue moved on every give-back). */
START_TEST(test_give_back_fifo_is_linear)
{
	static uint32_t idx[BIG];
	struct sw_dispenser d;
	uint32_t one;
	for (uint32_t i = 0; i < BIG; i++)
		idx[i] = i;
	ck_assert_int_eq(sw_dispenser_init(&d, idx, BIG), 0);
	size_t before = d.work;
	for (size_t i = 0; i < BIG; i++) {
		ck_assert_uint_eq(sw_dispenser_take(&d, 1, &one), 1);
		ck_assert_int_eq(sw_dispenser_give_back(&d, &one, 1), 0);
	}
	ck_assert_msg(d.work - before <= 8 * (size_t)BIG, "%zu steps for %d take-give pairs",
		      d.work - before, BIG);
	/* the order: the untouched ones, then those given back, each once */
	ck_assert_uint_eq(sw_dispenser_left(&d), BIG);
	for (uint32_t i = 0; i < BIG; i++) {
		ck_assert_uint_eq(sw_dispenser_take(&d, 1, &one), 1);
		ck_assert_uint_eq(one, i);
	}
	sw_dispenser_fini(&d);
}
END_TEST

/* ---- placement (place.h) ---- */

static void device(struct sw_device_info *d, int rank, const char *name, int cc, int gib,
		   const char *uuid)
{
	memset(d, 0, sizeof *d);
	d->rank = rank;
	d->local_rank = rank;
	snprintf(d->host, sizeof d->host, "node");
	snprintf(d->name, sizeof d->name, "%s", name);
	snprintf(d->uuid, sizeof d->uuid, "%s", uuid);
	d->cc = cc;
	d->mem_bytes = (int64_t)gib << 30;
}

/* Four ranks: two A100 80 GiB, one A100 40 GiB, one H100. */
static void four_devices(struct sw_device_info *d)
{
	device(&d[0], 0, "NVIDIA A100", 80, 80, "GPU-a");
	device(&d[1], 1, "NVIDIA A100", 80, 80, "GPU-b");
	device(&d[2], 2, "NVIDIA A100", 80, 40, "GPU-c");
	device(&d[3], 3, "NVIDIA H100", 90, 80, "GPU-d");
}

START_TEST(test_place_classes)
{
	struct sw_device_info d[4];
	struct sw_place pl;
	four_devices(d);
	ck_assert_int_eq(sw_place_init(&pl, SW_PLACE_PER_CLASS, d, 4, NULL), SW_OK);
	ck_assert_int_eq(pl.n_classes, 3);
	ck_assert_int_eq(pl.class_of[0], pl.class_of[1]);
	ck_assert_int_ne(pl.class_of[1], pl.class_of[2]);
	ck_assert_str_eq(d[0].device_class, "NVIDIA A100 (80 GiB)");
	ck_assert_str_eq(d[2].device_class, "NVIDIA A100 (40 GiB)");
	ck_assert_str_eq(d[3].device_class, "NVIDIA H100"); /* its name alone is enough */
	ck_assert_int_eq(pl.n_groups, 3);
	ck_assert_int_eq(pl.group_of[1], pl.class_of[1]);
	sw_place_fini(&pl);
	ck_assert_int_eq(sw_place_init(&pl, SW_PLACE_EVERY_GPU, d, 4, NULL), SW_OK);
	ck_assert_int_eq(pl.n_groups, 4);
	ck_assert_int_eq(pl.group_of[3], 3);
	sw_place_fini(&pl);
	ck_assert_int_eq(sw_place_init(&pl, SW_PLACE_ONCE, d, 4, NULL), SW_OK);
	ck_assert_int_eq(pl.n_groups, 1);
	ck_assert_int_eq(pl.group_of[3], 0);
	sw_place_fini(&pl);
}
END_TEST

#define NP 10

/* Ten points, the first two calibration points. */
static void ten_points(struct sw_plan *plan, struct sw_plan_point *pts)
{
	memset(pts, 0, NP * sizeof *pts);
	for (int i = 0; i < NP; i++) {
		pts[i].id = 1000 + (uint64_t)i;
		pts[i].calibration = i < 2;
	}
	plan->points = pts;
	plan->n = NP;
}

/* Pairs of a fresh run of ten points (two calibration) on four ranks of
 * three classes, by placement. */
START_TEST(test_place_todo_counts)
{
	static const size_t want[SW_PLACE_N] = { 8 + 2 * 4, 8 * 3 + 2 * 4, 10 * 4 };
	struct sw_device_info d[4];
	struct sw_plan_point pts[NP];
	struct sw_plan plan;
	uint64_t gpu[4], cls[4];
	uint32_t pairs[NP * 4];
	int32_t owner[NP * 4];
	ten_points(&plan, pts);
	four_devices(d);
	for (int m = 0; m < SW_PLACE_N; m++) {
		struct sw_place pl;
		int per_owner[8] = { 0 };
		ck_assert_int_eq(sw_place_init(&pl, (enum sw_placement)m, d, 4, NULL), SW_OK);
		sw_place_hashes(d, 4, gpu, cls);
		size_t n = sw_place_todo(&plan, &pl, gpu, cls, NULL, 0, pairs, owner);
		ck_assert_uint_eq(n, want[m]);
		ck_assert_uint_eq(sw_place_todo(&plan, &pl, gpu, cls, NULL, 0, NULL, NULL), n);
		for (size_t i = 0; i < n; i++) {
			int cal = pts[pairs[i]].calibration;
			ck_assert_int_eq(cal, owner[i] < 0); /* calibration: one rank's own */
			per_owner[owner[i] < 0 ? 4 - owner[i] - 1 : owner[i]]++;
		}
		for (int k = 0; k < 4; k++) /* each rank owns each calibration point */
			ck_assert_int_eq(per_owner[4 + k], 2);
		sw_place_fini(&pl);
	}
}
END_TEST

/* A resume: the rows already there leave exactly the missing pairs, a GPU
 * of the file absent now owes nothing and a new GPU owes every point. */
START_TEST(test_place_todo_resume)
{
	struct sw_device_info old[2], now[2];
	struct sw_plan_point pts[NP];
	struct sw_plan plan;
	struct sw_place pl;
	struct sw_place_done done[3 * NP];
	uint64_t ids[3 * NP], gpu[2], cls[2];
	int32_t ranks[3 * NP], sessions[3 * NP], owner[2 * NP];
	uint32_t pairs[2 * NP];
	size_t n = 0, absent, fresh;
	ten_points(&plan, pts);
	device(&old[0], 0, "X", 90, 80, "GPU-a");
	device(&old[1], 1, "X", 90, 80, "GPU-b");
	/* session 0 on GPU-a and GPU-b: a all ten points, b the first three */
	for (int i = 0; i < NP; i++, n++) {
		ids[n] = pts[i].id;
		ranks[n] = 0;
		sessions[n] = 0;
	}
	for (int i = 0; i < 3; i++, n++) {
		ids[n] = pts[i].id;
		ranks[n] = 1;
		sessions[n] = 0;
	}
	sw_place_done_rows(ids, ranks, sessions, n, old, 2, done);
	/* now GPU-b and a new GPU-c, in that rank order */
	device(&now[0], 0, "X", 90, 80, "GPU-b");
	device(&now[1], 1, "X", 90, 80, "GPU-c");
	ck_assert_int_eq(sw_place_init(&pl, SW_PLACE_EVERY_GPU, now, 2, NULL), SW_OK);
	sw_place_hashes(now, 2, gpu, cls);
	size_t k = sw_place_todo(&plan, &pl, gpu, cls, done, n, pairs, owner);
	ck_assert_uint_eq(k, (NP - 3) + NP); /* b's missing seven, all of c's; none of a's */
	size_t on[2] = { 0, 0 };
	for (size_t i = 0; i < k; i++)
		on[owner[i] == 0 || owner[i] == SW_PLACE_OWN(0) ? 0 : 1]++;
	ck_assert_uint_eq(on[0], NP - 3);
	ck_assert_uint_eq(on[1], NP);
	sw_place_gpu_changes(done, n, gpu, 2, &absent, &fresh);
	ck_assert_uint_eq(absent, 1);
	ck_assert_uint_eq(fresh, 1);
	sw_place_fini(&pl);
	/* once: every point has a row, nothing to run; per_class: the one class too */
	ck_assert_int_eq(sw_place_init(&pl, SW_PLACE_ONCE, now, 2, NULL), SW_OK);
	ck_assert_uint_eq(sw_place_todo(&plan, &pl, gpu, cls, done, n, NULL, NULL),
			  2); /* only the two calibration points, on GPU-c */
	sw_place_fini(&pl);
}
END_TEST

/* Static shares: every pair in exactly one rank's share, only a rank's own
 * or its group's, calibration points first. */
START_TEST(test_place_static_share)
{
	struct sw_device_info d[4];
	struct sw_plan_point pts[NP];
	struct sw_plan plan;
	uint64_t gpu[4], cls[4];
	uint32_t pairs[NP * 4], share[NP * 4];
	int32_t owner[NP * 4];
	double cost[NP];
	ten_points(&plan, pts);
	four_devices(d);
	for (int i = 0; i < NP; i++)
		cost[i] = 1.0 + i;
	for (int m = 0; m < SW_PLACE_N; m++) {
		struct sw_place pl;
		int seen[NP][4] = { { 0 } };
		ck_assert_int_eq(sw_place_init(&pl, (enum sw_placement)m, d, 4, NULL), SW_OK);
		sw_place_hashes(d, 4, gpu, cls);
		size_t n = sw_place_todo(&plan, &pl, gpu, cls, NULL, 0, pairs, owner), total = 0;
		for (int r = 0; r < 4; r++) {
			long k = sw_place_static_share(&pl, cost, pairs, owner, n, r, share);
			ck_assert_int_ge(k, 2);
			ck_assert(pts[share[0]].calibration && pts[share[1]].calibration);
			for (long j = 0; j < k; j++)
				seen[share[j]][pl.class_of[r]]++;
			total += (size_t)k;
		}
		ck_assert_uint_eq(total, n);
		for (int i = 2; i < NP; i++) /* each point once per class (per_class) */
			for (int c = 0; m == SW_PLACE_PER_CLASS && c < pl.n_classes; c++)
				ck_assert_int_eq(seen[i][c], 1);
		sw_place_fini(&pl);
	}
}
END_TEST

int main(void)
{
	setup();
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("sched");
	tcase_add_test(tc, test_static_once);
	tcase_add_test(tc, test_dynamic_once);
	tcase_add_test(tc, test_give_back);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_lpt_known);
	tcase_add_test(tc, test_lpt_todo);
	tcase_add_test(tc, test_lpt_longest_point);
	tcase_add_test(tc, test_lpt_bound);
	tcase_add_test(tc, test_lpt_h200);
	tcase_add_test(tc, test_longest_first);
	tcase_add_test(tc, test_batches_by_cost);
	tcase_add_test(tc, test_many_short_points);
	tcase_add_test(tc, test_give_back_cost);
	tcase_add_test(tc, test_place_classes);
	tcase_add_test(tc, test_place_todo_counts);
	tcase_add_test(tc, test_place_todo_resume);
	tcase_add_test(tc, test_place_static_share);
	suite_add_tcase(s, tc);
	/* 400,000 points a test: check's 4 s is too tight on a loaded machine
	 * (what the tests assert is counted work, never time) */
	TCase *big = tcase_create("give_back_cost");
	tcase_set_timeout(big, 60);
	tcase_add_test(big, test_give_back_cost_is_n_log_n);
	tcase_add_test(big, test_give_back_fifo_is_linear);
	suite_add_tcase(s, big);
	return sw_check_run(s);
}
