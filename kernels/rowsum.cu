/*
 * rowsum: sums of the rows of a rows x cols row-major matrix (NOTES.md C10).
 * One thread per row puts neighbouring threads cols x 4 bytes apart, so each
 * warp request touches 32 sectors; a block (or a warp) per row has its
 * threads stride across the columns, so a warp reads 128 contiguous bytes,
 * 4 sectors, and the partial sums meet in a shuffle/shared reduction.
 *   thread_per_row  the course's bad kernel: thread r sums row r
 *   block_per_row   the course's good kernel: a block of 256 per row
 *   warp_per_row    a warp per row: no barrier, 8 rows per block
 *   stream_read     reference: float4 streaming read of the same bytes
 * The block axis (0: 256) reshapes thread_per_row and warp_per_row: the
 * same threads and addresses in smaller or larger blocks, so 8192 rows of
 * thread_per_row fill 128 multiprocessors at 64 threads, not 32.
 */
#include "kernel.h"
#include "common.cuh"
#include "rowsum.cuh"
#include "stream_ref.cuh"

#include <math.h>
#include <stdio.h>

enum { AXIS_ROWS, AXIS_COLS, AXIS_BLOCK };
enum { V_THREAD, V_BLOCK, V_WARP, V_STREAM_READ };

__global__ void rowsum_thread_kernel(const float *__restrict__ a, float *__restrict__ out,
				     uint64_t rows, uint64_t cols)
{
	uint64_t row = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	float sum = 0.0f;
	for (uint64_t c = 0; c < cols; c++)
		sum += a[sw_rowsum_index(row, c, cols)];
	out[row] = sum;
}

