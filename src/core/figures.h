/*
 * What the model predicts and the hardware counters count for one point:
 * plain figures that model/ and backend/counters.c produce and the record
 * (record_columns.h's X_MODEL and X_COUNTER lines) copies. Ground floor.
 */
#ifndef SW_FIGURES_H
#define SW_FIGURES_H

#include <sweep/family.h>

/* The slot of sw_model_figures' per-buffer arrays for requests that name
 * no buffer (SW_BUFFER_NONE, an API 2 plug-in, shared or constant). */
#define SW_MODEL_NO_BUFFER SW_MAX_BUFFERS

/* How far an access's figures are exact (model.h, sw_model_eval). */
enum sw_counts {
	SW_COUNTS_EXACT,    /* every request of the access was costed */
	SW_COUNTS_REQUESTS, /* its request count is exact (its stretches' ends were
			     * found); transactions and bytes are sampled */
	SW_COUNTS_SAMPLED,  /* all estimated from the requests costed */
};

/* One named access of a variant (sw_variant.accesses), whole point. */
struct sw_access_figures {
	double requests;     /* warp-level requests with an active lane */
	double transactions; /* global: transactions (sectors from CC 6.0 on); NaN if none */
	double wavefronts;   /* shared: wavefronts; NaN if none */
	double useful_bytes; /* global: bytes its active lanes asked for */
	double moved_bytes;  /* global: bytes its transactions carry */
	double costed;       /* its requests the model looked at */
	int space;           /* enum sw_space of its first request looked at */
	int is_store;
	int counts; /* enum sw_counts */
	int pad;
};

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
	/* Global loads by the buffer they address (sw_request.buffer; the
	 * last slot, SW_MODEL_NO_BUFFER, holds those that name none): their
	 * sectors, and the mean span of a request's lanes (the highest address
	 * less the lowest, plus a word), from which the time model estimates
	 * how far apart a buffer's re-reads fall (time_model.c). */
	double buf_ld_sectors[SW_MAX_BUFFERS + 1];
	double buf_ld_span_bytes[SW_MAX_BUFFERS + 1];
	/* Per named access of the variant, in its order (schema 8's
	 * /model_accesses); n_accesses 0 when it names none. */
	int n_accesses;
	struct sw_access_figures access[SW_MAX_ACCESSES];
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
