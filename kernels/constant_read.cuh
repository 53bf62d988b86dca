/*
 * constant_read's launch geometry and index function, shared by the kernels,
 * the CPU check and the model so all three read the same table words.
 */
#ifndef SW_CONSTANT_READ_CUH
#define SW_CONSTANT_READ_CUH

#include "common.cuh"

/* Fixed work: 8192 x 256 threads, each SW_CONST_LOADS loads. */
#define SW_CONST_BLOCKS  8192
#define SW_CONST_THREADS 256
#define SW_CONST_T       ((uint64_t)SW_CONST_BLOCKS * SW_CONST_THREADS)
#define SW_CONST_LOADS   1024
/* The table fills the 64 KB of __constant__ memory. */
#define SW_CONST_WORDS 16384
/* The loads cycle over the first 8 lines of 32 words (1 KB), which stay in
 * the SM's constant cache and L1: what is measured is how a warp's load is
 * served, not misses. */
#define SW_CONST_HOT_WORDS 256
/* Passed to the kernels at run time: load k starts at word (k x step) mod
 * 256, always at a 128-byte line; the compiler cannot see that loads k and
 * k + 8 repeat, so it cannot merge them. */
#define SW_CONST_STEP 96u

/* Word read by a lane on the thread's k-th load when the warp reads
 * `distinct` different words per load: lanes are split into `distinct`
 * groups of consecutive lanes, group g reading word base + g. All words of a
 * load lie in one 128-byte line. */
SW_HD uint32_t sw_const_index(uint32_t k, uint32_t lane, uint32_t distinct, uint32_t step)
{
	return ((k * step) & (SW_CONST_HOT_WORDS - 1)) + ((lane * distinct) >> 5);
}

#endif
