/*
 * strided_read's launch shape and index function, shared by the kernels and
 * the model so the model describes exactly the addresses the kernels touch.
 */
#ifndef SW_STRIDED_READ_CUH
#define SW_STRIDED_READ_CUH

#include "common.cuh"

/* The course's launch (NOTES.md C8): grid 4096 x 256, one sum per thread;
 * the grid and block axes change it, 0 keeping it. */
#define SW_STRIDED_BLOCKS  4096
#define SW_STRIDED_THREADS 256
#define SW_STRIDED_T       ((uint64_t)SW_STRIDED_BLOCKS * SW_STRIDED_THREADS)

/* Load (of vec elements) read by thread t of a grid of T threads on its k-th
 * step: every stride-th load, the threads of the grid side by side, so a
 * warp's lanes are stride loads apart. */
SW_HD uint64_t sw_strided_index(uint64_t t, uint64_t k, uint64_t stride, uint64_t T)
{
	return (t + k * T) * stride;
}

#endif
