/*
 * constant_read: what a warp's load costs when its lanes read `distinct`
 * different words of one 128-byte line (NOTES.md C17). A fixed amount of
 * work (8192 x 256 threads, 1024 loads each, summed per thread) keeps each
 * launch long; useful bytes are the 4-byte words the threads read, so the
 * bandwidth is inverse to the time per warp load. The table is 64 KB of
 * uniform floats, made on the device from the seed, copied to __constant__
 * memory in prepare. The block axis (0: 256) splits the same threads into
 * other blocks: occupancy's share, the addresses unchanged.
 *   constant  __constant__ array: the constant cache serves one address per
 *             pass, so the cost grows linearly with distinct (C17)
 *   global    plain global loads through L1: one line, one pass, flat
 *   readonly  const __restrict__ and __ldg: the read-only path, flat
 */
#include "kernel.h"
#include "common.cuh"
#include "constant_read.cuh"

#include <stdio.h>

enum { AXIS_DISTINCT, AXIS_BLOCK };
enum { V_CONSTANT, V_GLOBAL, V_READONLY };
#define ACCS 4 /* independent sums per thread, so loads need not wait on adds */

__constant__ float sw_const_table[SW_CONST_WORDS];

__global__ void const_read_constant_kernel(float *out, uint32_t distinct, uint32_t step)
{
	uint32_t lane = threadIdx.x & 31;
	float acc[ACCS] = { 0 };
	for (uint32_t k = 0; k < SW_CONST_LOADS; k += ACCS) {
#pragma unroll
		for (int u = 0; u < ACCS; u++)
			acc[u] += sw_const_table[sw_const_index(k + u, lane, distinct, step)];
	}
	out[blockIdx.x * (uint64_t)blockDim.x + threadIdx.x] =
		(acc[0] + acc[1]) + (acc[2] + acc[3]);
}

/* No __restrict__: the compiler may not take the read-only path. */
__global__ void const_read_global_kernel(const float *table, float *out, uint32_t distinct,
					 uint32_t step)
{
	uint32_t lane = threadIdx.x & 31;
	float acc[ACCS] = { 0 };
	for (uint32_t k = 0; k < SW_CONST_LOADS; k += ACCS) {
#pragma unroll
		for (int u = 0; u < ACCS; u++)
			acc[u] += table[sw_const_index(k + u, lane, distinct, step)];
	}
	out[blockIdx.x * (uint64_t)blockDim.x + threadIdx.x] =
		(acc[0] + acc[1]) + (acc[2] + acc[3]);
}

__global__ void const_read_readonly_kernel(const float *__restrict__ table, float *__restrict__ out,
					   uint32_t distinct, uint32_t step)
{
	uint32_t lane = threadIdx.x & 31;
	float acc[ACCS] = { 0 };
	for (uint32_t k = 0; k < SW_CONST_LOADS; k += ACCS) {
#pragma unroll
		for (int u = 0; u < ACCS; u++)
			acc[u] += __ldg(&table[sw_const_index(k + u, lane, distinct, step)]);
	}
	out[blockIdx.x * (uint64_t)blockDim.x + threadIdx.x] =
		(acc[0] + acc[1]) + (acc[2] + acc[3]);
}

static uint32_t distinct_of(const struct sw_point *p)
{
	return (uint32_t)p->axis[AXIS_DISTINCT];
}

/* The block axis reshapes the same SW_CONST_T threads (refuse keeps the
 * blocks whole): each thread's loads, and so the work, stay as they are. */
static unsigned threads_of(const struct sw_point *p)
{
	return sw_shape_of(p->axis[AXIS_BLOCK], SW_CONST_THREADS);
}

static unsigned blocks_of(const struct sw_point *p)
{
	return (unsigned)(SW_CONST_T / threads_of(p));
}

static cudaError_t launch_constant(const struct sw_point *p, const struct sw_buffers *b,
				   cudaStream_t s)
{
	const_read_constant_kernel<<<blocks_of(p), threads_of(p), 0, s>>>(
		(float *)b->dev[1], distinct_of(p), SW_CONST_STEP);
	return cudaGetLastError();
}

static cudaError_t launch_global(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	const_read_global_kernel<<<blocks_of(p), threads_of(p), 0, s>>>(
		(const float *)b->dev[0], (float *)b->dev[1], distinct_of(p), SW_CONST_STEP);
	return cudaGetLastError();
}

