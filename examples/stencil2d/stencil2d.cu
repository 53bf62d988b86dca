/*
 * stencil2d: a 5-point stencil over an nx x ny float grid, out = 0.5 * centre
 * + 0.125 * (west + east + north + south), neighbours outside the grid read
 * as 0. A block of bx x by threads computes a bx x by tile, one element per
 * thread; useful bytes are the grid read once and written once.
 *   copy    reference: out = in through the same launch, the ceiling
 *   naive   five global loads per element: neighbours come from L1/L2, and
 *           the west and east loads of a warp straddle one extra sector
 *   shared  the block stages its tile and a one-element halo in shared
 *           memory, then reads the five values from there
 * An example plug-in built outside sweep's tree (docs/own-kernel.md), not a
 * course claim: it uses only what <sweep/family.h> declares.
 */
#include <sweep/family.h>

#include <stdio.h>

enum { AXIS_NX, AXIS_NY, AXIS_BX, AXIS_BY };
enum { V_COPY, V_NAIVE, V_SHARED };

/* Weights of the centre and of each of the four neighbours. */
#define W_CENTRE 0.5f
#define W_SIDE   0.125f

/* The five elements a stencil reads, as (dx, dy) steps from the centre. */
enum { D_CENTRE, D_WEST, D_EAST, D_NORTH, D_SOUTH, N_DIRS };
SW_HD int dir_dx(int d)
{
	return d == D_WEST ? -1 : d == D_EAST ? 1 : 0;
}
SW_HD int dir_dy(int d)
{
	return d == D_NORTH ? -1 : d == D_SOUTH ? 1 : 0;
}

/* Grid element (x, y) of thread t (row-major in its block) of block (gx, gy):
 * the one mapping the kernels and the model share. */
SW_HD void thread_elem(uint32_t bx, uint32_t by, uint32_t gx, uint32_t gy, uint32_t t, int64_t *x,
		       int64_t *y)
{
	*x = (int64_t)gx * bx + t % bx;
	*y = (int64_t)gy * by + t / bx;
}

/* Element k of block (gx, gy)'s (bx + 2) x (by + 2) tile, halo included:
 * its grid index in *idx, and whether it lies inside the grid. */
SW_HD int tile_elem(int64_t nx, int64_t ny, uint32_t bx, uint32_t by, uint32_t gx, uint32_t gy,
		    uint32_t k, uint64_t *idx)
{
	uint32_t tw = bx + 2;
	int64_t x = (int64_t)gx * bx - 1 + k % tw, y = (int64_t)gy * by - 1 + k / tw;
	*idx = (uint64_t)(y * nx + x);
	return x >= 0 && x < nx && y >= 0 && y < ny;
}

__global__ void stencil2d_copy_kernel(const float *__restrict__ in, float *__restrict__ out,
				      int64_t nx, int64_t ny)
{
	int64_t x, y;
	thread_elem(blockDim.x, blockDim.y, blockIdx.x, blockIdx.y,
		    threadIdx.y * blockDim.x + threadIdx.x, &x, &y);
	out[y * nx + x] = in[y * nx + x];
}

__global__ void stencil2d_naive_kernel(const float *__restrict__ in, float *__restrict__ out,
				       int64_t nx, int64_t ny)
{
	int64_t x, y;
	thread_elem(blockDim.x, blockDim.y, blockIdx.x, blockIdx.y,
		    threadIdx.y * blockDim.x + threadIdx.x, &x, &y);
	float v[N_DIRS];
#pragma unroll
	for (int d = 0; d < N_DIRS; d++) {
		int64_t u = x + dir_dx(d), w = y + dir_dy(d);
		v[d] = u >= 0 && u < nx && w >= 0 && w < ny ? in[w * nx + u] : 0.0f;
	}
	out[y * nx + x] = W_CENTRE * v[D_CENTRE] +
			  W_SIDE * ((v[D_WEST] + v[D_EAST]) + (v[D_NORTH] + v[D_SOUTH]));
}

