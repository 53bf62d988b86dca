/*
 * sweep's family API, the whole of what a family may use, built in or loaded
 * as a plug-in: the descriptor types, the host helpers a CPU check and the
 * model requests take their steps from, the input generator, and SW_PLUGIN,
 * which exports a plug-in's families. Plain C, included by .cu files too.
 * It does not declare the harness: buffers, timing and files stay sweep's.
 */
#ifndef SWEEP_FAMILY_H
#define SWEEP_FAMILY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

/* The version of this API. A change that moves a field or changes a hook's
 * meaning raises it; sweep refuses a plug-in built for a version it does
 * not list in SW_API_OLDEST..SW_API_VERSION.
 * 2: named axis values (sw_axis_def.names), named accesses (sw_variant.
 * accesses, sw_request.access) and 8 buffers (SW_MAX_BUFFERS).
 * 3: the buffer a request addresses (sw_request.buffer) and the host
 * reference hook (sw_family.reference), both appended: sweep still loads
 * a plug-in of version 2, whose requests then name no buffer and whose
 * families have no reference. */
#define SW_API_VERSION 3
#define SW_API_OLDEST  2

/* Host and device in CUDA, host only in C: helpers the kernel and its CPU
 * check or model requests share, so the two cannot drift. */
#ifdef __CUDACC__
#define SW_HD __host__ __device__ __forceinline__
#else
#define SW_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define SW_MAX_AXES       8
#define SW_MAX_BUFFERS    8  /* buffers a point may use: sw_sizes.n_buffers */
#define SW_NAME_LEN       32 /* bytes of a name, NUL included */
#define SW_MAX_AXIS_NAMES 64 /* named values of one axis */
#define SW_MAX_ACCESSES   16 /* named accesses of one variant */

/* An axis's baseline: the value that means what the family did before the
 * axis existed. Optional; an axis without one always enters point ids. */
struct sw_axis_baseline {
	int set;
	int64_t value;
};
#define SW_BASELINE(v)                                                                             \
	{                                                                                          \
		1, (v)                                                                             \
	}

/* One parameter a family sweeps, with its valid range (inclusive). */
struct sw_axis_def {
	const char *name;     /* also the HDF5 column name */
	const char *units;    /* "elements", "bytes", "words" */
	int64_t min, max;     /* a range without -1 (SW_AXIS_UNUSED) */
	const char *defaults; /* axis syntax: "1,2,4", "1:128", "1:128:x2" */
	const char *about;
	/* A point at the baseline leaves this axis out of its id (plan.h), so an
	 * axis added to a family later keeps the ids of the points it had. */
	struct sw_axis_baseline baseline;
	/* Optional, a categorical axis: the names of the values min..max in
	 * order, NULL-ended (max - min + 1 of them). The job, --set and
	 * `defaults` may write a name for its value; the file keeps the value
	 * (ids need it) and the names beside it (/axis_names), and readers
	 * show the names. NULL: plain integers. */
	const char *const *names;
};

/* One point as a kernel sees it. Axis values follow the family's axis order;
 * an axis the variant does not use holds SW_AXIS_UNUSED. */
#define SW_AXIS_UNUSED INT64_C(-1)
struct sw_point {
	int variant;
	int64_t axis[SW_MAX_AXES];
};

/* Device buffers the harness allocated for a point. Inputs come first and
 * hold fresh random data: input i is sw_fill_uniform'ed from seed + i (or
 * filled by the family's own fill from seed). */
struct sw_buffers {
	void *dev[SW_MAX_BUFFERS];
	size_t bytes[SW_MAX_BUFFERS];
	uint64_t seed;
	int sm_count; /* of the bound device, for launches sized to the GPU */
	void *state;  /* what the family's prepare made (a texture object...) */
};

/* What a point needs: buffer sizes, how many of them are inputs. */
struct sw_sizes {
	int n_buffers;
	int n_inputs;
	size_t bytes[SW_MAX_BUFFERS];
	/* Optional, per output: the bytes of one element when the check of
	 * this point is sampled and reads only the elements
	 * sw_sample_index(sample_seed, k, bytes / elem) for k below
	 * SW_CHECK_SAMPLES; the harness then copies only those back (into a
	 * host view of the full size). 0: the whole output comes back. */
	size_t sampled_elem[SW_MAX_BUFFERS];
};

