/* Scheduling bookkeeping: every point handed out exactly once, for 1 to 8
 * ranks, static and dynamic, also when a rank gives its points back. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

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

int main(void)
{
	setup();
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("sched");
	tcase_add_test(tc, test_static_once);
	tcase_add_test(tc, test_dynamic_once);
	tcase_add_test(tc, test_give_back);
	tcase_add_test(tc, test_empty);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
