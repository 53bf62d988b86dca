/*
 * histogram: a byte histogram (exercises 4.2 and 4.3 of NOTES.md): every
 * input byte adds one to bin (byte mod bins). Useful bytes are the n input
 * bytes. Contention is the point: the dist axis moves from uniform bytes to
 * one value in every byte, where all atomics of a warp hit one counter.
 *   global_atomic  exercise 4.2 as printed: one atomicAdd on the global
 *                  histogram per byte, grid-stride byte loads
 *   shared_priv    exercise 4.3: a block-private histogram in shared memory,
 *                  then one global atomic per nonzero bin and block
 *   shared_wide    privatised and tuned: uint4 loads (16 bytes per lane) and
 *                  one histogram copy per lane, so shared atomics never
 *                  conflict in a bank or on an address, whatever the data
 *   stream_read    reference: a uint4 streaming read of the same n bytes
 * Every launch clears the histogram with a cudaMemsetAsync first: each timed
 * launch counts the whole input again. The block axis (0: 256) reshapes
 * global_atomic's and shared_priv's blocks, 8 per SM either way.
 */
#include "kernel.h"
#include "common.cuh"
#include "histogram.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { AXIS_BINS, AXIS_DIST, AXIS_N, AXIS_BLOCK };
enum { V_GLOBAL_ATOMIC, V_SHARED_PRIV, V_SHARED_WIDE, V_STREAM_READ };

/* Blocks of shared_wide per SM when prepare could not ask the occupancy API:
 * 4 x 512 threads fill an H100/H200 SM. */
#define WIDE_BLOCKS_PER_SM_DEFAULT 4

/* What prepare finds out for a point, for launch to read. */
struct hist_state {
	int wide_blocks; /* shared_wide's grid: the blocks that fit the GPU at once */
};

__global__ void histogram_fill_kernel(uint64_t *words, unsigned char *bytes, uint64_t n,
				      uint64_t seed, int64_t dist)
{
	uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t w = t; w < n / 8; w += stride)
		words[w] = sw_hist_word(seed, dist, w);
	uint64_t i = n / 8 * 8 + t;
	if (i < n)
		bytes[i] = (unsigned char)sw_hist_byte(seed, dist, i);
}

/* Exercise 4.2: every byte is one global atomic. */
__global__ void histogram_global_kernel(const unsigned char *in, unsigned int *hist, uint64_t n,
					unsigned int mask)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += stride)
		atomicAdd(&hist[in[i] & mask], 1u);
}

/* Exercise 4.3: the block counts into shared memory, then merges. On sm_90
 * nvcc turns atomicAdd(&sh[b], 1) into ATOMS.POPC.INC, which adds a warp's
 * lanes on one address in one step: one value in every byte costs no more
 * than uniform bytes here, while global_atomic's REDG serialises them. */
__global__ void histogram_shared_kernel(const unsigned char *in, unsigned int *hist, uint64_t n,
					unsigned int bins)
{
	extern __shared__ unsigned int sh[];
	for (unsigned int b = threadIdx.x; b < bins; b += blockDim.x)
		sh[b] = 0;
	__syncthreads();
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += stride)
		atomicAdd(&sh[in[i] & (bins - 1)], 1u);
	__syncthreads();
	for (unsigned int b = threadIdx.x; b < bins; b += blockDim.x)
		if (sh[b])
			atomicAdd(&hist[b], sh[b]);
}

__device__ __forceinline__ void histogram_count_word(unsigned int *sh, unsigned int w,
						     unsigned int mask, unsigned int lane)
{
#pragma unroll
	for (int k = 0; k < 4; k++)
		atomicAdd(&sh[sw_hist_lane_slot((w >> (8 * k)) & mask, lane)], 1u);
}

