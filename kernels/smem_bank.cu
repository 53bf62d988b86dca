/*
 * smem_bank: the cost of shared-memory bank conflicts (NOTES.md C13, C16).
 * Every thread of a fixed 2048 x 256 grid makes 2048 four-byte shared loads
 * from words chosen by its lane; an N-way conflict (N distinct words in one
 * bank) should take N times the conflict-free time. Useful bytes are the
 * shared bytes requested: threads x loads x 4. All variants run the same
 * machine code; only the lane's starting word differs.
 *   stride         lane reads word lane * word_stride: gcd(word_stride, 32)-way
 *   broadcast      every lane reads one word: no conflict (C13)
 *   two_way        the course's (lane % 2) * 32: 2-way, not 16-way (C13)
 *   conflict_free  reference: lane reads word lane, one word per bank
 * The block axis (0: 256) splits the same threads into other blocks.
 * Not measured here: global memory (the shared words come from a 5 KB input).
 */
#include "kernel.h"
#include "common.cuh"
#include "smem_bank.cuh"

#include <stdio.h>
#include <string.h>

enum { AXIS_WORD_STRIDE, AXIS_BLOCK };

/* The loads go through a volatile pointer: otherwise the compiler sees that
 * nothing writes the words inside the loop, hoists the loads out of it and
 * leaves a loop of adds. Each thread's sum is written so none is removed. */
/* Bounds of the largest block the block axis allows. */
__global__ void __launch_bounds__(1024)
	smem_bank_kernel(const float *__restrict__ in, uint32_t *__restrict__ out, int pattern,
			 uint32_t s)
{
	__shared__ uint32_t words[SW_SMEM_WORDS];
	for (uint32_t i = threadIdx.x; i < SW_SMEM_WORDS; i += blockDim.x)
		words[i] = __float_as_uint(in[i]);
	__syncthreads();
	volatile uint32_t *w = words + sw_smem_word(pattern, threadIdx.x % 32, s, 0);
	uint32_t acc = 0;
#pragma unroll 1
	for (int i = 0; i < SW_SMEM_ITERS; i++) {
#pragma unroll
		for (int u = 0; u < SW_SMEM_UNROLL; u++)
			acc += w[32 * u];
	}
	out[blockIdx.x * (uint64_t)blockDim.x + threadIdx.x] = acc;
}

static uint32_t stride_of(const struct sw_point *p)
{
	int64_t s = p->axis[AXIS_WORD_STRIDE];
	return s == SW_AXIS_UNUSED ? 0 : (uint32_t)s;
}

/* The block axis reshapes the same SW_SMEM_T threads (refuse keeps the
 * blocks whole); a lane's words depend on its lane only, so every warp's
 * requests stay as they are. */
static unsigned threads_of(const struct sw_point *p)
{
	return sw_shape_of(p->axis[AXIS_BLOCK], SW_SMEM_THREADS);
}

static cudaError_t launch(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	/* the variant index is the pattern (smem_bank.cuh) */
	smem_bank_kernel<<<(unsigned)(SW_SMEM_T / threads_of(p)), threads_of(p), 0, s>>>(
		(const float *)b->dev[0], (uint32_t *)b->dev[1], p->variant, stride_of(p));
	return cudaGetLastError();
}

/* Model: request r is load k of warp w, in the order the kernel issues them;
 * addresses are byte offsets in the block's shared array. */
static uint64_t requests(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	uint64_t warps = SW_SMEM_T / 32;
	if (req) {
		uint32_t u = (uint32_t)(r / warps % SW_SMEM_UNROLL);
		sw_request_begin(req, SW_SPACE_SHARED, 4, 0);
		for (uint32_t l = 0; l < 32; l++) {
			uint32_t word = sw_smem_word(p->variant, l, stride_of(p), u);
			sw_request_lane(req, l, 4 * (uint64_t)word, 1);
		}
	}
	return warps * SW_SMEM_LOADS;
}

/* Time model: the global loads only fill the shared words. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *s)
{
	(void)sm_count;
	return sw_shape_set(s, SW_SMEM_T / threads_of(p), threads_of(p),
			    SW_SMEM_WORDS * sizeof(uint32_t), 1);
}

static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	(void)p;
	s->n_buffers = 2;
	s->n_inputs = 1;
	s->bytes[0] = SW_SMEM_WORDS * sizeof(float);
	s->bytes[1] = SW_SMEM_T * sizeof(uint32_t);
}

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	/* the word_stride range is all the kernel needs */
	return sw_block_refuse(p->axis[AXIS_BLOCK], SW_SMEM_T, why, len);
}

static double useful_bytes(const struct sw_point *p)
{
	(void)p;
	return (double)SW_SMEM_T * SW_SMEM_LOADS * 4;
}

static double flops(const struct sw_point *p)
{
	(void)p;
	return 0; /* the adds only keep the loads alive */
}

/* The sum lane l's threads write: every loop trip adds the same words, and
 * unsigned sums wrap modulo 2^32 on both sides. */
static uint32_t lane_sum(const struct sw_point *p, uint64_t seed, uint32_t l)
{
	uint32_t trip = 0;
	for (uint32_t u = 0; u < SW_SMEM_UNROLL; u++) {
		float v = sw_uniform(seed, sw_smem_word(p->variant, l, stride_of(p), u));
		uint32_t bits;
		memcpy(&bits, &v, sizeof bits);
		trip += bits;
	}
	return trip * (uint32_t)SW_SMEM_ITERS;
}

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const uint32_t *out = (const uint32_t *)o->out[1];
	uint32_t want[32];
	for (uint32_t l = 0; l < 32; l++)
		want[l] = lane_sum(p, o->seed, l);
	/* 32 sums to recompute: every thread is compared */
	sw_check_begin(c, SW_SMEM_T, 1);
	for (uint64_t t = 0; t < SW_SMEM_T; t++) {
		uint32_t got = out[t], w = want[t % 32];
		/* integer sums are exact: any difference is an error */
		if (sw_check_record(c, sw_rel_err(got, w), got != w))
			snprintf(c->msg, sizeof c->msg, "thread %llu: got sum %u, want %u",
				 (unsigned long long)t, got, w);
	}
}

static const struct sw_axis_def axes[] = {
	{ "word_stride", "words", 0, 32, "0:32",
	  "distance in 4-byte words between neighbouring lanes' words; 0 = all lanes one word" },
	SW_BLOCK_AXIS("256; the 512K threads stay"),
};
#define B (1u << AXIS_BLOCK)
static const struct sw_variant variants[] = {
	{ "stride", "lane reads word lane * word_stride: a gcd(word_stride, 32)-way conflict (C16)",
	  launch, requests, (1u << AXIS_WORD_STRIDE) | B, 0 },
	{ "broadcast", "every lane reads one word: a broadcast, no conflict (C13)", launch,
	  requests, B, 0 },
	{ "two_way", "half the warp reads word 0, half word 32: a 2-way conflict (C13)", launch,
	  requests, B, 0 },
	{ "conflict_free", "lane reads word lane: one word per bank, the conflict-free time",
	  launch, requests, B, 1 },
};

const struct sw_family sw_family_smem_bank = {
	.name = "smem_bank",
	.about = "shared-memory bank conflicts: time against distinct words per bank",
	.axes = axes,
	.n_axes = SW_COUNT(axes),
	.variants = variants,
	.n_variants = SW_COUNT(variants),
	.sizes = sizes,
	.refuse = refuse,
	.useful_bytes = useful_bytes,
	.flops = flops,
	.check = check,
	.shape = shape,
};