__global__ void stencil2d_shared_kernel(const float *__restrict__ in, float *__restrict__ out,
					int64_t nx, int64_t ny)
{
	extern __shared__ float tile[];
	uint32_t bx = blockDim.x, by = blockDim.y, t = threadIdx.y * bx + threadIdx.x;
	uint32_t tw = bx + 2, tile_elems = tw * (by + 2);
	/* the block's threads load the tile row by row, halo included */
	for (uint32_t k = t; k < tile_elems; k += bx * by) {
		uint64_t i;
		tile[k] = tile_elem(nx, ny, bx, by, blockIdx.x, blockIdx.y, k, &i) ? in[i] : 0.0f;
	}
	__syncthreads(); /* the whole tile is in before anyone reads a neighbour */
	uint32_t s = (threadIdx.y + 1) * tw + threadIdx.x + 1;
	int64_t x, y;
	thread_elem(bx, by, blockIdx.x, blockIdx.y, t, &x, &y);
	out[y * nx + x] = W_CENTRE * tile[s] +
			  W_SIDE * ((tile[s - 1] + tile[s + 1]) + (tile[s - tw] + tile[s + tw]));
}

typedef void (*kernel_fn)(const float *, float *, int64_t, int64_t);
static const kernel_fn kernels[] = { stencil2d_copy_kernel, stencil2d_naive_kernel,
				     stencil2d_shared_kernel };

static cudaError_t launch(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	int64_t nx = p->axis[AXIS_NX], ny = p->axis[AXIS_NY];
	uint32_t bx = (uint32_t)p->axis[AXIS_BX], by = (uint32_t)p->axis[AXIS_BY];
	dim3 grid((unsigned)(nx / bx), (unsigned)(ny / by)), block(bx, by);
	size_t smem = p->variant == V_SHARED ? (size_t)(bx + 2) * (by + 2) * sizeof(float) : 0;
	kernels[p->variant]<<<grid, block, smem, s>>>((const float *)b->dev[0], (float *)b->dev[1],
						      nx, ny);
	return cudaGetLastError();
}

/* Model: every warp of the launch issues the same sequence of requests
 * ("slots"); of the launch's `warps` warps, request r is slot r / warps of
 * warp r % warps. The slots are, per variant:
 *   copy    load centre, store
 *   naive   load centre, west, east, north, south, store
 *   shared  tile loads (steps of bx * by tile elements), store, then the five
 *           shared-memory reads */
static uint32_t tile_steps(uint32_t bx, uint32_t by)
{
	return ((bx + 2) * (by + 2) + bx * by - 1) / (bx * by);
}

static uint32_t slots(const struct sw_point *p)
{
	uint32_t bx = (uint32_t)p->axis[AXIS_BX], by = (uint32_t)p->axis[AXIS_BY];
	switch (p->variant) {
	case V_COPY: return 2;
	case V_NAIVE: return N_DIRS + 1;
	default: return tile_steps(bx, by) + 1 + N_DIRS;
	}
}

/* What slot k of a warp is: a global load, the store, or a shared read, and
 * of which direction (or tile step). */
enum { K_LOAD, K_STORE, K_SHARED };
static int slot_kind(const struct sw_point *p, uint32_t k, int *arg)
{
	uint32_t store = p->variant == V_COPY    ? 1u
			 : p->variant == V_NAIVE ? (uint32_t)N_DIRS
						 : tile_steps((uint32_t)p->axis[AXIS_BX],
							      (uint32_t)p->axis[AXIS_BY]);
	*arg = k < store ? (int)k : (int)(k - store - 1);
	return k < store ? K_LOAD : k == store ? K_STORE : K_SHARED;
}

/* The byte address thread t of block (gx, gy) touches in slot k, in *addr;
 * 0 when it sits out (a neighbour outside the grid, past the tile's end). */
