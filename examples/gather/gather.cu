/*
 * gather: out[i] = data[idx[i]], each index within a window of `locality`
 * elements around i (1: the identity, n: anywhere), against a copy,
 * out[i] = data[i]. Shows what a family whose addresses depend on its data
 * needs: a fill of its own for the index input, and model requests that
 * rebuild the same indices without the point's seed. Useful bytes are the
 * index read, the data read and the write, 12 bytes an element.
 *   copy    reference: the same launch without the indices; it has no
 *           locality, so the plan gives it one point per n
 *   gather  three requests a warp: the index load (4 sectors), the data
 *           load (4 sectors at locality 8 or less, near 32 when the indices
 *           scatter), the store (4 sectors)
 * An example plug-in built outside sweep's tree (docs/own-kernel.md).
 */
#include <sweep/family.h>

enum { AXIS_N, AXIS_LOCALITY };
enum { V_COPY, V_GATHER };
enum { BUF_DATA, BUF_INDEX, BUF_OUT }; /* inputs first: data, indices */
#define THREADS 256

/* The indices' key is fixed, not the point's seed: requests() never sees the
 * seed, and with a fixed key the model rebuilds the very indices the kernel
 * reads. The seed still makes the data. */
#define INDEX_KEY 0x9a7e5eedull

/* Index i of a gather: a hashed position in the window of `locality`
 * elements that holds i (the last window ends at n). */
SW_HD uint32_t gather_index(uint64_t i, uint64_t n, uint64_t locality)
{
	uint64_t base = i / locality * locality;
	uint64_t span = n - base < locality ? n - base : locality;
	return (uint32_t)(base + sw_mix64(INDEX_KEY ^ i) % span);
}

__global__ void gather_index_kernel(uint32_t *idx, uint64_t n, uint64_t locality)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (i < n)
		idx[i] = gather_index(i, n, locality);
}

__global__ void gather_copy_kernel(const float *data, const uint32_t *idx, float *out, uint64_t n)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	(void)idx;
	if (i < n)
		out[i] = data[i];
}

__global__ void gather_gather_kernel(const float *data, const uint32_t *idx, float *out, uint64_t n)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = data[idx[i]];
}

static unsigned blocks(uint64_t n)
{
	return (unsigned)((n + THREADS - 1) / THREADS);
}

/* The copy has no locality (SW_AXIS_UNUSED): its indices are the identity. */
static uint64_t locality_of(const struct sw_point *p)
{
	return p->variant == V_GATHER ? (uint64_t)p->axis[AXIS_LOCALITY] : 1;
}

static cudaError_t launch(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	uint64_t n = (uint64_t)p->axis[AXIS_N];
	const float *data = (const float *)b->dev[BUF_DATA];
	const uint32_t *idx = (const uint32_t *)b->dev[BUF_INDEX];
	float *out = (float *)b->dev[BUF_OUT];
	if (p->variant == V_GATHER)
		gather_gather_kernel<<<blocks(n), THREADS, 0, s>>>(data, idx, out, n);
	else
		gather_copy_kernel<<<blocks(n), THREADS, 0, s>>>(data, idx, out, n);
	return cudaGetLastError();
}

/* Replaces sweep's fill for every input: the data from b->seed, as the
 * default fill would, and the indices from the fixed key. */
static cudaError_t fill(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	uint64_t n = (uint64_t)p->axis[AXIS_N];
	cudaError_t e = sw_fill_uniform((float *)b->dev[BUF_DATA], n, b->seed, s);
	if (e != cudaSuccess)
		return e;
	gather_index_kernel<<<blocks(n), THREADS, 0, s>>>((uint32_t *)b->dev[BUF_INDEX], n,
							  locality_of(p));
	return cudaGetLastError();
}

/* Model: request r is warp w's in slot k: the index load, the data load
 * (at the indices the fill wrote), the store; the copy has no index load.
 * Numbered slot by slot, every warp's index load before any data load, so
 * that each kind of request is one stretch whose ends the model finds: a
 * numbering warp by warp alternates loads and stores, and an even spread of
 * requests may then land on one kind more than on the other. Each slot is
 * one of the variant's named accesses (below), so the model gives the data
 * load its own requests and sectors. */