/* Output copied back to the host for validation. */
struct sw_host_out {
	const void *out[SW_MAX_BUFFERS]; /* indices as in sw_buffers; inputs NULL */
	size_t bytes[SW_MAX_BUFFERS];
	uint64_t seed;
	uint64_t sample_seed; /* fresh per point: which elements a sampled check picks */
};

/* How a validation went; the harness records `mode` in the row. */
enum sw_check_mode { SW_CHECK_FULL, SW_CHECK_SAMPLED };
struct sw_check {
	enum sw_check_mode mode;
	uint64_t checked; /* elements compared */
	double max_rel_err;
	int ok;
	char msg[160]; /* first mismatch, when !ok */
};

/* One warp-level memory request, for the model: the address each active lane
 * touches. Addresses are byte offsets within the request's buffer. */
enum sw_space {
	SW_SPACE_GLOBAL,
	SW_SPACE_SHARED,   /* addr: byte address in the block's shared memory */
	SW_SPACE_CONSTANT, /* addr: byte offset in the __constant__ bank */
};
struct sw_request {
	enum sw_space space;
	int word_bytes; /* bytes each lane reads or writes */
	int is_store;
	uint32_t active; /* lane mask */
	uint64_t addr[32];
	/* Which of the variant's named accesses (sw_variant.accesses) issues
	 * it: the model's per-access figures (/model_accesses) add it there.
	 * sw_request_begin sets 0; set it after, as sw_request_access does. */
	int access;
	/* API 3: which of the point's buffers (an index into sw_sizes.bytes)
	 * the global addresses are offsets in, so that the time model can tell
	 * one buffer's footprint from another's and checks can hold the lanes
	 * inside it. SW_BUFFER_NONE (sw_request_begin's): not said, or not a
	 * global request. Set it after sw_request_begin, with
	 * sw_request_buffer. */
	int buffer;
};
#define SW_BUFFER_NONE (-1)

/* How a point launches, for the time model (docs/model.md, "Time"): its
 * grid and block, the shared memory a block holds, and how many global
 * loads a thread issues before it uses the first. */
struct sw_launch_shape {
	uint64_t blocks;       /* in the grid */
	unsigned threads;      /* per block */
	unsigned shared_bytes; /* per block, static and dynamic */
	unsigned in_flight;    /* loads a thread has in flight: 1 when each waits on the last */
};

/* A point's buffers on the host, for the reference hook and host tests:
 * the same indices, sizes and seed as struct sw_buffers on the device. */
struct sw_host_buffers {
	void *buf[SW_MAX_BUFFERS];
	size_t bytes[SW_MAX_BUFFERS];
	uint64_t seed;
};

typedef cudaError_t (*sw_launch_fn)(const struct sw_point *p, const struct sw_buffers *b,
				    cudaStream_t stream);

/* Total warp-level requests of one kind a point issues, and request r of them
 * (0 <= r < total). Built on the same index helpers the kernel uses. */
typedef uint64_t (*sw_requests_fn)(const struct sw_point *p, uint64_t r, struct sw_request *req);

struct sw_variant {
	const char *name;
	const char *about; /* what it shows, and the course claim */
	sw_launch_fn launch;
	sw_requests_fn requests; /* NULL: not modelled */
	unsigned axes_used;      /* bit i set: the variant depends on axis i */
	int is_reference;        /* a reference row (streaming read, memcpy) */
	/* Optional: the names of the variant's accesses (one load or store
	 * instruction of the kernel each: "index", "data", "out"), NULL-ended,
	 * at most SW_MAX_ACCESSES; its requests say which they belong to in
	 * sw_request.access, and the model gives each its own requests and
	 * sectors. NULL: the totals by kind only. */
	const char *const *accesses;
};