static int thread_addr(const struct sw_point *p, uint32_t k, uint32_t gx, uint32_t gy, uint32_t t,
		       uint64_t *addr)
{
	int64_t nx = p->axis[AXIS_NX], ny = p->axis[AXIS_NY], x, y;
	uint32_t bx = (uint32_t)p->axis[AXIS_BX], by = (uint32_t)p->axis[AXIS_BY];
	int d, kind = slot_kind(p, k, &d);
	thread_elem(bx, by, gx, gy, t, &x, &y);
	if (kind == K_STORE) {
		*addr = (uint64_t)(y * nx + x) * 4;
		return 1;
	}
	if (kind == K_SHARED) { /* the tile word the kernel reads for direction d */
		*addr = ((t / bx + 1 + dir_dy(d)) * (bx + 2) + t % bx + 1 + dir_dx(d)) * 4ull;
		return 1;
	}
	if (p->variant == V_SHARED) { /* tile step d: tile element d * bx * by + t */
		uint32_t e = (uint32_t)d * bx * by + t;
		uint64_t i = 0;
		int in = e < (bx + 2) * (by + 2) && tile_elem(nx, ny, bx, by, gx, gy, e, &i);
		*addr = i * 4;
		return in;
	}
	int64_t u = x + dir_dx(d), w = y + dir_dy(d);
	*addr = (uint64_t)(w * nx + u) * 4;
	return u >= 0 && u < nx && w >= 0 && w < ny;
}

static uint64_t requests(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint32_t bx = (uint32_t)p->axis[AXIS_BX], by = (uint32_t)p->axis[AXIS_BY];
	uint64_t gxs = (uint64_t)p->axis[AXIS_NX] / bx, gys = (uint64_t)p->axis[AXIS_NY] / by;
	uint64_t warps_per_block = bx * by / 32, warps = gxs * gys * warps_per_block;
	if (req) {
		uint32_t k = (uint32_t)(r / warps);
		uint64_t i = r % warps, blk = i / warps_per_block;
		uint32_t w = (uint32_t)(i % warps_per_block);
		int arg, kind = slot_kind(p, k, &arg);
		sw_request_begin(req, kind == K_SHARED ? SW_SPACE_SHARED : SW_SPACE_GLOBAL, 4,
				 kind == K_STORE);
		if (kind != K_SHARED) /* the grid in, buffer 0; the output, buffer 1 */
			sw_request_buffer(req, kind == K_STORE ? 1 : 0);
		for (uint32_t l = 0; l < 32; l++) {
			uint64_t addr;
			int on = thread_addr(p, k, (uint32_t)(blk % gxs), (uint32_t)(blk / gxs),
					     w * 32 + l, &addr);
			sw_request_lane(req, l, addr, on);
		}
	}
	return warps * slots(p);
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	size_t bytes = (size_t)p->axis[AXIS_NX] * (size_t)p->axis[AXIS_NY] * sizeof(float);
	s->n_buffers = 2;
	s->n_inputs = 1;
	s->bytes[0] = bytes;
	s->bytes[1] = bytes;
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	int64_t nx = p->axis[AXIS_NX], ny = p->axis[AXIS_NY];
	int64_t bx = p->axis[AXIS_BX], by = p->axis[AXIS_BY];
	if (bx * by > 1024 || (bx * by) % 32) {
		snprintf(why, len,
			 "a block of bx x by = %lld threads: a whole number of warps, "
			 "at most 1024",
			 (long long)(bx * by));
		return 1;
	}
	if (nx % bx || ny % by) {
		snprintf(why, len, "nx %lld and ny %lld must be multiples of bx %lld and by %lld",
			 (long long)nx, (long long)ny, (long long)bx, (long long)by);
		return 1;
	}
	return 0;
}

