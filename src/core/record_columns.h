/*
 * The columns of /measurements, in file order: the one list from which
 * struct sw_record, its blank values, its copies from the model and the
 * counters, and the HDF5 column table with units are all made (record.h,
 * record.c). docs/hdf5-schema.md describes each column; test_record fails
 * when it names one the list lacks or misses one. Include it with the
 * entries you need defined; it defines the others, then undefines all:
 *
 *   X_NUM(name, kind, units, blank)           a number; kind I32 U32 I64 U64 F64
 *   X_TEXT(name, len, blank)                  char name[len], NUL-terminated
 *   X_AXES(name)                              int64_t name[SW_MAX_AXIS_COLUMNS],
 *                                             one column per axis name, blank -1
 *   X_MODEL(name, kind, units, blank, from)   a number set from sw_model_figures.from
 *   X_COUNTER(name, kind, units, blank, from) a number set from sw_counter_values.from
 *
 * X_MODEL and X_COUNTER default to X_NUM, the others to nothing. units NULL:
 * an id, a count, a flag or a ratio (no units attribute).
 */
#ifndef X_NUM
#define X_NUM(name, kind, units, blank)
#endif
#ifndef X_TEXT
#define X_TEXT(name, len, blank)
#endif
#ifndef X_AXES
#define X_AXES(name)
#endif
#ifndef X_MODEL
#define X_MODEL(name, kind, units, blank, from) X_NUM(name, kind, units, blank)
#endif
#ifndef X_COUNTER
#define X_COUNTER(name, kind, units, blank, from) X_NUM(name, kind, units, blank)
#endif

/* the point */
X_NUM(point_id, U64, NULL, 0)
X_NUM(plan_index, U32, NULL, 0)
X_NUM(rank, I32, NULL, 0)
X_NUM(session, I32, NULL, 0)     /* 0 for the first run, +1 per --resume */
X_NUM(calibration, I32, NULL, 0) /* 1: a calibrate point, run on every GPU (schema 5) */
X_TEXT(family, SW_TEXT_LEN, "")
X_TEXT(variant, SW_TEXT_LEN, "")
X_TEXT(backend, 8, "") /* a name of backend_list.h */
X_NUM(is_reference, I32, NULL, 0)
X_NUM(cc, I32, NULL, 0)     /* 10 * major + minor: measured device or modelled target */
X_AXES(axis)                /* by sw_axis_column_name(); -1 where not used */
X_NUM(status, I32, NULL, 0) /* enum sw_row_status */
X_TEXT(message, SW_MSG_LEN, "")

/* validation */
X_TEXT(check_mode, 12, "none") /* "full", "sampled" or "none" */
X_NUM(checked_elems, U64, "elements", 0)
X_NUM(max_rel_err, F64, NULL, NAN)
X_NUM(seed, U64, NULL, 0) /* random input seed, to reproduce the check */

/* timing (cuda backend); NaN when not timed */
X_NUM(n_samples, U32, NULL, 0)
X_NUM(launches_per_sample, U32, NULL, 0)
X_NUM(l2_flushed, I32, NULL, 0)
X_NUM(median_ns, F64, "ns", NAN)
X_NUM(min_ns, F64, "ns", NAN)
X_NUM(mean_ns, F64, "ns", NAN)
X_NUM(stddev_ns, F64, "ns", NAN)
X_NUM(rse, F64, NULL, NAN)
X_NUM(useful_bytes, F64, "bytes", NAN)
X_NUM(flops, F64, "flop", NAN)
X_NUM(gbps, F64, "GB/s", NAN)      /* from the median */
X_NUM(gflops, F64, "GFLOP/s", NAN) /* from the median */
X_NUM(timed_s, F64, "s", 0)        /* GPU time spent in timed samples */
X_NUM(sm_clock_mhz, U32, "MHz", 0)
X_NUM(mem_clock_mhz, U32, "MHz", 0)
X_NUM(throttle_reasons, U64, NULL, 0) /* NVML bit mask; 0 when none or unknown */

/* where a point's time went (cuda backend); NaN for the other backends.
 * Wall time minus these and timed_s is the point's idle time. */
