/*
 * float3's index functions, shared by the kernels and the model so the
 * model describes exactly the addresses the kernels touch. Every variant
 * reads one buffer of 3n floats and writes another of the same layout:
 * interleaved x0 y0 z0 x1 ... (AoS) or three planes x[n] y[n] z[n] (SoA).
 */
#ifndef SW_FLOAT3_CUH
#define SW_FLOAT3_CUH

#include "common.cuh"

/* The course's block: 256 threads, 256 float3 = 768 floats staged. */
#define SW_FLOAT3_THREADS 256
#define SW_FLOAT3_TILE    (3 * SW_FLOAT3_THREADS)
/* The copy reference's grid-stride launch. */
#define SW_FLOAT3_COPY_BLOCKS 4096
#define SW_FLOAT3_COPY_T      ((uint64_t)SW_FLOAT3_COPY_BLOCKS * SW_FLOAT3_THREADS)

/* Float index of component c (0 x, 1 y, 2 z) of element i in AoS. */
SW_HD uint64_t sw_float3_aos_index(uint64_t i, int c)
{
	return 3 * i + (uint64_t)c;
}

/* Float index of component c of element i in SoA with n elements. */
SW_HD uint64_t sw_float3_soa_index(uint64_t i, int c, uint64_t n)
{
	return (uint64_t)c * n + i;
}

/* Float index that thread tid of block blk moves in staging pass k (0..2):
 * each pass is 256 consecutive floats, so each is fully coalesced. */
SW_HD uint64_t sw_float3_staged_index(uint64_t blk, int tid, int k)
{
	return blk * SW_FLOAT3_TILE + (uint64_t)k * SW_FLOAT3_THREADS + (uint64_t)tid;
}

/* What each variant adds to component c: the course's 2, 3 and 4. */
SW_HD float sw_float3_addend(int c)
{
	return 2.0f + (float)c;
}

#endif
