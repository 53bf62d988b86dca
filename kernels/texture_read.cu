/*
 * texture_read: a size x size float image read through a texture object, as
 * plain global loads and through the read-only path, for three patterns of
 * 2D locality (NOTES.md C18: irregular 2D-local reads did better through
 * texture on the hardware the course describes; on an H200 all three paths
 * share the L1/texture cache). Each thread sums 8 pixels into one output, so
 * the image is read once; useful bytes are the image plus the output.
 *   texture   tex2D on a cudaArray (block-linear layout: 2D neighbours are
 *             close in memory), point sampling, clamped at the edges; made in
 *             prepare from the harness's image, destroyed in release
 *   global    plain global loads of the row-major image
 *   readonly  const __restrict__ and __ldg: the read-only path
 */
#include "kernel.h"
#include "common.cuh"
#include "texture_read.cuh"

#include <stdio.h>
#include <stdlib.h>

enum { AXIS_PATTERN, AXIS_SIZE };
enum { V_TEXTURE, V_GLOBAL, V_READONLY };

/* What prepare makes for the texture variant. */
struct tex_state {
	cudaArray_t array;
	cudaTextureObject_t tex;
};

template <int P>
__global__ void tex_read_texture_kernel(cudaTextureObject_t tex, float *out, uint32_t size)
{
	uint32_t x = blockIdx.x * SW_TEX_BLOCK_X + threadIdx.x;
	uint32_t y = blockIdx.y * SW_TEX_BLOCK_Y + threadIdx.y;
	float v[SW_TEX_READS];
#pragma unroll
	for (uint32_t j = 0; j < SW_TEX_READS; j++) {
		uint32_t row, col;
		sw_tex_pixel(P, size, x, y, j, &row, &col);
		v[j] = tex2D<float>(tex, (float)col + 0.5f, (float)row + 0.5f);
	}
	float sum = 0.0f;
#pragma unroll
	for (int j = 0; j < SW_TEX_READS; j++)
		sum += v[j];
	out[(uint64_t)y * size + x] = sum;
}

/* No __restrict__: the compiler may not take the read-only path. */
template <int P> __global__ void tex_read_global_kernel(const float *img, float *out, uint32_t size)
{
	uint32_t x = blockIdx.x * SW_TEX_BLOCK_X + threadIdx.x;
	uint32_t y = blockIdx.y * SW_TEX_BLOCK_Y + threadIdx.y;
	float v[SW_TEX_READS];
#pragma unroll
	for (uint32_t j = 0; j < SW_TEX_READS; j++) {
		uint32_t row, col;
		sw_tex_pixel(P, size, x, y, j, &row, &col);
		v[j] = img[(uint64_t)row * size + col];
	}
	float sum = 0.0f;
#pragma unroll
	for (int j = 0; j < SW_TEX_READS; j++)
		sum += v[j];
	out[(uint64_t)y * size + x] = sum;
}

template <int P>
__global__ void tex_read_readonly_kernel(const float *__restrict__ img, float *__restrict__ out,
					 uint32_t size)
{
	uint32_t x = blockIdx.x * SW_TEX_BLOCK_X + threadIdx.x;
	uint32_t y = blockIdx.y * SW_TEX_BLOCK_Y + threadIdx.y;
	float v[SW_TEX_READS];
#pragma unroll
	for (uint32_t j = 0; j < SW_TEX_READS; j++) {
		uint32_t row, col;
		sw_tex_pixel(P, size, x, y, j, &row, &col);
		v[j] = __ldg(&img[(uint64_t)row * size + col]);
	}
	float sum = 0.0f;
#pragma unroll
	for (int j = 0; j < SW_TEX_READS; j++)
		sum += v[j];
	out[(uint64_t)y * size + x] = sum;
}

static uint32_t size_of(const struct sw_point *p)
{
	return (uint32_t)p->axis[AXIS_SIZE];
}

static dim3 grid_of(const struct sw_point *p)
{
	return dim3(size_of(p) / SW_TEX_BLOCK_X, size_of(p) / (SW_TEX_BLOCK_Y * SW_TEX_READS));
}

static cudaError_t launch_texture(const struct sw_point *p, const struct sw_buffers *b,
				  cudaStream_t s)
{
	static void (*const kernels[])(cudaTextureObject_t, float *, uint32_t) = {
		tex_read_texture_kernel<0>, tex_read_texture_kernel<1>, tex_read_texture_kernel<2>
	};
	const struct tex_state *st = (const struct tex_state *)b->state;
	if (!st)
		return cudaErrorInvalidResourceHandle; /* prepare made no texture */
	kernels[p->axis[AXIS_PATTERN]]<<<grid_of(p), dim3(SW_TEX_BLOCK_X, SW_TEX_BLOCK_Y), 0, s>>>(
		st->tex, (float *)b->dev[1], size_of(p));
	return cudaGetLastError();
}

