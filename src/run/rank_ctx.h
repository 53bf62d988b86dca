/*
 * What the parts of a run share on one rank (private to run.c, setup.c,
 * coord.c and worker.c): one context per rank, filled by the set-up stages
 * (setup.h) in order.
 */
#ifndef SW_RANK_CTX_H
#define SW_RANK_CTX_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "job/cli.h"
#include "backend/device.h"
#include "core/faults.h"
#include "job/job.h"
#include "job/plan.h"
#include "run/place.h"

struct sw_h5;
struct sw_cost_model;

struct sw_rank_ctx {
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
	enum sw_placement placement;    /* the job's, or --placement */
	struct sw_place place;          /* classes and groups of the ranks, after binding */
	/* the pairs still to run, the same on every rank: plan index todo[i]
	 * for owner[i] (place.h: a group, or one rank's calibration point) */
	uint32_t *todo;
	int32_t *owner;
	size_t n_todo;
	size_t gpus_absent, gpus_new; /* rank 0, a resume: place.h, sw_place_gpu_changes */
	double *cost_s; /* expected seconds of each plan point (cost.h), the same everywhere */
	/* after binding, when --costs has times of some class of the run or the
	 * time model carries them to a class's GPU: each class's row of plan.n
	 * expected seconds on a GPU of it (class_cost.h), the same everywhere;
	 * NULL: cost_s for every class */
	double *class_cost_s;
	struct sw_cost_model *costs;    /* rank 0, until binding: the model of cost_s */
	const struct sw_gpu *costs_gpu; /* rank 0: the GPU its table's rows ran on; NULL: unknown */
	size_t cost_sources[3];         /* rank 0: estimates by enum sw_cost_source */
	char path[4096];                /* the output */
	char cmdline[4096];             /* for the file's command_line attribute */
	struct sw_h5 *h5;               /* rank 0 */
	struct sw_time_plan time;       /* the time model's rates and transfer (time_setup.h) */
	int time_built;                 /* time is built: once, by a dry run's checks or binding */
};

/* The expected seconds of plan points for the ranks of owner (place.h):
 * its class's when it has one and they are known, else cost_s. */
static inline const double *sw_rank_costs(const struct sw_rank_ctx *r, int32_t owner)
{
	int c = r->class_cost_s ? sw_place_owner_class(&r->place, owner) : -1;
	return c >= 0 ? r->class_cost_s + (size_t)c * r->plan.n : r->cost_s;
}

/* Set by SIGINT/SIGTERM (and by rank 0 when the file cannot take rows):
 * stop taking points, keep what was measured. */
extern volatile sig_atomic_t sw_run_interrupted;

#endif
