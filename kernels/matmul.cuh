/*
 * matmul's index functions, shared by the naive kernel and the model so the
 * model describes exactly the addresses that kernel reads. Matrices are
 * n x n, row-major; n <= 16384 keeps every element index below 2^28, so
 * 32-bit indices do not overflow.
 */
#ifndef SW_MATMUL_CUH
#define SW_MATMUL_CUH

#include "common.cuh"

/* Row and column of C that thread (tx, ty) of block (bx, by) computes, in a
 * grid of tile x tile blocks: x runs along a row of C. */
SW_HD uint32_t sw_matmul_row(uint32_t tile, uint32_t by, uint32_t ty)
{
	return by * tile + ty;
}

SW_HD uint32_t sw_matmul_col(uint32_t tile, uint32_t bx, uint32_t tx)
{
	return bx * tile + tx;
}

/* The naive kernel's k-th loads: A[row][k], the same word for a row's
 * threads, and B[k][col], consecutive words along a row of B. */
SW_HD uint32_t sw_matmul_a_index(uint32_t n, uint32_t row, uint32_t k)
{
	return row * n + k;
}

SW_HD uint32_t sw_matmul_b_index(uint32_t n, uint32_t k, uint32_t col)
{
	return k * n + col;
}

#endif
