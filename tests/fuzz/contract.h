/*
 * What the fuzz targets check beyond memory errors, leaks and undefined
 * behaviour: the promises job.h and axis.h make about what they return.
 * A broken promise prints what broke and aborts, which libFuzzer and the
 * replay driver report as a crash. Test code only.
 */
#ifndef SW_FUZZ_CONTRACT_H
#define SW_FUZZ_CONTRACT_H

#include <stddef.h>

#include "job/axis.h"
#include "job/job.h"
#include "core/status.h"

/* Prints "contract broken: what (file:line)" and aborts. */
_Noreturn void fz_broken(const char *what, const char *file, int line);

#define FZ_REQUIRE(cond)                                                                           \
	do {                                                                                       \
		if (!(cond))                                                                       \
			fz_broken(#cond, __FILE__, __LINE__);                                      \
	} while (0)

/* An accepted axis list: 1..SW_AXIS_MAX_VALUES values, no duplicates. */
void fz_check_axis(const struct sw_axis_values *a);

/* An accepted job: every family registered and listed once, at least one
 * variant each, every axis filled and inside its definition's range, the
 * measure and model settings inside the ranges job-format.md gives. */
void fz_check_job(const struct sw_job *job);

/* The part of fz_check_job about job->families[i]. */
void fz_check_family(const struct sw_job *job, int i);

/* A refusal: status st (SW_EINVAL or SW_ENOMEM), recorded in err with a
 * NUL-terminated message that starts with `prefix`. */
void fz_check_refusal(enum sw_status st, const struct sw_err *err, const char *prefix);

#endif