static cudaError_t launch_global(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	static void (*const kernels[])(const float *, float *, uint32_t) = {
		tex_read_global_kernel<0>, tex_read_global_kernel<1>, tex_read_global_kernel<2>
	};
	kernels[p->axis[AXIS_PATTERN]]<<<grid_of(p), dim3(SW_TEX_BLOCK_X, SW_TEX_BLOCK_Y), 0, s>>>(
		(const float *)b->dev[0], (float *)b->dev[1], size_of(p));
	return cudaGetLastError();
}

static cudaError_t launch_readonly(const struct sw_point *p, const struct sw_buffers *b,
				   cudaStream_t s)
{
	static void (*const kernels[])(const float *, float *,
				       uint32_t) = { tex_read_readonly_kernel<0>,
						     tex_read_readonly_kernel<1>,
						     tex_read_readonly_kernel<2> };
	kernels[p->axis[AXIS_PATTERN]]<<<grid_of(p), dim3(SW_TEX_BLOCK_X, SW_TEX_BLOCK_Y), 0, s>>>(
		(const float *)b->dev[0], (float *)b->dev[1], size_of(p));
	return cudaGetLastError();
}

/* Model: request r is read j = r mod 8 of warp w = r / 8; warp w is row
 * w mod 8 of block w / 8, blocks in row-major order over the grid. */
static uint64_t requests_image(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint32_t size = size_of(p);
	uint64_t warps = (uint64_t)size * size / SW_TEX_READS / 32;
	if (req) {
		uint64_t w = r / SW_TEX_READS, block = w / SW_TEX_BLOCK_Y;
		uint32_t j = (uint32_t)(r % SW_TEX_READS);
		uint32_t bx = (uint32_t)(block % (size / SW_TEX_BLOCK_X));
		uint32_t by = (uint32_t)(block / (size / SW_TEX_BLOCK_X));
		uint32_t y = by * SW_TEX_BLOCK_Y + (uint32_t)(w % SW_TEX_BLOCK_Y);
		sw_request_begin(req, SW_SPACE_GLOBAL, 4, 0);
		for (uint32_t l = 0; l < 32; l++) {
			uint32_t row, col;
			sw_tex_pixel((int)p->axis[AXIS_PATTERN], size, bx * SW_TEX_BLOCK_X + l, y,
				     j, &row, &col);
			sw_request_lane(req, l, ((uint64_t)row * size + col) * 4, 1);
		}
	}
	return warps * SW_TEX_READS;
}

/* Time model: a thread's SW_TEX_READS loads are unrolled. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	dim3 g = grid_of(p);
	(void)sm_count;
	return sw_shape_set(s, (uint64_t)g.x * g.y, SW_TEX_BLOCK_X * SW_TEX_BLOCK_Y, 0,
			    SW_TEX_READS);
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	uint64_t pixels = (uint64_t)size_of(p) * size_of(p);
	s->n_buffers = 2;
	s->n_inputs = 1;
	s->bytes[0] = pixels * sizeof(float);
	s->bytes[1] = pixels / SW_TEX_READS * sizeof(float);
	/* check() samples past SW_CHECK_FULL_TERMS terms: only those come back
	 * (a whole output of 32768^2 pixels is 512 MB, pinned on the host) */
	if (pixels > SW_CHECK_FULL_TERMS)
		s->sampled_elem[1] = sizeof(float);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	int64_t tile = SW_TEX_BLOCK_Y * SW_TEX_READS; /* 64: a block covers 32 x 64 pixels */
	if (p->axis[AXIS_SIZE] % tile) {
		snprintf(why, len,
			 "size = %lld is not a multiple of %lld (a block sums 32 x 64 pixels)",
			 (long long)p->axis[AXIS_SIZE], (long long)tile);
		return 1;
	}
	return 0;
}

static double useful_bytes(const struct sw_point *p)
{
	double pixels = (double)size_of(p) * size_of(p);
	return pixels * sizeof(float) * (1.0 + 1.0 / SW_TEX_READS); /* image read, sums written */
}

static double flops(const struct sw_point *p)
{
	return 0; /* memory-bound reads; the adds are incidental */
}

