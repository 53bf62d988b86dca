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
 * at the starting rates and at the fitted ones, which rates moved, and the
 * points that fit each rate: those whose predicted time, at the fitted
 * rates, halving or doubling the rate alone moves by more than
 * SW_RATE_FIT_MOVE (a rate at 0, a term left out, has none). */
struct sw_time_fit_report {
	int n_points;
	double error_before, error_after;
	int fitted[SW_N_RATES]; /* 1: moved from the datasheet's; 0: kept as good */
	int points[SW_N_RATES]; /* the points that fit each rate */
};
#define SW_RATE_FIT_MOVE 0.10

/* What one rate of a GPU rests on, as /model_rates records it. */
enum sw_rate_fit {
	SW_RATE_DATASHEET,        /* no calibration: the datasheet's ("") */
	SW_RATE_FITTED,           /* points of the file fit it ("fitted") */
	SW_RATE_NOT_NEEDED,       /* none do, and no point of the job uses it ("not needed") */
	SW_RATE_NOT_IDENTIFIABLE, /* none do, and the job uses it ("not identifiable") */
};

/* The word of s, as above. */
const char *sw_rate_fit_word(enum sw_rate_fit s);

/* Marks in used[k] (sets to 1; never clears) each rate k the time of
 * inputs in on gpu depends on: its term is not zero for them, at the
 * datasheet's rates with a term it leaves out at its nominal start. */
void sw_time_rates_used(const struct sw_gpu *gpu, const struct sw_time_inputs *in, int *used);

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
