/*
 * What the model predicts and the hardware counters count for one point:
 * plain figures that model/ and backend/counters.c produce and the record
 * (record_columns.h's X_MODEL and X_COUNTER lines) copies. Ground floor.
 */
#ifndef SW_FIGURES_H
#define SW_FIGURES_H

struct sw_model_figures {
	double requests; /* warp-level requests the point issues (all spaces) */
	double global_requests;
	double transactions_per_request; /* global, averaged over sampled requests */
	double sectors_per_request;      /* the same from CC 6.0 on; NaN before */
	double useful_bytes;             /* global, whole point */
	double moved_bytes;              /* global, whole point */
	double efficiency;               /* useful over moved; NaN without global requests */
	double conflict_degree;          /* shared/constant, averaged; NaN without such requests */
	/* Whole-point totals by kind, the figures hardware counters also give
	 * (docs/model.md): global loads and stores, and shared loads. */
	double ld_requests, ld_transactions;
	double st_requests, st_transactions;
	double shared_ld_requests, shared_ld_wavefronts, shared_ld_conflicts;
	/* What the time model (model/time_model.h) adds up besides: shared
	 * stores, constant-cache requests and their passes, and the 128-byte
	 * lines and DRAM granules global requests touch (each request's
	 * distinct ones, summed over the point). */
	double shared_st_requests, shared_st_wavefronts;
	double constant_requests, constant_passes;
	double ld_lines, st_lines, ld_granules, st_granules, ld_chunks, st_chunks;
};

/* One point's counts, whole launch summed over all SMs. */
struct sw_counter_values {
	double ld_requests, ld_sectors; /* global loads (LDG), warp-level requests */
	double st_requests, st_sectors; /* global stores */
	double shared_ld_requests, shared_ld_wavefronts, shared_ld_conflicts;
	double shared_st_requests, shared_st_wavefronts, shared_st_conflicts;
	double dram_read_bytes, dram_write_bytes;
	int passes; /* replays the metrics needed */
};

#endif
