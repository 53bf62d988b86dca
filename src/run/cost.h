/*
 * Expected wall seconds of plan points, so a schedule can balance them:
 * a point's own duration from a durations table (--costs FILE) on a GPU of
 * the class asked about, else its duration there on any class, else its
 * variant's rate learned from any durations table, else its useful bytes
 * and flops at a nominal rate. Pure: reads no file and measures nothing;
 * each estimate says which of the three it came from.
 */
#ifndef SW_COST_H
#define SW_COST_H

#include <stddef.h>
#include <stdint.h>

#include "core/durations.h"
#include "job/plan.h"
#include "core/status.h"

/*
 * The nominal rate, for a point nothing is known about: a fixed cost per
 * point plus its useful bytes and flops at rates of *wall* time, not of the
 * GPU's peak: a point is filled, checked and timed dozens of times. Fitted
 * on the H200 full sweep (../shared/data/h200-full-2026-12-01.h5): 5 ms
 * and 40 GB/s about minimise the median log error over its 3265 ok points
 * (the shortest took 1.4 ms, the median 19 ms), and matmul's points took
 * 1e-11 s per flop. Within 3x for two thirds of those points, it ranks them
 * only roughly (Spearman 0.45): enough to batch short points and to start
 * big ones first; a table of real durations does far better.
 */
#define SW_COST_NOMINAL_POINT_S     5e-3
#define SW_COST_NOMINAL_BYTES_PER_S 40e9
#define SW_COST_NOMINAL_FLOPS_PER_S 100e9

enum sw_cost_source {
	SW_COST_NOMINAL,  /* useful bytes and flops at the nominal rate */
	SW_COST_LEARNED,  /* the variant's rate from a durations table */
	SW_COST_MEASURED, /* the point's own row in a durations table */
};
#define SW_COST_N_SOURCES 3

struct sw_cost {
	double expected_s;
	enum sw_cost_source source;
};

/* A point's duration from the table. */
struct sw_cost_known {
	uint64_t point_id;
	double wall_s;
};

/* A variant's learned rates: the median over its ok rows of wall seconds
 * per useful byte (rows with bytes), and per flop (rows with no bytes but
 * flops); NaN where it has no such row. */
struct sw_cost_rate {
	char family[SW_TEXT_LEN];
	char variant[SW_TEXT_LEN];
	double s_per_byte, s_per_flop;
};

/* A point's duration on one class: the model's classes[cls]. */
struct sw_cost_class_known {
	uint32_t cls;
	uint64_t point_id;
	double wall_s;
};

struct sw_cost_model {
	struct sw_cost_known *known; /* owned, sorted by point id, ids distinct */
	size_t n_known;
	/* owned: the class labels of the table's rows ("" left out), and the
	 * durations by class, sorted by class then point id, pairs distinct */
	char (*classes)[SW_DURATION_CLASS_LEN];
	size_t n_classes;
	struct sw_cost_class_known *class_known;
	size_t n_class_known;
	struct sw_cost_rate *rates; /* owned, sorted by family, then variant */
	size_t n_rates;
};

/*
 * Builds the model from rows (a durations table; concatenate tables to use
 * several, later rows win for a point id). Every row with a finite wall_s
 * >= 0 is known by id, and by id on its device_class when it has one,
 * skipped rows too (a refused point costs what it did);
 * only ok rows with wall_s > 0 teach rates. rows may be NULL when n is 0:
 * then every estimate is nominal. SW_OK or SW_ENOMEM (m is then empty).
 */
enum sw_status sw_cost_init(struct sw_cost_model *m, const struct sw_duration *rows, size_t n,
			    struct sw_err *err);

/* The same with the rates alone, no point known by id: for a table from
 * another job or GPU, whose points' own times are not this run's. */
enum sw_status sw_cost_init_rates(struct sw_cost_model *m, const struct sw_duration *rows, size_t n,
				  struct sw_err *err);

/* Frees the tables; m becomes empty. Safe on an empty or zeroed model. */
void sw_cost_fini(struct sw_cost_model *m);

/*
 * The expected seconds of one point, given its id, names, useful bytes and
 * flops: the known duration of point_id; else the variant's byte rate times
 * useful_bytes when both are > 0, else its flop rate times flops; else
 * SW_COST_NOMINAL_POINT_S + bytes / SW_COST_NOMINAL_BYTES_PER_S + flops /
 * SW_COST_NOMINAL_FLOPS_PER_S (a non-finite or negative count is 0).
 */
struct sw_cost sw_cost_estimate(const struct sw_cost_model *m, uint64_t point_id,
				const char *family, const char *variant, double useful_bytes,
				double flops);

/*
 * The same on a GPU of class cls (a /devices device_class label; NULL or
 * "" is any class): the duration of point_id on that class when the table
 * has one, else as sw_cost_estimate. Both say SW_COST_MEASURED.
 */
struct sw_cost sw_cost_estimate_on(const struct sw_cost_model *m, const char *cls,
				   uint64_t point_id, const char *family, const char *variant,
				   double useful_bytes, double flops);

/* Whether the table knows some point's duration on class cls. */
int sw_cost_knows_class(const struct sw_cost_model *m, const char *cls);

/* Whether the table knows point_id's own duration on class cls. */
int sw_cost_knows_point_on(const struct sw_cost_model *m, const char *cls, uint64_t point_id);

/* sw_cost_estimate(_on class cls) of a plan point, with the family's
 * useful_bytes and flops formulas (a formula left NULL counts 0). */
struct sw_cost sw_cost_point(const struct sw_cost_model *m, const struct sw_plan_point *pt);
struct sw_cost sw_cost_point_on(const struct sw_cost_model *m, const char *cls,
				const struct sw_plan_point *pt);

/*
 * expected_s[i] of plan point todo[i] for i < n (todo NULL: every point of
 * the plan, n = plan->n), and, when n_by_source is not NULL, how many
 * estimates came from each source (indexed by enum sw_cost_source). The
 * caller owns expected_s (n doubles); indices must be below plan->n.
 */
void sw_cost_todo(const struct sw_cost_model *m, const struct sw_plan *plan, const uint32_t *todo,
		  size_t n, double *expected_s, size_t *n_by_source);
/* The same on class cls. */
void sw_cost_todo_on(const struct sw_cost_model *m, const char *cls, const struct sw_plan *plan,
		     const uint32_t *todo, size_t n, double *expected_s, size_t *n_by_source);

/* "from --costs", "learned rates", "bytes and flops": for a dry run. */
const char *sw_cost_source_name(enum sw_cost_source s);

#endif
