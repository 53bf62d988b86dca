/*
 * The run's time model from its options (time_setup.h): the files read,
 * then handed to the pure plan, which fits and keeps the transfer's
 * points.
 */
#include "run/time_setup.h"

#include <stdlib.h>

static enum sw_status read_spec(const char *option, const char *spec, struct sw_measured *m,
				struct sw_err *err)
{
	char path[SW_TIME_PATH_LEN], cls[SW_DURATION_CLASS_LEN];
	sw_time_file_spec(spec, path, sizeof path, cls, sizeof cls);
	return sw_measured_read(path, m, err) ? sw_wrap(err, "%s %s", option, spec) : SW_OK;
}

enum sw_status sw_time_setup(const struct sw_options *opt, struct sw_time_plan *tp,
			     struct sw_err *err)
{
	int n = opt->n_model_calibrate;
	struct sw_measured *calib = calloc(n ? n : 1, sizeof *calib), from = { 0 };
	enum sw_status st = calib ? SW_OK : sw_fail(err, SW_ENOMEM, "out of memory");
	for (int i = 0; st == SW_OK && i < n; i++)
		st = read_spec("--model-calibrate", opt->model_calibrate[i], &calib[i], err);
	if (st == SW_OK && opt->model_from)
		st = read_spec("--model-from", opt->model_from, &from, err);
	if (st == SW_OK)
		st = sw_time_plan_build(opt->model_calibrate, calib, n, opt->model_from,
					opt->model_from ? &from : NULL, tp, err);
	for (int i = 0; calib && i < n; i++)
		sw_measured_fini(&calib[i]);
	free(calib);
	sw_measured_fini(&from);
	return st;
}