static cudaError_t prepare(const struct sw_point *p, struct sw_buffers *b, cudaStream_t s)
{
	if (p->variant != V_TEXTURE)
		return cudaSuccess;
	uint32_t size = size_of(p);
	struct tex_state *st = (struct tex_state *)calloc(1, sizeof *st);
	if (!st)
		return cudaErrorMemoryAllocation;
	cudaChannelFormatDesc fmt = cudaCreateChannelDesc<float>();
	cudaError_t e = cudaMallocArray(&st->array, &fmt, size, size);
	if (e != cudaSuccess)
		goto free_state;
	e = cudaMemcpy2DToArrayAsync(st->array, 0, 0, b->dev[0], size * sizeof(float),
				     size * sizeof(float), size, cudaMemcpyDeviceToDevice, s);
	if (e != cudaSuccess)
		goto free_array;
	{
		cudaResourceDesc res = {};
		res.resType = cudaResourceTypeArray;
		res.res.array.array = st->array;
		cudaTextureDesc td = {};
		td.addressMode[0] = cudaAddressModeClamp;
		td.addressMode[1] = cudaAddressModeClamp;
		td.filterMode = cudaFilterModePoint;
		td.readMode = cudaReadModeElementType;
		td.normalizedCoords = 0;
		e = cudaCreateTextureObject(&st->tex, &res, &td, NULL);
	}
	if (e != cudaSuccess)
		goto free_array;
	b->state = st;
	return cudaSuccess;

free_array:
	cudaFreeArray(st->array);
free_state:
	free(st);
	return e;
}

static void release(const struct sw_point *p, struct sw_buffers *b)
{
	struct tex_state *st = (struct tex_state *)b->state;
	if (!st)
		return;
	cudaDestroyTextureObject(st->tex);
	cudaFreeArray(st->array);
	free(st);
	b->state = NULL;
}

/* Output (y, x) in double: its 8 pixels as the pattern picks them. */
static double output_sum(const struct sw_point *p, uint64_t seed, uint64_t o)
{
	uint32_t size = size_of(p);
	uint32_t x = (uint32_t)(o % size), y = (uint32_t)(o / size);
	double sum = 0;
	for (uint32_t j = 0; j < SW_TEX_READS; j++) {
		uint32_t row, col;
		sw_tex_pixel((int)p->axis[AXIS_PATTERN], size, x, y, j, &row, &col);
		sum += sw_input_value(seed, (uint64_t)row * size + col);
	}
	return sum;
}

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *out = (const float *)o->out[1];
	uint64_t n_out = (uint64_t)size_of(p) * size_of(p) / SW_TEX_READS;
	uint64_t count = sw_check_begin(c, n_out, n_out * SW_TEX_READS <= SW_CHECK_FULL_TERMS);
	/* float accumulation: each of the 8 adds may round by 2^-24 of the sum */
	double tol = 1e-6 + 2e-7 * SW_TEX_READS;

	sw_check_parallel(c, count, count * SW_TEX_READS, [&](uint64_t k, struct sw_check *part) {
		uint64_t i = sw_check_pick(part, o, k, n_out);
		double want = output_sum(p, o->seed, i);
		sw_check_element(part, i, out[i], want, tol);
	});
}

#define BOTH_AXES ((1u << AXIS_PATTERN) | (1u << AXIS_SIZE))
/* The pattern axis's values by name (SW_TEX_ROWS, SW_TEX_GATHER, SW_TEX_COLUMNS). */
static const char *const patterns[] = { "rows", "gather", "columns", NULL };
static const struct sw_axis_def axes[] = {
	{ "pattern",
	  "",
	  0,
	  2,
	  "rows,gather,columns",
	  "rows (0: a warp reads 32 pixels of a row), gather (1: each read a random neighbour "
	  "within an 8 x 8 window), columns (2: a warp reads 32 rows of a column)",
	  {},
	  patterns },
	{ "size", "elements", 64, 32768, "4096,8192,16384", "side of the square float image" },
};
static const struct sw_variant variants[] = {
	{ "texture", "tex2D on a block-linear cudaArray, point sampling (C18)", launch_texture,
	  NULL, BOTH_AXES, 0 },
	{ "global", "plain global loads of the row-major image (C18)", launch_global,
	  requests_image, BOTH_AXES, 0 },
	{ "readonly", "__ldg read-only loads of the row-major image (C18)", launch_readonly,
	  requests_image, BOTH_AXES, 0 },
};

const struct sw_family sw_family_texture_read = {
	.name = "texture_read",
	.about = "texture object against global and read-only loads, by 2D access pattern",
	.axes = axes,
	.n_axes = SW_COUNT(axes),
	.variants = variants,
	.n_variants = SW_COUNT(variants),
	.sizes = sizes,
	.refuse = refuse,
	.useful_bytes = useful_bytes,
	.flops = flops,
	.check = check,
	.prepare = prepare,
	.release = release,
	.shape = shape,
};
