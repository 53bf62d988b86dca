/*
 * The main of a unit test: runs suite s (each test forked, check's default)
 * and turns the result into the exit code ctest reads.
 */
#ifndef SW_TEST_CHECK_RUN_H
#define SW_TEST_CHECK_RUN_H

#include <stdlib.h>

#include <check.h>

static inline int sw_check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
