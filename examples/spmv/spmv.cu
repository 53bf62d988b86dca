/*
 * spmv: y = A x for a sparse matrix in CSR form, rows x rows with per_row
 * nonzeros in every row, whose columns lie in a band around the diagonal
 * or anywhere (the categorical axis `pattern`): five arrays, four of them
 * inputs, and a gather of x whose cost depends on the pattern. Shows what
 * family API 2 adds: a categorical axis, more than four buffers, and named
 * accesses, so the model gives the gather of x its own requests and sectors
 * (/model_accesses) beside the loads of the matrix.
 *   stream  reference: a warp per row sums the row's values, no columns and
 *           no x: the stream a CSR walk cannot beat; it has no pattern
 *   scalar  a thread per row: lane l of a warp walks row l, so a warp's
 *           loads of col and val stride per_row elements apart
 *   vector  a warp per row: the row's col and val are read coalesced, and
 *           x is gathered at its columns (4 sectors a request banded, near
 *           32 random)
 * Its host reference (family API 3) lets sweep --check-plugin hold its
 * requests and its check to account without a GPU.
 * An example plug-in built outside sweep's tree (docs/own-kernel.md).
 */
#include <sweep/family.h>

enum { AXIS_ROWS, AXIS_PER_ROW, AXIS_PATTERN };
enum { V_STREAM, V_SCALAR, V_VECTOR };
/* inputs first: the matrix (row pointers, columns, values), then x */
enum { BUF_ROW_PTR, BUF_COL, BUF_VAL, BUF_X, BUF_Y, N_BUFS };
enum { PATTERN_BANDED, PATTERN_RANDOM };
#define THREADS 256

/* The columns' key is fixed, not the point's seed: requests() never sees
 * the seed, and the model must rebuild the very columns the kernel reads. */
#define COL_KEY 0x5a7c01ull

/* Column of the t-th nonzero of row r: the per_row columns centred on the
 * diagonal (wrapped at the edges), or hashed anywhere. */
SW_HD uint32_t spmv_col(uint64_t r, uint64_t t, uint64_t rows, uint64_t per_row, int pattern)
{
	if (pattern == PATTERN_RANDOM)
		return (uint32_t)(sw_mix64(COL_KEY ^ (r * per_row + t)) % rows);
	return (uint32_t)((r + rows - per_row / 2 + t) % rows);
}

__global__ void spmv_structure_kernel(uint32_t *row_ptr, uint32_t *col, uint64_t rows,
				      uint64_t per_row, int pattern)
{
	uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (j <= rows)
		row_ptr[j] = (uint32_t)(j * per_row);
	if (j < rows * per_row)
		col[j] = spmv_col(j / per_row, j % per_row, rows, per_row, pattern);
}

__global__ void spmv_scalar_kernel(const uint32_t *row_ptr, const uint32_t *col, const float *val,
				   const float *x, float *y, uint64_t rows)
{
	uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float s = 0;
	for (uint32_t j = row_ptr[r]; j < row_ptr[r + 1]; j++)
		s += val[j] * x[col[j]];
	y[r] = s;
}

/* A warp per row; stream sums the values alone (x and col unused). */
template <bool gather>
__global__ void spmv_warp_kernel(const uint32_t *row_ptr, const uint32_t *col, const float *val,
				 const float *x, float *y, uint64_t rows)
{
	uint64_t r = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) / 32;
	unsigned lane = threadIdx.x % 32;
	if (r >= rows) /* the same for every lane of the warp */
		return;
	float s = 0;
	for (uint32_t j = row_ptr[r] + lane; j < row_ptr[r + 1]; j += 32)
		s += gather ? val[j] * x[col[j]] : val[j];
	for (int d = 16; d > 0; d /= 2)
		s += __shfl_down_sync(0xffffffffu, s, d);
	if (lane == 0)
		y[r] = s;
}

static uint64_t rows_of(const struct sw_point *p)
{
	return (uint64_t)p->axis[AXIS_ROWS];
}

static uint64_t per_row_of(const struct sw_point *p)
{
	return (uint64_t)p->axis[AXIS_PER_ROW];
}

/* The stream has no pattern (SW_AXIS_UNUSED): nothing it reads depends on it. */
static int pattern_of(const struct sw_point *p)
{
	return p->variant == V_STREAM ? PATTERN_BANDED : (int)p->axis[AXIS_PATTERN];
}

