/*
 * index_read's launch and index function, shared by the kernels, the fill
 * that writes the indices and the model, so that the model rebuilds the very
 * indices the kernel reads.
 */
#ifndef SW_INDEX_READ_CUH
#define SW_INDEX_READ_CUH

#include "common.cuh"

/* One thread an element, 256 a block. */
#define SW_INDEX_READ_THREADS 256

/* The indices' key is fixed, not the point's seed: requests() never sees the
 * seed, and with a fixed key the model rebuilds the indices the kernel reads.
 * The seed still makes the data. */
#define SW_INDEX_READ_KEY 0x1dea5eedull

/* Index i of the indexed read: a hashed position in the window of `window`
 * elements that holds i (windows start at multiples of window; the last one
 * ends at n). Window 1 is the identity, window n anywhere in the array. */
SW_HD uint32_t sw_index_read_index(uint64_t i, uint64_t n, uint64_t window)
{
	uint64_t base = i / window * window;
	uint64_t span = n - base < window ? n - base : window;
	return (uint32_t)(base + sw_mix64(SW_INDEX_READ_KEY ^ i) % span);
}

#endif