static double useful_bytes(const struct sw_point *p)
{
	return 2.0 * (double)p->axis[AXIS_NX] * (double)p->axis[AXIS_NY] * sizeof(float);
}

static double flops(const struct sw_point *p)
{
	/* 2 multiplies and 4 adds per element; the copy computes nothing */
	return p->variant == V_COPY ? 0 : 6.0 * (double)p->axis[AXIS_NX] * (double)p->axis[AXIS_NY];
}

/* Element (x, y) of input 0 as the harness filled it, 0 outside the grid. */
static double input_at(uint64_t seed, int64_t nx, int64_t ny, int64_t x, int64_t y)
{
	return x >= 0 && x < nx && y >= 0 && y < ny ? sw_uniform(seed, (uint64_t)(y * nx + x)) : 0;
}

/* float sums of five terms below 1 are within a few ulp of the double sum */
#define TOLERANCE 1e-6

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *out = (const float *)o->out[1];
	int64_t nx = p->axis[AXIS_NX], ny = p->axis[AXIS_NY];
	uint64_t n = (uint64_t)(nx * ny);
	/* every element while 5 terms each stay within the budget, else samples */
	uint64_t count = sw_check_begin(c, n, N_DIRS * n <= SW_CHECK_FULL_TERMS);
	for (uint64_t k = 0; k < count; k++) {
		uint64_t i = sw_check_pick(c, o, k, n);
		int64_t x = (int64_t)(i % nx), y = (int64_t)(i / nx);
		double want = input_at(o->seed, nx, ny, x, y);
		if (p->variant != V_COPY)
			want = 0.5 * want + 0.125 * (input_at(o->seed, nx, ny, x - 1, y) +
						     input_at(o->seed, nx, ny, x + 1, y) +
						     input_at(o->seed, nx, ny, x, y - 1) +
						     input_at(o->seed, nx, ny, x, y + 1));
		sw_check_element(c, i, out[i], want, p->variant == V_COPY ? 0 : TOLERANCE);
	}
}

#define ALL_AXES 0xfu
/* Time model: the launch above. The naive kernel's five loads are
 * independent (unrolled, all issued before the sum), so a thread keeps
 * five in flight; the copy has one; the shared kernel's tile loop stores
 * each load into the tile before the next, so one. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	uint64_t bx = (uint64_t)p->axis[AXIS_BX], by = (uint64_t)p->axis[AXIS_BY];
	(void)sm_count;
	s->blocks = (uint64_t)(p->axis[AXIS_NX] / (int64_t)bx) *
		    (uint64_t)(p->axis[AXIS_NY] / (int64_t)by);
	s->threads = (unsigned)(bx * by);
	s->shared_bytes =
		p->variant == V_SHARED ? (unsigned)((bx + 2) * (by + 2) * sizeof(float)) : 0;
	s->in_flight = p->variant == V_NAIVE ? N_DIRS : 1;
	return NULL;
}

static const struct sw_axis_def axes[] = {
	{ "nx", "elements", 32, 65536, "4096", "grid columns (a multiple of bx)" },
	{ "ny", "elements", 1, 65536, "4096", "grid rows (a multiple of by)" },
	{ "bx", "threads", 8, 1024, "32,128", "block width: threads along a row" },
	{ "by", "threads", 1, 128, "1,8", "block height; bx x by is a whole number of warps" },
};
static const struct sw_variant variants[] = {
	{ "copy", "out = in through the same launch: the stencils' ceiling", launch, requests,
	  ALL_AXES, 1 },
	{ "naive", "five global loads per element, neighbours from the caches", launch, requests,
	  ALL_AXES, 0 },
	{ "shared", "tile and halo staged in shared memory, then five shared reads", launch,
	  requests, ALL_AXES, 0 },
};

static const struct sw_family stencil2d = {
	.name = "stencil2d",
	.about = "5-point 2D stencil, naive and through a shared tile, against a copy",
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

SW_PLUGIN(stencil2d);
