/*
 * float3: the course's float3 example (NOTES.md C3, C5, C6). Every variant
 * adds 2, 3 and 4 to the x, y and z of n elements, reading one array and
 * writing another. A float3 is a 12-byte word, which no CC 1.x half-warp
 * could coalesce; on later GPUs each of its three 4-byte loads spans 384
 * bytes per warp (12 sectors instead of 4), but the three together use every
 * byte of the sectors they touch, so the L1 may absorb most of the cost.
 *   aos     the course's kernel A: each thread reads and writes its float3
 *           directly (the uncoalesced case, C3)
 *   staged  kernel B: a block of 256 threads moves 768 floats between
 *           global and shared memory in three coalesced passes each way (C5)
 *   soa     the same update on three separate arrays x[n], y[n], z[n] (C6)
 *   copy    reference: coalesced float4 copy of the same 12n bytes
 *   memcpy  reference: cudaMemcpy device to device of the same bytes
 * The three arrays of soa are the three planes of one buffer, so every
 * variant has one input and one output of 3n floats. The block axis (0: the
 * course's 256) reshapes aos and soa, one thread per element either way.
 */
#include "kernel.h"
#include "common.cuh"
#include "float3.cuh"
#include "stream_ref.cuh"

#include <stdio.h>

enum { AXIS_N, AXIS_BLOCK };
enum { V_AOS, V_STAGED, V_SOA, V_COPY, V_MEMCPY };

__global__ void float3_aos_kernel(const float *__restrict__ in, float *__restrict__ out, uint64_t n)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	/* a float3 is only 4-byte aligned: three 4-byte loads, 12 bytes apart
	 * from lane to lane */
	float v[3];
#pragma unroll
	for (int c = 0; c < 3; c++)
		v[c] = in[sw_float3_aos_index(i, c)];
#pragma unroll
	for (int c = 0; c < 3; c++)
		out[sw_float3_aos_index(i, c)] = v[c] + sw_float3_addend(c);
}

/* The barriers keep the shared loads where they are: the compiler cannot
 * move them across __syncthreads() nor merge them with the staging passes.
 * Lane l updates tile[3 l .. 3 l + 2]: stride 3 words, conflict free. */
__global__ void float3_staged_kernel(const float *__restrict__ in, float *__restrict__ out,
				     uint64_t n)
{
	__shared__ float tile[SW_FLOAT3_TILE];
	uint64_t floats = 3 * n;
	int tid = threadIdx.x;
#pragma unroll
	for (int k = 0; k < 3; k++) {
		uint64_t j = sw_float3_staged_index(blockIdx.x, tid, k);
		if (j < floats)
			tile[k * SW_FLOAT3_THREADS + tid] = in[j];
	}
	__syncthreads();
	uint64_t i = blockIdx.x * (uint64_t)SW_FLOAT3_THREADS + tid;
	if (i < n) {
#pragma unroll
		for (int c = 0; c < 3; c++)
			tile[3 * tid + c] += sw_float3_addend(c);
	}
	__syncthreads();
#pragma unroll
	for (int k = 0; k < 3; k++) {
		uint64_t j = sw_float3_staged_index(blockIdx.x, tid, k);
		if (j < floats)
			out[j] = tile[k * SW_FLOAT3_THREADS + tid];
	}
}

__global__ void float3_soa_kernel(const float *__restrict__ in, float *__restrict__ out, uint64_t n)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v[3];
#pragma unroll
	for (int c = 0; c < 3; c++)
		v[c] = in[sw_float3_soa_index(i, c, n)];
#pragma unroll
	for (int c = 0; c < 3; c++)
		out[sw_float3_soa_index(i, c, n)] = v[c] + sw_float3_addend(c);
}

/* Reference: float4 copy, grid-stride, four loads in flight per thread. */
__global__ void float3_copy_kernel(const float4 *__restrict__ in, float4 *__restrict__ out,
				   uint64_t n4)
{
	uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	uint64_t j = t;
	for (; j + 3 * SW_FLOAT3_COPY_T < n4; j += 4 * SW_FLOAT3_COPY_T) {
		float4 v[4];
#pragma unroll
		for (int u = 0; u < 4; u++)
			v[u] = in[j + u * SW_FLOAT3_COPY_T];
#pragma unroll
		for (int u = 0; u < 4; u++)
			out[j + u * SW_FLOAT3_COPY_T] = v[u];
	}
	for (; j < n4; j += SW_FLOAT3_COPY_T)
		out[j] = in[j];
}

