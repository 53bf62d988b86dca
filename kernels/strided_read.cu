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
 * The launch-shape and width axes of course and tuned: block and grid (0:
 * the course's 256 and 4096), to tell occupancy from the access pattern; vec
 * elements per load (float2, float4: one 8- or 16-byte word per lane) and
 * elem_bytes (8: doubles), with stride counted in loads. Inputs of 8-byte
 * elements hold the same values as float inputs, widened
 * (sw_uniform_double), and a thread sums its elements in their own type.
 */
#include "kernel.h"
#include "common.cuh"
#include "strided_read.cuh"
#include "stream_ref.cuh"

enum { AXIS_STRIDE, AXIS_N, AXIS_BLOCK, AXIS_GRID, AXIS_VEC, AXIS_ELEM_BYTES };
enum { V_COURSE, V_TUNED, V_STREAM_READ, V_MEMCPY };
#define TUNED_UNROLL 8

static struct sw_read_shape shape_of(const struct sw_point *p)
{
	return sw_read_shape_of(p->axis[AXIS_GRID], p->axis[AXIS_BLOCK], p->axis[AXIS_VEC],
				p->axis[AXIS_ELEM_BYTES], p->axis[AXIS_N], SW_STRIDED_BLOCKS,
				SW_STRIDED_THREADS);
}

/* V is the loaded type (float, float2, float4, double, double2), S its
 * element type, in which the thread sums. */
template <typename V, typename S>
__global__ void strided_read_course_kernel(const V *a, S *out, uint64_t loads, uint64_t stride)
{
	uint64_t T = (uint64_t)gridDim.x * blockDim.x;
	uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	S sum = 0;
	for (uint64_t k = 0;; k++) {
		uint64_t i = sw_strided_index(t, k, stride, T);
		if (i >= loads)
			break;
		sum += sw_vsum(a[i]);
	}
	out[t] = sum; /* written so the loads are not removed */
}

/* The loads of TUNED_UNROLL steps are issued before any add uses them, so
 * each thread keeps several requests in flight instead of one. */
template <typename V, typename S>
__global__ void strided_read_tuned_kernel(const V *__restrict__ a, S *__restrict__ out,
					  uint64_t loads, uint64_t stride)
{
	uint64_t T = (uint64_t)gridDim.x * blockDim.x;
	uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	S acc[TUNED_UNROLL] = { 0 };
	for (uint64_t k = 0; sw_strided_index(t, k, stride, T) < loads; k += TUNED_UNROLL) {
		V v[TUNED_UNROLL];
#pragma unroll
		for (int u = 0; u < TUNED_UNROLL; u++) {
			uint64_t i = sw_strided_index(t, k + u, stride, T);
			v[u] = i < loads ? a[i] : V{};
		}
#pragma unroll
		for (int u = 0; u < TUNED_UNROLL; u++)
			acc[u] += sw_vsum(v[u]);
	}
	S sum = 0;
#pragma unroll
	for (int u = 0; u < TUNED_UNROLL; u++)
		sum += acc[u];
	out[t] = sum;
}

template <typename V, typename S>
static cudaError_t launch_as(int tuned, const struct sw_point *p, const struct sw_buffers *b,
			     cudaStream_t s)
{
	struct sw_read_shape sh = shape_of(p);
	const V *a = (const V *)b->dev[0];
	S *out = (S *)b->dev[1];
	uint64_t stride = p->axis[AXIS_STRIDE];
	if (tuned)
		strided_read_tuned_kernel<V, S>
			<<<sh.blocks, sh.threads, 0, s>>>(a, out, sh.loads, stride);
	else
		strided_read_course_kernel<V, S>
			<<<sh.blocks, sh.threads, 0, s>>>(a, out, sh.loads, stride);
	return cudaGetLastError();
}

/* The kernel of the point's load type (refuse has ruled out the rest). */
static cudaError_t launch_typed(int tuned, const struct sw_point *p, const struct sw_buffers *b,
				cudaStream_t s)
{
	struct sw_read_shape sh = shape_of(p);
	if (sh.elem_bytes == 8)
		return sh.vec == 2 ? launch_as<double2, double>(tuned, p, b, s)
				   : launch_as<double, double>(tuned, p, b, s);
	return sh.vec == 4   ? launch_as<float4, float>(tuned, p, b, s)
	       : sh.vec == 2 ? launch_as<float2, float>(tuned, p, b, s)
			     : launch_as<float, float>(tuned, p, b, s);
}

static cudaError_t launch_course(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	return launch_typed(0, p, b, s);
}

static cudaError_t launch_tuned(const struct sw_point *p, const struct sw_buffers *b,
				cudaStream_t s)
{
	return launch_typed(1, p, b, s);
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

/* Doubles hold sw_uniform_double, floats sw_uniform: the same values. */
static cudaError_t fill(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	uint64_t n = p->axis[AXIS_N];
	if (shape_of(p).elem_bytes == 8)
		return sw_fill_uniform_double((double *)b->dev[0], n, b->seed, s);
	return sw_fill_uniform((float *)b->dev[0], n, b->seed, s);
}

/* Model: request r is step k of warp w; lane l loads word_bytes at load
 * sw_strided_index(32 w + l, k): a float2 is one 8-byte word per lane. */
static uint64_t requests_strided(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	struct sw_read_shape sh = shape_of(p);
	uint64_t stride = p->axis[AXIS_STRIDE];
	uint64_t warps = sh.T / 32;
	uint64_t steps = (sh.loads + stride * sh.T - 1) / (stride * sh.T);
	if (req) {
		uint64_t k = r / warps, w = r % warps;
		sw_request_begin(req, SW_SPACE_GLOBAL, (int)sh.word_bytes, 0);
		for (int l = 0; l < 32; l++) {
			uint64_t i = sw_strided_index(w * 32 + l, k, stride, sh.T);
			sw_request_lane(req, l, i * sh.word_bytes, i < sh.loads);
		}
	}
	return warps * steps;
}

static uint64_t requests_stream(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	return sw_stream_requests(p->axis[AXIS_N] / 4, r, req);
}

/* Time model: course waits on each load, tuned keeps TUNED_UNROLL in flight. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	struct sw_read_shape sh = shape_of(p);
	(void)sm_count;
	if (p->variant == V_STREAM_READ)
		return sw_stream_shape(s);
	else
		return sw_shape_set(s, sh.blocks, sh.threads, 0,
				    p->variant == V_TUNED ? TUNED_UNROLL : 1);
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	struct sw_read_shape sh = shape_of(p);
	uint64_t n = p->axis[AXIS_N];
	s->n_buffers = 2;
	s->n_inputs = 1;
	s->bytes[0] = n * sh.elem_bytes;
	s->bytes[1] = p->variant == V_MEMCPY ? n * sizeof(float) : sh.T * sh.elem_bytes;
	/* memcpy's check samples past SW_CHECK_FULL_TERMS outputs (one term
	 * each), as check() decides: only those come back */
	if (p->variant == V_MEMCPY && s->bytes[1] / sh.elem_bytes > SW_CHECK_FULL_TERMS)
		s->sampled_elem[1] = sh.elem_bytes;
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	if (p->variant == V_STREAM_READ)
		return sw_stream_refuse(p->axis[AXIS_N], why, len);
	if (p->variant == V_MEMCPY)
		return 0;
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
	uint64_t n = p->axis[AXIS_N];
	switch (p->variant) {
	case V_STREAM_READ: return (double)n * 4;
	case V_MEMCPY: return 2.0 * n * 4; /* read and written */
	default: {
		struct sw_read_shape sh = shape_of(p);
		uint64_t s = p->axis[AXIS_STRIDE];
		return (double)((sh.loads + s - 1) / s) * sh.word_bytes;
	}
	}
}

static double flops(const struct sw_point *p)
{
	/* one add per element read */
	return p->variant == V_MEMCPY ? 0 : useful_bytes(p) / shape_of(p).elem_bytes;
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
		uint64_t i = sw_strided_index(t, k, p->axis[AXIS_STRIDE], sh.T);
		if (i >= sh.loads)
			break;
		for (unsigned e = 0; e < sh.vec; e++, (*terms)++)
			sum += sw_uniform_double(seed, i * sh.vec + e);
	}
	return sum;
}

