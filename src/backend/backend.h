/*
 * The backend seam: what runs a point on one rank. The run's parts schedule,
 * gather and write, and never ask which backend they run; each backend is
 * one table of function pointers filled with designated initialisers, NULL
 * meaning "not supported". A backend owns everything per rank it needs (a
 * GPU context, buffers, a replayed file) and fills a record's measured or
 * predicted fields; the run fills its identity and decides refusals.
 */
#ifndef SW_BACKEND_H
#define SW_BACKEND_H

#include <signal.h>

#include "job/cli.h"
#include "backend/device.h"
#include "job/job.h"
#include "job/plan.h"
#include "core/record.h"
#include "core/status.h"
#include "model/time_plan.h"

/* Records a backend's run may complete in one call, and keep after it. */
#define SW_BACKEND_MAX_DONE 260
#define SW_BACKEND_MAX_KEPT 257

/* What opening a backend on one rank gets. */
struct sw_backend_args {
	const struct sw_options *opt;
	const struct sw_job *job;
	const char *arg;      /* --backend NAME=ARG's ARG, or NULL */
	int rank, local_rank; /* in MPI_COMM_WORLD, and among the ranks of this node */
	int size;             /* ranks in MPI_COMM_WORLD */
	/* Nonzero once the run is stopping (SIGINT, SIGTERM, a file that takes
	 * no more rows): a backend that can wait long inside one point (the
	 * replay backend's sleep) looks at it at least every 50 ms and gives
	 * the point up. NULL: never set. */
	const volatile sig_atomic_t *stop;
	/* The run's time model: rates per GPU, the transfer's points. */
	const struct sw_time_plan *time;
};

struct sw_backend {
	const char *name; /* the rows' and the device table's `backend` value */
	const char *about;
	/* Rows are timings of real runs (the sweep efficiency line counts them). */
	int measures;
	/* The plan repeats every point for each of the job's CCs (a model row
	 * predicts for a target, not for the device it ran on). */
	int model_targets;
	/* --counters works with it. */
	int counters;
	/* Nonzero when this rank can run it; NULL: always. */
	int (*available)(void);
	/* Binds this rank: fills dev (for /devices) and makes *state. A status
	 * and a message that says what failed, never printed here. */
	enum sw_status (*open)(const struct sw_backend_args *a, struct sw_device_info *dev,
			       void **state, struct sw_err *err);
	/* What --dry-run can check without binding the rank (cuda: the
	 * --metrics names against the GPU's own list). May be NULL. */
	enum sw_status (*dry_check)(const struct sw_backend_args *a, struct sw_err *err);
	/* A warning the run prints once after open (counters unavailable...),
	 * or NULL. May be NULL. */
	const char *(*note)(void *state);
	/* Runs point pt into rec, whose identity is filled. Returns in done[]
	 * (at most SW_BACKEND_MAX_DONE, in the order their points ran) the
	 * records that are complete now: rec itself, or earlier ones whose CPU
	 * checks ran meanwhile (a record is kept until a later call or settle
	 * returns it, and must stay untouched; at most SW_BACKEND_MAX_KEPT
	 * after a call). A point that fails is a row with its reason, and
	 * SW_OK. SW_SKIP: the point was given up because the run is stopping
	 * (*stop): rec is not kept and is no row, the point stays missing for
	 * --resume (done may still hold earlier records). Any other status
	 * means this rank can take no more points (err says why). */
	enum sw_status (*run)(void *state, const struct sw_plan_point *pt, struct sw_record *rec,
			      struct sw_record **done, int *n_done, struct sw_err *err);
	/* The oldest record still kept, complete now, or NULL: called until
	 * NULL to settle them all. May be NULL. */
	struct sw_record *(*settle)(void *state);
	/* Safe on a NULL *state; sets it to NULL. */
	void (*close)(void **state);
};

/* One per line of backend_list.h (replay is a test instrument). */
#define X(name, arg, about) extern const struct sw_backend sw_backend_##name;
#include "core/backend_list.h"
#undef X

/* The backend --backend names; NULL when unknown. */
const struct sw_backend *sw_backend_find(const char *name);

/* The model's figures for rec's point on cc, into rec (the cuda backend
 * adds them to measured rows, the model backend's rows are them). A status
 * other than SW_OK with the reason when the variant is not modelled or cc
 * has no rules. */
enum sw_status sw_backend_add_model(const struct sw_plan_point *pt, int cc, int kepler_bank_bytes,
				    struct sw_record *rec, struct sw_err *err);
/* The same, keeping the figures in *m for the time model. */
enum sw_status sw_backend_add_model_kept(const struct sw_plan_point *pt, int cc,
					 int kepler_bank_bytes, struct sw_record *rec,
					 struct sw_model_figures *m, struct sw_err *err);
/* A row's model columns for the GPU it ran on or emulates (the cuda and
 * replay backends): the model's figures for rec's CC in its default bank
 * mode, the bound at peak_gbps (GB/s; 0: none) and, where gpu (the time
 * model's entry of the GPU; NULL: the table lacks it) has that CC, its
 * predicted time from tp. Nothing where the model has no rules for the CC
 * or the variant. */
void sw_backend_add_gpu_model(const struct sw_plan_point *pt, double peak_gbps,
			      const struct sw_gpu *gpu, const struct sw_time_plan *tp,
			      struct sw_record *rec);

#endif
