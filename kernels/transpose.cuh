/*
 * transpose's index functions, shared by the kernels and the model so the
 * model describes exactly the addresses the kernels touch. A block of
 * tile x block_rows threads moves one tile x tile tile; thread (tx, ty) of
 * block (bx, by) handles rows ty, ty + block_rows, ... of it (step j).
 */
#ifndef SW_TRANSPOSE_CUH
#define SW_TRANSPOSE_CUH

#include "common.cuh"

/* Element of the rows x cols input read by thread (tx, ty) of block (bx, by)
 * on step j: a warp reads along a row (coalesced) in every variant. */
SW_HD uint64_t sw_transpose_in_index(uint64_t cols, uint32_t tile, uint32_t block_rows, uint32_t bx,
				     uint32_t by, uint32_t tx, uint32_t ty, uint32_t j)
{
	uint64_t row = (uint64_t)by * tile + ty + (uint64_t)j * block_rows;
	return row * cols + (uint64_t)bx * tile + tx;
}

/* Element of the cols x rows output the naive kernel writes for the input
 * element above: a warp writes down a column, one row of output per lane. */
SW_HD uint64_t sw_transpose_naive_out_index(uint64_t rows, uint32_t tile, uint32_t block_rows,
					    uint32_t bx, uint32_t by, uint32_t tx, uint32_t ty,
					    uint32_t j)
{
	uint64_t in_col = (uint64_t)bx * tile + tx;
	uint64_t in_row = (uint64_t)by * tile + ty + (uint64_t)j * block_rows;
	return in_col * rows + in_row;
}

/* Element of the cols x rows output the shared kernel writes on step j: the
 * block writes tile (by, bx) of the output along its rows (coalesced). */
SW_HD uint64_t sw_transpose_shared_out_index(uint64_t rows, uint32_t tile, uint32_t block_rows,
					     uint32_t bx, uint32_t by, uint32_t tx, uint32_t ty,
					     uint32_t j)
{
	uint64_t row = (uint64_t)bx * tile + ty + (uint64_t)j * block_rows;
	return row * rows + (uint64_t)by * tile + tx;
}

/* Shared word (of a tile with tile + pad words per row) that thread (tx, ty)
 * writes on step j, and reads in copy: row ty + j * block_rows, column tx. */
SW_HD uint32_t sw_transpose_tile_row_word(uint32_t tile, uint32_t pad, uint32_t block_rows,
					  uint32_t tx, uint32_t ty, uint32_t j)
{
	return (ty + j * block_rows) * (tile + pad) + tx;
}

/* Shared word the transposing read takes on step j: row tx, column
 * ty + j * block_rows. With pad 0 a warp's lanes share ty and sit tile words
 * apart, all in one bank (C11); pad 1 spreads them over all banks (C12). */
SW_HD uint32_t sw_transpose_tile_col_word(uint32_t tile, uint32_t pad, uint32_t block_rows,
					  uint32_t tx, uint32_t ty, uint32_t j)
{
	return tx * (tile + pad) + ty + j * block_rows;
}

#endif
