/* Sample statistics for timings: median, min, mean, stddev and the relative
 * standard error of the mean that decides when to stop sampling. Pure. */
#ifndef SW_STATS_H
#define SW_STATS_H

#include <stddef.h>

struct sw_stats {
	size_t n;
	double median, min, max, mean, stddev;
	double rse; /* stddev / sqrt(n) / mean; infinite for n < 2 */
};

void sw_stats_compute(const double *x, size_t n, struct sw_stats *s);

#endif
