/*
 * The cuda backend: runs one point on the bound GPU. Fills fresh random
 * input, launches once and checks the output against the CPU reference, then
 * warms up and takes CUDA-event samples until the relative standard error of
 * the mean is under the target or the time cap is hit, flushing L2 before
 * each sample when the working set could fit in it. Owns the device buffers
 * (kept between points, grown on demand), stream and events.
 */
#ifndef SW_MEASURE_H
#define SW_MEASURE_H

#include "backend/device.h"
#include "job/job.h"
#include "kernel.h"
#include "core/record.h"
#include "core/status.h"

/* The measurement method's version, in every file (measure_method): 1 took
 * samples past time_cap_s and flushed L2 by a memset; 2 bounds a point by
 * the cap and flushes by reading. A resume across methods is refused. */
#define SW_MEASURE_METHOD 2

struct sw_measure;

enum sw_status sw_measure_create(const struct sw_device_info *dev, struct sw_measure **out,
				 struct sw_err *err);
void sw_measure_destroy(struct sw_measure **g);

/* --counters: every later point also counts one launch of its own, after its
 * timing (counters.h). Never fails: where counters cannot be collected, each
 * row says why, and so does sw_measure_counters_unavailable (NULL when they can,
 * or were not asked for). */
void sw_measure_use_counters(struct sw_measure *g);
const char *sw_measure_counters_unavailable(const struct sw_measure *g);

/* --metrics: every later point also counts the n named CUPTI metrics, in
 * launches of their own after its timing, into rec->metrics. The names are
 * checked on this GPU now: SW_EINVAL for one it lacks (naming the nearest
 * it has), SW_ECUDA when counters are unavailable here (err says why). */
enum sw_status sw_measure_use_metrics(struct sw_measure *g, const char *const *names, int n,
				      struct sw_err *err);
/* The same check alone, on GPU device_index, for a dry run: creates the
 * device's context, binds nothing, keeps nothing. */
enum sw_status sw_measure_check_metrics(int device_index, const char *const *names, int n,
					struct sw_err *err);

/* Runs point p of family f and fills the timing, check and clock fields of
 * rec, check included (synchronous). A point that fails on the GPU is
 * recorded as failed, with the CUDA error text, and SW_OK is returned;
 * SW_ECUDA means the context is no longer usable and the rank must stop
 * taking points. */
enum sw_status sw_measure_run_point(struct sw_measure *g, const struct sw_family *f,
				    const struct sw_point *p, const struct sw_measure_cfg *cfg,
				    struct sw_record *rec, struct sw_err *err);

/* Most records one call of sw_measure_start_point completes. */
#define SW_MEASURE_MAX_DONE 260

/* The same, pipelined: runs p on the GPU and leaves its CPU check running on
 * a thread while the caller starts the next points, up to
 * SW_CHECKS_IN_FLIGHT checks at once (checks.h). rec stays untouched until
 * a call returns it. done[0 .. *n_done - 1]: the records complete now, in
 * the order their points started (rec among them only when every earlier
 * one is complete and rec's check has returned or had nothing to check). */
enum sw_status sw_measure_start_point(struct sw_measure *g, const struct sw_family *f,
				      const struct sw_point *p, const struct sw_measure_cfg *cfg,
				      struct sw_record *rec, struct sw_record **done, int *n_done,
				      struct sw_err *err);

/* Waits for the oldest queued check; returns its completed record, or NULL
 * when none is queued (call it until NULL to settle all). Safe on NULL. */
struct sw_record *sw_measure_settle(struct sw_measure *g);

#endif
