/*
 * texture_read's launch geometry and pixel function, shared by the kernels,
 * the CPU check and the model so all three read the same pixels.
 */
#ifndef SW_TEXTURE_READ_CUH
#define SW_TEXTURE_READ_CUH

#include "common.cuh"

/* Values of the pattern axis. */
enum { SW_TEX_ROWS = 0, SW_TEX_GATHER = 1, SW_TEX_COLUMNS = 2 };

/* Blocks of 32 x 8 threads; thread (x, y) sums SW_TEX_READS pixels into
 * output (y, x), y < size / SW_TEX_READS, so the image is read once. */
#define SW_TEX_BLOCK_X 32
#define SW_TEX_BLOCK_Y 8
#define SW_TEX_READS   8
/* The gather's neighbours lie in an 8 x 8 window: offsets -4 .. 3. */
#define SW_TEX_WINDOW 8

/* A cheap 32-bit hash of a pixel, for the gather's offsets. */
SW_HD uint32_t sw_tex_hash(uint32_t row, uint32_t col)
{
	uint32_t h = row * 0x9e3779b1u ^ col * 0x85ebca77u;
	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	return h ^ (h >> 12);
}

SW_HD uint32_t sw_tex_clamp(int32_t v, uint32_t size)
{
	return v < 0 ? 0 : v >= (int32_t)size ? size - 1 : (uint32_t)v;
}

/* Pixel (row, col) of read j by thread (x, y) of a size x size image.
 *   rows     (8y + j, x): a warp reads 32 neighbouring pixels of one row
 *   gather   a neighbour of (8y + j, x) picked by a hash within the 8 x 8
 *            window around it, clamped at the edges like the texture
 *   columns  (x, 8y + j): a warp reads 32 rows of one column, a thread
 *            steps right along its own row */
SW_HD void sw_tex_pixel(int pattern, uint32_t size, uint32_t x, uint32_t y, uint32_t j,
			uint32_t *row, uint32_t *col)
{
	uint32_t r = y * SW_TEX_READS + j;
	if (pattern == SW_TEX_COLUMNS) {
		*row = x;
		*col = r;
	} else if (pattern == SW_TEX_GATHER) {
		uint32_t h = sw_tex_hash(r, x);
		int32_t dr = (int32_t)(h % SW_TEX_WINDOW) - SW_TEX_WINDOW / 2;
		int32_t dc = (int32_t)((h / SW_TEX_WINDOW) % SW_TEX_WINDOW) - SW_TEX_WINDOW / 2;
		*row = sw_tex_clamp((int32_t)r + dr, size);
		*col = sw_tex_clamp((int32_t)x + dc, size);
	} else {
		*row = r;
		*col = x;
	}
}

#endif
