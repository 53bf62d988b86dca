/*
 * The run's time model (model/time_plan.h), made on every rank before its
 * backend opens: each --model-calibrate and --model-from file read
 * (h5/h5measured.c), the fits made. Every rank reads and fits alike, so
 * every rank predicts alike, and a bad file fails every rank the same way.
 */
#ifndef SW_TIME_SETUP_H
#define SW_TIME_SETUP_H

#include "job/cli.h"
#include "model/time_plan.h"

/* *tp (caller's storage) for opt; SW_EIO, SW_EINVAL (a file that is no
 * result file or of no known class, naming its option), SW_ENOMEM. */
enum sw_status sw_time_setup(const struct sw_options *opt, struct sw_time_plan *tp,
			     struct sw_err *err);

#endif
