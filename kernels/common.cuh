/*
 * Helpers shared by every family, callable on host and device: the random
 * input generator (so a CPU check recomputes any input element from the seed
 * instead of copying the input back) and a relative-error comparison.
 */
#ifndef SW_COMMON_CUH
#define SW_COMMON_CUH

#include <stdint.h>
#include <stdio.h>

#include "kernel.h"
#include "mix.h"

#define SW_HD __host__ __device__ __forceinline__

/* Uniform float in [0, 1) with 24 random bits: exact in float and double. */
SW_HD float sw_uniform(uint64_t seed, uint64_t i)
{
	return (float)(sw_mix64(seed ^ sw_mix64(i)) >> 40) * (1.0f / 16777216.0f);
}

/* Relative error of got against a double reference, absolute near zero. */
static inline double sw_rel_err(double got, double want)
{
	double d = got > want ? got - want : want - got;
	double m = want > 0 ? want : -want;
	return m > 1.0 ? d / m : d;
}

/* One output element against its reference in a family's CPU check: keeps
 * the largest relative error, and the first element beyond tol fails the
 * check with its index and both values. */
static inline void sw_check_element(struct sw_check *c, uint64_t i, double got, double want,
				    double tol)
{
	double err = sw_rel_err(got, want);
	if (err > c->max_rel_err)
		c->max_rel_err = err;
	if (err > tol && c->ok) {
		c->ok = 0;
		snprintf(c->msg, sizeof c->msg, "element %llu: got %.9g, want %.9g",
			 (unsigned long long)i, got, want);
	}
}

/* A fresh, repeatable sequence of sample indices for sampled checks. */
static inline uint64_t sw_sample_index(uint64_t sample_seed, uint64_t k, uint64_t n)
{
	return sw_mix64(sample_seed + k) % n;
}

/* Elements a sampled check compares: "at least a few thousand". */
#define SW_CHECK_SAMPLES 4096

#endif