enum { SLOT_INDEX, SLOT_DATA, SLOT_STORE, N_SLOTS };
static uint64_t requests(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint64_t n = (uint64_t)p->axis[AXIS_N], warps = (n + 31) / 32;
	int gather = p->variant == V_GATHER;
	uint64_t slots = gather ? N_SLOTS : N_SLOTS - 1;
	if (req) {
		uint64_t w = r % warps;
		int slot = (int)(r / warps) + !gather; /* the copy: data, store */
		sw_request_begin(req, SW_SPACE_GLOBAL, 4, slot == SLOT_STORE);
		sw_request_access(req, (int)(r / warps)); /* its index in the variant's accesses */
		sw_request_buffer(req, slot == SLOT_INDEX  ? BUF_INDEX
				       : slot == SLOT_DATA ? BUF_DATA
							   : BUF_OUT);
		for (unsigned l = 0; l < 32; l++) {
			uint64_t i = w * 32 + l, at = i;
			if (slot == SLOT_DATA && i < n)
				at = gather_index(i, n, locality_of(p));
			sw_request_lane(req, l, 4 * at, i < n);
		}
	}
	return warps * slots;
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	size_t n = (size_t)p->axis[AXIS_N];
	s->n_buffers = 3;
	s->n_inputs = 2;
	s->bytes[BUF_DATA] = n * sizeof(float);
	s->bytes[BUF_INDEX] = n * sizeof(uint32_t);
	s->bytes[BUF_OUT] = n * sizeof(float);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	if (p->variant == V_GATHER && p->axis[AXIS_LOCALITY] > p->axis[AXIS_N]) {
		snprintf(why, len, "locality %lld is more than n %lld elements",
			 (long long)p->axis[AXIS_LOCALITY], (long long)p->axis[AXIS_N]);
		return 1;
	}
	return 0;
}

static double useful_bytes(const struct sw_point *p)
{
	double per_elem = p->variant == V_GATHER ? 12 : 8;
	return per_elem * (double)p->axis[AXIS_N];
}

static double flops(const struct sw_point *p)
{
	(void)p;
	return 0;
}

/* The data are the fill's sw_uniform(b->seed, j), and o->seed is that b->seed:
 * out[i] must be exactly data[gather_index(i)]. */
static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *out = (const float *)o->out[BUF_OUT];
	uint64_t n = (uint64_t)p->axis[AXIS_N];
	uint64_t count = sw_check_begin(c, n, n <= SW_CHECK_FULL_TERMS);
	for (uint64_t k = 0; k < count; k++) {
		uint64_t i = sw_check_pick(c, o, k, n);
		uint64_t j = p->variant == V_GATHER ? gather_index(i, n, locality_of(p)) : i;
		sw_check_element(c, i, out[i], sw_uniform(o->seed, j), 0);
	}
}

/* Time model: the launch above, one element a thread. The gather's data
 * load waits on its index load, so a thread has one load in flight at a
 * time, as the copy's single load is. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	(void)sm_count;
	s->blocks = blocks((uint64_t)p->axis[AXIS_N]);
	s->threads = THREADS;
	s->shared_bytes = 0;
	s->in_flight = 1;
	return NULL;
}

static const struct sw_axis_def axes[] = {
	{ "n", "elements", 1024, INT64_C(1) << 31, "16M", "elements gathered" },
	{ "locality", "elements", 1, INT64_C(1) << 31, "1:1M:x32",
	  "window each index stays in: 1 the identity, n anywhere" },
};
/* Each variant's accesses, in the order of its slots. */
static const char *const copy_accesses[] = { "data", "store", NULL };
static const char *const gather_accesses[] = { "index", "data", "store", NULL };
static const struct sw_variant variants[] = {
	{ "copy", "out = data through the same launch, no indices: the ceiling", launch, requests,
	  1u << AXIS_N, 1, copy_accesses },
	{ "gather", "out[i] = data[idx[i]], idx[i] within locality elements of i", launch, requests,
	  (1u << AXIS_N) | (1u << AXIS_LOCALITY), 0, gather_accesses },
};

static const struct sw_family gather = {
	.name = "gather",
	.about = "a gather through an index array, by the indices' locality, against a copy",
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

SW_PLUGIN(gather);