static unsigned blocks(uint64_t threads)
{
	return (unsigned)((threads + THREADS - 1) / THREADS);
}

static cudaError_t launch(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	uint64_t rows = rows_of(p);
	const uint32_t *row_ptr = (const uint32_t *)b->dev[BUF_ROW_PTR];
	const uint32_t *col = (const uint32_t *)b->dev[BUF_COL];
	const float *val = (const float *)b->dev[BUF_VAL], *x = (const float *)b->dev[BUF_X];
	float *y = (float *)b->dev[BUF_Y];
	if (p->variant == V_SCALAR)
		spmv_scalar_kernel<<<blocks(rows), THREADS, 0, s>>>(row_ptr, col, val, x, y, rows);
	else if (p->variant == V_VECTOR)
		spmv_warp_kernel<true>
			<<<blocks(32 * rows), THREADS, 0, s>>>(row_ptr, col, val, x, y, rows);
	else
		spmv_warp_kernel<false>
			<<<blocks(32 * rows), THREADS, 0, s>>>(row_ptr, col, val, x, y, rows);
	return cudaGetLastError();
}

/* Replaces sweep's fill for every input: the structure from the fixed key,
 * the values and x from the seed as sweep's own fill would make input i,
 * from b->seed + i, so the check recomputes both without a copy. */
static cudaError_t fill(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	uint64_t rows = rows_of(p), nnz = rows * per_row_of(p);
	spmv_structure_kernel<<<blocks(nnz + 1), THREADS, 0, s>>>((uint32_t *)b->dev[BUF_ROW_PTR],
								  (uint32_t *)b->dev[BUF_COL], rows,
								  per_row_of(p), pattern_of(p));
	cudaError_t e = cudaGetLastError();
	if (e == cudaSuccess)
		e = sw_fill_uniform((float *)b->dev[BUF_VAL], nnz, b->seed + BUF_VAL, s);
	if (e == cudaSuccess)
		e = sw_fill_uniform((float *)b->dev[BUF_X], rows, b->seed + BUF_X, s);
	return e;
}

/* ---- the model: five named accesses, each one stretch of requests ------ */

/* The accesses of each variant, in the order their requests are numbered,
 * as the buffers they touch; their names, for sweep. */
static const int matrix_bufs[] = { BUF_ROW_PTR, BUF_COL, BUF_VAL, BUF_X, BUF_Y };
static const int stream_bufs[] = { BUF_ROW_PTR, BUF_VAL, BUF_Y };
static const char *const matrix_accesses[] = { "row_ptr", "col", "val", "x", "y", NULL };
static const char *const stream_accesses[] = { "row_ptr", "val", "y", NULL };

static int n_accesses(const struct sw_point *p)
{
	return p->variant == V_STREAM ? SW_COUNT(stream_bufs) : SW_COUNT(matrix_bufs);
}

static int buf_of(const struct sw_point *p, int a)
{
	return p->variant == V_STREAM ? stream_bufs[a] : matrix_bufs[a];
}

/* What one request covers: a warp of 32 rows (scalar), or one row. */
static uint64_t units(const struct sw_point *p)
{
	return p->variant == V_SCALAR ? (rows_of(p) + 31) / 32 : rows_of(p);
}

/* Requests a unit makes into buffer buf: two row pointers, one store, and
 * per_row loads a thread (scalar) or per_row / 32 a warp (the others). */
static uint64_t per_unit(const struct sw_point *p, int buf)
{
	if (buf == BUF_ROW_PTR)
		return 2;
	if (buf == BUF_Y)
		return 1;
	return p->variant == V_SCALAR ? per_row_of(p) : (per_row_of(p) + 31) / 32;
}

/* Lane l's element of buffer buf at step t of unit u, and whether it is active. */
static int lane_elem(const struct sw_point *p, int buf, uint64_t u, uint64_t t, unsigned l,
		     uint64_t *elem)
{
	uint64_t rows = rows_of(p), k = per_row_of(p);
	uint64_t r = p->variant == V_SCALAR ? u * 32 + l : u; /* the lane's row */
	uint64_t j = p->variant == V_SCALAR ? t : t * 32 + l; /* its nonzero in the row */
	int active = r < rows && (p->variant == V_SCALAR || j < k);
	if (buf == BUF_ROW_PTR) {
		*elem = r + t;
		return r < rows;
	}
	if (buf == BUF_Y) {
		*elem = r;
		return r < rows && (p->variant == V_SCALAR || l == 0);
	}
	*elem = buf == BUF_X ? spmv_col(r, j, rows, k, pattern_of(p)) : r * k + j;
	return active;
}

