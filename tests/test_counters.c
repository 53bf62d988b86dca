/*
 * The counters module where it cannot count: on a machine without a GPU (or
 * built without CUPTI) creation fails with SW_SKIP and a reason that starts
 * "counters unavailable", which every row then carries; destroy takes NULL.
 * On a GPU machine it reports whether profiling works here, and why not.
 * The counts themselves are checked on the GPU by test_gpu.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/counters.h"
#include "backend/device.h"

START_TEST(test_create_or_say_why)
{
	struct sw_counters *c = (struct sw_counters *)1;
	struct sw_err err = { 0 };
	enum sw_status st = sw_counters_create(0, &c, &err);
	if (sw_device_count() == 0) {
		ck_assert_int_eq(st, SW_SKIP);
		ck_assert_ptr_null(c);
	}
	if (st == SW_OK) {
		ck_assert_ptr_nonnull(c);
		printf("counters available on device 0\n");
	} else {
		ck_assert_int_eq(st, SW_SKIP);
		ck_assert_ptr_null(c);
		ck_assert_msg(strncmp(err.msg, "counters unavailable", 20) == 0, "%s", err.msg);
		printf("%s\n", err.msg);
	}
	sw_counters_destroy(&c);
	ck_assert_ptr_null(c);
	sw_counters_destroy(&c); /* NULL is fine */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("counters");
	TCase *tc = tcase_create("counters");
	tcase_add_test(tc, test_create_or_say_why);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK); /* a CUDA context does not survive fork */
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
