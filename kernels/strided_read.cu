/*
 * strided_read: bandwidth against the distance between neighbouring threads'
 * elements (NOTES.md C8, C9). Each thread of a 4096 x 256 grid sums elements
 * t*s, (t+T)*s, ...; useful bytes are the (n / s) elements read. At stride 1
 * a warp reads 128 contiguous bytes (4 sectors); from stride 8 on every lane
 * lands in its own sector, so bandwidth halves with each doubling up to 8
 * and then flattens.
 *   course       the course's kernel and launch, as printed (corrected)
 *   tuned        the same addresses, 8 independent loads in flight per thread
 *   stream_read  reference: float4 streaming read of n elements, near the
 *                memory limit
 *   memcpy       reference: cudaMemcpy device to device of n elements
 */
#include "kernel.h"
#include "common.cuh"
#include "strided_read.cuh"
#include "stream_ref.cuh"

enum { AXIS_STRIDE, AXIS_N };
enum { V_COURSE, V_TUNED, V_STREAM_READ, V_MEMCPY };
#define TUNED_UNROLL 8

__global__ void strided_read_course_kernel(const float *a, float *out, uint64_t n, uint64_t stride)
{
	uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	float sum = 0.0f;
	for (uint64_t k = 0;; k++) {
		uint64_t i = sw_strided_index(t, k, stride);
		if (i >= n)
			break;
		sum += a[i];
	}
	out[t] = sum; /* written so the loads are not removed */
}

/* The loads of TUNED_UNROLL steps are issued before any add uses them, so
 * each thread keeps several requests in flight instead of one. */
__global__ void strided_read_tuned_kernel(const float *__restrict__ a, float *__restrict__ out,
					  uint64_t n, uint64_t stride)
{
	uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	float acc[TUNED_UNROLL] = { 0 };
	for (uint64_t k = 0; sw_strided_index(t, k, stride) < n; k += TUNED_UNROLL) {
		float v[TUNED_UNROLL];
#pragma unroll
		for (int u = 0; u < TUNED_UNROLL; u++) {
			uint64_t i = sw_strided_index(t, k + u, stride);
			v[u] = i < n ? a[i] : 0.0f;
		}
#pragma unroll
		for (int u = 0; u < TUNED_UNROLL; u++)
			acc[u] += v[u];
	}
	float sum = 0.0f;
#pragma unroll
	for (int u = 0; u < TUNED_UNROLL; u++)
		sum += acc[u];
	out[t] = sum;
}

static cudaError_t launch_course(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	strided_read_course_kernel<<<SW_STRIDED_BLOCKS, SW_STRIDED_THREADS, 0, s>>>(
		(const float *)b->dev[0], (float *)b->dev[1], p->axis[AXIS_N],
		p->axis[AXIS_STRIDE]);
	return cudaGetLastError();
}

static cudaError_t launch_tuned(const struct sw_point *p, const struct sw_buffers *b,
				cudaStream_t s)
{
	strided_read_tuned_kernel<<<SW_STRIDED_BLOCKS, SW_STRIDED_THREADS, 0, s>>>(
		(const float *)b->dev[0], (float *)b->dev[1], p->axis[AXIS_N],
		p->axis[AXIS_STRIDE]);
	return cudaGetLastError();
}

static cudaError_t launch_stream(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	return sw_stream_read((const float *)b->dev[0], (float *)b->dev[1], p->axis[AXIS_N] / 4, s);
}

static cudaError_t launch_memcpy(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	return cudaMemcpyAsync(b->dev[1], b->dev[0], (size_t)p->axis[AXIS_N] * sizeof(float),
			       cudaMemcpyDeviceToDevice, s);
}