/* shared_wide's blocks an SM must hold at once, which caps its registers:
 * as many as the SM's threads allow (2048 on 8.0, 9.0 and 10.x, 1536 on 8.6
 * to 8.9, 11.0 and 12.x, 1024 on 7.5). ptxas ignores a larger value, with a
 * warning. The host pass never reads it. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define WIDE_MIN_BLOCKS_PER_SM 2
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 ||                   \
				 (__CUDA_ARCH__ >= 1000 && __CUDA_ARCH__ < 1100))
#define WIDE_MIN_BLOCKS_PER_SM 4
#else
#define WIDE_MIN_BLOCKS_PER_SM 3
#endif

/* Tuned: each lane counts the 16 bytes of a uint4 into its own copy of the
 * histogram; the next uint4 is loaded before the current one is counted, so
 * a load is in flight while the atomics run. */
__global__ void __launch_bounds__(SW_HIST_WIDE_THREADS, WIDE_MIN_BLOCKS_PER_SM)
	histogram_wide_kernel(const uint4 *in, unsigned int *hist, uint64_t n, unsigned int bins)
{
	extern __shared__ unsigned int sh[]; /* 32 x bins */
	unsigned int lane = threadIdx.x & 31, mask = bins - 1;
	for (unsigned int s = threadIdx.x; s < 32 * bins; s += blockDim.x)
		sh[s] = 0;
	__syncthreads();

	uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	uint64_t n16 = n / 16;
	uint4 v = make_uint4(0, 0, 0, 0);
	if (t < n16)
		v = in[t];
	for (uint64_t j = t; j < n16; j += stride) {
		uint4 next = make_uint4(0, 0, 0, 0);
		if (j + stride < n16)
			next = in[j + stride];
		histogram_count_word(sh, v.x, mask, lane);
		histogram_count_word(sh, v.y, mask, lane);
		histogram_count_word(sh, v.z, mask, lane);
		histogram_count_word(sh, v.w, mask, lane);
		v = next;
	}
	/* the last n mod 16 bytes, one per thread of the first block */
	const unsigned char *bytes = (const unsigned char *)in;
	if (n16 * 16 + t < n)
		atomicAdd(&sh[sw_hist_lane_slot(bytes[n16 * 16 + t] & mask, lane)], 1u);
	__syncthreads();

	/* Sum the 32 copies of a bin; lane l starts at copy l so that a warp's
	 * reads fall in 32 different banks. */
	for (unsigned int b = threadIdx.x; b < bins; b += blockDim.x) {
		unsigned int sum = 0;
		for (unsigned int c = 0; c < 32; c++)
			sum += sh[sw_hist_lane_slot(b, (c + lane) & 31)];
		if (sum)
			atomicAdd(&hist[b], sum);
	}
}

/* Reference: uint4 loads, grid-stride, four in flight per thread; each
 * thread writes the XOR of its words so the loads stay. */
