/*
 * Hardware counters of one point (--counters), through CUPTI's range
 * profiler: the point's launch is replayed once per pass the metrics need,
 * inside one user range, in launches apart from the timed ones. Counts global
 * load and store requests and sectors, shared-memory wavefronts and bank
 * conflicts, and DRAM bytes; or (--metrics) any metrics the chip has, by
 * the names ncu uses. Where profiling is unavailable (built without
 * CUPTI, no permission, an unsupported GPU) creation says why, and the caller
 * records that reason in every row. Never prints.
 */
#ifndef SW_COUNTERS_H
#define SW_COUNTERS_H

#include <cuda_runtime_api.h>

#include "core/figures.h"
#include "core/status.h"

struct sw_counters;

/* Sets up profiling on the current device (device_index, as cudaSetDevice
 * takes it), whose context must exist. SW_SKIP with the reason when counters
 * cannot be collected here; SW_ENOMEM. Destroy with sw_counters_destroy. */
enum sw_status sw_counters_create(int device_index, struct sw_counters **out, struct sw_err *err);

/* The same for the n metrics named (--metrics, as ncu names them), each
 * checked against the chip's own list first: SW_EINVAL for a name the chip
 * lacks, the message naming the nearest it has. SW_SKIP when counters
 * cannot be collected here; SW_ENOMEM. names are copied. */
enum sw_status sw_counters_create_named(int device_index, const char *const *names, int n,
					struct sw_counters **out, struct sw_err *err);

/* The unit of named metric i, as CUPTI gives it ("byte", "sector"); "" for
 * the fixed set or when unknown. Owned by c. */
const char *sw_counters_unit(const struct sw_counters *c, int i);

/* Safe on NULL; sets *c to NULL. */
void sw_counters_destroy(struct sw_counters **c);

/* What run enqueues on stream, once per pass; it must leave the stream
 * ready to replay (the same work, the same counts). */
typedef cudaError_t (*sw_counted_fn)(void *arg, cudaStream_t stream);

/* Counts one run of the work: before each pass, prepare (when not NULL) runs
 * outside the range (an L2 flush), then run inside it. SW_ECUDA when the work
 * itself failed (the caller decides whether the context survives); SW_SKIP
 * with CUPTI's reason when profiling failed but the GPU is fine. */
enum sw_status sw_counters_collect(struct sw_counters *c, cudaStream_t stream,
				   sw_counted_fn prepare, sw_counted_fn run, void *arg,
				   struct sw_counter_values *out, struct sw_err *err);

/* The same for a named set: values[i] (room for n) of metric i, and in
 * *passes the replays it took. */
enum sw_status sw_counters_collect_named(struct sw_counters *c, cudaStream_t stream,
					 sw_counted_fn prepare, sw_counted_fn run, void *arg,
					 double *values, int *passes, struct sw_err *err);

#endif
