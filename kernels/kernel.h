/*
 * The kernel seam: what a family of kernels tells the harness. A family
 * declares its axes, its variants (one launch function each), the buffers a
 * point needs, its useful bytes and flops, a CPU reference check, and for the
 * model the addresses each warp-level request touches. The harness owns
 * buffers, streams, events, repetitions, L2 flushing and synchronisation:
 * a launch function only enqueues. Plain C, included by .cu files too.
 */
#ifndef SW_KERNEL_H
#define SW_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SW_MAX_AXES    8
#define SW_MAX_BUFFERS 4
#define SW_NAME_LEN    32

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
	const char *name;  /* also the HDF5 column name */
	const char *units; /* "elements", "bytes", "words" */
	int64_t min, max;
	const char *defaults; /* axis syntax: "1,2,4", "1:128", "1:128:x2" */
	const char *about;
	/* A point at the baseline leaves this axis out of its id (plan.h), so an
	 * axis added to a family later keeps the ids of the points it had. */
	struct sw_axis_baseline baseline;
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
};

/* Entries of an array (not a pointer): descriptor tables count themselves,
 * `.n_axes = SW_COUNT(axes)`, so a row added is a row counted. */
#define SW_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* One descriptor per family, each defined in kernels/<name>.cu. Declared
 * here, before the definition, so C++ gives the const object external
 * linkage and the C registry links. */
#define X(name) extern const struct sw_family sw_family_##name;
#include "kernel_list.h"
#undef X

/* The registry (registry.c), in kernel_list.h order. */
extern const struct sw_family *const sw_families[];
extern const int sw_n_families;

/* NULL when absent. */
const struct sw_family *sw_family_find(const char *name);
int sw_family_index(const struct sw_family *f);
int sw_variant_find(const struct sw_family *f, const char *name); /* -1 when absent */
int sw_axis_find(const struct sw_family *f, const char *name);    /* -1 when absent */

/* Fill n floats with uniform values in [0, 1) from (seed, index): the same
 * values sw_uniform() gives on the host, so checks need no copy of the input. */
cudaError_t sw_fill_uniform(float *dev, uint64_t n, uint64_t seed, cudaStream_t s);

/* Evicts L2 by reading bytes of buf (at least twice the L2), leaving only
 * clean lines: nothing of an earlier launch drains to DRAM in the next. */
cudaError_t sw_evict_l2(const void *buf, size_t bytes, cudaStream_t s);

/* Test-only: makes a CUDA error of the given kind on s and returns it. */
enum { SW_FAULT_LAUNCH = 1, SW_FAULT_TRAP = 2 };
cudaError_t sw_inject_fault(int kind, cudaStream_t s);

/* The value sw_fill_uniform writes at index i, for host code and tests. */
float sw_input_value(uint64_t seed, uint64_t i);

#ifdef __cplusplus
}
#endif

#endif