static cudaError_t launch_readonly(const struct sw_point *p, const struct sw_buffers *b,
				   cudaStream_t s)
{
	const_read_readonly_kernel<<<blocks_of(p), threads_of(p), 0, s>>>(
		(const float *)b->dev[0], (float *)b->dev[1], distinct_of(p), SW_CONST_STEP);
	return cudaGetLastError();
}

/* Model: request r is load k of warp w; its lanes read sw_const_index, from
 * the table in global memory or in the __constant__ bank. */
static uint64_t requests_in(const struct sw_point *p, uint64_t r, struct sw_request *req,
			    enum sw_space space)
{
	uint64_t warps = SW_CONST_T / 32;
	if (req) {
		uint32_t k = (uint32_t)(r % SW_CONST_LOADS);
		sw_request_begin(req, space, 4, 0);
		for (uint32_t l = 0; l < 32; l++) {
			uint32_t word = sw_const_index(k, l, distinct_of(p), SW_CONST_STEP);
			sw_request_lane(req, l, 4 * (uint64_t)word, 1);
		}
	}
	return warps * SW_CONST_LOADS;
}

static uint64_t requests_table(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	return requests_in(p, r, req, SW_SPACE_GLOBAL);
}

static uint64_t requests_constant(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	return requests_in(p, r, req, SW_SPACE_CONSTANT);
}

/* Time model: ACCS loads in flight a thread. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	(void)sm_count;
	return sw_shape_set(s, blocks_of(p), threads_of(p), 0, ACCS);
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	s->n_buffers = 2;
	s->n_inputs = 1;
	s->bytes[0] = SW_CONST_WORDS * sizeof(float);
	s->bytes[1] = SW_CONST_T * sizeof(float);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	/* every distinct in 1..32 runs */
	return sw_block_refuse(p->axis[AXIS_BLOCK], SW_CONST_T, why, len);
}

static double useful_bytes(const struct sw_point *p)
{
	return (double)SW_CONST_T * SW_CONST_LOADS * sizeof(float);
}

static double flops(const struct sw_point *p)
{
	return 0; /* the adds only keep the loads */
}

/* The table goes to __constant__ memory from the device copy the harness
 * filled, outside the timed region. */
static cudaError_t prepare(const struct sw_point *p, struct sw_buffers *b, cudaStream_t s)
{
	if (p->variant != V_CONSTANT)
		return cudaSuccess;
	return cudaMemcpyToSymbolAsync(sw_const_table, b->dev[0], SW_CONST_WORDS * sizeof(float), 0,
				       cudaMemcpyDeviceToDevice, s);
}

/* Thread t's sum in double; its loads are the same in every variant. */
static double thread_sum(const struct sw_point *p, uint64_t seed, uint64_t t)
{
	double sum = 0;
	for (uint32_t k = 0; k < SW_CONST_LOADS; k++)
		sum += sw_input_value(
			seed, sw_const_index(k, (uint32_t)(t % 32), distinct_of(p), SW_CONST_STEP));
	return sum;
}

/* A thread's sum costs 1024 terms and there are 2M threads: always sampled.
 * Float accumulation: each of the 1024 adds may round by 2^-24 of the
 * running sum. */
static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *out = (const float *)o->out[1];
	double tol = 1e-6 + 2e-7 * SW_CONST_LOADS;
	uint64_t count = sw_check_begin(c, SW_CONST_T, 0);
	for (uint64_t k = 0; k < count; k++) {
		uint64_t t = sw_check_pick(c, o, k, SW_CONST_T);
		double want = thread_sum(p, o->seed, t);
		sw_check_element(c, t, out[t], want, tol);
	}
}

static const struct sw_axis_def axes[] = {
	{ "distinct", "addresses", 1, 32, "1,2,4,8,16,32",
	  "different words a warp reads per load (groups of consecutive lanes share one word)" },
	SW_BLOCK_AXIS("256; the 2M threads stay"),
};
#define BOTH_AXES ((1u << AXIS_DISTINCT) | (1u << AXIS_BLOCK))
static const struct sw_variant variants[] = {
	{ "constant", "__constant__ table: one address per pass, cost linear in distinct (C17)",
	  launch_constant, requests_constant, BOTH_AXES, 0 },
	{ "global", "plain global loads of the same words: one L1 line per load, flat (C17)",
	  launch_global, requests_table, BOTH_AXES, 0 },
	{ "readonly", "__ldg read-only path of the same words, flat (C17)", launch_readonly,
	  requests_table, BOTH_AXES, 0 },
};

const struct sw_family sw_family_constant_read = {
	.name = "constant_read",
	.about =
		"constant cache against global and read-only loads, by distinct addresses per warp",
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
	.shape = shape,
};