/* Model: request r is step k of warp w; its lanes read sw_strided_index. */
static uint64_t requests_strided(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint64_t n = p->axis[AXIS_N], stride = p->axis[AXIS_STRIDE];
	uint64_t warps = SW_STRIDED_T / 32;
	uint64_t steps = (n + stride * SW_STRIDED_T - 1) / (stride * SW_STRIDED_T);
	if (req) {
		uint64_t k = r / warps, w = r % warps;
		sw_request_begin(req, SW_SPACE_GLOBAL, 4, 0);
		for (int l = 0; l < 32; l++) {
			uint64_t i = sw_strided_index(w * 32 + l, k, stride);
			sw_request_lane(req, l, i * 4, i < n);
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
	uint64_t n = p->axis[AXIS_N];
	s->n_buffers = 2;
	s->n_inputs = 1;
	s->bytes[0] = n * sizeof(float);
	s->bytes[1] = p->variant == V_MEMCPY ? n * sizeof(float) : SW_STRIDED_T * sizeof(float);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	return p->variant == V_STREAM_READ && sw_stream_refuse(p->axis[AXIS_N], why, len);
}

static double useful_bytes(const struct sw_point *p)
{
	uint64_t n = p->axis[AXIS_N];
	switch (p->variant) {
	case V_STREAM_READ: return (double)n * 4;
	case V_MEMCPY: return 2.0 * n * 4; /* read and written */
	default: {
		uint64_t s = p->axis[AXIS_STRIDE];
		return (double)((n + s - 1) / s) * 4;
	}
	}
}

static double flops(const struct sw_point *p)
{
	return p->variant == V_MEMCPY ? 0 : useful_bytes(p) / 4; /* one add per element */
}

/* Sum thread t's elements in double, as the kernel's pattern visits them. */
static double thread_sum(const struct sw_point *p, uint64_t seed, uint64_t t, uint64_t *terms)
{
	uint64_t n = p->axis[AXIS_N];
	double sum = 0;
	*terms = 0;
	if (p->variant == V_STREAM_READ)
		return sw_stream_sum(seed, n / 4, t, terms);
	for (uint64_t k = 0;; k++, (*terms)++) {
		uint64_t i = sw_strided_index(t, k, p->axis[AXIS_STRIDE]);
		if (i >= n)
			break;
		sum += sw_uniform(seed, i);
	}
	return sum;
}

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *out = (const float *)o->out[1];
	uint64_t n_out = o->bytes[1] / sizeof(float);
	/* One sum costs n / T terms: check every thread while that stays cheap. */
	uint64_t per_thread = p->variant == V_MEMCPY ? 1 : p->axis[AXIS_N] / SW_STRIDED_T + 1;
	uint64_t count = sw_check_begin(c, n_out, n_out * per_thread <= SW_CHECK_FULL_TERMS);
	for (uint64_t k = 0; k < count; k++) {
		uint64_t t = sw_check_pick(c, o, k, n_out);
		uint64_t terms = 1;
		double want = p->variant == V_MEMCPY ? sw_uniform(o->seed, t)
						     : thread_sum(p, o->seed, t, &terms);
		/* float accumulation: each add may round by 2^-24 of the running sum */
		double tol = 1e-6 + 2e-7 * (double)terms;
		sw_check_element(c, t, out[t], want, tol);
	}
}

#define BOTH_AXES ((1u << AXIS_STRIDE) | (1u << AXIS_N))
static const struct sw_axis_def axes[] = {
	{ "stride", "elements", 1, 128, "1:128:x2",
	  "distance between neighbouring threads' elements" },
	{ "n", "elements", 1024, INT64_C(4) << 30, "64M", "array length in floats" },
};
static const struct sw_variant variants[] = {
	{ "course", "the course's kernel, grid 4096 x 256 (C8, C9)", launch_course,
	  requests_strided, BOTH_AXES, 0 },
	{ "tuned", "same addresses, 8 loads in flight per thread", launch_tuned, requests_strided,
	  BOTH_AXES, 0 },
	{ "stream_read", "float4 streaming read of n floats, near the memory limit", launch_stream,
	  requests_stream, 1u << AXIS_N, 1 },
	{ "memcpy", "cudaMemcpy device to device of n floats", launch_memcpy, NULL, 1u << AXIS_N,
	  1 },
};

const struct sw_family sw_family_strided_read = {
	.name = "strided_read",
	.about = "bandwidth against the stride between threads' elements",
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
