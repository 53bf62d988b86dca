/*
 * offset_read's index function, shared by the kernels and the model so the
 * model describes exactly the addresses the kernels touch.
 */
#ifndef SW_OFFSET_READ_CUH
#define SW_OFFSET_READ_CUH

#include "common.cuh"

/* The same launch as strided_read: grid 4096 x 256, one sum per thread. */
#define SW_OFFSET_BLOCKS  4096
#define SW_OFFSET_THREADS 256
#define SW_OFFSET_T       ((uint64_t)SW_OFFSET_BLOCKS * SW_OFFSET_THREADS)

/* Element read by thread t on its k-th step, counted from the start of the
 * range (add the offset for the array index): the threads of the grid side
 * by side, so a warp's lanes read 32 consecutive floats. */
SW_HD uint64_t sw_offset_index(uint64_t t, uint64_t k)
{
	return t + k * SW_OFFSET_T;
}

#endif
