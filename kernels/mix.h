/*
 * splitmix64, the one hash behind the inputs (sw_uniform), the sampled
 * checks' picks and the harness's seeds. Plain C, so the C harness and the
 * CUDA families share one definition; CUDA gets a host and device copy.
 */
#ifndef SW_MIX_H
#define SW_MIX_H

#include <stdint.h>

/* In CUDA an inline function of one definition everywhere, host and device;
 * in C a static inline one. */
#ifdef __CUDACC__
#define SW_MIX_HD __host__ __device__ __forceinline__
#else
#define SW_MIX_HD static inline
#endif

/* A cheap, well-mixed hash of x: (seed, index) pairs go in as seed ^ mix(i). */
SW_MIX_HD uint64_t sw_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

#endif
