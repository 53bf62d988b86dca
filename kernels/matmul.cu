/*
 * matmul: C = A B for n x n row-major floats (NOTES.md C7). Shared tiles cut
 * global reads from n per element to n / tile; register blocking cuts the
 * shared reads per multiply-add in turn. flops are 2 n^3; useful bytes the
 * three matrices moved once, 3 n^2 x 4.
 *   naive      one thread per element of C, its row of A and column of B
 *              read straight from global memory
 *   tiled      the course's kernel, corrected (As[ty][k] * Bs[k][tx], blockIdx.x
 *              along columns): tile x tile tiles of A and B staged in shared
 *              memory, two barriers per tile (C7)
 *   tiled_reg  128 x 128 block tiles in double-buffered shared memory, each
 *              thread an 8 x 8 block of C from float4 shared loads
 *   cublas     reference: cuBLAS SGEMM, plain FP32 (no TF32)
 * Not measured here: tensor cores or any precision below FP32.
 */
#include "kernel.h"
#include "common.cuh"
#include "matmul.cuh"

#include <stdio.h>

#include <cublas_v2.h>

enum { AXIS_SIZE, AXIS_TILE, AXIS_PAD };
enum { V_NAIVE, V_TILED, V_TILED_REG, V_CUBLAS };

/* The course's naive kernel: a row's threads read one word of A, a warp
 * reads consecutive words of B. */
__global__ void matmul_naive_kernel(const float *A, const float *B, float *C, uint32_t n)
{
	uint32_t row = sw_matmul_row(blockDim.y, blockIdx.y, threadIdx.y);
	uint32_t col = sw_matmul_col(blockDim.x, blockIdx.x, threadIdx.x);
	float sum = 0.0f;
	for (uint32_t k = 0; k < n; k++)
		sum += A[sw_matmul_a_index(n, row, k)] * B[sw_matmul_b_index(n, k, col)];
	C[row * n + col] = sum;
}

/* The course's tiled kernel with the listing's errors fixed: the product
 * indexes the tiles with the thread's place in the tile, not with the
 * global row and column, and blockIdx.x runs along the columns. */
template <int TILE, int PAD>
__global__ void matmul_tiled_kernel(const float *A, const float *B, float *C, uint32_t n)
{
	__shared__ float As[TILE][TILE + PAD], Bs[TILE][TILE + PAD];
	uint32_t tx = threadIdx.x, ty = threadIdx.y;
	uint32_t row = sw_matmul_row(TILE, blockIdx.y, ty),
		 col = sw_matmul_col(TILE, blockIdx.x, tx);
	float sum = 0.0f;
	for (uint32_t t = 0; t < n; t += TILE) {
		As[ty][tx] = A[sw_matmul_a_index(n, row, t + tx)];
		Bs[ty][tx] = B[sw_matmul_b_index(n, t + ty, col)];
		__syncthreads(); /* both tiles are complete */
#pragma unroll
		for (int k = 0; k < TILE; k++)
			sum += As[ty][k] * Bs[k][tx];
		__syncthreads(); /* nobody overwrites a tile still being read */
	}
	C[row * n + col] = sum;
}

/* tiled_reg's shape: 256 threads as 16 x 16, each computing rows
 * {ty*4 .. ty*4+3, 64+ty*4 .. 64+ty*4+3} and the same columns by tx of a
 * 128 x 128 block of C. Splitting a thread's 8 rows (columns) into two runs
 * of 4 makes a warp's float4 shared reads consecutive: no bank conflicts. */
#define RB_BM      128
#define RB_BN      128
#define RB_BK      8
#define RB_THREADS 256
#define RB_APITCH                                                                                  \
	(RB_BM + 4) /* A's tile is stored transposed; the pad keeps
				 its column-wise stores conflict-free */

/* One thread's share of a k-tile: a float4 of A (128 x 8), stored transposed
 * so a thread's four rows of A lie side by side, and a float4 of B (8 x 128). */
static __device__ __forceinline__ void rb_store(float (*as)[RB_APITCH], float (*bs)[RB_BN],
						float4 a, float4 b, uint32_t tid)
{
	uint32_t a_row = tid / 2, a_col = tid % 2 * 4, b_row = tid / 32, b_col = tid % 32 * 4;
	as[a_col + 0][a_row] = a.x;
	as[a_col + 1][a_row] = a.y;
	as[a_col + 2][a_row] = a.z;
	as[a_col + 3][a_row] = a.w;
	*(float4 *)&bs[b_row][b_col] = b;
}

