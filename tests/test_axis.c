/* Unit tests of axis.c: the value-list syntax, its errors and its limits. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job/axis.h"
#include "check_run.h"

/* Parses text and compares with want[0..n). */
static void expect_values(const char *text, const int64_t *want, size_t n)
{
	struct sw_axis_values a;
	struct sw_err err = { 0 };
	enum sw_status st = sw_axis_parse(text, &a, &err);

	ck_assert_msg(st == SW_OK, "\"%s\": status %d: %s", text, st, err.msg);
	ck_assert_msg(a.n == n, "\"%s\": %zu values, want %zu", text, a.n, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(a.v[i] == want[i], "\"%s\": value %zu is %lld, want %lld", text, i,
			      (long long)a.v[i], (long long)want[i]);
	sw_axis_values_fini(&a);
}

#define EXPECT(text, ...)                                                                          \
	do {                                                                                       \
		static const int64_t want_[] = { __VA_ARGS__ };                                    \
		expect_values(text, want_, sizeof want_ / sizeof want_[0]);                        \
	} while (0)

/* Parsing fails with SW_EINVAL, leaves the list empty and says `needle`. */
static void expect_error(const char *text, const char *needle)
{
	struct sw_axis_values a = { (int64_t *)1, 7 }; /* garbage the parser must clear */
	struct sw_err err = { 0 };
	enum sw_status st = sw_axis_parse(text, &a, &err);

	ck_assert_msg(st == SW_EINVAL, "\"%s\": status %d, want SW_EINVAL", text ? text : "(null)",
		      st);
	ck_assert_int_eq(err.status, SW_EINVAL);
	ck_assert_ptr_null(a.v);
	ck_assert_uint_eq(a.n, 0);
	ck_assert_msg(strstr(err.msg, needle), "\"%s\": message \"%s\" lacks \"%s\"",
		      text ? text : "(null)", err.msg, needle);
}

START_TEST(test_lists)
{
	EXPECT("1,2,4", 1, 2, 4);
	EXPECT(" 1 , 2 ,\t4 ", 1, 2, 4);
	EXPECT("7", 7);
	EXPECT("4,1,3", 4, 1, 3); /* the order written is kept */
	EXPECT("-3,0,3", -3, 0, 3);
}
END_TEST

START_TEST(test_suffixes)
{
	EXPECT("64M", INT64_C(64) << 20);
	EXPECT("1K,2k,3M,4m,5G,6g", 1024, 2048, INT64_C(3) << 20, INT64_C(4) << 20,
	       INT64_C(5) << 30, INT64_C(6) << 30);
	EXPECT("0K", 0);
	EXPECT("-2K", -2048);
	EXPECT("8589934591G", INT64_C(8589934591) << 30);
}
END_TEST

START_TEST(test_ranges)
{
	EXPECT("1:5", 1, 2, 3, 4, 5);
	EXPECT("3:3", 3);
	EXPECT("0:32:4", 0, 4, 8, 12, 16, 20, 24, 28, 32);
	EXPECT("1:10:4", 1, 5, 9);
	EXPECT("-4:4:2", -4, -2, 0, 2, 4);
	EXPECT(" 1 : 5 : 2 ", 1, 3, 5);
	EXPECT("1K:4K:1K", 1024, 2048, 3072, 4096);
}
END_TEST

START_TEST(test_geometric)
{
	EXPECT("1:128:x2", 1, 2, 4, 8, 16, 32, 64, 128);
	EXPECT("1:100:x3", 1, 3, 9, 27, 81);
	EXPECT("1K:4G:x1K", 1024, INT64_C(1) << 20, INT64_C(1) << 30);
	EXPECT("5:5:x2", 5);
	EXPECT("1 : 8 : x 2", 1, 2, 4, 8);
	EXPECT("1:8:X2", 1, 2, 4, 8);
}
END_TEST

START_TEST(test_mixed)
{
	EXPECT("1:4, 16:64:x2, 100", 1, 2, 3, 4, 16, 32, 64, 100);
}
END_TEST

START_TEST(test_limits)
{
	struct sw_axis_values a;
	struct sw_err err = { 0 };

	EXPECT("9223372036854775807", INT64_MAX);
	EXPECT("-9223372036854775808", INT64_MIN);
	/* Ranges that end at the edge of int64 must not overflow stepping past it. */
	EXPECT("9223372036854775805:9223372036854775807", INT64_MAX - 2, INT64_MAX - 1, INT64_MAX);
	EXPECT("9223372036854775800:9223372036854775807:5", INT64_MAX - 7, INT64_MAX - 2);
	EXPECT("-9223372036854775808:-9223372036854775807", INT64_MIN, INT64_MIN + 1);
	ck_assert_int_eq(sw_axis_parse("1:9223372036854775807:x2", &a, &err), SW_OK);
	ck_assert_uint_eq(a.n, 63);
	ck_assert_int_eq(a.v[62], INT64_C(1) << 62);
	sw_axis_values_fini(&a);
	ck_assert_int_eq(sw_axis_parse("1:9223372036854775807:x3", &a, &err), SW_OK);
	ck_assert_uint_eq(a.n, 40); /* 3^39 < 2^63 <= 3^40 */
	sw_axis_values_fini(&a);
	/* Exactly the maximum count is allowed. */
	ck_assert_int_eq(sw_axis_parse("1:100000", &a, &err), SW_OK);
	ck_assert_uint_eq(a.n, SW_AXIS_MAX_VALUES);
	ck_assert_int_eq(a.v[SW_AXIS_MAX_VALUES - 1], SW_AXIS_MAX_VALUES);
	sw_axis_values_fini(&a);
	ck_assert_int_eq(sw_axis_parse("1:50000,-50000:-1", &a, &err), SW_OK);
	ck_assert_uint_eq(a.n, SW_AXIS_MAX_VALUES);
	sw_axis_values_fini(&a);
}
END_TEST

START_TEST(test_empty)
{
	expect_error("", "empty axis");
	expect_error("   ", "empty axis");
	expect_error(NULL, "empty axis");
	expect_error("1,,2", "\"1,,2\": empty list element");
	expect_error("1,", "empty list element");
	expect_error(",1", "empty list element");
	expect_error("1, ,2", "empty list element");
	expect_error("1::2", "empty range part");
	expect_error(":5", "empty range part");
	expect_error("1:", "empty range part");
	expect_error("1:128:x", "empty value");
}
END_TEST

START_TEST(test_junk)
{
	expect_error("abc", "\"abc\" is not an integer");
	expect_error("12x", "\"12x\" is not an integer: unexpected \"x\"");
	expect_error("1.5", "\"1.5\" is not an integer");
	expect_error("0x10", "\"0x10\" is not an integer");
	expect_error("--1", "\"--1\" is not an integer");
	expect_error("-", "\"-\" is not an integer");
	expect_error("+4", "\"+4\" is not an integer");
	expect_error("1 2", "\"1 2\" is not an integer");
	expect_error("64MB", "unexpected \"B\"");
	expect_error("64 M", "\"64 M\" is not an integer");
	expect_error("1,2,three", "\"1,2,three\": \"three\" is not an integer");
	expect_error("1:1x", "\"1:1x\": \"1x\" is not an integer");
	expect_error("1:2:3:4", "at most three parts");
	expect_error("1;2", "\"1;2\" is not an integer");
}
END_TEST

START_TEST(test_overflow)
{
	expect_error("9223372036854775808", "does not fit in a 64-bit integer");
	expect_error("-9223372036854775809", "does not fit in a 64-bit integer");
	expect_error("99999999999999999999999", "does not fit");
	expect_error("8589934592G", "\"8589934592G\" does not fit");
	expect_error("9007199254740992K", "does not fit");
	expect_error("1:8796093022208M", "does not fit");
}
END_TEST

START_TEST(test_bad_ranges)
{
	expect_error("128:1", "\"128:1\": the start 128 is above the end 1");
	expect_error("64M:1M:x2", "the start 64M is above the end 1M");
	expect_error("0:32:0", "\"0:32:0\": the step must be at least 1");
	expect_error("0:32:-4", "the step must be at least 1");
	expect_error("1:128:x1", "\"1:128:x1\": the geometric factor must be at least 2");
	expect_error("1:128:x0", "the geometric factor must be at least 2");
	expect_error("1:128:x-2", "the geometric factor must be at least 2");
	expect_error("0:128:x2", "a geometric range must start at 1 or more");
	expect_error("-4:128:x2", "a geometric range must start at 1 or more");
}
END_TEST

START_TEST(test_duplicates)
{
	expect_error("1,2,1", "\"1,2,1\": the value 1 appears twice");
	expect_error("1:4,3", "the value 3 appears twice");
	expect_error("1K,1024", "the value 1024 appears twice");
	expect_error("1:128:x2,1:128:x4", "appears twice");
}
END_TEST

START_TEST(test_too_many)
{
	/* Each must fail at once, without allocating for the count asked. */
	expect_error("1:100001", "more than 100000 values");
	expect_error("1:1G", "more than 100000 values");
	expect_error("-9223372036854775808:9223372036854775807", "more than 100000 values");
	expect_error("0:9223372036854775807:1", "more than 100000 values");
	expect_error("1:60000,70000:130000", "more than 100000 values");
}
END_TEST

START_TEST(test_parse_int)
{
	struct sw_err err = { 0 };
	int64_t v = 0;

	ck_assert_int_eq(sw_axis_parse_int("64M", &v, &err), SW_OK);
	ck_assert_int_eq(v, INT64_C(64) << 20);
	ck_assert_int_eq(sw_axis_parse_int("  -12 ", &v, &err), SW_OK);
	ck_assert_int_eq(v, -12);
	ck_assert_int_eq(sw_axis_parse_int("4G", &v, &err), SW_OK);
	ck_assert_int_eq(v, INT64_C(4) << 30);
	ck_assert_int_eq(sw_axis_parse_int("1,2", &v, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "\"1,2\" is not an integer"));
	ck_assert_int_eq(sw_axis_parse_int("1:2", &v, &err), SW_EINVAL);
	ck_assert_int_eq(sw_axis_parse_int("", &v, &err), SW_EINVAL);
	ck_assert_int_eq(sw_axis_parse_int(NULL, &v, &err), SW_EINVAL);
	ck_assert_int_eq(sw_axis_parse_int("9223372036854775808", &v, &err), SW_EINVAL);
	/* A NULL err is allowed: the status alone still tells. */
	ck_assert_int_eq(sw_axis_parse_int("x", &v, NULL), SW_EINVAL);
}
END_TEST

START_TEST(test_append)
{
	struct sw_axis_values a = { 0 };
	struct sw_err err = { 0 };

	ck_assert_int_eq(sw_axis_append(&a, 4, &err), SW_OK);
	ck_assert_int_eq(sw_axis_append(&a, 8, &err), SW_OK);
	ck_assert_int_eq(sw_axis_append(&a, -1, &err), SW_OK);
	ck_assert_int_eq(sw_axis_append(&a, 8, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "the value 8 appears twice"));
	ck_assert_uint_eq(a.n, 3);
	ck_assert_int_eq(a.v[0], 4);
	ck_assert_int_eq(a.v[1], 8);
	ck_assert_int_eq(a.v[2], -1);
	sw_axis_values_fini(&a);
	ck_assert_ptr_null(a.v);
	ck_assert_uint_eq(a.n, 0);
	sw_axis_values_fini(&a); /* twice is harmless */
	sw_axis_values_fini(NULL);

	/* Appending after a parse extends the parsed list. */
	ck_assert_int_eq(sw_axis_parse("1:3", &a, &err), SW_OK);
	ck_assert_int_eq(sw_axis_append(&a, 3, &err), SW_EINVAL);
	ck_assert_int_eq(sw_axis_append(&a, 10, &err), SW_OK);
	ck_assert_uint_eq(a.n, 4);
	ck_assert_int_eq(a.v[3], 10);
	sw_axis_values_fini(&a);
}
END_TEST

START_TEST(test_append_limit)
{
	struct sw_axis_values a;
	struct sw_err err = { 0 };

	ck_assert_int_eq(sw_axis_parse("1:100000", &a, &err), SW_OK);
	ck_assert_int_eq(sw_axis_append(&a, 0, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "more than 100000 values"));
	ck_assert_uint_eq(a.n, SW_AXIS_MAX_VALUES);
	sw_axis_values_fini(&a);
}
END_TEST

START_TEST(test_message_quotes_long_text)
{
	char text[300];
	struct sw_axis_values a;
	struct sw_err err = { 0 };

	memset(text, '7', sizeof text - 2);
	text[sizeof text - 2] = 'q';
	text[sizeof text - 1] = '\0';
	ck_assert_int_eq(sw_axis_parse(text, &a, &err), SW_EINVAL);
	/* Quoted, shortened, and still well inside the message buffer. */
	ck_assert_ptr_nonnull(strstr(err.msg, "...\""));
	ck_assert_uint_lt(strlen(err.msg), 200);
}
END_TEST

/* A categorical axis: its names for their values (first + index), mixed
 * with integers and ranges, in the order written; names make no range. */
START_TEST(test_named_values)
{
	static const char *const names[] = { "banded", "random", "block", NULL };
	const struct sw_axis_names nm = { names, 10 };
	struct sw_axis_values a;
	struct sw_err err = { 0 };
	int64_t v;

	ck_assert_int_eq(sw_axis_parse_named(" random, banded ,12", &nm, &a, &err), SW_OK);
	ck_assert_uint_eq(a.n, 3);
	ck_assert(a.v[0] == 11 && a.v[1] == 10 && a.v[2] == 12);
	sw_axis_values_fini(&a);
	ck_assert_int_eq(sw_axis_parse_named("10:12", &nm, &a, &err), SW_OK);
	ck_assert_uint_eq(a.n, 3);
	sw_axis_values_fini(&a);
	ck_assert_int_eq(sw_axis_parse_value(" block ", &nm, &v, &err), SW_OK);
	ck_assert_int_eq(v, 12);
	ck_assert_int_eq(sw_axis_parse_value("11", &nm, &v, &err), SW_OK);
	ck_assert_int_eq(v, 11);

	ck_assert_int_eq(sw_axis_parse_named("banded,diagonal", &nm, &a, &err), SW_EINVAL);
	ck_assert_ptr_null(a.v);
	ck_assert_str_eq(err.msg,
			 "unknown value \"diagonal\"; expected one of: banded, random, block");
	ck_assert_int_eq(sw_axis_parse_named("banded:block", &nm, &a, &err), SW_EINVAL);
	ck_assert_msg(strstr(err.msg, "names make no range"), "%s", err.msg);
	ck_assert_int_eq(sw_axis_parse_named("random,11", &nm, &a, &err), SW_EINVAL);
	ck_assert_msg(strstr(err.msg, "the value 11 appears twice"), "%s", err.msg);
	ck_assert_int_eq(sw_axis_parse_value("Banded", &nm, &v, &err), SW_EINVAL);
	/* a plain axis knows no names: its old message */
	ck_assert_int_eq(sw_axis_parse_named("banded", NULL, &a, &err), SW_EINVAL);
	ck_assert_msg(strstr(err.msg, "is not an integer"), "%s", err.msg);
}
END_TEST

static Suite *axis_suite(void)
{
	Suite *s = suite_create("axis");
	TCase *good = tcase_create("good");
	TCase *bad = tcase_create("bad");
	TCase *api = tcase_create("api");

	tcase_add_test(good, test_lists);
	tcase_add_test(good, test_suffixes);
	tcase_add_test(good, test_ranges);
	tcase_add_test(good, test_geometric);
	tcase_add_test(good, test_mixed);
	tcase_add_test(good, test_limits);
	tcase_add_test(bad, test_empty);
	tcase_add_test(bad, test_junk);
	tcase_add_test(bad, test_overflow);
	tcase_add_test(bad, test_bad_ranges);
	tcase_add_test(bad, test_duplicates);
	tcase_add_test(bad, test_too_many);
	tcase_add_test(bad, test_message_quotes_long_text);
	tcase_add_test(api, test_parse_int);
	tcase_add_test(api, test_append);
	tcase_add_test(api, test_append_limit);
	tcase_add_test(api, test_named_values);
	suite_add_tcase(s, good);
	suite_add_tcase(s, bad);
	suite_add_tcase(s, api);
	return s;
}

int main(void)
{
	return sw_check_run(axis_suite());
}
