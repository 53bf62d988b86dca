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
 */
#include "kernel.h"
#include "common.cuh"
#include "offset_read.cuh"
#include "stream_ref.cuh"

enum { AXIS_OFFSET, AXIS_N };
enum { V_ALIGNED, V_OFFSET, V_STREAM_READ };
#define UNROLL 8

/* Sums a[offset + i] over thread t's i < n. The loads of UNROLL steps are
 * issued before any add uses them, so that each thread keeps several
 * requests in flight and the read runs near the memory limit: what is left
 * to see is the cost of the start address alone. */
__global__ void offset_read_kernel(const float *__restrict__ a, float *__restrict__ out, uint64_t n,
				   uint64_t offset)
{
	uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	float acc[UNROLL] = { 0 };
	for (uint64_t k = 0; sw_offset_index(t, k) < n; k += UNROLL) {
		float v[UNROLL];
#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			uint64_t i = sw_offset_index(t, k + u);
			v[u] = i < n ? a[offset + i] : 0.0f;
		}
#pragma unroll
		for (int u = 0; u < UNROLL; u++)
			acc[u] += v[u];
	}
	float sum = 0.0f;
#pragma unroll
	for (int u = 0; u < UNROLL; u++)
		sum += acc[u];
	out[t] = sum; /* written so the loads are not removed */
}

/* The first element read: 0 for every variant but offset. */
static uint64_t start_of(const struct sw_point *p)
{
	return p->variant == V_OFFSET ? (uint64_t)p->axis[AXIS_OFFSET] : 0;
}

static cudaError_t launch_read(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	offset_read_kernel<<<SW_OFFSET_BLOCKS, SW_OFFSET_THREADS, 0, s>>>(
		(const float *)b->dev[0], (float *)b->dev[1], p->axis[AXIS_N], start_of(p));
	return cudaGetLastError();
}

static cudaError_t launch_stream(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	return sw_stream_read((const float *)b->dev[0], (float *)b->dev[1], p->axis[AXIS_N] / 4, s);
}

/* Model: request r is step k of warp w; lane l reads element
 * start + sw_offset_index(32 w + l, k). */
static uint64_t requests_read(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint64_t n = p->axis[AXIS_N], start = start_of(p);
	uint64_t warps = SW_OFFSET_T / 32;
	uint64_t steps = (n + SW_OFFSET_T - 1) / SW_OFFSET_T;
	if (req) {
		uint64_t k = r / warps, w = r % warps;
		sw_request_begin(req, SW_SPACE_GLOBAL, 4, 0);
		for (int l = 0; l < 32; l++) {
			uint64_t i = sw_offset_index(w * 32 + l, k);
			sw_request_lane(req, l, (start + i) * 4, i < n);
		}
	}
	return warps * steps;
}

static uint64_t requests_stream(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	return sw_stream_requests(p->axis[AXIS_N] / 4, r, req);
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	s->n_buffers = 2;
	s->n_inputs = 1;
	s->bytes[0] = (start_of(p) + (uint64_t)p->axis[AXIS_N]) * sizeof(float);
	s->bytes[1] = SW_OFFSET_T * sizeof(float);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	return p->variant == V_STREAM_READ && sw_stream_refuse(p->axis[AXIS_N], why, len);
}

static double useful_bytes(const struct sw_point *p)
{
	return (double)p->axis[AXIS_N] * 4;
}

static double flops(const struct sw_point *p)
{
	return (double)p->axis[AXIS_N]; /* one add per element */
}

/* Sum thread t's elements in double, as the kernel's pattern visits them. */
static double thread_sum(const struct sw_point *p, uint64_t seed, uint64_t t, uint64_t *terms)
{
	uint64_t n = p->axis[AXIS_N], start = start_of(p);
	double sum = 0;
	*terms = 0;
	if (p->variant == V_STREAM_READ)
		return sw_stream_sum(seed, n / 4, t, terms);
	for (uint64_t k = 0;; k++, (*terms)++) {
		uint64_t i = sw_offset_index(t, k);
		if (i >= n)
			break;
		sum += sw_uniform(seed, start + i);
	}
	return sum;
}

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *out = (const float *)o->out[1];
	uint64_t n_out = o->bytes[1] / sizeof(float);
	/* One sum costs n / T terms: check every thread while that stays cheap. */
	uint64_t per_thread = p->axis[AXIS_N] / SW_OFFSET_T + 1;
	uint64_t count = sw_check_begin(c, n_out, n_out * per_thread <= SW_CHECK_FULL_TERMS);
	for (uint64_t k = 0; k < count; k++) {
		uint64_t t = sw_check_pick(c, o, k, n_out);
		uint64_t terms;
		double want = thread_sum(p, o->seed, t, &terms);
		/* float accumulation of positive terms: each add rounds by at most
		 * 2^-24 of the running sum, so terms x 2^-24 bounds the error */
		double tol = 1e-6 + 2e-7 * (double)terms;
		sw_check_element(c, t, out[t], want, tol);
	}
}

#define BOTH_AXES ((1u << AXIS_OFFSET) | (1u << AXIS_N))
static const struct sw_axis_def axes[] = {
	{ "offset", "elements", 0, 32, "0:32",
	  "first element read: the start address is 4 x offset bytes past a 256-byte boundary" },
	{ "n", "elements", 1024, INT64_C(4) << 30, "64M", "floats read" },
};
static const struct sw_variant variants[] = {
	{ "aligned", "coalesced read from element 0: 4 sectors per warp request (C1, C15)",
	  launch_read, requests_read, 1u << AXIS_N, 0 },
	{ "offset",
	  "the same read from element offset: 5 sectors per request unless offset % 8 == 0 "
	  "(C1, C3, C15)",
	  launch_read, requests_read, BOTH_AXES, 0 },
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
};
