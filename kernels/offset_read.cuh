/*
 * offset_read's launch shape and index function, shared by the kernels and
 * the model so the model describes exactly the addresses the kernels touch.
 */
#ifndef SW_OFFSET_READ_CUH
#define SW_OFFSET_READ_CUH

#include "common.cuh"

/* The same launch as strided_read: grid 4096 x 256, one sum per thread;
 * the grid and block axes change it, 0 keeping it. */
#define SW_OFFSET_BLOCKS  4096
#define SW_OFFSET_THREADS 256
#define SW_OFFSET_T       ((uint64_t)SW_OFFSET_BLOCKS * SW_OFFSET_THREADS)

/* Load (of vec elements) read by thread t of a grid of T threads on its
 * k-th step, counted from the start of the range (add the offset for the
 * array's load index): the threads of the grid side by side, so a warp's
 * lanes read 32 consecutive loads. */
SW_HD uint64_t sw_offset_index(uint64_t t, uint64_t k, uint64_t T)
{
	return t + k * T;
}

#endif
