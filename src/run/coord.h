/*
 * Rank 0's coordinator: hands out points on request, takes back those a
 * stopped rank could not run, receives every record and writes it. Where
 * MPI grants MPI_THREAD_SERIALIZED it serves on a thread of its own, so a
 * worker never waits while rank 0 measures a long point of its own; rank 0's
 * own worker reaches it through direct calls (a local channel). Without that
 * thread level, it serves whenever rank 0's worker calls it, between points.
 */
#ifndef SW_COORD_H
#define SW_COORD_H

#include <stddef.h>

#include "run/rank_ctx.h"
#include "core/status.h"
#include "run/worker.h"

struct sw_coord;

struct sw_coord_totals {
	size_t written;               /* rows appended */
	size_t counts[4];             /* by enum sw_row_status */
	size_t unchecked;             /* ok rows no CPU check compared (check_mode "none") */
	size_t untimed;               /* device-target rows the time model gave no time */
	char untimed_why[SW_MSG_LEN]; /* the first one's reason */
	double timed_s;               /* GPU time in timed samples, all ranks */
	size_t unrun; /* pairs left for --resume: returned with no rank to take them */
};

/* Rank 0, after the output is open. dynamic: points go out on request;
 * otherwise each rank runs its static share and the dispenser holds only
 * what stopped ranks give back. */
enum sw_status sw_coord_start(struct sw_rank_ctx *r, int dynamic, struct sw_coord **out,
			      struct sw_err *err);

/* Rank 0's own worker's channel to the coordinator. */
void sw_coord_channel(struct sw_coord *co, struct sw_channel *ch);

/* Serves until every worker (rank 0's too) said bye, then stops and frees
 * the coordinator; *co becomes NULL. Returns the writing status (SW_OK, or
 * why rows could not be kept, in err). */
enum sw_status sw_coord_finish(struct sw_coord **co, struct sw_coord_totals *t, struct sw_err *err);

#endif
