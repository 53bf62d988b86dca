/*
 * index_read: a read through an index array, out[i] = data[idx[i]], each
 * idx[i] a random position within the window of `locality` elements that holds
 * i, against the same launch without the index. Not a course claim: it gives
 * the time model (docs/model.md, "Time") points whose data loads scatter over
 * a working set of a chosen size, inside the L2 (a small window: every
 * sector of a window is fetched once and re-read from the L2) or several
 * times its size (window n over an array larger than the L2: each load
 * fetches its own sector from DRAM). Useful bytes are the index read, the
 * data read and the write: 12 bytes an element (8 for direct).
 *   direct   reference: out[i] = data[i], the same grid and block, no index
 *   indexed  the index load (4 sectors a warp), then the data load at the
 *            index it read (4 sectors a warp at window 1 up to 32 where the
 *            indices scatter), then the store (4 sectors)
 * The indices are written by the family's fill from a fixed key, not the
 * point's seed, so that the model rebuilds them (index_read.cuh).
 */
#include "kernel.h"
#include "common.cuh"
#include "index_read.cuh"

enum { AXIS_N, AXIS_WINDOW };
enum { V_DIRECT, V_INDEXED };
enum { BUF_DATA, BUF_INDEX, BUF_OUT }; /* inputs first: the data, the indices */

__global__ void index_read_fill_kernel(uint32_t *idx, uint64_t n, uint64_t window)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (i < n)
		idx[i] = sw_index_read_index(i, n, window);
}

__global__ void index_read_direct_kernel(const float *__restrict__ data, float *__restrict__ out,
					 uint64_t n)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = data[i];
}

/* The data load needs the index load's value: one load in flight a thread. */
__global__ void index_read_indexed_kernel(const float *__restrict__ data,
					  const uint32_t *__restrict__ idx, float *__restrict__ out,
					  uint64_t n)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = data[idx[i]];
}

static unsigned blocks_of(uint64_t n)
{
	return (unsigned)((n + SW_INDEX_READ_THREADS - 1) / SW_INDEX_READ_THREADS);
}

/* direct uses no window (SW_AXIS_UNUSED): its indices are the identity. */
static uint64_t window_of(const struct sw_point *p)
{
	return p->variant == V_INDEXED ? (uint64_t)p->axis[AXIS_WINDOW] : 1;
}

static cudaError_t launch(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	uint64_t n = (uint64_t)p->axis[AXIS_N];
	const float *data = (const float *)b->dev[BUF_DATA];
	float *out = (float *)b->dev[BUF_OUT];
	if (p->variant == V_INDEXED)
		index_read_indexed_kernel<<<blocks_of(n), SW_INDEX_READ_THREADS, 0, s>>>(
			data, (const uint32_t *)b->dev[BUF_INDEX], out, n);
	else
		index_read_direct_kernel<<<blocks_of(n), SW_INDEX_READ_THREADS, 0, s>>>(data, out,
											n);
	return cudaGetLastError();
}

/* Every input: the data from b->seed, as the default fill would, and the
 * indices from the fixed key. */
static cudaError_t fill(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	uint64_t n = (uint64_t)p->axis[AXIS_N];
	cudaError_t e = sw_fill_uniform((float *)b->dev[BUF_DATA], n, b->seed, s);
	if (e != cudaSuccess)
		return e;
	index_read_fill_kernel<<<blocks_of(n), SW_INDEX_READ_THREADS, 0, s>>>(
		(uint32_t *)b->dev[BUF_INDEX], n, window_of(p));
	return cudaGetLastError();
}

/* Model: request r is warp w's in slot k: the index load, the data load (at
 * the indices the fill wrote), the store; direct has no index load. Numbered
 * slot by slot, every warp's index load before any data load, so that each
 * kind of request is one stretch whose ends the model finds. Each slot is
 * one of the variant's named accesses, in order, and names its buffer. */
enum { SLOT_INDEX, SLOT_DATA, SLOT_OUT, N_SLOTS };
static const int slot_buffer[N_SLOTS] = { BUF_INDEX, BUF_DATA, BUF_OUT };

