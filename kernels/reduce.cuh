/*
 * reduce's launch geometry and input values, shared by the kernels, the CPU
 * check and the model.
 */
#ifndef SW_REDUCE_CUH
#define SW_REDUCE_CUH

#include "common.cuh"

/* atomic: one thread per element, blocks of 256. */
#define SW_REDUCE_ATOMIC_THREADS 256
/* shared_tree, warp_shuffle and stream_read: strided_read's reference grid,
 * 4096 x 256, grid-stride, so the three read in the same order. */
#define SW_REDUCE_BLOCKS  4096
#define SW_REDUCE_THREADS 256
#define SW_REDUCE_T       ((uint64_t)SW_REDUCE_BLOCKS * SW_REDUCE_THREADS)

/* Element i of vector v (0 or 1): uniform in [-0.5, 0.5), exact in float.
 * Centred so the dot product's partial sums stay near sqrt(n) / 12 instead
 * of growing to n / 4: with products in [0, 1) one float accumulator passes
 * 2^22 after some 2^24 products, where half its ulp is the mean product, and
 * stops growing at 2^24 (a 64M-element sum in index order comes out 22% low). */
SW_HD float sw_reduce_value(uint64_t seed, int v, uint64_t i)
{
	return sw_uniform(seed + (uint64_t)v, i) - 0.5f;
}

/* The model's view of the loads of vector 0. Scalar loads (word 4): request
 * r reads elements 32r .. 32r+31 in every variant; float4 loads (word 16):
 * request r reads float4s 32r .. 32r+31. */
SW_HD uint64_t sw_reduce_load_addr(uint64_t r, uint32_t lane, int word_bytes)
{
	return (r * 32 + lane) * (uint64_t)word_bytes;
}

#endif