/* Threads per block: the block axis's for aos and soa, whose threads each
 * take one element wherever their block is (staged's tile is 256 wide). */
static unsigned threads_of(const struct sw_point *p)
{
	return sw_shape_of(p->axis[AXIS_BLOCK], SW_FLOAT3_THREADS);
}

/* One thread per element, as the course launches kernels A and B. */
static unsigned blocks_for(const struct sw_point *p)
{
	return (unsigned)(((uint64_t)p->axis[AXIS_N] + threads_of(p) - 1) / threads_of(p));
}

static cudaError_t launch_aos(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	float3_aos_kernel<<<blocks_for(p), threads_of(p), 0, s>>>(
		(const float *)b->dev[0], (float *)b->dev[1], p->axis[AXIS_N]);
	return cudaGetLastError();
}

static cudaError_t launch_staged(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	float3_staged_kernel<<<blocks_for(p), SW_FLOAT3_THREADS, 0, s>>>(
		(const float *)b->dev[0], (float *)b->dev[1], p->axis[AXIS_N]);
	return cudaGetLastError();
}

static cudaError_t launch_soa(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	float3_soa_kernel<<<blocks_for(p), threads_of(p), 0, s>>>(
		(const float *)b->dev[0], (float *)b->dev[1], p->axis[AXIS_N]);
	return cudaGetLastError();
}

static cudaError_t launch_copy(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	float3_copy_kernel<<<SW_FLOAT3_COPY_BLOCKS, SW_FLOAT3_THREADS, 0, s>>>(
		(const float4 *)b->dev[0], (float4 *)b->dev[1], 3 * (uint64_t)p->axis[AXIS_N] / 4);
	return cudaGetLastError();
}

static cudaError_t launch_memcpy(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	return cudaMemcpyAsync(b->dev[1], b->dev[0], 3 * (size_t)p->axis[AXIS_N] * sizeof(float),
			       cudaMemcpyDeviceToDevice, s);
}

/* Model of aos and soa: request r is the load of component r % 3 by warp
 * r / 3 (the stores repeat the same addresses). */
static uint64_t requests_direct(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint64_t n = p->axis[AXIS_N];
	uint64_t warps = (n + 31) / 32;
	if (req) {
		uint64_t w = r / 3;
		int c = (int)(r % 3);
		sw_request_begin(req, SW_SPACE_GLOBAL, 4, 0);
		for (int l = 0; l < 32; l++) {
			uint64_t i = w * 32 + l;
			uint64_t j = p->variant == V_SOA ? sw_float3_soa_index(i, c, n)
							 : sw_float3_aos_index(i, c);
			sw_request_lane(req, l, j * 4, i < n);
		}
	}
	return warps * 3;
}

/* Model of staged: request r is staging pass k of warp w of block blk. */
static uint64_t requests_staged(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint64_t n = p->axis[AXIS_N];
	const uint64_t per_block = 3 * (SW_FLOAT3_THREADS / 32);
	if (req) {
		uint64_t blk = r / per_block;
		int k = (int)(r % per_block) / (SW_FLOAT3_THREADS / 32);
		int w = (int)(r % (SW_FLOAT3_THREADS / 32));
		sw_request_begin(req, SW_SPACE_GLOBAL, 4, 0);
		for (int l = 0; l < 32; l++) {
			uint64_t j = sw_float3_staged_index(blk, w * 32 + l, k);
			sw_request_lane(req, l, j * 4, j < 3 * n);
		}
	}
	return (uint64_t)blocks_for(p) * per_block;
}

/* Model of copy: its float4 loads walk the grid as stream_read's do. */
static_assert(SW_FLOAT3_COPY_T == SW_STREAM_T, "copy reads on stream_read's grid");
static uint64_t requests_copy(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	return sw_stream_requests(3 * (uint64_t)p->axis[AXIS_N] / 4, r, req);
}