struct sw_family {
	const char *name;
	const char *about;
	const struct sw_axis_def *axes;
	int n_axes;
	const struct sw_variant *variants;
	int n_variants;
	/* Buffers point p needs. */
	void (*sizes)(const struct sw_point *p, struct sw_sizes *s);
	/* Nonzero when p cannot run, with the reason in why (recorded as skipped). */
	int (*refuse)(const struct sw_point *p, char *why, size_t len);
	double (*useful_bytes)(const struct sw_point *p);
	double (*flops)(const struct sw_point *p);
	/* Compare the output with the CPU reference, in double precision. */
	void (*check)(const struct sw_point *p, const struct sw_host_out *out, struct sw_check *c);
	/* Optional: fill inputs on the device; NULL means uniform floats in [0, 1). */
	cudaError_t (*fill)(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s);
	/* Optional: make per-point objects outside the timed region (texture
	 * objects, cuBLAS handles) into b->state, after fill; release undoes it. */
	cudaError_t (*prepare)(const struct sw_point *p, struct sw_buffers *b, cudaStream_t s);
	void (*release)(const struct sw_point *p, struct sw_buffers *b);
	/* Optional, for the time model: how p launches on a GPU of sm_count
	 * SMs; returns NULL, or why the time model cannot predict p (what
	 * bounds it is outside the model: atomics...). NULL hook: the model
	 * predicts no time for the family's points; nor for a point whose
	 * shape has 0 blocks or 0 threads (a launch that runs nothing). */
	const char *(*shape)(const struct sw_point *p, int sm_count, struct sw_launch_shape *s);
	/* Optional (API 3), for checks without a GPU (sweep --check-plugin,
	 * host tests): computes p's outputs on the CPU as the kernel would.
	 * b holds every buffer sizes() declares, b->seed the point's seed; its
	 * inputs hold what sweep's default fill writes (float j of input i is
	 * sw_input_value(b->seed + i, j)); a family with a fill of its own
	 * first writes those inputs as its fill would. Returns NULL, or why it
	 * cannot (a point too large for a CPU...). */
	const char *(*reference)(const struct sw_point *p, struct sw_host_buffers *b);
};

/* The bytes of struct sw_family in API 2, before `reference`: what a
 * plug-in of that version exports as sw_plugin.family_bytes. */
#define SW_FAMILY_BYTES_API2 ((int)offsetof(struct sw_family, reference))

/* Entries of an array (not a pointer): descriptor tables count themselves,
 * `.n_axes = SW_COUNT(axes)`, so a row added is a row counted. */
#define SW_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* ---- inputs ----------------------------------------------------------- */

/* splitmix64: a cheap, well-mixed hash of x; (seed, index) pairs go in as
 * seed ^ mix(i). Behind the inputs, the sampled checks' picks and the seeds. */
SW_HD uint64_t sw_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Uniform float in [0, 1) with 24 random bits: exact in float and double.
 * Input i of a point holds sw_uniform(seed + i, index) unless it has a fill. */
SW_HD float sw_uniform(uint64_t seed, uint64_t i)
{
	return (float)(sw_mix64(seed ^ sw_mix64(i)) >> 40) * (1.0f / 16777216.0f);
}

/* Fill n floats with uniform values in [0, 1) from (seed, index): the same
 * values sw_uniform() gives on the host, so checks need no copy of the input.
 * Enqueues on s only. Defined by sweep; a plug-in resolves it at load. */
cudaError_t sw_fill_uniform(float *dev, uint64_t n, uint64_t seed, cudaStream_t s);

/* The value sw_fill_uniform writes at index i, for host code and tests:
 * sw_uniform's, here in the header, so that a host test of a plug-in links
 * nothing of sweep. (sweep still exports the function, which plug-ins
 * built against API 2's header resolve at load: SW_INPUT_VALUE_EXTERN is
 * that export's, in sweep's own source.) */
#ifdef SW_INPUT_VALUE_EXTERN
float sw_input_value(uint64_t seed, uint64_t i);
#else
SW_HD float sw_input_value(uint64_t seed, uint64_t i)
{
	return sw_uniform(seed, i);
}
#endif

/* sweep's default fill of an input on the host: n floats, float j being
 * sw_input_value(seed, j), as sw_fill_uniform writes them on the device;
 * input i of a point takes seed + i (struct sw_host_buffers). */
static inline void sw_input_fill(float *host, uint64_t n, uint64_t seed)
{
	for (uint64_t j = 0; j < n; j++)
		host[j] = sw_input_value(seed, j);
}

