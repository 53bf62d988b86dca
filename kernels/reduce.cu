/*
 * reduce: the dot product of two float vectors of n elements (exercise 4.4
 * of NOTES.md), accumulated in float into one global float. Useful bytes are
 * the two vectors, 2 x n x 4. The variants cut the global atomics from one
 * per element to one per block, then make the block's work cheap enough
 * that the reads run at the memory limit.
 *   atomic        each thread atomicAdd's its product x[i] * y[i]
 *   shared_tree   grid-stride scalar loads, a block tree in shared memory,
 *                 one atomic per block
 *   warp_shuffle  grid-stride float4 loads, four in flight per vector, a
 *                 __shfl_down_sync warp sum, one atomic per block
 *   stream_read   reference: the same float4 reads of both vectors, each
 *                 thread writing its own sum, with no reduction
 * Every launch clears the accumulator with a cudaMemsetAsync first: each
 * timed launch computes the whole dot product again. The block axis (0:
 * 256) reshapes atomic's one-thread-per-element launch.
 */
#include "kernel.h"
#include "common.cuh"
#include "reduce.cuh"

#include <math.h>
#include <stdio.h>

enum { AXIS_N, AXIS_BLOCK };
enum { V_ATOMIC, V_SHARED_TREE, V_WARP_SHUFFLE, V_STREAM_READ };
#define UNROLL 4

__global__ void reduce_fill_kernel(float *x, float *y, uint64_t n, uint64_t seed)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += stride) {
		x[i] = sw_reduce_value(seed, 0, i);
		y[i] = sw_reduce_value(seed, 1, i);
	}
}

/* Exercise 4.4 before the fix: n global atomics on one address. */
__global__ void reduce_atomic_kernel(const float *x, const float *y, float *out, uint64_t n)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(out, x[i] * y[i]);
}

/* The textbook block reduction: halve the active threads each step. */
__global__ void reduce_tree_kernel(const float *x, const float *y, float *out, uint64_t n)
{
	__shared__ float cache[SW_REDUCE_THREADS];
	float sum = 0.0f;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += SW_REDUCE_T)
		sum += x[i] * y[i];
	cache[threadIdx.x] = sum;
	__syncthreads();
	for (unsigned int h = blockDim.x / 2; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			cache[threadIdx.x] += cache[threadIdx.x + h];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(out, cache[0]);
}

__device__ __forceinline__ float reduce_warp_sum(float v)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

__device__ __forceinline__ float reduce_dot4(float4 a, float4 b, float acc)
{
	acc = fmaf(a.x, b.x, acc);
	acc = fmaf(a.y, b.y, acc);
	acc = fmaf(a.z, b.z, acc);
	return fmaf(a.w, b.w, acc);
}

/* One thread's products over the float4s j = t, t + T, ..., with UNROLL
 * loads of each vector issued before any is used. */
__device__ __forceinline__ float reduce_thread_dot(const float4 *__restrict__ x,
						   const float4 *__restrict__ y, uint64_t n4)
{
	uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	float acc[UNROLL] = { 0 };
	for (; j + (UNROLL - 1) * SW_REDUCE_T < n4; j += UNROLL * SW_REDUCE_T) {
		float4 a[UNROLL], b[UNROLL];
#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			a[u] = x[j + u * SW_REDUCE_T];
			b[u] = y[j + u * SW_REDUCE_T];
		}
#pragma unroll
		for (int u = 0; u < UNROLL; u++)
			acc[u] = reduce_dot4(a[u], b[u], acc[u]);
	}
	for (; j < n4; j += SW_REDUCE_T)
		acc[0] = reduce_dot4(x[j], y[j], acc[0]);
	return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

__global__ void reduce_shuffle_kernel(const float4 *__restrict__ x, const float4 *__restrict__ y,
				      float *__restrict__ out, uint64_t n4)
{
	__shared__ float warp_sums[SW_REDUCE_THREADS / 32];
	unsigned int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	float sum = reduce_warp_sum(reduce_thread_dot(x, y, n4));
	if (lane == 0)
		warp_sums[warp] = sum;
	__syncthreads();
	if (warp == 0) {
		sum = reduce_warp_sum(lane < SW_REDUCE_THREADS / 32 ? warp_sums[lane] : 0.0f);
		if (lane == 0)
			atomicAdd(out, sum);
	}
}

/* Reference: the same reads, no reduction. */
__global__ void reduce_stream_kernel(const float4 *__restrict__ x, const float4 *__restrict__ y,
				     float *__restrict__ out, uint64_t n4)
{
	out[blockIdx.x * (uint64_t)blockDim.x + threadIdx.x] = reduce_thread_dot(x, y, n4);
}

static cudaError_t launch_atomic(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	uint64_t n = p->axis[AXIS_N];
	cudaError_t e = cudaMemsetAsync(b->dev[2], 0, sizeof(float), s);
	if (e != cudaSuccess)
		return e;
	/* one thread per element in blocks of the block axis's size (0: 256) */
	unsigned threads = sw_shape_of(p->axis[AXIS_BLOCK], SW_REDUCE_ATOMIC_THREADS);
	reduce_atomic_kernel<<<(unsigned int)((n + threads - 1) / threads), threads, 0, s>>>(
		(const float *)b->dev[0], (const float *)b->dev[1], (float *)b->dev[2], n);
	return cudaGetLastError();
}

