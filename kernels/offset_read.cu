/*
 * offset_read: bandwidth of a coalesced read whose start is moved by k
 * elements (NOTES.md C1, C15; the misaligned half of C3). Each thread of a
 * 4096 x 256 grid sums elements k + t, k + t + T, ...; a warp reads 32
 * consecutive floats, 128 bytes that cross a 32-byte sector boundary unless
 * k is a multiple of 8. On CC 1.0/1.1 such a half-warp cost 16 transactions
 * instead of 1; since CC 2.0 a warp pays for the sectors and 128-byte lines
 * it touches: one extra sector (5 instead of 4) unless k % 8 == 0, and a
 * second line unless k % 32 == 0, both of which the neighbouring warp needs
 * anyway.
 *   aligned      the read starting at element 0 (the coalesced case)
 *   offset       the same read starting at element k (address 4k)
 *   stream_read  reference: float4 streaming read of n floats from element 0
 * The launch-shape and width axes of aligned and offset: block and grid (0:
 * 256 and 4096); vec elements per load (float2, float4) and elem_bytes (8:
 * doubles), with the offset counted in loads, so that every load stays
 * aligned to its size as the hardware requires and the start moves by
 * offset x vec x elem_bytes bytes. Inputs of 8-byte elements hold the same
 * values as float inputs, widened (sw_uniform_double), and a thread sums its
 * elements in their own type.
 */
#include "kernel.h"
#include "common.cuh"
#include "offset_read.cuh"
#include "stream_ref.cuh"

enum { AXIS_OFFSET, AXIS_N, AXIS_BLOCK, AXIS_GRID, AXIS_VEC, AXIS_ELEM_BYTES };
enum { V_ALIGNED, V_OFFSET, V_STREAM_READ };
#define UNROLL 8

/* A point's launch and loads (common.cuh), read from load start on. */
static struct sw_read_shape shape_of(const struct sw_point *p)
{
	struct sw_read_shape sh = sw_read_shape_of(
		p->axis[AXIS_GRID], p->axis[AXIS_BLOCK], p->axis[AXIS_VEC],
		p->axis[AXIS_ELEM_BYTES], p->axis[AXIS_N], SW_OFFSET_BLOCKS, SW_OFFSET_THREADS);
	/* the first load read: 0 for every variant but offset */
	sh.start = p->variant == V_OFFSET ? (uint64_t)p->axis[AXIS_OFFSET] : 0;
	return sh;
}

/* Sums a[offset + i] over thread t's i < loads, V the loaded type and S its
 * element type. The loads of UNROLL steps are issued before any add uses
 * them, so that each thread keeps several requests in flight and the read
 * runs near the memory limit: what is left to see is the cost of the start
 * address alone. */
template <typename V, typename S>
__global__ void offset_read_kernel(const V *__restrict__ a, S *__restrict__ out, uint64_t loads,
				   uint64_t offset)
{
	uint64_t T = (uint64_t)gridDim.x * blockDim.x;
	uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	S acc[UNROLL] = { 0 };
	for (uint64_t k = 0; sw_offset_index(t, k, T) < loads; k += UNROLL) {
		V v[UNROLL];
#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			uint64_t i = sw_offset_index(t, k + u, T);
			v[u] = i < loads ? a[offset + i] : V{};
		}
#pragma unroll
		for (int u = 0; u < UNROLL; u++)
			acc[u] += sw_vsum(v[u]);
	}
	S sum = 0;
#pragma unroll
	for (int u = 0; u < UNROLL; u++)
		sum += acc[u];
	out[t] = sum; /* written so the loads are not removed */
}

template <typename V, typename S>
static cudaError_t launch_as(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	struct sw_read_shape sh = shape_of(p);
	offset_read_kernel<V, S><<<sh.blocks, sh.threads, 0, s>>>(
		(const V *)b->dev[0], (S *)b->dev[1], sh.loads, sh.start);
	return cudaGetLastError();
}

/* The kernel of the point's load type (refuse has ruled out the rest). */
static cudaError_t launch_read(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	struct sw_read_shape sh = shape_of(p);
	if (sh.elem_bytes == 8)
		return sh.vec == 2 ? launch_as<double2, double>(p, b, s)
				   : launch_as<double, double>(p, b, s);
	return sh.vec == 4   ? launch_as<float4, float>(p, b, s)
	       : sh.vec == 2 ? launch_as<float2, float>(p, b, s)
			     : launch_as<float, float>(p, b, s);
}

static cudaError_t launch_stream(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	return sw_stream_read((const float *)b->dev[0], (float *)b->dev[1], p->axis[AXIS_N] / 4, s);
}

/* Doubles hold sw_uniform_double, floats sw_uniform: the same values. */
static cudaError_t fill(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	struct sw_read_shape sh = shape_of(p);
	uint64_t n = (sh.start + sh.loads) * sh.vec;
	if (sh.elem_bytes == 8)
		return sw_fill_uniform_double((double *)b->dev[0], n, b->seed, s);
	return sw_fill_uniform((float *)b->dev[0], n, b->seed, s);
}

/* Model: request r is step k of warp w; lane l loads word_bytes at load
 * start + sw_offset_index(32 w + l, k): a float2 is one 8-byte word per lane. */