/* Error bound of a sum of terms positive values accumulated in floats
 * (each add may round by 2^-24 of the running sum) or in doubles (2^-53). */
static double sum_tol(uint64_t terms, unsigned elem_bytes)
{
	return elem_bytes == 8 ? 1e-12 + 2.3e-16 * (double)terms : 1e-6 + 2e-7 * (double)terms;
}

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	unsigned eb = shape_of(p).elem_bytes;
	uint64_t n_out = o->bytes[1] / eb;
	/* One sum costs n / T terms: check every thread while that stays cheap. */
	uint64_t per_thread = p->variant == V_MEMCPY ? 1 : p->axis[AXIS_N] / shape_of(p).T + 1;
	uint64_t count = sw_check_begin(c, n_out, n_out * per_thread <= SW_CHECK_FULL_TERMS);
	sw_check_parallel(c, count, count * per_thread, [&](uint64_t k, struct sw_check *part) {
		uint64_t t = sw_check_pick(part, o, k, n_out);
		uint64_t terms = 1;
		double want = p->variant == V_MEMCPY ? sw_uniform(o->seed, t)
						     : thread_sum(p, o->seed, t, &terms);
		double got =
			eb == 8 ? ((const double *)o->out[1])[t] : ((const float *)o->out[1])[t];
		sw_check_element(part, t, got, want, sum_tol(terms, eb));
	});
}

#define ALL_AXES ((1u << SW_COUNT(axes)) - 1)
static const struct sw_axis_def axes[] = {
	{ "stride", "elements", 1, 128, "1:128:x2",
	  "distance between neighbouring threads' loads, in loads of vec elements" },
	{ "n", "elements", 1024, INT64_C(4) << 30, "64M", "array length in elements" },
	SW_BLOCK_AXIS("256"),
	SW_GRID_AXIS("4096"),
	SW_VEC_AXIS,
	SW_ELEM_BYTES_AXIS,
};
static const struct sw_variant variants[] = {
	{ "course", "the course's kernel, grid 4096 x 256 (C8, C9)", launch_course,
	  requests_strided, ALL_AXES, 0 },
	{ "tuned", "same addresses, 8 loads in flight per thread", launch_tuned, requests_strided,
	  ALL_AXES, 0 },
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
	.fill = fill,
	.shape = shape,
};