static cudaError_t launch_tree(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	cudaError_t e = cudaMemsetAsync(b->dev[2], 0, sizeof(float), s);
	if (e != cudaSuccess)
		return e;
	reduce_tree_kernel<<<SW_REDUCE_BLOCKS, SW_REDUCE_THREADS, 0, s>>>(
		(const float *)b->dev[0], (const float *)b->dev[1], (float *)b->dev[2],
		p->axis[AXIS_N]);
	return cudaGetLastError();
}

static cudaError_t launch_shuffle(const struct sw_point *p, const struct sw_buffers *b,
				  cudaStream_t s)
{
	cudaError_t e = cudaMemsetAsync(b->dev[2], 0, sizeof(float), s);
	if (e != cudaSuccess)
		return e;
	reduce_shuffle_kernel<<<SW_REDUCE_BLOCKS, SW_REDUCE_THREADS, 0, s>>>(
		(const float4 *)b->dev[0], (const float4 *)b->dev[1], (float *)b->dev[2],
		p->axis[AXIS_N] / 4);
	return cudaGetLastError();
}

static cudaError_t launch_stream(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	reduce_stream_kernel<<<SW_REDUCE_BLOCKS, SW_REDUCE_THREADS, 0, s>>>(
		(const float4 *)b->dev[0], (const float4 *)b->dev[1], (float *)b->dev[2],
		p->axis[AXIS_N] / 4);
	return cudaGetLastError();
}

/* Model: the loads of both vectors, x's requests then y's (the same offsets
 * in the other buffer); reduce.cuh gives the addresses. */
static uint64_t requests_loads(const struct sw_point *p, uint64_t r, struct sw_request *req,
			       int word_bytes)
{
	uint64_t words = p->axis[AXIS_N] * 4 / word_bytes, per_vector = (words + 31) / 32;
	if (req) {
		sw_request_begin(req, SW_SPACE_GLOBAL, word_bytes, 0);
		for (int l = 0; l < 32; l++) {
			uint64_t addr = sw_reduce_load_addr(r % per_vector, l, word_bytes);
			sw_request_lane(req, l, addr, addr / word_bytes < words);
		}
	}
	return 2 * per_vector;
}

static uint64_t requests_scalar(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	return requests_loads(p, r, req, 4);
}

static uint64_t requests_float4(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	return requests_loads(p, r, req, 16);
}

/* Time model: UNROLL float4s of each vector a step (the tree: one of
 * each); the atomic variant is outside it. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	(void)sm_count;
	if (p->variant == V_ATOMIC)
		return "n atomics on one address bound it, and its requests hold only its loads";
	if (p->variant == V_SHARED_TREE)
		return sw_shape_set(s, SW_REDUCE_BLOCKS, SW_REDUCE_THREADS,
				    SW_REDUCE_THREADS * sizeof(float), 2);
	return sw_shape_set(s, SW_REDUCE_BLOCKS, SW_REDUCE_THREADS, 0, 2 * UNROLL);
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	uint64_t n = p->axis[AXIS_N];
	s->n_buffers = 3;
	s->n_inputs = 2;
	s->bytes[0] = n * sizeof(float);
	s->bytes[1] = n * sizeof(float);
	s->bytes[2] = p->variant == V_STREAM_READ ? SW_REDUCE_T * sizeof(float) : sizeof(float);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	if ((p->variant == V_WARP_SHUFFLE || p->variant == V_STREAM_READ) && p->axis[AXIS_N] % 4) {
		snprintf(why, len, "%s reads float4: n = %lld is not a multiple of 4",
			 p->variant == V_STREAM_READ ? "stream_read" : "warp_shuffle",
			 (long long)p->axis[AXIS_N]);
		return 1;
	}
	return sw_block_refuse(p->axis[AXIS_BLOCK], 0, why, len);
}

static double useful_bytes(const struct sw_point *p)
{
	return 2.0 * (double)p->axis[AXIS_N] * sizeof(float);
}

static double flops(const struct sw_point *p)
{
	return 2.0 * (double)p->axis[AXIS_N]; /* a multiply and an add per element */
}

static cudaError_t fill(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	reduce_fill_kernel<<<4096, 256, 0, s>>>((float *)b->dev[0], (float *)b->dev[1],
						p->axis[AXIS_N], b->seed);
	return cudaGetLastError();
}

/* Sums in double over elements first, first + stride, ... < last: the dot
 * product, the sum of the products' magnitudes and of their squares. */
struct dot_sums {
	double dot, abs, sq;
};

