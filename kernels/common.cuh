/*
 * What every family's .cu includes: the family API of <sweep/family.h> (the
 * input generator, the steps of a CPU check and of a model request, SW_HD)
 * and the built-in registry. Kept so the families' includes stay as they are.
 */
#ifndef SW_COMMON_CUH
#define SW_COMMON_CUH

#include <string.h>

#include "kernel.h"

/* The launch-shape axes (block, grid) every family that has them declares
 * alike: 0, their baseline, is the variant's own launch, so points made
 * before the axes existed keep their ids. own names that launch. */
#define SW_BLOCK_AXIS(own)                                                                         \
	{                                                                                          \
		"block", "threads", 0, 1024, "0",                                                  \
			"threads per block; 0: the variant's own (" own ")", SW_BASELINE(0)        \
	}
#define SW_GRID_AXIS(own)                                                                          \
	{                                                                                          \
		"grid", "blocks", 0, INT64_C(1) << 16, "0",                                        \
			"blocks in the grid; 0: the variant's own (" own ")", SW_BASELINE(0)       \
	}

/* A launch-shape axis's value, or own where the point leaves it at 0 (or
 * the variant does not use it: SW_AXIS_UNUSED). */
static inline unsigned sw_shape_of(int64_t v, unsigned own)
{
	return v > 0 ? (unsigned)v : own;
}

/* Refuses a block of threads that is not whole warps (the model's requests
 * are whole warps of consecutive threads) or, where the family keeps its
 * total threads fixed (total > 0), that does not divide them. */
static inline int sw_block_refuse(int64_t block, uint64_t total, char *why, size_t len)
{
	if (block <= 0)
		return 0;
	if (block % 32) {
		snprintf(why, len, "block of %lld threads is not a whole number of warps",
			 (long long)block);
		return 1;
	}
	if (total && total % (uint64_t)block) {
		snprintf(why, len, "block of %lld threads does not divide the %llu threads",
			 (long long)block, (unsigned long long)total);
		return 1;
	}
	return 0;
}

/* The element-width axes (vec, elem_bytes) of strided_read and offset_read:
 * a load of vec elements of elem_bytes each, at most 16 bytes (the widest
 * load a thread can issue). Baselines 1 and 4: one float, as before. */
#define SW_VEC_AXIS                                                                                \
	{                                                                                          \
		"vec", "elements", 1, 4, "1", "elements per load: 1, 2 or 4 (float2, float4...)",  \
			SW_BASELINE(1)                                                             \
	}
#define SW_ELEM_BYTES_AXIS                                                                         \
	{                                                                                          \
		"elem_bytes", "bytes", 4, 8, "4", "bytes per element: 4 (float) or 8 (double)",    \
			SW_BASELINE(4)                                                             \
	}

/* A point's vec and elem_bytes, the baseline where unused or unset. */
static inline unsigned sw_vec_of(int64_t v)
{
	return v > 0 ? (unsigned)v : 1;
}

static inline unsigned sw_elem_bytes_of(int64_t v)
{
	return v > 0 ? (unsigned)v : 4;
}

/* The launch and loads of a read family (strided_read, offset_read):
 * blocks x threads threads, T in all, each load vec elements of elem_bytes
 * (word_bytes together), loads of them in n elements; grid or block 0 is
 * the family's own. start is the first load read, 0 here (offset_read's
 * offset variant sets it). */
struct sw_read_shape {
	unsigned blocks, threads, vec, elem_bytes, word_bytes;
	uint64_t T, loads, start;
};

/* A launch shape for the time model (family.h's shape hook): NULL. */
static inline const char *sw_shape_set(struct sw_launch_shape *s, uint64_t blocks, unsigned threads,
				       unsigned shared_bytes, unsigned in_flight)
{
	s->blocks = blocks;
	s->threads = threads;
	s->shared_bytes = shared_bytes;
	s->in_flight = in_flight;
	return NULL;
}

