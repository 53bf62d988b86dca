/*
 * transpose: a rows x cols float matrix transposed into cols x rows, against
 * a 2D copy through the same shared tile (NOTES.md C11, C12, C14). A block of
 * tile x block_rows threads moves one tile x tile tile, each thread
 * tile / block_rows elements; useful bytes are the matrix read and written.
 *   copy    reference: read a tile row-wise into shared memory, write it
 *           back row-wise to the same place; the ceiling of the other two
 *   naive   read along rows, write along columns straight through global
 *           memory: every lane of a store lands in its own sector (C14)
 *   shared  the course's kernel: coalesced read into tile[ty][tx], barrier,
 *           coalesced write from tile[tx][ty]; the column read is a 32-way
 *           bank conflict with pad 0 (C11) and none with pad 1 (C12)
 * Not measured here: the cost of the conflict alone (see smem_bank).
 */
#include "kernel.h"
#include "common.cuh"
#include "transpose.cuh"

#include <stdio.h>

enum { AXIS_ROWS, AXIS_COLS, AXIS_TILE, AXIS_BLOCK_ROWS, AXIS_PAD };
enum { V_COPY, V_NAIVE, V_SHARED };

/* Each kernel is instantiated per (tile, block_rows) so its steps unroll and
 * every thread has all its loads in flight before the first store: with a
 * run-time trip count each warp would wait out one load at a time. */
template <int TILE, int BR>
__global__ void transpose_copy_kernel(const float *__restrict__ in, float *__restrict__ out,
				      uint64_t rows, uint64_t cols, uint32_t pad)
{
	extern __shared__ float tile[];
	uint32_t tx = threadIdx.x, ty = threadIdx.y, bx = blockIdx.x, by = blockIdx.y;
#pragma unroll
	for (uint32_t j = 0; j < TILE / BR; j++)
		tile[sw_transpose_tile_row_word(TILE, pad, BR, tx, ty, j)] =
			in[sw_transpose_in_index(cols, TILE, BR, bx, by, tx, ty, j)];
	__syncthreads(); /* as in the transposes, so the copy pays for the same barrier */
#pragma unroll
	for (uint32_t j = 0; j < TILE / BR; j++)
		out[sw_transpose_in_index(cols, TILE, BR, bx, by, tx, ty, j)] =
			tile[sw_transpose_tile_row_word(TILE, pad, BR, tx, ty, j)];
}

template <int TILE, int BR>
__global__ void transpose_naive_kernel(const float *__restrict__ in, float *__restrict__ out,
				       uint64_t rows, uint64_t cols, uint32_t pad)
{
	uint32_t tx = threadIdx.x, ty = threadIdx.y, bx = blockIdx.x, by = blockIdx.y;
#pragma unroll
	for (uint32_t j = 0; j < TILE / BR; j++)
		out[sw_transpose_naive_out_index(rows, TILE, BR, bx, by, tx, ty, j)] =
			in[sw_transpose_in_index(cols, TILE, BR, bx, by, tx, ty, j)];
}

template <int TILE, int BR>
__global__ void transpose_shared_kernel(const float *__restrict__ in, float *__restrict__ out,
					uint64_t rows, uint64_t cols, uint32_t pad)
{
	extern __shared__ float tile[];
	uint32_t tx = threadIdx.x, ty = threadIdx.y, bx = blockIdx.x, by = blockIdx.y;
#pragma unroll
	for (uint32_t j = 0; j < TILE / BR; j++)
		tile[sw_transpose_tile_row_word(TILE, pad, BR, tx, ty, j)] =
			in[sw_transpose_in_index(cols, TILE, BR, bx, by, tx, ty, j)];
	__syncthreads(); /* the tile is complete before anyone reads a column */
#pragma unroll
	for (uint32_t j = 0; j < TILE / BR; j++)
		out[sw_transpose_shared_out_index(rows, TILE, BR, bx, by, tx, ty, j)] =
			tile[sw_transpose_tile_col_word(TILE, pad, BR, tx, ty, j)];
}

typedef void (*tp_kernel_fn)(const float *, float *, uint64_t, uint64_t, uint32_t);
struct tp_config {
	int tile, block_rows;
	tp_kernel_fn kernel[3]; /* by variant */
};
#define TP_CONFIG(t, br)                                                                           \
	{                                                                                          \
		t, br,                                                                             \
		{                                                                                  \
			transpose_copy_kernel<t, br>, transpose_naive_kernel<t, br>,               \
				transpose_shared_kernel<t, br>                                     \
		}                                                                                  \
	}
