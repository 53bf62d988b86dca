/*
 * rowsum's index functions, shared by the kernels and the model so the
 * model describes exactly the addresses the kernels touch. The matrix is
 * rows x cols floats, row-major.
 */
#ifndef SW_ROWSUM_CUH
#define SW_ROWSUM_CUH

#include "common.cuh"

#define SW_ROWSUM_THREADS 256
#define SW_ROWSUM_WARPS   (SW_ROWSUM_THREADS / 32)
/* block_per_row: loads each thread issues before adding any of them */
#define SW_ROWSUM_UNROLL 4

/* Float index of element (row, col). */
SW_HD uint64_t sw_rowsum_index(uint64_t row, uint64_t col, uint64_t cols)
{
	return row * cols + col;
}

/* Column that thread tid of a row's group of `group` threads reads on its
 * k-th step: the group strides across the row, so a warp reads 32
 * consecutive floats (block_per_row: group 256; warp_per_row: group 32). */
SW_HD uint64_t sw_rowsum_col(uint64_t tid, uint64_t k, uint64_t group)
{
	return tid + k * group;
}

#endif