static struct dot_sums dot_range(uint64_t seed, uint64_t first, uint64_t last, uint64_t stride)
{
	double dot = 0, abs_sum = 0, sq = 0;
	/* the host's cores share a long range (OpenMP), so the check keeps up with the GPU */
#pragma omp parallel for reduction(+ : dot, abs_sum, sq) schedule(static) if ((last - first) / stride > (1u << 20))
	for (uint64_t i = first; i < last; i += stride) {
		/* exact: two 24-bit significands give a 48-bit product */
		double a =
			(double)sw_reduce_value(seed, 0, i) * (double)sw_reduce_value(seed, 1, i);
		dot += a;
		abs_sum += fabs(a);
		sq += a * a;
	}
	struct dot_sums d = { dot, abs_sum, sq };
	return d;
}

/* stream_read: thread t's sum, element by element in full. Each of its four
 * float accumulators takes m fused multiply-adds, each rounding by at most
 * 2^-24 of a partial sum no larger than the sum of magnitudes, and three
 * adds join them: |error| <= (m + 3) 2^-24 sum |x y|, a strict bound. */
static void check_stream(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *out = (const float *)o->out[2];
	uint64_t n4 = p->axis[AXIS_N] / 4;
	uint64_t per_thread = n4 / SW_REDUCE_T + 1;
	uint64_t count =
		sw_check_begin(c, SW_REDUCE_T, SW_REDUCE_T * per_thread * 4 <= SW_CHECK_FULL_TERMS);
#pragma omp parallel for schedule(dynamic, 64)
	for (uint64_t k = 0; k < count; k++) {
		uint64_t t = sw_check_pick(c, o, k, SW_REDUCE_T);
		struct dot_sums d = { 0, 0, 0 };
		for (int comp = 0; comp < 4; comp++) {
			struct dot_sums e =
				dot_range(o->seed, 4 * t + comp, 4 * n4, 4 * SW_REDUCE_T);
			d.dot += e.dot;
			d.abs += e.abs;
		}
		double tol = (double)(per_thread + 3) * 0x1p-24 * d.abs + 1e-30;
		double diff = fabs((double)out[t] - d.dot);
		double err = sw_rel_err(out[t], d.dot);
#pragma omp critical(sw_reduce_check)
		if (sw_check_record(c, err, diff > tol))
			snprintf(c->msg, sizeof c->msg,
				 "element %llu: got %.9g, want %.9g (tolerance %.3g)",
				 (unsigned long long)t, out[t], d.dot, tol);
	}
}

/* The dot product, recomputed in full in double (the output is one float
 * that depends on every element). The GPU adds in float in an order that
 * varies from launch to launch (atomics). Each add rounds by at most 2^-24
 * of the partial sum it makes; for centred products the partial sums are a
 * random walk of size about Q = sqrt(sum (x y)^2), and the n roundings, of
 * random sign, add up to about 0.4 x 2^-24 sqrt(n) Q in the atomic
 * variant's order, one element at a time (tree orders err far less). The
 * tolerance 8 x 2^-24 sqrt(n) Q is some 20 times that. A one-float output cannot see a small part of the input missing:
 * this check finds wrong inputs, a lost fraction of the blocks or a stalled
 * accumulator. */
static void check_dot(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	uint64_t n = p->axis[AXIS_N];
	float got = *(const float *)o->out[2];
	struct dot_sums d = dot_range(o->seed, 0, n, 1);
	double tol = 8 * 0x1p-24 * sqrt((double)n) * sqrt(d.sq) + 1e-30;
	sw_check_begin(c, 1, 1);
	c->max_rel_err = sw_rel_err(got, d.dot);
	if (!(fabs((double)got - d.dot) <= tol)) {
		c->ok = 0;
		snprintf(c->msg, sizeof c->msg, "element 0: got %.9g, want %.9g (tolerance %.3g)",
			 got, d.dot, tol);
	}
}

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	if (p->variant == V_STREAM_READ)
		check_stream(p, o, c);
	else
		check_dot(p, o, c);
}

static const struct sw_axis_def axes[] = {
	{ "n", "elements", 1024, INT64_C(2) << 30, "64M,256M", "length of each vector in floats" },
	SW_BLOCK_AXIS("256"),
};
static const struct sw_variant variants[] = {
	{ "atomic",
	  "one global float atomicAdd per element: n atomics on one address (exercise 4.4)",
	  launch_atomic, requests_scalar, (1u << AXIS_N) | (1u << AXIS_BLOCK), 0 },
	{ "shared_tree", "grid-stride, shared-memory tree per block, one atomic per block (4.4)",
	  launch_tree, requests_scalar, 1u << AXIS_N, 0 },
	{ "warp_shuffle", "float4 grid-stride, warp shuffle sums, one atomic per block (4.4 tuned)",
	  launch_shuffle, requests_float4, 1u << AXIS_N, 0 },
	{ "stream_read",
	  "the same float4 reads of both vectors without a reduction: the memory limit",
	  launch_stream, requests_float4, 1u << AXIS_N, 1 },
};

const struct sw_family sw_family_reduce = {
	.name = "reduce",
	.about = "dot product: global atomics per element against block and warp reductions",
	.axes = axes,
	.n_axes = SW_COUNT(axes),
	.variants = variants,
	.n_variants = SW_COUNT(variants),
	.sizes = sizes,
	.refuse = refuse,
	.useful_bytes = useful_bytes,
	.flops = flops,
	.check = check,
	.fill = fill,
	.shape = shape,
};