__global__ void __launch_bounds__(RB_THREADS, 2)
	matmul_tiled_reg_kernel(const float *__restrict__ A, const float *__restrict__ B,
				float *__restrict__ C, uint32_t n)
{
	__shared__ __align__(16) float As[2][RB_BK][RB_APITCH];
	__shared__ __align__(16) float Bs[2][RB_BK][RB_BN];
	uint32_t tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const float *a_src = A + (blockIdx.y * RB_BM + tid / 2) * n + tid % 2 * 4;
	const float *b_src = B + tid / 32 * n + blockIdx.x * RB_BN + tid % 32 * 4;
	float4 a_next = *(const float4 *)a_src, b_next = *(const float4 *)b_src;
	rb_store(As[0], Bs[0], a_next, b_next, tid);
	__syncthreads();

	float acc[8][8] = {};
	uint32_t tiles = n / RB_BK;
	for (uint32_t t = 0; t < tiles; t++) {
		uint32_t cur = t & 1;
		/* Fetch the next k-tile into registers now; its latency hides
		 * behind this tile's arithmetic. */
		if (t + 1 < tiles) {
			a_next = *(const float4 *)(a_src + (t + 1) * RB_BK);
			b_next = *(const float4 *)(b_src + (t + 1) * RB_BK * n);
		}
#pragma unroll
		for (int k = 0; k < RB_BK; k++) {
			float4 a0 = *(const float4 *)&As[cur][k][ty * 4];
			float4 a1 = *(const float4 *)&As[cur][k][64 + ty * 4];
			float4 b0 = *(const float4 *)&Bs[cur][k][tx * 4];
			float4 b1 = *(const float4 *)&Bs[cur][k][64 + tx * 4];
			float a[8] = { a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w };
			float b[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
		}
		/* The other buffer was last read before the previous barrier, so
		 * one barrier per k-tile suffices. */
		if (t + 1 < tiles)
			rb_store(As[cur ^ 1], Bs[cur ^ 1], a_next, b_next, tid);
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < 8; i++) {
		uint32_t row = blockIdx.y * RB_BM + i / 4 * 64 + ty * 4 + i % 4;
		float *c = C + row * n + blockIdx.x * RB_BN + tx * 4;
		*(float4 *)c = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
		*(float4 *)(c + 64) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
	}
}

typedef void (*mm_kernel_fn)(const float *, const float *, float *, uint32_t);

static mm_kernel_fn tiled_kernel(int64_t tile, int64_t pad)
{
	switch (tile * 2 + pad) {
	case 8 * 2 + 0: return matmul_tiled_kernel<8, 0>;
	case 8 * 2 + 1: return matmul_tiled_kernel<8, 1>;
	case 16 * 2 + 0: return matmul_tiled_kernel<16, 0>;
	case 16 * 2 + 1: return matmul_tiled_kernel<16, 1>;
	case 32 * 2 + 0: return matmul_tiled_kernel<32, 0>;
	case 32 * 2 + 1: return matmul_tiled_kernel<32, 1>;
	default: return NULL;
	}
}

static cudaError_t launch_naive(const struct sw_point *p, const struct sw_buffers *b,
				cudaStream_t s)
{
	uint32_t n = (uint32_t)p->axis[AXIS_SIZE], tile = (uint32_t)p->axis[AXIS_TILE];
	dim3 grid(n / tile, n / tile), block(tile, tile);
	matmul_naive_kernel<<<grid, block, 0, s>>>((const float *)b->dev[0],
						   (const float *)b->dev[1], (float *)b->dev[2], n);
	return cudaGetLastError();
}

static cudaError_t launch_tiled(const struct sw_point *p, const struct sw_buffers *b,
				cudaStream_t s)
{
	uint32_t n = (uint32_t)p->axis[AXIS_SIZE], tile = (uint32_t)p->axis[AXIS_TILE];
	mm_kernel_fn k = tiled_kernel(tile, p->axis[AXIS_PAD]);
	if (!k)
		return cudaErrorInvalidConfiguration; /* refuse() keeps such points out */
	dim3 grid(n / tile, n / tile), block(tile, tile);
	k<<<grid, block, 0, s>>>((const float *)b->dev[0], (const float *)b->dev[1],
				 (float *)b->dev[2], n);
	return cudaGetLastError();
}

static cudaError_t launch_tiled_reg(const struct sw_point *p, const struct sw_buffers *b,
				    cudaStream_t s)
{
	uint32_t n = (uint32_t)p->axis[AXIS_SIZE];
	dim3 grid(n / RB_BN, n / RB_BM);
	matmul_tiled_reg_kernel<<<grid, RB_THREADS, 0, s>>>(
		(const float *)b->dev[0], (const float *)b->dev[1], (float *)b->dev[2], n);
	return cudaGetLastError();
}

/* The nearest CUDA error for a cuBLAS status: the seam reports cudaError_t. */
static cudaError_t cublas_error(cublasStatus_t st)
{
	switch (st) {
	case CUBLAS_STATUS_SUCCESS: return cudaSuccess;
	case CUBLAS_STATUS_NOT_INITIALIZED: return cudaErrorInitializationError;
	case CUBLAS_STATUS_ALLOC_FAILED: return cudaErrorMemoryAllocation;
	case CUBLAS_STATUS_INVALID_VALUE: return cudaErrorInvalidValue;
	case CUBLAS_STATUS_ARCH_MISMATCH: return cudaErrorNoKernelImageForDevice;
	case CUBLAS_STATUS_NOT_SUPPORTED: return cudaErrorNotSupported;
	case CUBLAS_STATUS_EXECUTION_FAILED: return cudaErrorLaunchFailure;
	default: return cudaErrorUnknown;
	}
}

/* Row-major C = A B is column-major C^T = B^T A^T: cuBLAS reads our B as
 * its first operand. The handle is bound to the stream in prepare(). */
static cudaError_t launch_cublas(const struct sw_point *p, const struct sw_buffers *b,
				 cudaStream_t s)
{
	(void)s; /* the handle was bound to this stream in prepare() */
	int n = (int)p->axis[AXIS_SIZE];
	const float one = 1.0f, zero = 0.0f;
	cublasStatus_t st = cublasSgemm((cublasHandle_t)b->state, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
					&one, (const float *)b->dev[1], n, (const float *)b->dev[0],
					n, &zero, (float *)b->dev[2], n);
	if (st != CUBLAS_STATUS_SUCCESS)
		return cublas_error(st);
	return cudaGetLastError();
}

/* A cuBLAS handle for the cublas variant: created outside the timed region,
 * bound to the harness's stream, in plain FP32 (DEFAULT_MATH does not
 * allow TF32, which has fewer mantissa bits than asked for). */
static cudaError_t prepare(const struct sw_point *p, struct sw_buffers *b, cudaStream_t s)
{
	if (p->variant != V_CUBLAS)
		return cudaSuccess;
	cublasHandle_t h;
	cublasStatus_t st = cublasCreate(&h);
	if (st != CUBLAS_STATUS_SUCCESS)
		return cublas_error(st);
	st = cublasSetStream(h, s);
	if (st == CUBLAS_STATUS_SUCCESS)
		st = cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
	if (st != CUBLAS_STATUS_SUCCESS) {
		cublasDestroy(h);
		return cublas_error(st);
	}
	b->state = h;
	return cudaSuccess;
}

static void release(const struct sw_point *p, struct sw_buffers *b)
{
	(void)p;
	if (b->state)
		cublasDestroy((cublasHandle_t)b->state);
	b->state = NULL;
}

/* Model: the global loads of naive (n steps per warp) or tiled (n / tile
 * tile loads per warp), all of A's first, then all of B's, so a model that
 * samples requests evenly sees both halves in proportion. Within each half,
 * request r is step r % steps of warp r / steps. */
static uint64_t requests(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint32_t n = (uint32_t)p->axis[AXIS_SIZE], tile = (uint32_t)p->axis[AXIS_TILE];
	if (tile < 8 || tile > 32 || (tile & (tile - 1)) || n % tile)
		return 0;
	uint32_t grid = n / tile, warps_per_block = tile * tile / 32;
	uint32_t steps = p->variant == V_TILED ? n / tile : n;
	uint64_t warps = (uint64_t)grid * grid * warps_per_block, half = warps * steps;
	if (req) {
		uint32_t of_b = r >= half;
		uint64_t i = r % half, warp = i / steps;
		uint32_t step = (uint32_t)(i % steps), w = (uint32_t)(warp % warps_per_block);
		uint64_t blk = warp / warps_per_block;
		uint32_t bx = (uint32_t)(blk % grid), by = (uint32_t)(blk / grid);
		sw_request_begin(req, SW_SPACE_GLOBAL, 4, 0);
		for (uint32_t l = 0; l < 32; l++) {
			uint32_t t = w * 32 + l, tx = t % tile, ty = t / tile;
			uint32_t row = sw_matmul_row(tile, by, ty),
				 col = sw_matmul_col(tile, bx, tx);
			/* naive: A[row][k], B[k][col]; tiled: A[row][t + tx], B[t + ty][col] */
			uint32_t ka = p->variant == V_TILED ? step * tile + tx : step;
			uint32_t kb = p->variant == V_TILED ? step * tile + ty : step;
			uint32_t e = of_b ? sw_matmul_b_index(n, kb, col)
					  : sw_matmul_a_index(n, row, ka);
			sw_request_lane(req, l, 4 * (uint64_t)e, 1);
		}
	}
	return 2 * half;
}

/* Time model: naive loads one element of A and one of B a step; tiled is
 * outside it (its requests hold the global loads, not the tile reads). */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	uint64_t n = p->axis[AXIS_SIZE], tile = p->axis[AXIS_TILE];
	(void)sm_count;
	if (p->variant != V_NAIVE)
		return "its shared tile reads bound it, and its requests hold only its global "
		       "loads";
	return sw_shape_set(s, (n / tile) * (n / tile), (unsigned)(tile * tile), 0, 2);
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	uint64_t bytes =
		(uint64_t)p->axis[AXIS_SIZE] * (uint64_t)p->axis[AXIS_SIZE] * sizeof(float);
	s->n_buffers = 3;
	s->n_inputs = 2;
	for (int i = 0; i < 3; i++)
		s->bytes[i] = bytes;
	/* check() samples C past SW_CHECK_FULL_TERMS multiply-adds: only those come back */
	uint64_t n = (uint64_t)p->axis[AXIS_SIZE];
	if (n * n * n > SW_CHECK_FULL_TERMS)
		s->sampled_elem[2] = sizeof(float);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	int64_t n = p->axis[AXIS_SIZE], tile = p->axis[AXIS_TILE];
	switch (p->variant) {
	case V_NAIVE:
	case V_TILED:
		if (tile != 8 && tile != 16 && tile != 32) {
			snprintf(why, len, "tile %lld: built for tiles of 8, 16 and 32",
				 (long long)tile);
			return 1;
		}
		if (n % tile) {
			snprintf(why, len, "size %lld is not a multiple of tile %lld", (long long)n,
				 (long long)tile);
			return 1;
		}
		return 0;
	case V_TILED_REG:
		if (n % RB_BM) {
			snprintf(why, len,
				 "size %lld is not a multiple of tiled_reg's %d x %d block tile",
				 (long long)n, RB_BM, RB_BN);
			return 1;
		}
		return 0;
	default: return 0;
	}
}

