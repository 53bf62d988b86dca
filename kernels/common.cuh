/*
 * Helpers shared by every family: the random input generator, callable on
 * host and device (so a CPU check recomputes any input element from the seed
 * instead of copying the input back), the steps every CPU check takes
 * (full or sampled, element against reference), and the start of a model
 * request. What a family checks or requests stays in the family.
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

/* One comparison of a check: keeps the largest relative error err, and when
 * bad is the check's first failure, fails it and returns 1, for the caller
 * to write the message (later failures keep the first one's). */
static inline int sw_check_record(struct sw_check *c, double err, int bad)
{
	if (err > c->max_rel_err)
		c->max_rel_err = err;
	if (!bad || !c->ok)
		return 0;
	c->ok = 0;
	return 1;
}

/* One output element against its reference in a family's CPU check: keeps
 * the largest relative error, and the first element beyond tol fails the
 * check with its index and both values. */
static inline void sw_check_element(struct sw_check *c, uint64_t i, double got, double want,
				    double tol)
{
	double err = sw_rel_err(got, want);
	if (sw_check_record(c, err, err > tol))
		snprintf(c->msg, sizeof c->msg, "element %llu: got %.9g, want %.9g",
			 (unsigned long long)i, got, want);
}

/* A fresh, repeatable sequence of sample indices for sampled checks. */
static inline uint64_t sw_sample_index(uint64_t sample_seed, uint64_t k, uint64_t n)
{
	return sw_mix64(sample_seed + k) % n;
}

/* Elements a sampled check compares: "at least a few thousand". */
#define SW_CHECK_SAMPLES 4096
/* Terms a CPU check may add up to compare every output element; a check
 * that would cost more compares SW_CHECK_SAMPLES of them. */
#define SW_CHECK_FULL_TERMS (UINT64_C(1) << 24)

/* Starts check c of an output of n elements: all of them (full), or
 * SW_CHECK_SAMPLES picked afresh for each point. Returns how many to
 * compare; sw_check_pick says which element the k-th comparison takes. */
static inline uint64_t sw_check_begin(struct sw_check *c, uint64_t n, int full)
{
	c->mode = full ? SW_CHECK_FULL : SW_CHECK_SAMPLED;
	c->checked = full ? n : SW_CHECK_SAMPLES;
	c->max_rel_err = 0;
	c->ok = 1;
	return c->checked;
}

static inline uint64_t sw_check_pick(const struct sw_check *c, const struct sw_host_out *o,
				     uint64_t k, uint64_t n)
{
	return c->mode == SW_CHECK_FULL ? k : sw_sample_index(o->sample_seed, k, n);
}

/* Starts warp request req for the model: where it goes, the bytes each lane
 * moves, load or store; no lane is active until sw_request_lane says so. */
static inline void sw_request_begin(struct sw_request *req, enum sw_space space, int word_bytes,
				    int is_store)
{
	req->space = space;
	req->word_bytes = word_bytes;
	req->is_store = is_store;
	req->active = 0;
}

/* Lane l of req touches byte address addr, and takes part if active (an
 * idle lane's address is kept too, as the kernel computes it). */
static inline void sw_request_lane(struct sw_request *req, unsigned l, uint64_t addr, int active)
{
	req->addr[l] = addr;
	if (active)
		req->active |= 1u << l;
}

#endif