static uint64_t requests_read(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	struct sw_read_shape sh = shape_of(p);
	uint64_t warps = sh.T / 32;
	uint64_t steps = (sh.loads + sh.T - 1) / sh.T;
	if (req) {
		uint64_t k = r / warps, w = r % warps;
		sw_request_begin(req, SW_SPACE_GLOBAL, (int)sh.word_bytes, 0);
		for (int l = 0; l < 32; l++) {
			uint64_t i = sw_offset_index(w * 32 + l, k, sh.T);
			sw_request_lane(req, l, (sh.start + i) * sh.word_bytes, i < sh.loads);
		}
	}
	return warps * steps;
}

static uint64_t requests_stream(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	return sw_stream_requests(p->axis[AXIS_N] / 4, r, req);
}

/* Time model: UNROLL loads in flight a thread. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	struct sw_read_shape sh = shape_of(p);
	(void)sm_count;
	if (p->variant == V_STREAM_READ)
		return sw_stream_shape(s);
	else
		return sw_shape_set(s, sh.blocks, sh.threads, 0, UNROLL);
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	struct sw_read_shape sh = shape_of(p);
	s->n_buffers = 2;
	s->n_inputs = 1;
	s->bytes[0] = (sh.start + sh.loads) * sh.word_bytes;
	s->bytes[1] = sh.T * sh.elem_bytes;
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	if (p->variant == V_STREAM_READ)
		return sw_stream_refuse(p->axis[AXIS_N], why, len);
	struct sw_read_shape sh = shape_of(p);
	if (sw_block_refuse(p->axis[AXIS_BLOCK], 0, why, len) ||
	    sw_width_refuse(sh.vec, sh.elem_bytes, why, len))
		return 1;
	if (p->axis[AXIS_N] % sh.vec) {
		snprintf(why, len, "n = %lld elements is not whole loads of %u",
			 (long long)p->axis[AXIS_N], sh.vec);
		return 1;
	}
	return 0;
}

static double useful_bytes(const struct sw_point *p)
{
	struct sw_read_shape sh = shape_of(p);
	return p->variant == V_STREAM_READ ? (double)p->axis[AXIS_N] * 4
					   : (double)sh.loads * sh.word_bytes;
}

static double flops(const struct sw_point *p)
{
	return (double)p->axis[AXIS_N]; /* one add per element */
}

/* Sum thread t's elements in double, as the kernel's pattern visits them:
 * every element of each of its loads. */
static double thread_sum(const struct sw_point *p, uint64_t seed, uint64_t t, uint64_t *terms)
{
	struct sw_read_shape sh = shape_of(p);
	double sum = 0;
	*terms = 0;
	if (p->variant == V_STREAM_READ)
		return sw_stream_sum(seed, p->axis[AXIS_N] / 4, t, terms);
	for (uint64_t k = 0;; k++) {
		uint64_t i = sw_offset_index(t, k, sh.T);
		if (i >= sh.loads)
			break;
		for (unsigned e = 0; e < sh.vec; e++, (*terms)++)
			sum += sw_uniform_double(seed, (sh.start + i) * sh.vec + e);
	}
	return sum;
}

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	struct sw_read_shape sh = shape_of(p);
	uint64_t n_out = o->bytes[1] / sh.elem_bytes;
	/* One sum costs n / T terms: check every thread while that stays cheap. */
	uint64_t per_thread = p->axis[AXIS_N] / sh.T + 1;
	uint64_t count = sw_check_begin(c, n_out, n_out * per_thread <= SW_CHECK_FULL_TERMS);
	sw_check_parallel(c, count, count * per_thread, [&](uint64_t k, struct sw_check *part) {
		uint64_t t = sw_check_pick(part, o, k, n_out);
		uint64_t terms;
		double want = thread_sum(p, o->seed, t, &terms);
		double got = sh.elem_bytes == 8 ? ((const double *)o->out[1])[t]
						: ((const float *)o->out[1])[t];
		/* positive terms: each add rounds by at most 2^-24 (floats) or
		 * 2^-53 (doubles) of the running sum, so terms x that bounds the error */
		double tol = sh.elem_bytes == 8 ? 1e-12 + 2.3e-16 * (double)terms
						: 1e-6 + 2e-7 * (double)terms;
		sw_check_element(part, t, got, want, tol);
	});
}

#define READ_AXES ((1u << SW_COUNT(axes)) - 1 - (1u << AXIS_OFFSET))
static const struct sw_axis_def axes[] = {
	{ "offset", "elements", 0, 32, "0:32",
	  "first load read, in loads of vec elements: the start address is offset x vec x "
	  "elem_bytes bytes past a 256-byte boundary" },
	{ "n", "elements", 1024, INT64_C(4) << 30, "64M", "elements read" },
	SW_BLOCK_AXIS("256"),
	SW_GRID_AXIS("4096"),
	SW_VEC_AXIS,
	SW_ELEM_BYTES_AXIS,
};
static const struct sw_variant variants[] = {
	{ "aligned", "coalesced read from element 0: 4 sectors per warp request (C1, C15)",
	  launch_read, requests_read, READ_AXES, 0 },
	{ "offset",
	  "the same read from element offset: 5 sectors per request unless offset % 8 == 0 "
	  "(C1, C3, C15)",
	  launch_read, requests_read, READ_AXES | (1u << AXIS_OFFSET), 0 },
	{ "stream_read", "float4 streaming read of n floats, near the memory limit", launch_stream,
	  requests_stream, 1u << AXIS_N, 1 },
};

const struct sw_family sw_family_offset_read = {
	.name = "offset_read",
	.about = "bandwidth of a coalesced read against a misaligned start",
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