static double useful_bytes(const struct sw_point *p)
{
	double n = (double)p->axis[AXIS_SIZE];
	return 3 * n * n * sizeof(float);
}

static double flops(const struct sw_point *p)
{
	double n = (double)p->axis[AXIS_SIZE];
	return 2 * n * n * n;
}

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *out = (const float *)o->out[2];
	uint64_t n = p->axis[AXIS_SIZE], elems = n * n;
	/* An element costs n multiply-adds: all of C while n^3 stays cheap. */
	uint64_t count = sw_check_begin(c, elems, n * n * n <= SW_CHECK_FULL_TERMS);
	/* Every product is nonnegative, so in any summation order (split-K,
	 * tiles) the n float products and n - 1 float adds move the sum by at
	 * most about (n + 1) 2^-24 of itself. */
	double tol = 1e-6 + 1.01 * (double)(n + 1) / 16777216.0;

	sw_check_parallel(c, count, count * n, [&](uint64_t s, struct sw_check *part) {
		uint64_t i = sw_check_pick(part, o, s, elems);
		uint64_t row = i / n, col = i % n;
		double want = 0;
		for (uint64_t k = 0; k < n; k++)
			want += (double)sw_uniform(o->seed, row * n + k) *
				(double)sw_uniform(o->seed + 1, k * n + col);
		double err = sw_rel_err(out[i], want);
		if (sw_check_record(part, err, err > tol))
			snprintf(part->msg, sizeof part->msg,
				 "element %llu (row %llu, col %llu): got %.9g, want %.9g",
				 (unsigned long long)i, (unsigned long long)row,
				 (unsigned long long)col, out[i], want);
	});
}