__global__ void histogram_stream_kernel(const uint4 *__restrict__ in,
					unsigned int *__restrict__ out, uint64_t n16)
{
	uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	unsigned int acc = 0;
	uint64_t j = t;
	for (; j + 3 * SW_HIST_STREAM_T < n16; j += 4 * SW_HIST_STREAM_T) {
		uint4 v[4];
#pragma unroll
		for (int u = 0; u < 4; u++)
			v[u] = in[j + u * SW_HIST_STREAM_T];
#pragma unroll
		for (int u = 0; u < 4; u++)
			acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
	}
	for (; j < n16; j += SW_HIST_STREAM_T) {
		uint4 v = in[j];
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	out[t] = acc;
}

static unsigned int bins_of(const struct sw_point *p)
{
	return (unsigned int)p->axis[AXIS_BINS];
}

/* Threads per block of global_atomic and shared_priv: the block axis's, 256
 * at its baseline, on the same 8 blocks per SM. Their loops stride over
 * the grid, and the model's loads do not depend on it (histogram.cuh). */
static unsigned threads_of(const struct sw_point *p)
{
	return sw_shape_of(p->axis[AXIS_BLOCK], SW_HIST_THREADS);
}

static cudaError_t clear_hist(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	return cudaMemsetAsync(b->dev[1], 0, bins_of(p) * sizeof(unsigned int), s);
}

static cudaError_t launch_global(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	cudaError_t e = clear_hist(p, b, s);
	if (e != cudaSuccess)
		return e;
	histogram_global_kernel<<<b->sm_count * SW_HIST_BLOCKS_PER_SM, threads_of(p), 0, s>>>(
		(const unsigned char *)b->dev[0], (unsigned int *)b->dev[1], p->axis[AXIS_N],
		bins_of(p) - 1);
	return cudaGetLastError();
}

static cudaError_t launch_shared(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	cudaError_t e = clear_hist(p, b, s);
	if (e != cudaSuccess)
		return e;
	histogram_shared_kernel<<<b->sm_count * SW_HIST_BLOCKS_PER_SM, threads_of(p),
				  bins_of(p) * sizeof(unsigned int), s>>>(
		(const unsigned char *)b->dev[0], (unsigned int *)b->dev[1], p->axis[AXIS_N],
		bins_of(p));
	return cudaGetLastError();
}

static size_t wide_smem_bytes(const struct sw_point *p)
{
	return 32 * (size_t)bins_of(p) * sizeof(unsigned int);
}

static cudaError_t launch_wide(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	const struct hist_state *st = (const struct hist_state *)b->state;
	int blocks = st ? st->wide_blocks : b->sm_count * WIDE_BLOCKS_PER_SM_DEFAULT;
	cudaError_t e = clear_hist(p, b, s);
	if (e != cudaSuccess)
		return e;
	histogram_wide_kernel<<<blocks, SW_HIST_WIDE_THREADS, wide_smem_bytes(p), s>>>(
		(const uint4 *)b->dev[0], (unsigned int *)b->dev[1], p->axis[AXIS_N], bins_of(p));
	return cudaGetLastError();
}

static cudaError_t launch_stream(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	histogram_stream_kernel<<<SW_HIST_STREAM_BLOCKS, SW_HIST_STREAM_THREADS, 0, s>>>(
		(const uint4 *)b->dev[0], (unsigned int *)b->dev[1], p->axis[AXIS_N] / 16);
	return cudaGetLastError();
}

/* Model: the byte loads of global_atomic and shared_priv, the uint4 loads of
 * shared_wide and stream_read (histogram.cuh: independent of the grid). */
static uint64_t requests_loads(const struct sw_point *p, uint64_t r, struct sw_request *req,
			       int word_bytes)
{
	uint64_t words = p->axis[AXIS_N] / word_bytes;
	if (req) {
		sw_request_begin(req, SW_SPACE_GLOBAL, word_bytes, 0);
		for (int l = 0; l < 32; l++) {
			uint64_t addr = sw_hist_load_addr(r, l, word_bytes);
			sw_request_lane(req, l, addr, addr / word_bytes < words);
		}
	}
	return (words + 31) / 32;
}

static uint64_t requests_bytes(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	return requests_loads(p, r, req, 1);
}

static uint64_t requests_uint4(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	return requests_loads(p, r, req, 16);
}

/* Time model: the streaming read; the atomic variants are outside it. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	(void)sm_count;
	if (p->variant != V_STREAM_READ)
		return "its atomics bound it, and its requests hold only its loads";
	return sw_shape_set(s, SW_HIST_STREAM_BLOCKS, SW_HIST_STREAM_THREADS, 0, 1);
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	s->n_buffers = 2;
	s->n_inputs = 1;
	s->bytes[0] = (size_t)p->axis[AXIS_N];
	s->bytes[1] = p->variant == V_STREAM_READ ? SW_HIST_STREAM_T * sizeof(unsigned int)
						  : bins_of(p) * sizeof(unsigned int);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	if (p->variant == V_STREAM_READ) {
		if (p->axis[AXIS_N] % 16) {
			snprintf(why, len,
				 "stream_read reads uint4: n = %lld is not a multiple of 16",
				 (long long)p->axis[AXIS_N]);
			return 1;
		}
		return 0;
	}
	int64_t bins = p->axis[AXIS_BINS];
	if (bins & (bins - 1)) {
		snprintf(why, len,
			 "bins = %lld is not a power of two: a byte's bin is its low bits",
			 (long long)bins);
		return 1;
	}
	return sw_block_refuse(p->axis[AXIS_BLOCK], 0, why, len);
}

static double useful_bytes(const struct sw_point *p)
{
	return (double)p->axis[AXIS_N];
}

static double flops(const struct sw_point *p)
{
	return 0; /* integer counting */
}

