/*
 * histogram's input generator and index helpers, shared by the kernels, the
 * CPU check and the model, so all three see the same bytes and addresses.
 */
#ifndef SW_HISTOGRAM_CUH
#define SW_HISTOGRAM_CUH

#include "common.cuh"

/* Values of the dist axis. An unused axis (-1) reads as uniform. */
enum { SW_HIST_UNIFORM = 0, SW_HIST_SKEWED = 1, SW_HIST_SINGLE = 2 };

/* global_atomic and shared_priv: the course's grid-stride launch, blocks of
 * 256 threads, enough blocks to fill every SM. */
#define SW_HIST_THREADS       256
#define SW_HIST_BLOCKS_PER_SM 8
/* shared_wide: 512 threads, one block per 32 x bins counters of shared memory. */
#define SW_HIST_WIDE_THREADS 512
/* stream_read: strided_read's reference grid, 4096 x 256. */
#define SW_HIST_STREAM_BLOCKS  4096
#define SW_HIST_STREAM_THREADS 256
#define SW_HIST_STREAM_T       ((uint64_t)SW_HIST_STREAM_BLOCKS * SW_HIST_STREAM_THREADS)

SW_HD uint32_t sw_hist_ctz(uint32_t x)
{
#ifdef __CUDA_ARCH__
	return __ffs(x) - 1;
#else
	return __builtin_ctz(x);
#endif
}

/* Input bytes 8w .. 8w+7 of a point, as one little-endian word.
 *   uniform  the 8 bytes of one hash of (seed, w)
 *   skewed   byte = number of trailing zeros of 16 random bits: value v
 *            (0..16) has probability 2^-(v+1), so half the bytes are 0 and
 *            seven eighths fall in 3 bins
 *   single   every byte the same value, drawn from the seed */
SW_HD uint64_t sw_hist_word(uint64_t seed, int64_t dist, uint64_t w)
{
	if (dist == SW_HIST_SINGLE)
		return (sw_mix64(seed) & 0xff) * 0x0101010101010101ull;
	if (dist != SW_HIST_SKEWED)
		return sw_mix64(seed ^ sw_mix64(w));
	uint64_t word = 0;
	for (int h = 0; h < 2; h++) {
		uint64_t r = sw_mix64(seed ^ sw_mix64(2 * w + h));
		for (int k = 0; k < 4; k++) {
			uint64_t v = sw_hist_ctz(((uint32_t)(r >> (16 * k)) & 0xffffu) | 0x10000u);
			word |= v << (8 * (4 * h + k));
		}
	}
	return word;
}

/* Input byte i. */
SW_HD uint32_t sw_hist_byte(uint64_t seed, int64_t dist, uint64_t i)
{
	return (uint32_t)(sw_hist_word(seed, dist, i / 8) >> (8 * (i % 8))) & 0xffu;
}

/* shared_wide keeps 32 copies of the histogram, one per lane, interleaved:
 * bin b of lane l is word 32b + l, always in bank l, so a warp's 32 atomics
 * never meet in a bank or on an address whatever the data. */
SW_HD uint32_t sw_hist_lane_slot(uint32_t bin, uint32_t lane)
{
	return (bin << 5) | lane;
}

/* The model's view of the main loads: whatever the grid (a multiple of 32
 * threads), warp request r of the byte loads reads bytes 32r .. 32r+31 and
 * warp request r of the uint4 loads reads bytes 512r .. 512r+511. */
SW_HD uint64_t sw_hist_load_addr(uint64_t r, uint32_t lane, int word_bytes)
{
	return (r * 32 + lane) * (uint64_t)word_bytes;
}

#endif