static inline struct sw_read_shape sw_read_shape_of(int64_t grid, int64_t block, int64_t vec,
						    int64_t elem_bytes, int64_t n,
						    unsigned own_blocks, unsigned own_threads)
{
	struct sw_read_shape sh;
	sh.blocks = sw_shape_of(grid, own_blocks);
	sh.threads = sw_shape_of(block, own_threads);
	sh.T = (uint64_t)sh.blocks * sh.threads;
	sh.vec = sw_vec_of(vec);
	sh.elem_bytes = sw_elem_bytes_of(elem_bytes);
	sh.word_bytes = sh.vec * sh.elem_bytes;
	sh.loads = (uint64_t)n / sh.vec;
	sh.start = 0;
	return sh;
}

/* Refuses a load the hardware has no instruction for: vec 3, elements of
 * other than 4 or 8 bytes, or more than 16 bytes (a double4). */
static inline int sw_width_refuse(unsigned vec, unsigned elem_bytes, char *why, size_t len)
{
	if (vec != 1 && vec != 2 && vec != 4) {
		snprintf(why, len, "vec %u: a load holds 1, 2 or 4 elements", vec);
		return 1;
	}
	if (elem_bytes != 4 && elem_bytes != 8) {
		snprintf(why, len, "elem_bytes %u: elements are floats (4) or doubles (8)",
			 elem_bytes);
		return 1;
	}
	if (vec * elem_bytes > 16) {
		snprintf(why, len, "vec %u x elem_bytes %u = %u bytes: a load is at most 16", vec,
			 elem_bytes, vec * elem_bytes);
		return 1;
	}
	return 0;
}

/* The input value of element i for 8-byte elements: the float sw_uniform
 * gives, widened, so a double input holds the same 24-bit values a float one
 * does and its sums are exact far longer. */
SW_HD double sw_uniform_double(uint64_t seed, uint64_t i)
{
	return (double)sw_uniform(seed, i);
}

/* The sum of a loaded vector's elements, in its element type. */
SW_HD float sw_vsum(float v)
{
	return v;
}
SW_HD float sw_vsum(float2 v)
{
	return v.x + v.y;
}
SW_HD float sw_vsum(float4 v)
{
	return (v.x + v.y) + (v.z + v.w);
}
SW_HD double sw_vsum(double v)
{
	return v;
}
SW_HD double sw_vsum(double2 v)
{
	return v.x + v.y;
}

/* A CPU check's comparisons k < count, each costing about terms / count
 * input values, across the host's cores: so a long check holds neither the
 * next point's GPU work (which waits for it) nor any core idle. The work is
 * cut into SW_CHECK_CHUNKS fixed slices, each compared into its own part and
 * the parts merged in order, so the row (largest error, first failure and
 * its message) is the same as a serial check's, whatever the threads. */
#define SW_CHECK_CHUNKS 64
template <typename Compare>
static inline void sw_check_parallel(struct sw_check *c, uint64_t count, uint64_t terms,
				     Compare compare)
{
	struct sw_check part[SW_CHECK_CHUNKS];
	const struct sw_check begun = *c;
#pragma omp parallel for schedule(dynamic, 1) if (terms > (UINT64_C(1) << 20))
	for (int j = 0; j < SW_CHECK_CHUNKS; j++) {
		part[j] = begun;
		for (uint64_t k = count * j / SW_CHECK_CHUNKS;
		     k < count * (j + 1) / SW_CHECK_CHUNKS; k++)
			compare(k, &part[j]);
	}
	for (int j = 0; j < SW_CHECK_CHUNKS; j++)
		if (sw_check_record(c, part[j].max_rel_err, !part[j].ok))
			memcpy(c->msg, part[j].msg, sizeof c->msg);
}

/* A template so that every family file including this header may have it
 * without defining the kernel twice. */
template <typename T> __global__ void sw_fill_uniform_as_kernel(T *a, uint64_t n, uint64_t seed)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += stride)
		a[i] = (T)sw_uniform_double(seed, i);
}

/* Fills n doubles with sw_uniform_double(seed, i): the inputs of 8-byte
 * elements. Enqueues only. */
static inline cudaError_t sw_fill_uniform_double(double *dev, uint64_t n, uint64_t seed,
						 cudaStream_t s)
{
	sw_fill_uniform_as_kernel<double><<<4096, 256, 0, s>>>(dev, n, seed);
	return cudaGetLastError();
}
#endif