/* Request r: access a's requests come before access a + 1's (each one
 * stretch, whose ends the model finds: its counts then exact), and within
 * an access, step t of every unit before step t + 1. */
static uint64_t requests(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint64_t total = 0, n_units = units(p);
	for (int a = 0; a < n_accesses(p); a++) {
		int buf = buf_of(p, a);
		uint64_t count = n_units * per_unit(p, buf);
		if (req && r >= total && r < total + count) {
			uint64_t q = r - total, u = q % n_units, t = q / n_units;
			sw_request_begin(req, SW_SPACE_GLOBAL, 4, buf == BUF_Y);
			sw_request_access(req, a);
			sw_request_buffer(req, buf);
			for (unsigned l = 0; l < 32; l++) {
				uint64_t elem;
				int on = lane_elem(p, buf, u, t, l, &elem);
				sw_request_lane(req, l, 4 * elem, on);
			}
		}
		total += count;
	}
	return total;
}

/* ---- the rest of the family ------------------------------------------- */

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	size_t rows = (size_t)rows_of(p), nnz = rows * (size_t)per_row_of(p);
	s->n_buffers = N_BUFS; /* five: more than API 1's four */
	s->n_inputs = BUF_Y;
	s->bytes[BUF_ROW_PTR] = (rows + 1) * sizeof(uint32_t);
	s->bytes[BUF_COL] = nnz * sizeof(uint32_t);
	s->bytes[BUF_VAL] = nnz * sizeof(float);
	s->bytes[BUF_X] = rows * sizeof(float);
	s->bytes[BUF_Y] = rows * sizeof(float);
	/* past SW_CHECK_FULL_TERMS the check samples y: only its picks come back */
	if (nnz > SW_CHECK_FULL_TERMS)
		s->sampled_elem[BUF_Y] = sizeof(float);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	uint64_t rows = rows_of(p), k = per_row_of(p);
	if (k > rows) {
		snprintf(why, len, "per_row %llu is more than the %llu columns",
			 (unsigned long long)k, (unsigned long long)rows);
		return 1;
	}
	if (rows * k > UINT32_MAX) {
		snprintf(why, len, "%llu nonzeros do not fit the 32-bit row pointers",
			 (unsigned long long)(rows * k));
		return 1;
	}
	return 0;
}

/* The matrix once, x once and y once, as a dense-vector ideal counts them. */
static double useful_bytes(const struct sw_point *p)
{
	double rows = (double)rows_of(p), nnz = rows * (double)per_row_of(p);
	double matrix = 4 * (rows + 1) + (p->variant == V_STREAM ? 4 : 8) * nnz;
	return matrix + (p->variant == V_STREAM ? 0 : 4 * rows) + 4 * rows;
}

static double flops(const struct sw_point *p)
{
	double nnz = (double)rows_of(p) * (double)per_row_of(p);
	return p->variant == V_STREAM ? nnz : 2 * nnz;
}

/* y[i] against the double sum of its row, from the inputs' seeds: values
 * and x are positive, so the float sum's error stays near sw_tol_float of
 * its operations (a multiply and an add a nonzero, and the warp's 5 adds). */
static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *y = (const float *)o->out[BUF_Y];
	uint64_t rows = rows_of(p), k = per_row_of(p);
	double tol = sw_tol_float(2 * k + 5);
	uint64_t count = sw_check_begin(c, rows, rows * k <= SW_CHECK_FULL_TERMS);
	for (uint64_t n = 0; n < count; n++) {
		uint64_t i = sw_check_pick(c, o, n, rows);
		double want = 0;
		for (uint64_t t = 0; t < k; t++) {
			double v = sw_uniform(o->seed + BUF_VAL, i * k + t);
			want += p->variant == V_STREAM
					? v
					: v * sw_uniform(o->seed + BUF_X,
							 spmv_col(i, t, rows, k, pattern_of(p)));
		}
		sw_check_element(c, i, y[i], want, tol);
	}
}

/* ---- the host reference: the kernel's sums on the CPU ------------------ */

