/* Unit tests for stats.c: known values, medians of odd and even counts,
 * the n = 1 and n = 0 edges and the relative standard error. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "check_run.h"
#include "core/stats.h"

#define TOL 1e-12

START_TEST(test_known_values)
{
	/* Classic example: mean 5, sum of squared deviations 32. */
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct sw_stats s;

	sw_stats_compute(x, 8, &s);
	ck_assert_uint_eq(s.n, 8);
	ck_assert_double_eq_tol(s.mean, 5.0, TOL);
	ck_assert_double_eq_tol(s.min, 2.0, TOL);
	ck_assert_double_eq_tol(s.max, 9.0, TOL);
	ck_assert_double_eq_tol(s.stddev, sqrt(32.0 / 7.0), TOL);
	ck_assert_double_eq_tol(s.median, 4.5, TOL);
	ck_assert_double_eq_tol(s.rse, sqrt(32.0 / 7.0) / sqrt(8.0) / 5.0, TOL);
}
END_TEST

START_TEST(test_median_odd_unsorted)
{
	const double x[] = { 9, 1, 5, 3, 7 };
	struct sw_stats s;

	sw_stats_compute(x, 5, &s);
	ck_assert_double_eq_tol(s.median, 5.0, TOL);
	ck_assert_double_eq_tol(s.min, 1.0, TOL);
	ck_assert_double_eq_tol(s.max, 9.0, TOL);
	/* The input is not reordered. */
	ck_assert_double_eq(x[0], 9.0);
	ck_assert_double_eq(x[4], 7.0);
}
END_TEST

START_TEST(test_median_even_unsorted)
{
	const double x[] = { 10, 2, 8, 4 };
	struct sw_stats s;

	sw_stats_compute(x, 4, &s);
	ck_assert_double_eq_tol(s.median, 6.0, TOL);
	ck_assert_double_eq_tol(s.mean, 6.0, TOL);
}
END_TEST

START_TEST(test_median_large)
{
	/* More samples than the on-stack copy holds. */
	size_t n = 1001, i;
	double *x = malloc(n * sizeof(*x));
	struct sw_stats s;

	ck_assert_ptr_nonnull(x);
	for (i = 0; i < n; i++)
		x[i] = (double)((i * 7919) % n); /* a permutation of 0..1000 */
	sw_stats_compute(x, n, &s);
	ck_assert_double_eq_tol(s.median, 500.0, TOL);
	ck_assert_double_eq_tol(s.mean, 500.0, TOL);
	ck_assert_double_eq_tol(s.min, 0.0, TOL);
	ck_assert_double_eq_tol(s.max, 1000.0, TOL);
	free(x);
}
END_TEST

START_TEST(test_one_sample)
{
	const double x[] = { 3.5 };
	struct sw_stats s;

	sw_stats_compute(x, 1, &s);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_double_eq(s.median, 3.5);
	ck_assert_double_eq(s.min, 3.5);
	ck_assert_double_eq(s.max, 3.5);
	ck_assert_double_eq(s.mean, 3.5);
	ck_assert_double_eq(s.stddev, 0.0);
	ck_assert(isinf(s.rse) && s.rse > 0);
}
END_TEST

START_TEST(test_no_samples)
{
	struct sw_stats s;

	sw_stats_compute(NULL, 0, &s);
	ck_assert_uint_eq(s.n, 0);
	ck_assert(isnan(s.median));
	ck_assert(isnan(s.min));
	ck_assert(isnan(s.max));
	ck_assert(isnan(s.mean));
	ck_assert(isnan(s.stddev));
	/* stats.h: infinite for n < 2, so "rse < target" never stops sampling. */
	ck_assert(isinf(s.rse) && s.rse > 0);
}
END_TEST

START_TEST(test_rse)
{
	const double same[] = { 2, 2, 2, 2 };
	const double pair[] = { 1, 3 };
	const double neg[] = { -1, -3 };
	const double zero[] = { -1, 1 };
	struct sw_stats s;

	sw_stats_compute(same, 4, &s);
	ck_assert_double_eq(s.stddev, 0.0);
	ck_assert_double_eq(s.rse, 0.0);

	/* stddev sqrt(2), n 2, mean 2: sqrt(2) / sqrt(2) / 2. */
	sw_stats_compute(pair, 2, &s);
	ck_assert_double_eq_tol(s.rse, 0.5, TOL);

	sw_stats_compute(neg, 2, &s);
	ck_assert(isinf(s.rse) && s.rse > 0);
	sw_stats_compute(zero, 2, &s);
	ck_assert(isinf(s.rse) && s.rse > 0);
}
END_TEST

START_TEST(test_stddev_stable)
{
	/* Nearly equal large values: a one-pass formula would cancel. */
	const double x[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
	struct sw_stats s;

	sw_stats_compute(x, 3, &s);
	ck_assert_double_eq_tol(s.stddev, 1.0, 1e-6);
	ck_assert_double_eq_tol(s.median, 1e9 + 2, TOL);
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_known_values);
	tcase_add_test(tc, test_median_odd_unsorted);
	tcase_add_test(tc, test_median_even_unsorted);
	tcase_add_test(tc, test_median_large);
	tcase_add_test(tc, test_one_sample);
	tcase_add_test(tc, test_no_samples);
	tcase_add_test(tc, test_rse);
	tcase_add_test(tc, test_stddev_stable);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return sw_check_run(stats_suite());
}
