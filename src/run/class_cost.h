/*
 * Each device class's expected point times (docs/job-format.md, `--costs`):
 * a point's own duration on the class where --costs has one; else the cost
 * table's estimate carried to the GPU the class is or emulates by the time
 * model, times its predicted time there over its predicted time on the
 * table's GPU. Never the recording a class replays: that would schedule by
 * the times being measured. The time model predicts a kernel's median, not
 * a point's wall time (its fill, check and samples), so it scales the
 * table's wall time rather than replacing it; a point it does not cover
 * (term none), a GPU it does not know or the table's own GPU keep the
 * table's estimate (today's per-variant rates without --costs). Rank 0;
 * never prints.
 */
#ifndef SW_CLASS_COST_H
#define SW_CLASS_COST_H

#include "model/time_plan.h"
#include "run/cost.h"

/* How a class's expected times were made: how many points each way. */
struct sw_class_basis {
	size_t own;     /* --costs's duration of the point on the class */
	size_t carried; /* the table's estimate carried to the class's GPU by the time model */
	size_t kept;    /* the table's estimate as it is */
};

/* The time model's entry of the one GPU a cost table's rows ran on (their
 * device_class, a driver's name), or NULL when they name none the table
 * knows, or several. */
const struct sw_gpu *sw_class_cost_table_gpu(const struct sw_duration *rows, size_t n);

/* t[0..plan->n): the expected seconds of every plan point on a GPU of
 * class cls (a /devices device_class label), gpu the time model's entry of
 * the GPU it is or emulates (NULL: none), from m, whose rows ran on
 * table_gpu (NULL: unknown), and the run's time model tp; *b says how. */
void sw_class_cost_times(const struct sw_cost_model *m, const struct sw_gpu *table_gpu,
			 const struct sw_time_plan *tp, const struct sw_plan *plan, const char *cls,
			 const struct sw_gpu *gpu, double *t, struct sw_class_basis *b);

#endif