/* Every (tile, block_rows) refuse() lets through. */
static const struct tp_config configs[] = {
	TP_CONFIG(8, 4),  TP_CONFIG(8, 8),   TP_CONFIG(16, 2),  TP_CONFIG(16, 4),
	TP_CONFIG(16, 8), TP_CONFIG(16, 16), TP_CONFIG(32, 1),  TP_CONFIG(32, 2),
	TP_CONFIG(32, 4), TP_CONFIG(32, 8),  TP_CONFIG(32, 16), TP_CONFIG(32, 32),
};
#define N_CONFIGS SW_COUNT(configs)

static const struct tp_config *find_config(int64_t tile, int64_t block_rows)
{
	for (int i = 0; i < N_CONFIGS; i++)
		if (configs[i].tile == tile && configs[i].block_rows == block_rows)
			return &configs[i];
	return NULL;
}

/* pad is an axis of shared alone; the copy's tile has none. */
static uint32_t pad_of(const struct sw_point *p)
{
	return p->axis[AXIS_PAD] == SW_AXIS_UNUSED ? 0 : (uint32_t)p->axis[AXIS_PAD];
}

static cudaError_t launch(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	const struct tp_config *cfg = find_config(p->axis[AXIS_TILE], p->axis[AXIS_BLOCK_ROWS]);
	if (!cfg)
		return cudaErrorInvalidConfiguration; /* refuse() keeps such points out */
	uint64_t rows = p->axis[AXIS_ROWS], cols = p->axis[AXIS_COLS];
	uint32_t tile = cfg->tile, pad = pad_of(p);
	dim3 grid((unsigned)(cols / tile), (unsigned)(rows / tile));
	dim3 block(tile, cfg->block_rows);
	size_t smem = p->variant == V_NAIVE ? 0 : (size_t)tile * (tile + pad) * sizeof(float);
	cfg->kernel[p->variant]<<<grid, block, smem, s>>>((const float *)b->dev[0],
							  (float *)b->dev[1], rows, cols, pad);
	return cudaGetLastError();
}

/* Model: the global loads, then the global stores, then (copy, shared) the
 * shared-memory reads that feed the stores; within each kind, request r is
 * step j of warp w of block (bx, by). */
enum { KIND_LOAD, KIND_STORE, KIND_SHARED_READ };
static uint64_t requests(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint64_t rows = p->axis[AXIS_ROWS], cols = p->axis[AXIS_COLS];
	uint32_t tile = (uint32_t)p->axis[AXIS_TILE], br = (uint32_t)p->axis[AXIS_BLOCK_ROWS];
	uint32_t pad = pad_of(p);
	if (!find_config(tile, br))
		return 0;
	uint64_t gx = cols / tile, gy = rows / tile;
	uint32_t warps_per_block = tile * br / 32, steps = tile / br;
	uint64_t per_kind = gx * gy * warps_per_block * steps;
	int kinds = p->variant == V_NAIVE ? 2 : 3;
	if (req) {
		int kind = (int)(r / per_kind);
		uint64_t i = r % per_kind;
		uint32_t j = (uint32_t)(i % steps), w = (uint32_t)(i / steps % warps_per_block);
		uint64_t blk = i / steps / warps_per_block;
		uint32_t bx = (uint32_t)(blk % gx), by = (uint32_t)(blk / gx);
		sw_request_begin(req, kind == KIND_SHARED_READ ? SW_SPACE_SHARED : SW_SPACE_GLOBAL,
				 4, kind == KIND_STORE);
		for (uint32_t l = 0; l < 32; l++) {
			uint32_t t = w * 32 + l, tx = t % tile, ty = t / tile;
			uint64_t e;
			if (kind == KIND_LOAD || (kind == KIND_STORE && p->variant == V_COPY))
				e = sw_transpose_in_index(cols, tile, br, bx, by, tx, ty, j);
			else if (kind == KIND_STORE && p->variant == V_NAIVE)
				e = sw_transpose_naive_out_index(rows, tile, br, bx, by, tx, ty, j);
			else if (kind == KIND_STORE)
				e = sw_transpose_shared_out_index(rows, tile, br, bx, by, tx, ty,
								  j);
			else if (p->variant == V_COPY)
				e = sw_transpose_tile_row_word(tile, pad, br, tx, ty, j);
			else
				e = sw_transpose_tile_col_word(tile, pad, br, tx, ty, j);
			sw_request_lane(req, l, e * 4, 1);
		}
	}
	return kinds * per_kind;
}