static uint64_t requests(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint64_t n = (uint64_t)p->axis[AXIS_N], warps = (n + 31) / 32;
	int indexed = p->variant == V_INDEXED;
	uint64_t slots = indexed ? N_SLOTS : N_SLOTS - 1;
	if (req) {
		uint64_t w = r % warps;
		int access = (int)(r / warps);
		int slot = access + !indexed; /* direct: data, out */
		sw_request_begin(req, SW_SPACE_GLOBAL, 4, slot == SLOT_OUT);
		sw_request_access(req, access);
		sw_request_buffer(req, slot_buffer[slot]);
		for (unsigned l = 0; l < 32; l++) {
			uint64_t i = w * 32 + l, at = i;
			if (slot == SLOT_DATA && i < n)
				at = sw_index_read_index(i, n, window_of(p));
			sw_request_lane(req, l, 4 * at, i < n);
		}
	}
	return warps * slots;
}

/* Time model: a thread's one element; indexed's data load waits on its index. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	(void)sm_count;
	return sw_shape_set(s, blocks_of((uint64_t)p->axis[AXIS_N]), SW_INDEX_READ_THREADS, 0, 1);
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	uint64_t n = (uint64_t)p->axis[AXIS_N];
	s->n_buffers = 3;
	s->n_inputs = 2;
	s->bytes[BUF_DATA] = n * sizeof(float);
	s->bytes[BUF_INDEX] = n * sizeof(uint32_t);
	s->bytes[BUF_OUT] = n * sizeof(float);
	/* check() samples past SW_CHECK_FULL_TERMS elements: only those come back */
	if (n > SW_CHECK_FULL_TERMS)
		s->sampled_elem[BUF_OUT] = sizeof(float);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	if (p->variant == V_INDEXED && p->axis[AXIS_WINDOW] > p->axis[AXIS_N]) {
		snprintf(why, len, "locality %lld is more than n %lld elements",
			 (long long)p->axis[AXIS_WINDOW], (long long)p->axis[AXIS_N]);
		return 1;
	}
	return 0;
}

static double useful_bytes(const struct sw_point *p)
{
	return (p->variant == V_INDEXED ? 12.0 : 8.0) * (double)p->axis[AXIS_N];
}

static double flops(const struct sw_point *p)
{
	(void)p;
	return 0;
}

/* The data are sw_uniform(o->seed, j): out[i] must be exactly the element
 * the index names, data[sw_index_read_index(i)] (data[i] for direct). */
static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *out = (const float *)o->out[BUF_OUT];
	uint64_t n = (uint64_t)p->axis[AXIS_N], window = window_of(p);
	uint64_t count = sw_check_begin(c, n, n <= SW_CHECK_FULL_TERMS);
	sw_check_parallel(c, count, count, [&](uint64_t k, struct sw_check *part) {
		uint64_t i = sw_check_pick(part, o, k, n);
		uint64_t j = sw_index_read_index(i, n, window);
		sw_check_element(part, i, out[i], sw_uniform(o->seed, j), 0);
	});
}

static const struct sw_axis_def axes[] = {
	{ "n", "elements", 1024, INT64_C(1) << 31, "64M", "elements read and written" },
	{ "locality", "elements", 1, INT64_C(1) << 31, "1,32,1K,1M,64M",
	  "window each index stays in, at most n: 1 the identity, n anywhere (gather's locality)" },
};
/* Each variant's accesses, in the order of its slots. */
static const char *const direct_accesses[] = { "data", "out", NULL };
static const char *const indexed_accesses[] = { "index", "data", "out", NULL };
static const struct sw_variant variants[] = {
	{ "direct", "out[i] = data[i] through the same launch, no index: the ceiling", launch,
	  requests, 1u << AXIS_N, 1, direct_accesses },
	{ "indexed", "out[i] = data[idx[i]], idx[i] random within window elements holding i",
	  launch, requests, (1u << AXIS_N) | (1u << AXIS_WINDOW), 0, indexed_accesses },
};

const struct sw_family sw_family_index_read = {
	.name = "index_read",
	.about = "a read through an index array, by the indices' window, against a direct read",
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
