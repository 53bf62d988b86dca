/*
 * The calibration fit (time_fit.h): Nelder-Mead over the logarithms of the
 * rates, with the L1 loss on log(predicted / measured), which a few odd
 * points cannot drag. Rates the datasheet leaves out (L2, blocks, launch)
 * start from a nominal value; after the fit each rate is put back to its
 * datasheet value where the loss barely notices, so a term the points
 * never exercise stays as the datasheet has it.
 */
#include "model/time_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITER       4000
#define KEEP_TOLERANCE 0.001 /* mean |log| error a rate may add and still go back */

void sw_time_rates_to_array(const struct sw_time_rates *r, double *v)
{
	int i = 0;
#define X(name, units, about) v[i++] = r->name;
	SW_TIME_RATES(X)
#undef X
}

void sw_time_rates_from_array(const double *v, struct sw_time_rates *r)
{
	int i = 0;
#define X(name, units, about) r->name = v[i++];
	SW_TIME_RATES(X)
#undef X
}

struct problem {
	const struct sw_gpu *gpu;
	const struct sw_time_obs *obs;
	int n;
	const double *sheet;  /* the datasheet's rates */
	int kept[SW_N_RATES]; /* 1: rate k stays at sheet[k] */
};

static double loss(const struct problem *pb, const double *rates)
{
	struct sw_time_rates r;
	struct sw_time t;
	double sum = 0;
	sw_time_rates_from_array(rates, &r);
	for (int i = 0; i < pb->n; i++) {
		sw_time_eval(pb->gpu, &r, &pb->obs[i].in, &t);
		sum += isfinite(t.ns) && t.ns > 0 ? fabs(log(t.ns / pb->obs[i].measured_ns)) : 50;
	}
	return sum;
}

/* The rates of a point of the search: x holds their logarithms; a kept
 * rate is the datasheet's (which may be 0: a term left out). */
static void rates_of(const struct problem *pb, const double *x, double *v)
{
	for (int k = 0; k < SW_N_RATES; k++)
		v[k] = pb->kept[k] ? pb->sheet[k] : exp(x[k]);
}

