/*
 * What the parts of a run share (private to run.c, setup.c, coord.c and
 * worker.c): one struct per rank, filled by the set-up stages in order.
 */
#ifndef SW_RUN_CTX_H
#define SW_RUN_CTX_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "job/cli.h"
#include "backend/device.h"
#include "core/faults.h"
#include "job/job.h"
#include "job/plan.h"
#include "core/status.h"

struct sw_h5;

struct sw_run {
	const struct sw_options *opt;
	int rank, size, session;
	struct sw_faults faults;
	struct sw_job job;
	struct sw_plan plan;
	const struct sw_backend *backend;
	void *backend_state;            /* this rank's */
	struct sw_device_info dev;      /* this rank's binding */
	struct sw_device_info *devices; /* every rank's, in rank order */
	int share_lock_fd;              /* --share-gpu: flock()ed around each point; -1 */
	uint32_t *todo;                 /* plan indices still to run, the same on every rank */
	size_t n_todo;
	double *cost_s; /* expected seconds of each plan point (cost.h), the same everywhere */
	size_t cost_sources[3]; /* rank 0: estimates by enum sw_cost_source */
	char path[4096];        /* the output */
	char cmdline[4096];     /* for the file's command_line attribute */
	struct sw_h5 *h5;       /* rank 0 */
};

/* Set by SIGINT/SIGTERM (and by rank 0 when the file cannot take rows):
 * stop taking points, keep what was measured. */
extern volatile sig_atomic_t sw_run_interrupted;

/* Ends stage s on every rank (collective): a rank whose status is bad says
 * so, naming itself and the stage; rank 0's message becomes err. Returns the
 * worst status, the same on every rank. */
enum sw_status sw_stage_end(const struct sw_run *r, enum sw_stage s, enum sw_status mine,
			    struct sw_err *err);

/* The set-up stages (setup.c), each collective, each ending in sw_stage_end. */
enum sw_status sw_setup_job(struct sw_run *r, struct sw_err *err);
enum sw_status sw_setup_backend(struct sw_run *r, struct sw_err *err);
enum sw_status sw_setup_plan(struct sw_run *r, struct sw_err *err);
/* Expected seconds of every plan point: from --costs, else rates learned
 * from the default result file when it exists, else bytes and flops. */
enum sw_status sw_setup_costs(struct sw_run *r, struct sw_err *err);
/* Static schedule: the rank of each of the n plan indices todo (NULL: the
 * whole plan), by expected cost (LPT), the same on every rank. The caller
 * frees it; NULL without memory. */
int *sw_setup_static_owners(const struct sw_run *r, const uint32_t *todo, size_t n);
enum sw_status sw_setup_bind(struct sw_run *r, struct sw_err *err);
enum sw_status sw_setup_open(struct sw_run *r, int argc, char **argv, struct sw_err *err);
/* --dry-run --resume (collective): rank 0 makes every check a resume
 * makes (sw_h5_check_resume), changing nothing; *n_done on rank 0: the
 * points already in the file. The worst status, on every rank. */
enum sw_status sw_setup_check_resume(struct sw_run *r, size_t *n_done, struct sw_err *err);
/* --dry-run (collective): what the backend can check without binding a
 * rank (backend.h, dry_check). The worst status, on every rank; rank 0's
 * message in err. */
enum sw_status sw_setup_dry_check(struct sw_run *r, struct sw_err *err);
/* Rank 0: the plan, as --dry-run prints it. */
void sw_setup_print_plan(const struct sw_run *r);
/* Releases what the set-up made; safe after any stage. */
void sw_setup_fini(struct sw_run *r);

#endif