__device__ __forceinline__ float rowsum_warp_reduce(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

/* Thread tid of a group of `group` threads sums its columns of one row.
 * SW_ROWSUM_UNROLL loads are issued before any add uses them, so that short
 * rows still keep enough requests in flight. */
__device__ __forceinline__ float rowsum_group_sum(const float *__restrict__ row_start,
						  uint64_t cols, uint64_t tid, uint64_t group)
{
	float acc[SW_ROWSUM_UNROLL] = { 0 };
	uint64_t k = 0;
	for (; sw_rowsum_col(tid, k + SW_ROWSUM_UNROLL - 1, group) < cols; k += SW_ROWSUM_UNROLL) {
		float v[SW_ROWSUM_UNROLL];
#pragma unroll
		for (int u = 0; u < SW_ROWSUM_UNROLL; u++)
			v[u] = row_start[sw_rowsum_col(tid, k + u, group)];
#pragma unroll
		for (int u = 0; u < SW_ROWSUM_UNROLL; u++)
			acc[u] += v[u];
	}
	for (; sw_rowsum_col(tid, k, group) < cols; k++)
		acc[0] += row_start[sw_rowsum_col(tid, k, group)];
	return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

__global__ void rowsum_block_kernel(const float *__restrict__ a, float *__restrict__ out,
				    uint64_t cols)
{
	__shared__ float partial[SW_ROWSUM_WARPS];
	uint64_t row = blockIdx.x;
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	float sum = rowsum_group_sum(a + sw_rowsum_index(row, 0, cols), cols, threadIdx.x,
				     SW_ROWSUM_THREADS);
	sum = rowsum_warp_reduce(sum);
	if (lane == 0)
		partial[warp] = sum;
	__syncthreads();
	if (warp == 0) {
		sum = rowsum_warp_reduce(lane < SW_ROWSUM_WARPS ? partial[lane] : 0.0f);
		if (lane == 0)
			out[row] = sum;
	}
}

__global__ void rowsum_warp_kernel(const float *__restrict__ a, float *__restrict__ out,
				   uint64_t rows, uint64_t cols)
{
	uint64_t row = blockIdx.x * (uint64_t)(blockDim.x / 32) + threadIdx.x / 32;
	int lane = threadIdx.x % 32;
	if (row >= rows) /* the whole warp leaves: the shuffles below stay full */
		return;
	float sum = rowsum_group_sum(a + sw_rowsum_index(row, 0, cols), cols, lane, 32);
	sum = rowsum_warp_reduce(sum);
	if (lane == 0)
		out[row] = sum;
}

static uint64_t rows_of(const struct sw_point *p)
{
	return (uint64_t)p->axis[AXIS_ROWS];
}

static uint64_t cols_of(const struct sw_point *p)
{
	return (uint64_t)p->axis[AXIS_COLS];
}

/* 256 threads per block, as the course launches it: rows / 256 blocks, so
 * 8192 rows keep only 32 multiprocessors busy. The rows axis tells that
 * apart from the cost of the access pattern. */
/* Threads per block of thread_per_row and warp_per_row: the block axis's,
 * 256 at its baseline. A row's thread or warp reads the same addresses in
 * any block; what changes is how many blocks the rows fill. */
static unsigned threads_of(const struct sw_point *p)
{
	return sw_shape_of(p->axis[AXIS_BLOCK], SW_ROWSUM_THREADS);
}

static cudaError_t launch_thread(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	unsigned blocks = (unsigned)((rows_of(p) + threads_of(p) - 1) / threads_of(p));
	rowsum_thread_kernel<<<blocks, threads_of(p), 0, s>>>(
		(const float *)b->dev[0], (float *)b->dev[1], rows_of(p), cols_of(p));
	return cudaGetLastError();
}

static cudaError_t launch_block(const struct sw_point *p, const struct sw_buffers *b,
				cudaStream_t s)
{
	rowsum_block_kernel<<<(unsigned)rows_of(p), SW_ROWSUM_THREADS, 0, s>>>(
		(const float *)b->dev[0], (float *)b->dev[1], cols_of(p));
	return cudaGetLastError();
}

static cudaError_t launch_warp(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	unsigned warps = threads_of(p) / 32;
	unsigned blocks = (unsigned)((rows_of(p) + warps - 1) / warps);
	rowsum_warp_kernel<<<blocks, threads_of(p), 0, s>>>(
		(const float *)b->dev[0], (float *)b->dev[1], rows_of(p), cols_of(p));
	return cudaGetLastError();
}

static cudaError_t launch_stream(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	return sw_stream_read((const float *)b->dev[0], (float *)b->dev[1],
			      rows_of(p) * cols_of(p) / 4, s);
}

/* Model of thread_per_row: request r is column r % cols of warp r / cols;
 * lane l reads row 32 w + l, cols x 4 bytes from its neighbours. */
static uint64_t requests_thread(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint64_t rows = rows_of(p), cols = cols_of(p);
	if (req) {
		uint64_t w = r / cols, c = r % cols;
		sw_request_begin(req, SW_SPACE_GLOBAL, 4, 0);
		for (int l = 0; l < 32; l++) {
			uint64_t row = w * 32 + l;
			sw_request_lane(req, l, sw_rowsum_index(row, c, cols) * 4, row < rows);
		}
	}
	return (rows + 31) / 32 * cols;
}

/* Model of block_per_row and warp_per_row: a row's group of threads takes
 * `steps` strides across it; request r is step k of warp w of its row. */
static uint64_t requests_group(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint64_t rows = rows_of(p), cols = cols_of(p);
	uint64_t group = p->variant == V_BLOCK ? SW_ROWSUM_THREADS : 32;
	uint64_t warps = group / 32, steps = (cols + group - 1) / group;
	if (req) {
		uint64_t row = r / (warps * steps), k = r % (warps * steps) / warps, w = r % warps;
		sw_request_begin(req, SW_SPACE_GLOBAL, 4, 0);
		for (int l = 0; l < 32; l++) {
			uint64_t col = sw_rowsum_col(w * 32 + l, k, group);
			sw_request_lane(req, l, sw_rowsum_index(row, col, cols) * 4, col < cols);
		}
	}
	return rows * warps * steps;
}

static uint64_t requests_stream(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	return sw_stream_requests(rows_of(p) * cols_of(p) / 4, r, req);
}

/* Time model: a thread per row waits on each load; the groups keep
 * SW_ROWSUM_UNROLL in flight. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	uint64_t rows = rows_of(p), threads = threads_of(p), warps = threads / 32;
	(void)sm_count;
	switch (p->variant) {
	case V_THREAD:
		return sw_shape_set(s, (rows + threads - 1) / threads, (unsigned)threads, 0, 1);
	case V_BLOCK:
		return sw_shape_set(s, rows, SW_ROWSUM_THREADS, SW_ROWSUM_WARPS * sizeof(float),
				    SW_ROWSUM_UNROLL);
	case V_WARP:
		return sw_shape_set(s, (rows + warps - 1) / warps, (unsigned)threads, 0,
				    SW_ROWSUM_UNROLL);
	default: return sw_stream_shape(s);
	}
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	s->n_buffers = 2;
	s->n_inputs = 1;
	s->bytes[0] = rows_of(p) * cols_of(p) * sizeof(float);
	s->bytes[1] = (p->variant == V_STREAM_READ ? SW_STREAM_T : rows_of(p)) * sizeof(float);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	if (p->variant == V_STREAM_READ && rows_of(p) * cols_of(p) % 4) {
		snprintf(why, len,
			 "stream_read reads float4: rows x cols = %llu is not a multiple of 4",
			 (unsigned long long)(rows_of(p) * cols_of(p)));
		return 1;
	}
	return sw_block_refuse(p->axis[AXIS_BLOCK], 0, why, len);
}

static double useful_bytes(const struct sw_point *p)
{
	double read = 4.0 * (double)rows_of(p) * (double)cols_of(p);
	return p->variant == V_STREAM_READ ? read
					   : read + 4.0 * (double)rows_of(p); /* + the sums */
}

static double flops(const struct sw_point *p)
{
	return (double)rows_of(p) * (double)cols_of(p); /* one add per element */
}

/* Output element o in double, the terms it sums, and the longest chain of
 * float adds the kernel's order puts between a term and the result. */
static double want_of(const struct sw_point *p, uint64_t seed, uint64_t o, double *chain)
{
	uint64_t cols = cols_of(p);
	double sum = 0;
	if (p->variant == V_STREAM_READ) {
		uint64_t terms;
		sum = sw_stream_sum(seed, rows_of(p) * cols / 4, o, &terms);
		*chain = (double)(terms / 4) + 2; /* one float4 step per 4 terms */
		return sum;
	}
	for (uint64_t c = 0; c < cols; c++)
		sum += sw_uniform(seed, sw_rowsum_index(o, c, cols));
	switch (p->variant) {
	case V_THREAD: *chain = (double)cols; break;
	case V_BLOCK: *chain = ceil((double)cols / SW_ROWSUM_THREADS) + 2 + 5 + 5; break;
	default: *chain = ceil((double)cols / 32) + 2 + 5; break;
	}
	return sum;
}

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *out = (const float *)o->out[1];
	uint64_t n_out = o->bytes[1] / sizeof(float);
	/* One output costs cols terms (stream_read: its share of the matrix). */
	uint64_t per_out = rows_of(p) * cols_of(p) / n_out + 1;
	uint64_t count = sw_check_begin(c, n_out, n_out * per_out <= SW_CHECK_FULL_TERMS);
	sw_check_parallel(c, count, count * per_out, [&](uint64_t k, struct sw_check *part) {
		uint64_t e = sw_check_pick(part, o, k, n_out);
		double chain;
		double want = want_of(p, o->seed, e, &chain);
		/* Float sums of positive terms: the worst case, chain x 2^-24, is far
		 * looser than what random inputs produce. Their rounding errors are
		 * unbiased and add like a random walk, about 2^-24 sqrt(chain) / 3 of
		 * the sum; 8 x 2^-24 sqrt(chain) is over 20 of those standard
		 * deviations, yet 30 times smaller than the error of summing a
		 * neighbouring row instead. */
		double tol = 1e-6 + 8 * 0x1p-24 * sqrt(chain);
		sw_check_element(part, e, out[e], want, tol);
	});
}