/* Time model: a thread moves tile / block_rows elements, loads unrolled. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	uint64_t tile = p->axis[AXIS_TILE], br = p->axis[AXIS_BLOCK_ROWS];
	uint64_t blocks = (p->axis[AXIS_ROWS] / tile) * (p->axis[AXIS_COLS] / tile);
	unsigned smem =
		p->variant == V_NAIVE ? 0 : (unsigned)(tile * (tile + pad_of(p)) * sizeof(float));
	(void)sm_count;
	return sw_shape_set(s, blocks, (unsigned)(tile * br), smem, (unsigned)(tile / br));
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	uint64_t bytes =
		(uint64_t)p->axis[AXIS_ROWS] * (uint64_t)p->axis[AXIS_COLS] * sizeof(float);
	s->n_buffers = 2;
	s->n_inputs = 1;
	s->bytes[0] = bytes;
	s->bytes[1] = bytes;
	/* check() samples past SW_CHECK_FULL_TERMS elements: only those come back */
	if (bytes / sizeof(float) > SW_CHECK_FULL_TERMS)
		s->sampled_elem[1] = sizeof(float);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	int64_t rows = p->axis[AXIS_ROWS], cols = p->axis[AXIS_COLS];
	int64_t tile = p->axis[AXIS_TILE], br = p->axis[AXIS_BLOCK_ROWS];
	if (tile != 8 && tile != 16 && tile != 32) {
		snprintf(why, len, "tile %lld: built for tiles of 8, 16 and 32", (long long)tile);
		return 1;
	}
	if (br > tile || tile % br || (br & (br - 1))) {
		snprintf(why, len, "block_rows %lld does not divide tile %lld in powers of two",
			 (long long)br, (long long)tile);
		return 1;
	}
	if (tile * br < 32) {
		snprintf(why, len,
			 "a block of tile x block_rows = %lld threads is less than a warp",
			 (long long)(tile * br));
		return 1;
	}
	if (rows % tile || cols % tile) {
		snprintf(why, len, "rows %lld and cols %lld must be multiples of tile %lld",
			 (long long)rows, (long long)cols, (long long)tile);
		return 1;
	}
	return 0;
}

static double useful_bytes(const struct sw_point *p)
{
	return 2.0 * (double)p->axis[AXIS_ROWS] * (double)p->axis[AXIS_COLS] * sizeof(float);
}

static double flops(const struct sw_point *p)
{
	(void)p;
	return 0; /* a transpose only moves data */
}

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *out = (const float *)o->out[1];
	uint64_t rows = p->axis[AXIS_ROWS], cols = p->axis[AXIS_COLS], n = rows * cols;
	uint64_t count = sw_check_begin(c, n, n <= SW_CHECK_FULL_TERMS);
	sw_check_parallel(c, count, count, [&](uint64_t k, struct sw_check *part) {
		uint64_t i = sw_check_pick(part, o, k, n);
		/* out[i] of the cols x rows output is input element (i % rows, i / rows) */
		uint64_t src = p->variant == V_COPY ? i : (i % rows) * cols + i / rows;
		double want = sw_uniform(o->seed, src);
		/* a copy moves bits: any difference is an error */
		sw_check_element(part, i, out[i], want, 0);
	});
}

#define ALL_AXES 0x1fu
#define NO_PAD   (ALL_AXES & ~(1u << AXIS_PAD))
static const struct sw_axis_def axes[] = {
	{ "rows", "elements", 8, 65536, "4096,8192",
	  "rows of the input matrix (multiple of tile)" },
	{ "cols", "elements", 8, 65536, "4096,8192",
	  "columns of the input matrix (multiple of tile)" },
	{ "tile", "elements", 8, 32, "32", "side of the square tile a block moves: 8, 16 or 32" },
	{ "block_rows", "threads", 1, 32, "8,32",
	  "threads per block are tile x block_rows; each handles tile / block_rows elements" },
	{ "pad", "words", 0, 4, "0:4", "words added to each shared tile row (shared only)" },
};
static const struct sw_variant variants[] = {
	{ "copy", "2D copy through the same shared tile: the transposes' ceiling", launch, requests,
	  NO_PAD, 1 },
	{ "naive", "transpose straight through global memory: scattered stores (C14)", launch,
	  requests, NO_PAD, 0 },
	{ "shared",
	  "the course's tile transpose: 32-way conflict at pad 0 (C11), none at pad 1 "
	  "(C12)",
	  launch, requests, ALL_AXES, 0 },
};

const struct sw_family sw_family_transpose = {
	.name = "transpose",
	.about = "matrix transpose, naive and through a shared tile, against a 2D copy",
	.axes = axes,
	.n_axes = SW_COUNT(axes),
	.variants = variants,
	.n_variants = SW_COUNT(variants),
	.sizes = sizes,
	.refuse = refuse,
	.useful_bytes = useful_bytes,
	.flops = flops,
	.check = check,
	.shape = shape,
};