static cudaError_t fill(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	histogram_fill_kernel<<<4096, 256, 0, s>>>((uint64_t *)b->dev[0],
						   (unsigned char *)b->dev[0], p->axis[AXIS_N],
						   b->seed, p->axis[AXIS_DIST]);
	return cudaGetLastError();
}

static cudaError_t prepare(const struct sw_point *p, struct sw_buffers *b, cudaStream_t s)
{
	if (p->variant != V_SHARED_WIDE)
		return cudaSuccess;
	struct hist_state *st = (struct hist_state *)malloc(sizeof *st);
	if (!st)
		return cudaErrorMemoryAllocation;
	int per_sm = 0;
	cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		&per_sm, histogram_wide_kernel, SW_HIST_WIDE_THREADS, wide_smem_bytes(p));
	if (e != cudaSuccess || per_sm < 1) {
		free(st);
		return e != cudaSuccess ? e : cudaErrorInvalidConfiguration;
	}
	st->wide_blocks = b->sm_count * per_sm;
	b->state = st;
	return cudaSuccess;
}

static void release(const struct sw_point *p, struct sw_buffers *b)
{
	free(b->state);
	b->state = NULL;
}

/* The XOR of the 32-bit words stream_read's thread t reads. */
static uint32_t stream_xor(const struct sw_point *p, uint64_t seed, uint64_t t, uint64_t *words)
{
	uint32_t acc = 0;
	*words = 0;
	for (uint64_t j = t; j < (uint64_t)p->axis[AXIS_N] / 16; j += SW_HIST_STREAM_T, (*words)++)
		for (int h = 0; h < 2; h++) {
			uint64_t w = sw_hist_word(seed, p->axis[AXIS_DIST], 2 * j + h);
			acc ^= (uint32_t)w ^ (uint32_t)(w >> 32);
		}
	return acc;
}

static void check_stream(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const uint32_t *out = (const uint32_t *)o->out[1];
	uint64_t per_thread = 2 * (p->axis[AXIS_N] / 16 / SW_HIST_STREAM_T) + 1; /* hashes */
	uint64_t count = sw_check_begin(c, SW_HIST_STREAM_T,
					SW_HIST_STREAM_T * per_thread <= SW_CHECK_FULL_TERMS);
#pragma omp parallel for schedule(dynamic, 64)
	for (uint64_t k = 0; k < count; k++) {
		uint64_t t = sw_check_pick(c, o, k, SW_HIST_STREAM_T), words;
		uint32_t want = stream_xor(p, o->seed, t, &words);
		if (out[t] != want) {
			/* words are equal or wrong: the error is 1 or nothing */
#pragma omp critical(sw_hist_check)
			if (sw_check_record(c, 1, 1))
				snprintf(c->msg, sizeof c->msg,
					 "element %llu: got 0x%08x, want 0x%08x",
					 (unsigned long long)t, out[t], want);
		}
	}
}

/* Counts are exact integers: every bin must match the histogram of the
 * input recomputed from the seed, all n bytes of it (the output is only
 * `bins` counts, but each depends on every byte). */