static double loss_log(const struct problem *pb, const double *x)
{
	double v[SW_N_RATES];
	rates_of(pb, x, v);
	return loss(pb, v);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_error(const struct problem *pb, const double *rates)
{
	struct sw_time_rates r;
	struct sw_time t;
	double *e = malloc(pb->n * sizeof *e), med;
	if (!e)
		return NAN;
	sw_time_rates_from_array(rates, &r);
	for (int i = 0; i < pb->n; i++) {
		sw_time_eval(pb->gpu, &r, &pb->obs[i].in, &t);
		e[i] = fabs(t.ns / pb->obs[i].measured_ns - 1);
	}
	qsort(e, pb->n, sizeof *e, cmp_double);
	med = pb->n % 2 ? e[pb->n / 2] : (e[pb->n / 2 - 1] + e[pb->n / 2]) / 2;
	free(e);
	return med;
}

/* Nelder-Mead in N = SW_N_RATES dimensions from x (updated in place). */
static void nelder_mead(const struct problem *pb, double *x)
{
	enum { N = SW_N_RATES };
	double s[N + 1][N], f[N + 1], c[N], xr[N], xe[N];
	for (int i = 0; i <= N; i++) {
		memcpy(s[i], x, sizeof s[i]);
		if (i && !pb->kept[i - 1])
			s[i][i - 1] += 0.7; /* a factor of two; a kept rate never moves */
		f[i] = loss_log(pb, s[i]);
	}
	for (int it = 0; it < MAX_ITER; it++) {
		int hi = 0, lo = 0;
		for (int i = 1; i <= N; i++) {
			if (f[i] > f[hi])
				hi = i;
			if (f[i] < f[lo])
				lo = i;
		}
		int nh = lo;
		for (int i = 0; i <= N; i++)
			if (i != hi && f[i] > f[nh])
				nh = i;
		if (f[hi] - f[lo] < 1e-9 * (1 + fabs(f[lo])))
			break;
		for (int k = 0; k < N; k++) {
			c[k] = 0;
			for (int i = 0; i <= N; i++)
				if (i != hi)
					c[k] += s[i][k] / N;
			xr[k] = c[k] + (c[k] - s[hi][k]);
		}
		double fr = loss_log(pb, xr);
		if (fr < f[lo]) {
			for (int k = 0; k < N; k++)
				xe[k] = c[k] + 2 * (c[k] - s[hi][k]);
			double fe = loss_log(pb, xe);
			memcpy(s[hi], fe < fr ? xe : xr, sizeof s[hi]);
			f[hi] = fe < fr ? fe : fr;
		} else if (fr < f[nh]) {
			memcpy(s[hi], xr, sizeof s[hi]);
			f[hi] = fr;
		} else {
			for (int k = 0; k < N; k++)
				xe[k] = c[k] + 0.5 * (s[hi][k] - c[k]);
			double fc = loss_log(pb, xe);
			if (fc < f[hi]) {
				memcpy(s[hi], xe, sizeof s[hi]);
				f[hi] = fc;
			} else {
				for (int i = 0; i <= N; i++) {
					if (i == lo)
						continue;
					for (int k = 0; k < N; k++)
						s[i][k] = s[lo][k] + 0.5 * (s[i][k] - s[lo][k]);
					f[i] = loss_log(pb, s[i]);
				}
			}
		}
	}
	int best = 0;
	for (int i = 1; i <= N; i++)
		if (f[i] < f[best])
			best = i;
	memcpy(x, s[best], sizeof s[best]);
}

/* Nominal starting points for the rates the datasheet leaves out. */
static void start_from(const struct sw_gpu *gpu, const double *sheet, double *v)
{
	struct sw_time_rates r;
	sw_time_rates_from_array(sheet, &r);
	if (!(r.l2_gbps > 0))
		r.l2_gbps = 2 * gpu->dram_gbps;
	if (!(r.blocks_per_us_sm > 0))
		r.blocks_per_us_sm = gpu->boost_mhz / 100; /* a block a 100 cycles */
	if (!(r.launch_ns > 0))
		r.launch_ns = 1000;
	sw_time_rates_to_array(&r, v);
}

enum sw_status sw_time_fit(const struct sw_gpu *gpu, const struct sw_time_obs *obs, int n,
			   struct sw_time_rates *r, struct sw_time_fit_report *rep,
			   struct sw_err *err)
{
	double sheet[SW_N_RATES], v[SW_N_RATES], x[SW_N_RATES];
	struct problem pb = { gpu, obs, n, sheet, { 0 } };
	memset(rep, 0, sizeof *rep);
	if (n < 3)
		return sw_fail(err, SW_EINVAL, "%d measured points of %s: a fit needs 3 or more", n,
			       gpu->name);
	for (int i = 0; i < n; i++)
		if (!(obs[i].measured_ns > 0) || !isfinite(obs[i].measured_ns))
			return sw_fail(err, SW_EINVAL, "a measured time of %g ns",
				       obs[i].measured_ns);
	sw_time_rates_to_array(r, sheet);
	start_from(gpu, sheet, v);
	for (int k = 0; k < SW_N_RATES; k++)
		x[k] = log(v[k]);
	nelder_mead(&pb, x);
	rates_of(&pb, x, v);
	/* Each rate back to the datasheet's where the points barely notice: a
	 * rate no point needs stays as the datasheet has it, a term it leaves
	 * out stays out. (Fitting the others again after each would let one
	 * term stand in for another: L2 for DRAM on a streaming read.) */
	double best = loss(&pb, v);
	for (int k = 0; k < SW_N_RATES; k++) {
		double fitted = v[k];
		v[k] = sheet[k];
		double l = loss(&pb, v);
		if (l <= best + KEEP_TOLERANCE * n)
			best = l < best ? l : best;
		else
			v[k] = fitted, rep->fitted[k] = 1;
	}
	rep->n_points = n;
	rep->error_before = median_error(&pb, sheet);
	rep->error_after = median_error(&pb, v);
	sw_time_rates_from_array(v, r);
	return SW_OK;
}