/* ---- CPU checks ------------------------------------------------------- */

/* The error sw_check_element compares with its tolerance: relative,
 * |got - want| / |want|, where |want| > 1, and absolute, |got - want|, at
 * |want| <= 1, so that a want near 0 divides nothing. */
static inline double sw_rel_err(double got, double want)
{
	double d = got > want ? got - want : want - got;
	double m = want > 0 ? want : -want;
	return m > 1.0 ? d / m : d;
}

/* A tolerance for a float output made of `terms` float operations (adds,
 * multiplies) against a double reference: each rounds by at most 2^-24 of
 * its result, so (terms + 1) * 2^-24 in sw_rel_err's units, where the
 * terms' magnitudes stay near the output's (sums of one sign). Sums that
 * cancel need more; a copy or a gather, 0. */
static inline double sw_tol_float(uint64_t terms)
{
	return (double)(terms + 1) * (1.0 / 16777216.0);
}

/* One comparison of a check: keeps the largest relative error err, and when
 * bad is the check's first failure, fails it and returns 1, for the caller
 * to write the message (later failures keep the first one's). */
static inline int sw_check_record(struct sw_check *c, double err, int bad)
{
	if (err > c->max_rel_err)
		c->max_rel_err = err;
	if (!bad || !c->ok)
		return 0;
	c->ok = 0;
	return 1;
}

/* One output element against its reference in a family's CPU check: keeps
 * the largest relative error, and the first element beyond tol fails the
 * check with its index and both values; a NaN where a number is wanted
 * (its error is NaN too) fails it as well. */
static inline void sw_check_element(struct sw_check *c, uint64_t i, double got, double want,
				    double tol)
{
	double err = sw_rel_err(got, want);
	if (sw_check_record(c, err, !(err <= tol)))
		snprintf(c->msg, sizeof c->msg, "element %llu: got %.9g, want %.9g",
			 (unsigned long long)i, got, want);
}

/* A fresh, repeatable sequence of sample indices for sampled checks. */
SW_HD uint64_t sw_sample_index(uint64_t sample_seed, uint64_t k, uint64_t n)
{
	return sw_mix64(sample_seed + k) % n;
}

/* Elements a sampled check compares: "at least a few thousand". */
#define SW_CHECK_SAMPLES 4096
/* Terms a CPU check may add up to compare every output element; a check
 * that would cost more compares SW_CHECK_SAMPLES of them. */
#define SW_CHECK_FULL_TERMS (UINT64_C(1) << 24)

/* Starts check c of an output of n elements: all of them (full), or
 * SW_CHECK_SAMPLES picked afresh for each point. Returns how many to
 * compare; sw_check_pick says which element the k-th comparison takes. */
static inline uint64_t sw_check_begin(struct sw_check *c, uint64_t n, int full)
{
	c->mode = full ? SW_CHECK_FULL : SW_CHECK_SAMPLED;
	c->checked = full ? n : SW_CHECK_SAMPLES;
	c->max_rel_err = 0;
	c->ok = 1;
	return c->checked;
}

static inline uint64_t sw_check_pick(const struct sw_check *c, const struct sw_host_out *o,
				     uint64_t k, uint64_t n)
{
	return c->mode == SW_CHECK_FULL ? k : sw_sample_index(o->sample_seed, k, n);
}

/* ---- model requests --------------------------------------------------- */

/* Starts warp request req for the model: where it goes, the bytes each lane
 * moves, load or store; no lane is active until sw_request_lane says so. */
static inline void sw_request_begin(struct sw_request *req, enum sw_space space, int word_bytes,
				    int is_store)
{
	req->space = space;
	req->word_bytes = word_bytes;
	req->is_store = is_store;
	req->active = 0;
	req->access = 0;
	req->buffer = SW_BUFFER_NONE;
}

/* req belongs to access k of its variant (an index into sw_variant.
 * accesses), for the model's per-access figures. */
static inline void sw_request_access(struct sw_request *req, int k)
{
	req->access = k;
}

/* req's addresses are byte offsets in buffer b of the point (an index into
 * sw_sizes.bytes, inputs first), API 3. */
static inline void sw_request_buffer(struct sw_request *req, int b)
{
	req->buffer = b;
}