X_NUM(alloc_s, F64, "s", NAN)        /* host: growing device and pinned buffers */
X_NUM(fill_s, F64, "s", NAN)         /* GPU: filling the inputs, the family's prepare */
X_NUM(check_launch_s, F64, "s", NAN) /* GPU: the checked launch and its output copy */
X_NUM(warmup_s, F64, "s", NAN)       /* GPU: warm-up launches and their flush */
X_NUM(flush_s, F64, "s", NAN)        /* GPU: L2 flushes before the timed samples */
X_NUM(sampling_s, F64, "s", NAN)     /* host: the sampling loop, timed_s and flush_s included */
X_NUM(check_wait_s, F64, "s", NAN)   /* host: waiting for the previous point's CPU check */
X_NUM(check_cpu_s, F64, "s", NAN)    /* host: this point's CPU check, beside the next point */

/* model figures, for this row's cc; NaN when not modelled */
X_MODEL(model_requests, F64, "requests", NAN, requests)
/* global; sectors from CC 6.0 on */
X_MODEL(model_transactions_per_request, F64, "transactions/request", NAN, transactions_per_request)
/* the same, CC 6.0 and later only */
X_MODEL(model_sectors_per_request, F64, "sectors/request", NAN, sectors_per_request)
X_MODEL(model_moved_bytes, F64, "bytes", NAN, moved_bytes)
X_MODEL(model_efficiency, F64, NULL, NAN, efficiency) /* useful over moved bytes */
/* shared banks (or constant addresses) per request */
X_MODEL(model_conflict_degree, F64, "passes/request", NAN, conflict_degree)
/* moved bytes at the device's peak; NaN for a model row (set by the caller) */
X_NUM(model_time_bound_ns, F64, "ns", NAN)
/* the time model (schema 8): the GPU a row predicts for (a device target's,
 * or the measuring GPU's table name), its predicted median time, the term
 * that bound it, and the basis: datasheet, calibrated or transfer */
X_TEXT(model_device, 32, "")
X_NUM(model_time_ns, F64, "ns", NAN)
X_TEXT(model_time_term, 12, "")
X_TEXT(model_time_basis, 12, "")
/* whole-point totals, comparable with the counters below */
X_MODEL(model_ld_requests, F64, "requests", NAN, ld_requests) /* global loads */
X_MODEL(model_ld_transactions, F64, "transactions", NAN, ld_transactions)
X_MODEL(model_st_requests, F64, "requests", NAN, st_requests) /* global stores */
X_MODEL(model_st_transactions, F64, "transactions", NAN, st_transactions)
X_MODEL(model_shared_ld_requests, F64, "requests", NAN, shared_ld_requests)
X_MODEL(model_shared_ld_wavefronts, F64, "wavefronts", NAN, shared_ld_wavefronts)
X_MODEL(model_shared_ld_conflicts, F64, "wavefronts", NAN, shared_ld_conflicts)

/* hardware counters (--counters), from launches apart from the timed ones;
 * NaN when not collected, and counter_note says why */
X_TEXT(counter_note, SW_MSG_LEN, "") /* "" without --counters, "ok", or the reason */
X_COUNTER(counter_passes, I32, NULL, 0, passes)
X_COUNTER(ctr_ld_requests, F64, "requests", NAN, ld_requests)
X_COUNTER(ctr_ld_sectors, F64, "sectors", NAN, ld_sectors)
X_COUNTER(ctr_st_requests, F64, "requests", NAN, st_requests)
X_COUNTER(ctr_st_sectors, F64, "sectors", NAN, st_sectors)
X_COUNTER(ctr_shared_ld_requests, F64, "requests", NAN, shared_ld_requests)
X_COUNTER(ctr_shared_ld_wavefronts, F64, "wavefronts", NAN, shared_ld_wavefronts)
X_COUNTER(ctr_shared_ld_conflicts, F64, "conflicts", NAN, shared_ld_conflicts)
X_COUNTER(ctr_shared_st_requests, F64, "requests", NAN, shared_st_requests)
X_COUNTER(ctr_shared_st_wavefronts, F64, "wavefronts", NAN, shared_st_wavefronts)
X_COUNTER(ctr_shared_st_conflicts, F64, "conflicts", NAN, shared_st_conflicts)
X_COUNTER(ctr_dram_read_bytes, F64, "bytes", NAN, dram_read_bytes)
X_COUNTER(ctr_dram_write_bytes, F64, "bytes", NAN, dram_write_bytes)

X_NUM(start_unix, F64, "s", 0)     /* when the point started */
X_NUM(end_unix, F64, "s", NAN)     /* when it gave its rank back (schema 2) */
X_NUM(sample_offset, U64, NULL, 0) /* into /samples; set by the writer */

#undef X_NUM
#undef X_TEXT
#undef X_AXES
#undef X_MODEL
#undef X_COUNTER
