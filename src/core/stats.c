/*
 * Sample statistics of stats.h. Two passes (mean, then squared deviations)
 * so the standard deviation of nearly equal timings does not cancel.
 * Does not reject outliers or weight samples: the caller decides what to keep.
 */
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sample counts are capped well below this, so the copy normally lives on the stack. */
#define SW_STATS_STACK_ELEMS 256

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(const double *x, size_t n)
{
	double stack[SW_STATS_STACK_ELEMS];
	double *s = stack;
	double m;

	if (n > SW_STATS_STACK_ELEMS) {
		s = malloc(n * sizeof(*s));
		if (!s)
			return NAN;
	}
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	if (n % 2)
		m = s[n / 2];
	else
		m = 0.5 * (s[n / 2 - 1] + s[n / 2]);
	if (s != stack)
		free(s);
	return m;
}

void sw_stats_compute(const double *x, size_t n, struct sw_stats *s)
{
	double sum = 0.0, ss = 0.0;
	size_t i;

	s->n = n;
	if (n == 0) {
		s->median = s->min = s->max = s->mean = s->stddev = NAN;
		s->rse = INFINITY;
		return;
	}

	s->min = s->max = x[0];
	for (i = 0; i < n; i++) {
		sum += x[i];
		if (x[i] < s->min)
			s->min = x[i];
		if (x[i] > s->max)
			s->max = x[i];
	}
	s->mean = sum / (double)n;

	for (i = 0; i < n; i++) {
		double d = x[i] - s->mean;

		ss += d * d;
	}
	s->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
	s->median = median_of(x, n);

	if (n < 2 || !(s->mean > 0.0))
		s->rse = INFINITY;
	else
		s->rse = s->stddev / sqrt((double)n) / s->mean;
}
