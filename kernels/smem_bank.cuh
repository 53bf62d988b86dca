/*
 * smem_bank's launch shape and the shared word each lane reads, shared by the
 * kernel and the model so the model describes exactly the kernel's requests.
 */
#ifndef SW_SMEM_BANK_CUH
#define SW_SMEM_BANK_CUH

#include "common.cuh"

/* A fixed amount of work: 2048 x 256 threads, 2048 shared loads each. */
#define SW_SMEM_BLOCKS  2048
#define SW_SMEM_THREADS 256
#define SW_SMEM_UNROLL  8 /* loads per loop trip, each from its own row of banks */
#define SW_SMEM_ITERS   256
#define SW_SMEM_LOADS   (SW_SMEM_UNROLL * SW_SMEM_ITERS)
#define SW_SMEM_T       ((uint64_t)SW_SMEM_BLOCKS * SW_SMEM_THREADS)
/* Lane 31 at word stride 32 reads word 992, plus 32 per unrolled load. */
#define SW_SMEM_WORDS (32 * (32 + SW_SMEM_UNROLL))

/* Which word each lane starts from; the values are the variants' order. */
enum sw_smem_pattern {
	SW_SMEM_STRIDE,        /* lane * s: gcd(s, 32)-way conflict, broadcast at s = 0 */
	SW_SMEM_BROADCAST,     /* word 0 for every lane */
	SW_SMEM_TWO_WAY,       /* (lane % 2) * 32: two words in bank 0 */
	SW_SMEM_CONFLICT_FREE, /* lane: one word in each bank */
};

/* Shared word that lane reads in unrolled load u. Adding 32 words per load
 * keeps every lane in its bank, so each load has the pattern's conflict
 * degree, while no two loads of a loop trip read the same word. */
SW_HD uint32_t sw_smem_word(int pattern, uint32_t lane, uint32_t s, uint32_t u)
{
	uint32_t base = pattern == SW_SMEM_STRIDE          ? lane * s
			: pattern == SW_SMEM_TWO_WAY       ? (lane % 2) * 32
			: pattern == SW_SMEM_CONFLICT_FREE ? lane
							   : 0;
	return base + 32 * u;
}

#endif
