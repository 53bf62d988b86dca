/*
 * One measurement row: a point run by one backend on one rank. Fixed size so
 * it travels between ranks as bytes (every rank runs the same binary) and
 * maps one to one onto the /measurements compound type in HDF5. The raw
 * samples travel with it and land in /samples.
 */
#ifndef SW_RECORD_H
#define SW_RECORD_H

#include <stdint.h>

#define SW_MAX_AXIS_COLUMNS 24 /* distinct axis names over all families */
#define SW_MAX_SAMPLES      512
#define SW_TEXT_LEN         32
#define SW_MSG_LEN          160

/* Row status, as stored in the file's `status` column. */
enum sw_row_status {
	SW_ROW_OK = 0,
	SW_ROW_SKIPPED = 1, /* the family refused the point; `message` says why */
	SW_ROW_INVALID = 2, /* output did not match the CPU reference */
	SW_ROW_FAILED = 3,  /* a CUDA error; `message` holds its text */
};

struct sw_record {
	uint64_t point_id;
	uint32_t plan_index;
	int32_t rank;
	int32_t session; /* 0 for the first run, +1 per --resume */
	char family[SW_TEXT_LEN];
	char variant[SW_TEXT_LEN];
	char backend[8]; /* "cuda" or "model" */
	int32_t is_reference;
	int32_t cc; /* 10 * major + minor: measured device or modelled target */
	int64_t axis[SW_MAX_AXIS_COLUMNS]; /* by sw_axis_columns(); -1 where not used */
	int32_t status;                    /* enum sw_row_status */
	char message[SW_MSG_LEN];
	/* validation */
	char check_mode[12]; /* "full", "sampled" or "none" */
	uint64_t checked_elems;
	double max_rel_err;
	uint64_t seed; /* random input seed, to reproduce the check */
	/* timing (cuda backend); NaN when not timed */
	uint32_t n_samples;
	uint32_t launches_per_sample;
	int32_t l2_flushed;
	double median_ns, min_ns, mean_ns, stddev_ns, rse;
	double useful_bytes, flops;
	double gbps, gflops; /* from the median */
	double timed_s;      /* GPU time spent in timed samples */
	uint32_t sm_clock_mhz, mem_clock_mhz;
	uint64_t throttle_reasons; /* NVML bit mask; 0 when none or unknown */
	/* model figures, for this row's cc; NaN when not modelled */
	double model_requests;
	double model_transactions_per_request; /* global; sectors from CC 6.0 on */
	double model_sectors_per_request;      /* the same, CC 6.0 and later only */
	double model_moved_bytes;
	double model_efficiency;      /* useful over moved bytes */
	double model_conflict_degree; /* shared banks (or constant addresses) per request */
	double model_time_bound_ns;   /* moved bytes at the device's peak; NaN for a model row */
	/* whole-point totals, comparable with the counters below */
	double model_ld_requests, model_ld_transactions; /* global loads */
	double model_st_requests, model_st_transactions; /* global stores */
	double model_shared_ld_requests, model_shared_ld_wavefronts, model_shared_ld_conflicts;
	/* hardware counters (--counters), from launches apart from the timed
	 * ones; NaN when not collected, and counter_note says why */
	char counter_note[SW_MSG_LEN]; /* "" without --counters, "ok", or the reason */
	int32_t counter_passes;
	double ctr_ld_requests, ctr_ld_sectors;
	double ctr_st_requests, ctr_st_sectors;
	double ctr_shared_ld_requests, ctr_shared_ld_wavefronts, ctr_shared_ld_conflicts;
	double ctr_shared_st_requests, ctr_shared_st_wavefronts, ctr_shared_st_conflicts;
	double ctr_dram_read_bytes, ctr_dram_write_bytes;
	double start_unix;      /* when the point started */
	uint64_t sample_offset; /* into /samples; set by the writer */
	/* not in the compound type: */
	double samples_ns[SW_MAX_SAMPLES];
};

/* Blank record for a point: NaN statistics, -1 axis columns. */
void sw_record_init(struct sw_record *r);

/* NaN counter figures and no passes (counter_note untouched). */
void sw_record_no_counters(struct sw_record *r);

/* The distinct axis names of all registered families, in registry order;
 * column c of sw_record.axis holds sw_axis_column_name(c). */
int sw_axis_column_count(void);
const char *sw_axis_column_name(int c);
/* Column of a family's axis i. */
int sw_axis_column_of(int family, int axis);

#endif