#define BOTH_AXES ((1u << AXIS_ROWS) | (1u << AXIS_COLS))
static const struct sw_axis_def axes[] = {
	{ "rows", "elements", 32, INT64_C(1) << 20, "8192,32768", "matrix rows (one sum each)" },
	{ "cols", "elements", 32, INT64_C(64) << 10, "8192,32768",
	  "matrix columns: floats per row, and the distance between rows" },
	SW_BLOCK_AXIS("256"),
};
static const struct sw_variant variants[] = {
	{ "thread_per_row",
	  "one thread per row: lanes cols x 4 bytes apart, 32 sectors per request (C10)",
	  launch_thread, requests_thread, BOTH_AXES | (1u << AXIS_BLOCK), 0 },
	{ "block_per_row",
	  "one block of 256 per row striding across it, then a block reduction: "
	  "4 sectors per request (C10)",
	  launch_block, requests_group, BOTH_AXES, 0 },
	{ "warp_per_row", "one warp per row striding across it, then a shuffle reduction",
	  launch_warp, requests_group, BOTH_AXES | (1u << AXIS_BLOCK), 0 },
	{ "stream_read",
	  "float4 streaming read of the same rows x cols floats, near the memory limit",
	  launch_stream, requests_stream, BOTH_AXES, 1 },
};

const struct sw_family sw_family_rowsum = {
	.name = "rowsum",
	.about = "row sums of a row-major matrix: a thread, a block or a warp per row",
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
