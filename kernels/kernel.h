/*
 * The built-in side of the kernel seam: the registry of families (built-ins
 * in kernel_list.h order, then those plug-ins add) and the harness's own
 * device helpers. What a family declares and may use is the public API,
 * <sweep/family.h>, which this includes. Plain C, included by .cu files too.
 */
#ifndef SW_KERNEL_H
#define SW_KERNEL_H

#include <string.h>

#include <sweep/family.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One descriptor per family, each defined in kernels/<name>.cu. Declared
 * here, before the definition, so C++ gives the const object external
 * linkage and the C registry links. */
#define X(name) extern const struct sw_family sw_family_##name;
#include "kernel_list.h"
#undef X

/* The registry (registry.c): the built-ins in kernel_list.h order, then the
 * families of plug-ins in load order. Indices stay valid while it grows. */
#define SW_MAX_FAMILIES 64
int sw_family_count(void);
int sw_family_builtin_count(void);
const struct sw_family *sw_family_at(int i); /* NULL out of range */
/* The registry as an array of sw_family_count() entries, for checks over it. */
const struct sw_family *const *sw_family_list(void);
/* Appends f (the caller checked it and its name); -1 when the list is full. */
int sw_family_add(const struct sw_family *f);
/* Forgets the families from index n on, never a built-in: undoes adds. */
void sw_family_truncate(int n);

/* NULL when absent. */
const struct sw_family *sw_family_find(const char *name);
int sw_family_index(const struct sw_family *f);
int sw_variant_find(const struct sw_family *f, const char *name); /* -1 when absent */
int sw_axis_find(const struct sw_family *f, const char *name);    /* -1 when absent */

/* A categorical axis's named values (sw_axis_def.names): how many (0 for a
 * plain axis), and the name of value v (NULL for a plain axis or a value
 * that has none). */
int sw_axis_name_count(const struct sw_axis_def *d);
const char *sw_axis_value_name(const struct sw_axis_def *d, int64_t v);
/* A variant's named accesses (sw_variant.accesses): how many, 0 for none. */
int sw_variant_access_count(const struct sw_variant *v);

/* Evicts L2 by reading bytes of buf (at least twice the L2), leaving only
 * clean lines: nothing of an earlier launch drains to DRAM in the next. */
cudaError_t sw_evict_l2(const void *buf, size_t bytes, cudaStream_t s);

/* Gathers the count elements of elem_bytes that a sampled check picks,
 * sw_sample_index(sample_seed, k, n) for k below count, from src (n
 * elements) into dst, packed in k order. Enqueues on s only. */
cudaError_t sw_gather_sampled(const void *src, size_t elem_bytes, uint64_t n, uint64_t sample_seed,
			      uint32_t count, void *dst, cudaStream_t s);

/* The host half: puts the packed elements back where the check reads
 * them, element sw_sample_index(sample_seed, k, n) of the full-size view
 * `to`. Plain C, so a test checks the index math without a GPU. */
static inline void sw_scatter_sampled(const void *packed, size_t elem_bytes, uint64_t n,
				      uint64_t sample_seed, uint32_t count, void *to)
{
	const unsigned char *from = (const unsigned char *)packed;
	for (uint32_t k = 0; k < count; k++)
		memcpy((unsigned char *)to + sw_sample_index(sample_seed, k, n) * elem_bytes,
		       from + (size_t)k * elem_bytes, elem_bytes);
}

/* The host threads the CPU check running on the calling thread may use
 * (OpenMP's team size for this thread): the checks in flight share the
 * host's cores. Without OpenMP, nothing. */
void sw_check_use_threads(int n);
/* The host's cores as the checks see them (the rank's affinity). */
int sw_check_cores(void);

/* Test-only: makes a CUDA error of the given kind on s and returns it. */
enum { SW_FAULT_LAUNCH = 1, SW_FAULT_TRAP = 2 };
cudaError_t sw_inject_fault(int kind, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
