/*
 * A run's set-up, stage by stage, on every rank: the job, the backend, the
 * plan, the points' expected times, binding and the output, each stage
 * collective and each ending in one reduction, so one rank's failure stops
 * every rank at the same point. It fills the rank's context (rank_ctx.h);
 * running the points is coord.h's and worker.h's.
 */
#ifndef SW_SETUP_H
#define SW_SETUP_H

#include <stddef.h>

#include "core/status.h"
#include "h5/h5out.h"
#include "run/rank_ctx.h"

/* Collective, in this order; each returns the worst status over the ranks,
 * the same on every rank, rank 0's message in err. */
enum sw_status sw_setup_job(struct sw_rank_ctx *r, struct sw_err *err);
enum sw_status sw_setup_backend(struct sw_rank_ctx *r, struct sw_err *err);
enum sw_status sw_setup_plan(struct sw_rank_ctx *r, struct sw_err *err);
/* Expected seconds of every plan point: from --costs, else rates learned
 * from the default result file when it exists, else bytes and flops. */
enum sw_status sw_setup_costs(struct sw_rank_ctx *r, struct sw_err *err);
enum sw_status sw_setup_bind(struct sw_rank_ctx *r, struct sw_err *err);
enum sw_status sw_setup_open(struct sw_rank_ctx *r, int argc, char **argv, struct sw_err *err);
/* What --dry-run --resume (or --extend) found, on rank 0. */
struct sw_dry_resume {
	size_t n_done;           /* points in the file, damaged rows aside */
	struct sw_h5_damage dmg; /* what those are */
	int placed;              /* the work is runs (pairs), sw_setup_placed: */
	size_t runs, runs_left;  /* the runs this run makes, those the file lacks */
};

/* 1 when the run's work is pairs (a point on a GPU or a class): a
 * placement other than once, or calibration points. */
int sw_setup_placed(const struct sw_rank_ctx *r);

/* --dry-run --resume (collective): rank 0 makes every check a resume
 * makes (sw_h5_check_resume), changing nothing; under a placement the
 * ranks bind as the run would (sw_setup_bind, refused where it would be)
 * and rank 0 counts the runs the file lacks. The worst status, on every
 * rank. */
enum sw_status sw_setup_check_resume(struct sw_rank_ctx *r, struct sw_dry_resume *d,
				     struct sw_err *err);
/* --dry-run of a new file (collective): every check the run makes of its
 * output before writing it (sw_h5_check_create), changing nothing. */
enum sw_status sw_setup_check_output(struct sw_rank_ctx *r, struct sw_err *err);
/* --dry-run (collective): what the backend can check without binding a
 * rank (backend.h, dry_check). The worst status, on every rank; rank 0's
 * message in err. */
enum sw_status sw_setup_dry_check(struct sw_rank_ctx *r, struct sw_err *err);
/* Rank 0: the plan, as --dry-run prints it. */
void sw_setup_print_plan(const struct sw_rank_ctx *r);
/* Releases what the set-up made; safe after any stage. */
void sw_setup_fini(struct sw_rank_ctx *r);

#endif
