/* The default input filler: uniform floats from (seed, index) on the device. */
/* sw_input_value as a function of sweep's, not family.h's inline one */
#define SW_INPUT_VALUE_EXTERN
#include "kernel.h"
#include "common.cuh"

#ifdef _OPENMP
#include <omp.h>
#endif

__global__ void sw_fill_uniform_kernel(float *a, uint64_t n, uint64_t seed)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += stride)
		a[i] = sw_uniform(seed, i);
}

extern "C" cudaError_t sw_fill_uniform(float *dev, uint64_t n, uint64_t seed, cudaStream_t s)
{
	sw_fill_uniform_kernel<<<4096, 256, 0, s>>>(dev, n, seed);
	return cudaGetLastError();
}

/* For plug-ins built against API 2's <sweep/family.h>, which declared it
 * without defining it: the same value as the header's inline one. */
extern "C" float sw_input_value(uint64_t seed, uint64_t i)
{
	return sw_uniform(seed, i);
}

/* Test-only faults (SW_TEST_FAULT, docs/ARCHITECTURE.md): a launch with an
 * impossible configuration, which fails and leaves the context usable, and a
 * kernel that traps, which leaves it unusable. */
__global__ void sw_trap_kernel(void)
{
	__trap();
}

extern "C" cudaError_t sw_inject_fault(int kind, cudaStream_t s)
{
	if (kind == SW_FAULT_TRAP)
		sw_trap_kernel<<<1, 1, 0, s>>>();
	else
		sw_trap_kernel<<<1, 4096, 0, s>>>(); /* more threads than a block may have */
	cudaError_t e = cudaGetLastError();
	return e != cudaSuccess ? e : cudaStreamSynchronize(s);
}

/* Reads every word of buf so that L2 holds only clean lines of it: a memset
 * flush would leave dirty lines that drain to DRAM inside the next launch.
 * The sum goes nowhere unless a word is the impossible pattern below, so the
 * compiler cannot drop the loads. */
__global__ void sw_evict_l2_kernel(const uint4 *buf, uint64_t n, unsigned *sink)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	unsigned acc = 0;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += stride) {
		uint4 v = buf[i];
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == 0x5eedf00du && sink)
		*sink = acc;
}

extern "C" void sw_check_use_threads(int n)
{
#ifdef _OPENMP
	omp_set_num_threads(n > 0 ? n : 1);
#else
	(void)n;
#endif
}

extern "C" int sw_check_cores(void)
{
#ifdef _OPENMP
	return omp_get_num_procs();
#else
	return 1;
#endif
}

extern "C" cudaError_t sw_evict_l2(const void *buf, size_t bytes, cudaStream_t s)
{
	sw_evict_l2_kernel<<<4096, 256, 0, s>>>((const uint4 *)buf, bytes / sizeof(uint4), NULL);
	return cudaGetLastError();
}

/* One thread per picked element, a byte at a time unless it is 4 or 8. */
__global__ void sw_gather_sampled_kernel(const unsigned char *src, size_t eb, uint64_t n,
					 uint64_t sample_seed, uint32_t count, unsigned char *dst)
{
	uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= count)
		return;
	const unsigned char *from = src + sw_sample_index(sample_seed, k, n) * eb;
	unsigned char *to = dst + (size_t)k * eb;
	if (eb == 4)
		memcpy(to, from, 4);
	else if (eb == 8)
		memcpy(to, from, 8);
	else
		for (size_t i = 0; i < eb; i++)
			to[i] = from[i];
}

extern "C" cudaError_t sw_gather_sampled(const void *src, size_t elem_bytes, uint64_t n,
					 uint64_t sample_seed, uint32_t count, void *dst,
					 cudaStream_t s)
{
	if (count == 0)
		return cudaSuccess;
	sw_gather_sampled_kernel<<<(count + 255) / 256, 256, 0, s>>>((const unsigned char *)src,
								     elem_bytes, n, sample_seed,
								     count, (unsigned char *)dst);
	return cudaGetLastError();
}