static void check_hist(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const uint32_t *out = (const uint32_t *)o->out[1];
	uint64_t n = p->axis[AXIS_N], bins = bins_of(p), mask = bins - 1;
	int64_t dist = p->axis[AXIS_DIST];
	/* one table per byte position: neighbouring increments rarely wait on each other */
	uint64_t(*counts)[256] = (uint64_t(*)[256])calloc(8, sizeof *counts);
	sw_check_begin(c, bins, 1);
	if (!counts) {
		c->checked = 0;
		c->ok = 0;
		snprintf(c->msg, sizeof c->msg, "no host memory for the reference histogram");
		return;
	}
	/* single: every byte is the one value the seed draws (sw_hist_word),
	 * so its bin holds all n, in closed form (a recount of 1 GB took 0.16 s
	 * of the H200 host's cores for this, issue 22) */
	uint64_t words = dist == SW_HIST_SINGLE ? 0 : n / 8;
	if (dist == SW_HIST_SINGLE)
		counts[0][sw_hist_byte(o->seed, dist, 0) & mask] = n - n % 8;
		/* the host's cores share the recount (OpenMP), each with its own
	 * tables, from 1M bytes on (16M on one core took 30-80 ms), in chunks
	 * taken as threads come free: several checks may run at once */
#pragma omp parallel if (words > (1u << 17))
	{
		uint64_t local[8][256] = { { 0 } };
#pragma omp for schedule(dynamic, 1 << 16)
		for (uint64_t w = 0; w < words; w++) {
			uint64_t word = sw_hist_word(o->seed, dist, w);
			for (int k = 0; k < 8; k++)
				local[k][(word >> (8 * k)) & mask]++;
		}
#pragma omp critical(sw_hist_merge)
		for (int k = 0; k < 8; k++)
			for (int b = 0; b < 256; b++)
				counts[k][b] += local[k][b];
	}
	for (uint64_t i = n / 8 * 8; i < n; i++)
		counts[0][sw_hist_byte(o->seed, dist, i) & mask]++;

	for (uint64_t bin = 0; bin < bins; bin++) {
		uint64_t want = 0;
		for (int k = 0; k < 8; k++)
			want += counts[k][bin];
		if (sw_check_record(c, sw_rel_err(out[bin], (double)want), out[bin] != want))
			snprintf(c->msg, sizeof c->msg, "bin %llu: got %u, want %llu",
				 (unsigned long long)bin, out[bin], (unsigned long long)want);
	}
	free(counts);
}

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	if (p->variant == V_STREAM_READ)
		check_stream(p, o, c);
	else
		check_hist(p, o, c);
}

#define HIST_AXES ((1u << AXIS_BINS) | (1u << AXIS_DIST) | (1u << AXIS_N))
/* The dist axis's values by name (SW_HIST_UNIFORM, _SKEWED, _SINGLE). */
static const char *const dists[] = { "uniform", "skewed", "single", NULL };
static const struct sw_axis_def axes[] = {
	{ "bins", "bins", 2, 256, "256",
	  "histogram bins, a power of two: a byte's bin is its low bits" },
	{ "dist",
	  "",
	  0,
	  2,
	  "uniform,skewed,single",
	  "input bytes: uniform (0), skewed (1: geometric, half are 0, 7/8 in 3 bins), "
	  "single (2: every byte the same value)",
	  {},
	  dists },
	{ "n", "elements", 1024, INT64_C(2) << 30, "256M",
	  "input length in bytes (one byte per element)" },
	SW_BLOCK_AXIS("256; shared_wide's 512 stays"),
};
static const struct sw_variant variants[] = {
	{ "global_atomic", "one global atomicAdd per byte (exercise 4.2)", launch_global,
	  requests_bytes, HIST_AXES | (1u << AXIS_BLOCK), 0 },
	{ "shared_priv",
	  "block-private shared histogram, merged with global atomics (exercise 4.3)",
	  launch_shared, requests_bytes, HIST_AXES | (1u << AXIS_BLOCK), 0 },
	{ "shared_wide",
	  "privatised per lane, uint4 loads: conflict-free shared atomics (4.3 tuned)", launch_wide,
	  requests_uint4, HIST_AXES, 0 },
	{ "stream_read", "uint4 streaming read of the n input bytes, near the memory limit",
	  launch_stream, requests_uint4, 1u << AXIS_N, 1 },
};

const struct sw_family sw_family_histogram = {
	.name = "histogram",
	.about = "byte histogram: global atomics against privatised shared-memory counting",
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
	.prepare = prepare,
	.release = release,
	.shape = shape,
};