/* Row r's sum as the kernel makes it: a thread adds the row in order
 * (scalar), or a warp's 32 lanes each add every 32nd nonzero and
 * __shfl_down_sync folds them onto lane 0 (stream, vector). The GPU fuses
 * each multiply and add, one rounding: in double the product is exact, so
 * only the add rounds (fmaf without an FMA unit is a slow library call). */
static float row_sum(const struct sw_point *p, const uint32_t *row_ptr, const uint32_t *col,
		     const float *val, const float *x, uint64_t r)
{
	float lane[32] = { 0 };
	int gather = p->variant != V_STREAM, warp = p->variant != V_SCALAR;
	for (uint32_t j = row_ptr[r]; j < row_ptr[r + 1]; j++) {
		float *s = &lane[warp ? (j - row_ptr[r]) % 32 : 0];
		*s = gather ? (float)((double)val[j] * x[col[j]] + *s) : *s + val[j];
	}
	for (int d = 16; warp && d > 0; d /= 2)
		for (int l = 0; l < d; l++)
			lane[l] += lane[l + d];
	return lane[0];
}

/* Writes the inputs as fill() does, then y: the structure from the fixed
 * key; the values and x, which fill() makes as sweep's own fill would, b
 * holds already (input i from b->seed + i). */
static const char *reference(const struct sw_point *p, struct sw_host_buffers *b)
{
	uint64_t rows = rows_of(p), k = per_row_of(p);
	uint32_t *row_ptr = (uint32_t *)b->buf[BUF_ROW_PTR], *col = (uint32_t *)b->buf[BUF_COL];
	float *val = (float *)b->buf[BUF_VAL], *x = (float *)b->buf[BUF_X];
	for (uint64_t j = 0; j <= rows; j++)
		row_ptr[j] = (uint32_t)(j * k);
	for (uint64_t j = 0; j < rows * k; j++)
		col[j] = spmv_col(j / k, j % k, rows, k, pattern_of(p));
	for (uint64_t r = 0; r < rows; r++)
		((float *)b->buf[BUF_Y])[r] = row_sum(p, row_ptr, col, val, x, r);
	return NULL;
}

/* The pattern axis by name: the job and --set write banded or random, the
 * file keeps 0 or 1 with the names beside them. */
static const char *const patterns[] = { "banded", "random", NULL };
/* Time model: the launch above. in_flight is a thread's loads over the
 * waits they take, rounded: the vector and stream kernels load both row
 * pointers at once, then a row's col and val together, then x at the
 * columns (5 loads in 3 waits; the stream's 3 in 2); the scalar kernel
 * takes col and val together and x after them each step (3 in 2). */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	uint64_t threads = p->variant == V_SCALAR ? rows_of(p) : 32 * rows_of(p);
	(void)sm_count;
	s->blocks = blocks(threads);
	s->threads = THREADS;
	s->shared_bytes = 0;
	s->in_flight = 2;
	return NULL;
}

static const struct sw_axis_def axes[] = {
	{ "rows", "elements", 1024, INT64_C(1) << 26, "1M", "rows and columns of the matrix" },
	{ "per_row", "elements", 1, 256, "8,64", "nonzeros in every row" },
	/* "": the units texture_read's `pattern` has, as one file column must */
	{ "pattern",
	  "",
	  PATTERN_BANDED,
	  PATTERN_RANDOM,
	  "banded,random",
	  "where a row's columns lie: banded (around the diagonal) or random (anywhere)",
	  {},
	  patterns },
};
#define ALL_AXES ((1u << AXIS_ROWS) | (1u << AXIS_PER_ROW) | (1u << AXIS_PATTERN))
static const struct sw_variant variants[] = {
	{ "stream", "a warp per row sums its values: no columns, no x, the ceiling", launch,
	  requests, (1u << AXIS_ROWS) | (1u << AXIS_PER_ROW), 1, stream_accesses },
	{ "scalar", "a thread per row: a warp's col and val loads stride per_row apart", launch,
	  requests, ALL_AXES, 0, matrix_accesses },
	{ "vector", "a warp per row: col and val coalesced, x gathered at the columns", launch,
	  requests, ALL_AXES, 0, matrix_accesses },
};

static const struct sw_family spmv = {
	.name = "spmv",
	.about = "sparse matrix times vector (CSR), by the columns' pattern and per-row count",
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
	.reference = reference,
};

SW_PLUGIN(spmv);