/* Lane l of req touches byte address addr, and takes part if active (an
 * idle lane's address is kept too, as the kernel computes it). */
static inline void sw_request_lane(struct sw_request *req, unsigned l, uint64_t addr, int active)
{
	req->addr[l] = addr;
	if (active)
		req->active |= 1u << l;
}

/* ---- plug-ins --------------------------------------------------------- */

/* What a plug-in exports as `sweep_plugin`: the API version it was built
 * for, the size of struct sw_family it saw, and its families. */
struct sw_plugin {
	int api_version;
	int family_bytes;
	int n_families;
	const struct sw_family *const *families;
};

/* Declared here so that a C++ definition below gets external C linkage. */
extern const struct sw_plugin sweep_plugin;

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__)
#define SW_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define SW_PLUGIN_EXPORT
#endif

/* &a, &b, ... of up to 16 arguments: the addresses of the families. */
#define SW_PLUGIN_N_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, n,     \
		     ...)                                                                          \
	n
#define SW_PLUGIN_COUNT_(...)                                                                      \
	SW_PLUGIN_N_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define SW_PLUGIN_CAT2_(a, b)  a##b
#define SW_PLUGIN_CAT_(a, b)   SW_PLUGIN_CAT2_(a, b)
#define SW_PLUGIN_A1_(x)       &(x)
#define SW_PLUGIN_A2_(x, ...)  &(x), SW_PLUGIN_A1_(__VA_ARGS__)
#define SW_PLUGIN_A3_(x, ...)  &(x), SW_PLUGIN_A2_(__VA_ARGS__)
#define SW_PLUGIN_A4_(x, ...)  &(x), SW_PLUGIN_A3_(__VA_ARGS__)
#define SW_PLUGIN_A5_(x, ...)  &(x), SW_PLUGIN_A4_(__VA_ARGS__)
#define SW_PLUGIN_A6_(x, ...)  &(x), SW_PLUGIN_A5_(__VA_ARGS__)
#define SW_PLUGIN_A7_(x, ...)  &(x), SW_PLUGIN_A6_(__VA_ARGS__)
#define SW_PLUGIN_A8_(x, ...)  &(x), SW_PLUGIN_A7_(__VA_ARGS__)
#define SW_PLUGIN_A9_(x, ...)  &(x), SW_PLUGIN_A8_(__VA_ARGS__)
#define SW_PLUGIN_A10_(x, ...) &(x), SW_PLUGIN_A9_(__VA_ARGS__)
#define SW_PLUGIN_A11_(x, ...) &(x), SW_PLUGIN_A10_(__VA_ARGS__)
#define SW_PLUGIN_A12_(x, ...) &(x), SW_PLUGIN_A11_(__VA_ARGS__)
#define SW_PLUGIN_A13_(x, ...) &(x), SW_PLUGIN_A12_(__VA_ARGS__)
#define SW_PLUGIN_A14_(x, ...) &(x), SW_PLUGIN_A13_(__VA_ARGS__)
#define SW_PLUGIN_A15_(x, ...) &(x), SW_PLUGIN_A14_(__VA_ARGS__)
#define SW_PLUGIN_A16_(x, ...) &(x), SW_PLUGIN_A15_(__VA_ARGS__)

/*
 * SW_PLUGIN(fam_a, fam_b, ...): once in a plug-in, at file scope, after its
 * `const struct sw_family` objects (1 to 16 of them). Defines the exported
 * `sweep_plugin` that sweep's --plugin and the job's `plugins:` look up.
 */
#define SW_PLUGIN(...)                                                                             \
	static const struct sw_family *const sw_plugin_families_[] = { SW_PLUGIN_CAT_(             \
		SW_PLUGIN_A, SW_PLUGIN_CAT_(SW_PLUGIN_COUNT_(__VA_ARGS__), _))(__VA_ARGS__) };     \
	SW_PLUGIN_EXPORT const struct sw_plugin sweep_plugin = {                                   \
		SW_API_VERSION,                                                                    \
		(int)sizeof(struct sw_family),                                                     \
		(int)(sizeof sw_plugin_families_ / sizeof sw_plugin_families_[0]),                 \
		sw_plugin_families_,                                                               \
	}

#endif
