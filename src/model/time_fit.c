/*
 * The calibration fit (time_fit.h): Nelder-Mead over the logarithms of the
 * rates, with the L1 loss on log(predicted / measured), which a few odd
 * points cannot drag. Rates the datasheet leaves out (L2, blocks, launch)
 * start from a nominal value; after the fit each rate is put back to its
 * datasheet value where the loss barely notices, so a term the points
 * never exercise stays as the datasheet has it. Then each rate's points:
 * those whose time the fitted rate decides (time_fit.h).
 */
#include "model/time_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITER       4000
#define KEEP_TOLERANCE 0.001 /* mean |log| error a rate may add and still go back */
#define FIT_RESTARTS   3     /* searches, each from the last one's best point */
#define START_PULL     0.02  /* loss a rate adds for each e-fold from its start */

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
	const double *start;  /* the logarithms of the search's start */
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

/* The loss, plus a little for each rate's distance from its start: where
 * the points leave a direction flat (two rates trading one for the
 * other), the search stays near the start instead of drifting wherever a
 * restart sends it. */
static double loss_log(const struct problem *pb, const double *x)
{
	double v[SW_N_RATES], pull = 0;
	rates_of(pb, x, v);
	for (int k = 0; k < SW_N_RATES; k++)
		pull += pb->kept[k] ? 0 : fabs(x[k] - pb->start[k]);
	return loss(pb, v) + START_PULL * pull;
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

enum { N = SW_N_RATES };

/* The simplex: N + 1 points and their losses. */
struct simplex {
	double s[N + 1][N], f[N + 1];
	int lo, hi, next; /* the best, the worst, the worst but one */
};

static void rank_points(struct simplex *sx)
{
	sx->lo = sx->hi = 0;
	for (int i = 1; i <= N; i++) {
		if (sx->f[i] > sx->f[sx->hi])
			sx->hi = i;
		if (sx->f[i] < sx->f[sx->lo])
			sx->lo = i;
	}
	sx->next = sx->lo;
	for (int i = 0; i <= N; i++)
		if (i != sx->hi && sx->f[i] > sx->f[sx->next])
			sx->next = i;
}

/* The point c + t (c - worst), c the centroid of the others, and its loss. */
static double toward(const struct problem *pb, const struct simplex *sx, double t, double *out)
{
	for (int k = 0; k < N; k++) {
		double c = 0;
		for (int i = 0; i <= N; i++)
			if (i != sx->hi)
				c += sx->s[i][k] / N;
		out[k] = c + t * (c - sx->s[sx->hi][k]);
	}
	return loss_log(pb, out);
}

static void replace_worst(struct simplex *sx, const double *x, double f)
{
	memcpy(sx->s[sx->hi], x, sizeof sx->s[sx->hi]);
	sx->f[sx->hi] = f;
}

/* One step: reflect the worst point, expand, contract, or shrink all. */
static void step(const struct problem *pb, struct simplex *sx)
{
	double xr[N], xe[N];
	double fr = toward(pb, sx, 1, xr);
	if (fr < sx->f[sx->lo]) {
		double fe = toward(pb, sx, 2, xe);
		replace_worst(sx, fe < fr ? xe : xr, fe < fr ? fe : fr);
		return;
	}
	if (fr < sx->f[sx->next]) {
		replace_worst(sx, xr, fr);
		return;
	}
	double fc = toward(pb, sx, -0.5, xe);
	if (fc < sx->f[sx->hi]) {
		replace_worst(sx, xe, fc);
		return;
	}
	for (int i = 0; i <= N; i++) {
		if (i == sx->lo)
			continue;
		for (int k = 0; k < N; k++)
			sx->s[i][k] = sx->s[sx->lo][k] + 0.5 * (sx->s[i][k] - sx->s[sx->lo][k]);
		sx->f[i] = loss_log(pb, sx->s[i]);
	}
}

/* Nelder-Mead in N = SW_N_RATES dimensions from x (updated in place). */
static void nelder_mead(const struct problem *pb, double *x)
{
	struct simplex sx;
	for (int i = 0; i <= N; i++) {
		memcpy(sx.s[i], x, sizeof sx.s[i]);
		if (i && !pb->kept[i - 1])
			sx.s[i][i - 1] += 0.7; /* a factor of two; a kept rate never moves */
		sx.f[i] = loss_log(pb, sx.s[i]);
	}
	for (int it = 0; it < MAX_ITER; it++) {
		rank_points(&sx);
		if (sx.f[sx.hi] - sx.f[sx.lo] < 1e-9 * (1 + fabs(sx.f[sx.lo])))
			break;
		step(pb, &sx);
	}
	rank_points(&sx);
	memcpy(x, sx.s[sx.lo], sizeof sx.s[sx.lo]);
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

const char *sw_rate_fit_word(enum sw_rate_fit s)
{
	static const char *const words[] = { "", "fitted", "not needed", "not identifiable" };
	return s >= SW_RATE_DATASHEET && s <= SW_RATE_NOT_IDENTIFIABLE ? words[s] : "";
}

/* Whether rate k of v moves the time of in: halved or doubled, the
 * prediction's time or a term's differs (by more than share of the time,
 * with share > 0). */
static int moves(const struct sw_gpu *gpu, const double *v, int k, const struct sw_time_inputs *in,
		 double share)
{
	struct sw_time base, t;
	struct sw_time_rates r;
	double w[SW_N_RATES];
	sw_time_rates_from_array(v, &r);
	sw_time_eval(gpu, &r, in, &base);
	if (!isfinite(base.ns) || !(base.ns > 0) || !(v[k] > 0))
		return 0;
	memcpy(w, v, sizeof w);
	for (double f = 0.5; f < 4; f *= 4) {
		w[k] = v[k] * f;
		sw_time_rates_from_array(w, &r);
		sw_time_eval(gpu, &r, in, &t);
		if (share > 0
			    ? fabs(t.ns / base.ns - 1) > share
			    : memcmp(t.term_ns, base.term_ns, sizeof t.term_ns) || t.ns != base.ns)
			return 1;
	}
	return 0;
}

void sw_time_rates_used(const struct sw_gpu *gpu, const struct sw_time_inputs *in, int *used)
{
	struct sw_time_rates r;
	double sheet[SW_N_RATES], v[SW_N_RATES];
	sw_time_rates_datasheet(gpu, &r);
	sw_time_rates_to_array(&r, sheet);
	start_from(gpu, sheet, v);
	for (int k = 0; k < SW_N_RATES; k++)
		if (!used[k])
			used[k] = moves(gpu, v, k, in, 0);
}

enum sw_status sw_time_fit(const struct sw_gpu *gpu, const struct sw_time_obs *obs, int n,
			   struct sw_time_rates *r, struct sw_time_fit_report *rep,
			   struct sw_err *err)
{
	double sheet[SW_N_RATES], v[SW_N_RATES], x[SW_N_RATES];
	double x0[SW_N_RATES];
	struct problem pb = { gpu, obs, n, sheet, x0, { 0 } };
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
		x0[k] = x[k] = log(v[k]);
	/* restarted from its best point with a fresh simplex: one search can
	 * stop in a fold of the loss, and where it stops should not depend on
	 * where the datasheet put its start */
	for (int run = 0; run < FIT_RESTARTS; run++)
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
	for (int i = 0; i < n; i++)
		for (int k = 0; k < SW_N_RATES; k++)
			rep->points[k] += moves(gpu, v, k, &obs[i].in, SW_RATE_FIT_MOVE);
	rep->n_points = n;
	rep->error_before = median_error(&pb, sheet);
	rep->error_after = median_error(&pb, v);
	sw_time_rates_from_array(v, r);
	return SW_OK;
}