/* Time model: every variant's thread loads its three floats (or, for copy,
 * four float4s) before it uses one. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	(void)sm_count;
	if (p->variant == V_COPY)
		return sw_shape_set(s, SW_FLOAT3_COPY_BLOCKS, SW_FLOAT3_THREADS, 0, 4);
	else if (p->variant == V_STAGED)
		return sw_shape_set(s, blocks_for(p), SW_FLOAT3_THREADS,
				    SW_FLOAT3_TILE * sizeof(float), 3);
	else
		return sw_shape_set(s, blocks_for(p), threads_of(p), 0, 3);
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	s->n_buffers = 2;
	s->n_inputs = 1;
	s->bytes[0] = 3 * (size_t)p->axis[AXIS_N] * sizeof(float);
	s->bytes[1] = s->bytes[0];
	/* check() samples past SW_CHECK_FULL_TERMS floats: only those come back */
	if (3 * (uint64_t)p->axis[AXIS_N] > SW_CHECK_FULL_TERMS)
		s->sampled_elem[1] = sizeof(float);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	if (p->variant == V_COPY && p->axis[AXIS_N] % 4) {
		snprintf(why, len,
			 "copy moves float4: 3n floats with n = %lld are not a multiple of 4",
			 (long long)p->axis[AXIS_N]);
		return 1;
	}
	return sw_block_refuse(p->axis[AXIS_BLOCK], 0, why, len);
}

static double useful_bytes(const struct sw_point *p)
{
	return 24.0 * (double)p->axis[AXIS_N]; /* 12 bytes read and 12 written per element */
}

static double flops(const struct sw_point *p)
{
	return p->variant == V_COPY || p->variant == V_MEMCPY ? 0 : 3.0 * (double)p->axis[AXIS_N];
}

/* The component output float j holds, in the variant's layout. */
static int component_of(const struct sw_point *p, uint64_t j)
{
	if (p->variant == V_SOA)
		return (int)(j / (uint64_t)p->axis[AXIS_N]);
	return (int)(j % 3);
}

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *out = (const float *)o->out[1];
	uint64_t floats = 3 * (uint64_t)p->axis[AXIS_N];
	int adds = p->variant != V_COPY && p->variant != V_MEMCPY;
	uint64_t count = sw_check_begin(c, floats, floats <= SW_CHECK_FULL_TERMS);
	sw_check_parallel(c, count, count, [&](uint64_t k, struct sw_check *part) {
		uint64_t j = sw_check_pick(part, o, k, floats);
		double want = sw_uniform(o->seed, j);
		if (adds)
			want += sw_float3_addend(component_of(p, j));
		double err = sw_rel_err(out[j], want);
		/* one float add: the result in [2, 5) is rounded once, by at most
		 * 2^-24 of itself; the copies are exact */
		const double tol = 0x1p-23;
		if (sw_check_record(part, err, err > tol))
			snprintf(part->msg, sizeof part->msg,
				 "element %llu (component %d): got %.9g, want %.9g",
				 (unsigned long long)j, component_of(p, j), out[j], want);
	});
}

static const struct sw_axis_def axes[] = {
	{ "n", "elements", 1024, INT64_C(1) << 30, "16M,64M", "float3 elements (3 floats each)" },
	SW_BLOCK_AXIS("256"),
};
#define N_BLOCK ((1u << AXIS_N) | (1u << AXIS_BLOCK))
static const struct sw_variant variants[] = {
	{ "aos", "kernel A: one float3 per thread, read and written directly; uncoalesced (C3, C5)",
	  launch_aos, requests_direct, N_BLOCK, 0 },
	{ "staged",
	  "kernel B: 768 floats per block through shared memory, coalesced passes (C5, C6)",
	  launch_staged, requests_staged, 1u << AXIS_N, 0 },
	{ "soa", "structure of arrays: x, y and z in separate arrays, each coalesced (C6)",
	  launch_soa, requests_direct, N_BLOCK, 0 },
	{ "copy", "float4 copy of the same 12n bytes, near the memory limit", launch_copy,
	  requests_copy, 1u << AXIS_N, 1 },
	{ "memcpy", "cudaMemcpy device to device of the same 12n bytes", launch_memcpy, NULL,
	  1u << AXIS_N, 1 },
};

const struct sw_family sw_family_float3 = {
	.name = "float3",
	.about = "float3 update in AoS, staged through shared memory, and SoA",
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