#define SIZE_TILE ((1u << AXIS_SIZE) | (1u << AXIS_TILE))
static const struct sw_axis_def axes[] = {
	{ "size", "elements", 8, 16384, "1024,2048,4096", "side n of the square matrices A, B, C" },
	{ "tile", "elements", 8, 32, "8,16,32",
	  "side of a block's square tile: 8, 16 or 32 (naive, tiled)" },
	{ "pad", "words", 0, 1, "0,1", "words added to each shared tile row (tiled)" },
};
static const struct sw_variant variants[] = {
	{ "naive", "one thread per element of C, all operands from global memory", launch_naive,
	  requests, SIZE_TILE, 0 },
	{ "tiled", "the course's shared tiled kernel, corrected: n / tile global reads (C7)",
	  launch_tiled, requests, SIZE_TILE | (1u << AXIS_PAD), 0 },
	{ "tiled_reg", "128 x 128 shared tiles, 8 x 8 of C per thread from float4 shared loads",
	  launch_tiled_reg, NULL, 1u << AXIS_SIZE, 0 },
	{ "cublas", "cuBLAS SGEMM in plain FP32, no TF32", launch_cublas, NULL, 1u << AXIS_SIZE,
	  1 },
};

const struct sw_family sw_family_matmul = {
	.name = "matmul",
	.about = "square FP32 matrix multiply: naive, shared tiles, register blocks, cuBLAS",
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
	.release = release,
	.shape = shape,
};
