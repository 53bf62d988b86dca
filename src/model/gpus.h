/*
 * The table of real GPUs (gpu_table.h) behind the time model: find one by
 * its table name or by the name its driver reports, and what a
 * multiprocessor of a compute capability holds. Pure; never prints.
 */
#ifndef SW_GPUS_H
#define SW_GPUS_H

#include <stddef.h>

#include "core/status.h"

/* One GPU of the table, with the sources of its figures. */
struct sw_gpu {
	const char *name;
	const char *aliases; /* '|'-separated, the driver's name first */
	int cc;              /* 10 * major + minor */
	int sms;
	double boost_mhz;
	double dram_gbps;
	double l2_bytes;     /* 0: no source gives it */
	double fp32_gflops;  /* 0: no source gives it */
	const char *sources; /* one key a figure: sms, clock, dram, l2, fp32 */
};

/* What one multiprocessor of a compute capability holds at once. */
struct sw_cc_limits {
	int cc;
	int threads, blocks;
	int shared_bytes;
	const char *source;
};

int sw_gpu_count(void);
const struct sw_gpu *sw_gpu_at(int i); /* NULL out of range */

/* The GPU a name means: the entry whose name, driver name or alias equals
 * it, case and the spaces around it apart; never a part of a name ("NVIDIA
 * H20" is no H200). SW_EINVAL when none does: the message lists the entries
 * whose names hold it ("H100": both H100s), else suggests near names. */
enum sw_status sw_gpu_find(const char *name, const struct sw_gpu **gpu, struct sw_err *err);

/* The entry whose driver name (its first alias) or name equals name, case
 * apart; NULL when none: how a measured GPU finds itself. */
const struct sw_gpu *sw_gpu_of_driver_name(const char *name);

/* The limits of cc, from the row of the highest CC not above it; NULL
 * below the table's first row. */
const struct sw_cc_limits *sw_cc_limits_of(int cc);

/* The citation of a source key ("DQ-H100" finds "DQ-*"); NULL if unknown. */
const char *sw_gpu_source(const char *key);

#endif
