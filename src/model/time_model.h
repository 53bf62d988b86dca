/*
 * The time model: a point's predicted median time on a named GPU
 * (gpus.h), from the requests the model counts (model.h), the launch the
 * family describes (its shape hook) and the rates of the GPU's memory
 * system and multiprocessors. Each term is the time one resource needs
 * for the point's work; the time is the launch plus a smooth maximum of
 * the terms, and the largest term is the one that bound it. docs/model.md,
 * "Time", states each term, its assumptions and what it misses. Pure.
 */
#ifndef SW_TIME_MODEL_H
#define SW_TIME_MODEL_H

#include "core/figures.h"
#include "core/status.h"
#include "kernel.h"
#include "model/gpus.h"

/* The resources a point's time is made of, in the order of the terms. */
#define SW_TIME_TERMS(X)                                                                           \
	X(DRAM, "dram")         /* DRAM granules read and bytes written, at the peak's share */    \
	X(L2, "l2")             /* sectors the L1 passes on to L2 */                               \
	X(L1, "l1")             /* global requests, their sectors and lines through an SM's L1 */  \
	X(SHARED, "shared")     /* shared-memory wavefronts */                                     \
	X(CONSTANT, "constant") /* constant-cache passes */                                        \
	X(LATENCY, "latency")   /* round trips no warp in flight hides */                          \
	X(BLOCKS, "blocks")     /* blocks each SM starts */                                        \
	X(FP32, "fp32")         /* the family's flops at the FP32 peak */

enum sw_time_term {
#define X(id, word) SW_TERM_##id,
	SW_TIME_TERMS(X)
#undef X
		SW_N_TERMS,
	SW_TERM_LAUNCH = SW_N_TERMS, /* the launch alone: every term smaller */
};

/* The word of a term ("dram"), as model_time_term records it. */
const char *sw_time_term_word(enum sw_time_term t);

/* The rates a datasheet cannot know, which calibration fits
 * (time_fit.h). 0 for l2_gbps and blocks_per_us_sm: the term is left out. */
#define SW_TIME_RATES(X)                                                                           \
	X(dram_efficiency, NULL, "share of the datasheet's DRAM bandwidth reached")                \
	X(dram_chunk_bytes, "bytes", "what a DRAM chunk touched alone moves")                      \
	X(latency_ns, "ns", "a global load's round trip, under load")                              \
	X(barrier_factor, NULL, "a block's round trip over its warps' when it waits at a barrier") \
	X(l2_gbps, "GB/s", "L2 bandwidth to the SMs (0: not a term)")                              \
	X(miss_sector_bytes, "bytes",                                                              \
	  "what DRAM moves for a sector re-read after the L2 turned over")                         \
	X(l1_requests_per_clk, "1/clk", "global requests an SM's L1 takes a cycle")                \
	X(l1_sectors_per_clk, "1/clk", "32-byte sectors an SM's L1 moves a cycle")                 \
	X(shared_wavefronts_per_clk, "1/clk", "shared-memory wavefronts an SM serves a cycle")     \
	X(constant_passes_per_clk, "1/clk", "constant-cache passes an SM serves a cycle")          \
	X(blocks_per_us_sm, "1/us", "blocks an SM starts a microsecond (0: not a term)")           \
	X(launch_ns, "ns", "what a launch costs beyond its work")

struct sw_time_rates {
#define X(name, units, about) double name;
	SW_TIME_RATES(X)
#undef X
};
#define SW_N_RATES 12

/* The rates from the datasheet, the CUDA guides and published
 * microbenchmarks alone (docs/model.md): the peak DRAM bandwidth, two
 * granules for a DRAM chunk touched alone and one for a sector re-read
 * after the L2 turned over, 300 cycles of latency (the guide's 200 to 400
 * for CC 3.x) and no barrier wait beyond it, 0.46 L1 requests and four
 * sectors, one shared wavefront and 0.47 constant passes a cycle, no L2,
 * block or launch term. The L1's one line a cycle is no rate:
 * time_model.c holds it fixed. */
void sw_time_rates_datasheet(const struct sw_gpu *gpu, struct sw_time_rates *r);

/* What a point asks of the GPU: counted by the model at the GPU's CC,
 * with the family's buffers, flops and launch. */
struct sw_time_inputs {
	double ld_requests, st_requests, ld_sectors, st_sectors;
	double ld_lines, st_lines; /* each request's distinct 128-byte lines, summed */
	double ld_granules, st_granules, ld_chunks, st_chunks;
	double shared_wavefronts, constant_passes;
	double in_bytes, out_bytes, flops;
	/* Global loads by buffer (the last slot: those naming none, whose
	 * buffer is taken as all the inputs): the buffer's bytes, its load
	 * sectors, and the mean span of one request over it. */
	double buf_bytes[SW_MAX_BUFFERS + 1], buf_ld_sectors[SW_MAX_BUFFERS + 1],
		buf_ld_span_bytes[SW_MAX_BUFFERS + 1];
	struct sw_launch_shape shape;
};

/* Why a family without a shape hook gets no time: every row of a device
 * target says it, and the run's last lines. */
#define SW_NO_TIME_NO_SHAPE "no time: the plug-in describes no launch (family.h, shape)"

/* The inputs of point p of family f on gpu from the model's figures m
 * for gpu's CC (sw_model_eval_banked's). SW_SKIP as below. */
enum sw_status sw_time_inputs_from(const struct sw_family *f, const struct sw_point *p,
				   const struct sw_gpu *gpu, const struct sw_model_figures *m,
				   struct sw_time_inputs *in, struct sw_err *err);

/* The inputs of point p of family f on gpu: SW_SKIP with the reason when
 * the time model does not cover the variant (no requests, no launch shape,
 * a shape of no block or no thread, or a reason the family's shape hook
 * gives); SW_EINVAL when the family's sizes() breaks its limits
 * (sw_family_sizes, model.h) or the model's walk refuses, SW_ENOMEM. */
enum sw_status sw_time_inputs_of(const struct sw_family *f, const struct sw_point *p,
				 const struct sw_gpu *gpu, int kepler_bank_bytes,
				 struct sw_time_inputs *in, struct sw_err *err);

/* A prediction: the time, the term that bound it, every term's time. */
struct sw_time {
	double ns;
	enum sw_time_term term;
	double term_ns[SW_N_TERMS];
};

/* The time of inputs in on gpu at rates r. NaN (term SW_TERM_LAUNCH)
 * when gpu has no limits for its CC. */
void sw_time_eval(const struct sw_gpu *gpu, const struct sw_time_rates *r,
		  const struct sw_time_inputs *in, struct sw_time *out);

#endif
