/*
 * Calibration of the time model: the rates a datasheet cannot know
 * (struct sw_time_rates) fitted to measured times of one GPU class, so
 * that the model's median error over them is least. Pure; the points and
 * their times come from a result file (h5/), the fit only sees numbers.
 */
#ifndef SW_TIME_FIT_H
#define SW_TIME_FIT_H

#include "model/time_model.h"

/* One measured point: what it asks of the GPU, and its median time. */
struct sw_time_obs {
	struct sw_time_inputs in;
	double measured_ns;
};

/* What a fit did: the median |predicted / measured - 1| over the points
 * at the starting rates and at the fitted ones, and which rates moved. */
struct sw_time_fit_report {
	int n_points;
	double error_before, error_after;
	int fitted[SW_N_RATES]; /* 1: fitted; 0: kept, no point depends on it */
};

/* Fits *r (on entry the datasheet's, sw_time_rates_datasheet) to the n
 * points of obs measured on gpu: a Nelder-Mead search over the rates'
 * logarithms for the least sum of |log(predicted / measured)|. A rate no
 * point's time depends on keeps its datasheet value (a term left out
 * stays out). SW_EINVAL with fewer than 3 points or a time not above 0. */
enum sw_status sw_time_fit(const struct sw_gpu *gpu, const struct sw_time_obs *obs, int n,
			   struct sw_time_rates *r, struct sw_time_fit_report *rep,
			   struct sw_err *err);

/* The rates as an array, in SW_TIME_RATES order, and back. */
void sw_time_rates_to_array(const struct sw_time_rates *r, double *v);
void sw_time_rates_from_array(const double *v, struct sw_time_rates *r);

#endif
