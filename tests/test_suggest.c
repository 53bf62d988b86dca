/* Unit tests for suggest.c: the edit distance on known pairs, the nearest
 * candidates in order and within the limit, and the text of a suggestion. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "core/suggest.h"

START_TEST(test_distance)
{
	ck_assert_uint_eq(sw_suggest_distance("", ""), 0);
	ck_assert_uint_eq(sw_suggest_distance("abc", ""), 3);
	ck_assert_uint_eq(sw_suggest_distance("", "abc"), 3);
	ck_assert_uint_eq(sw_suggest_distance("kitten", "sitting"), 3);
	ck_assert_uint_eq(sw_suggest_distance("flaw", "lawn"), 2);
	ck_assert_uint_eq(sw_suggest_distance("dram__bytes_read.sum", "dram__bytes_read.sum"), 0);
	ck_assert_uint_eq(sw_suggest_distance("dram__bytes_raed.sum", "dram__bytes_read.sum"), 2);
}
END_TEST

static const char *const families[] = { "strided_read", "offset_read", "transpose", "reduce",
					"rowsum" };
#define N_FAM ((int)(sizeof families / sizeof families[0]))

START_TEST(test_nearest_in_order)
{
	int best[4];
	int k = sw_suggest_nearest("strided_raed", families, N_FAM, best, 4);

	ck_assert_int_eq(k, 1);
	ck_assert_int_eq(best[0], 0);
	/* "rowsun" is 1 from rowsum and 3 from reduce: rowsum alone is near */
	k = sw_suggest_nearest("reduse", families, N_FAM, best, 4);
	ck_assert_int_ge(k, 1);
	ck_assert_str_eq(families[best[0]], "reduce");
}
END_TEST

START_TEST(test_nearest_ties_and_max)
{
	static const char *const c[] = { "abd", "abe", "abf", NULL, "xyz" };
	int best[2];
	int k = sw_suggest_nearest("abc", c, 5, best, 2);

	/* three at distance 1: the first two in candidate order */
	ck_assert_int_eq(k, 2);
	ck_assert_int_eq(best[0], 0);
	ck_assert_int_eq(best[1], 1);
}
END_TEST

START_TEST(test_nothing_near)
{
	int best[3];

	ck_assert_int_eq(sw_suggest_nearest("histogramme_of_words", families, N_FAM, best, 3), 0);
	ck_assert_int_eq(sw_suggest_nearest("x", families, 0, best, 3), 0);
}
END_TEST

START_TEST(test_text)
{
	static const char *const c[] = { "dram__bytes_read.sum", "dram__bytes_write.sum",
					 "dram__bytes.sum", "lts__t_sectors.sum" };
	char buf[128];

	sw_suggest_text("dram__bytes_reed.sum", c, 4, buf, sizeof buf);
	ck_assert_str_eq(buf, "dram__bytes_read.sum, dram__bytes_write.sum or dram__bytes.sum");
	sw_suggest_text("offset_reed", families, N_FAM, buf, sizeof buf);
	ck_assert_str_eq(buf, "offset_read");
	sw_suggest_text("zzzzzzzzzzzz", families, N_FAM, buf, sizeof buf);
	ck_assert_str_eq(buf, "");
	sw_suggest_text("dram__bytes_reed.sum", c, 4, buf, 8);
	ck_assert_uint_eq(strlen(buf), 7);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("suggest");
	TCase *tc = tcase_create("suggest");

	tcase_add_test(tc, test_distance);
	tcase_add_test(tc, test_nearest_in_order);
	tcase_add_test(tc, test_nearest_ties_and_max);
	tcase_add_test(tc, test_nothing_near);
	tcase_add_test(tc, test_text);
	suite_add_tcase(s, tc);
	return sw_check_run(s);
}
