/*
 * The worker loop every rank runs, rank 0 included: takes points (its own
 * static share, or batches asked for ahead), runs each on the backend, and
 * hands each finished record on. It talks to rank 0's coordinator through a
 * channel: MPI messages on a worker rank, direct calls on rank 0 itself.
 */
#ifndef SW_WORKER_H
#define SW_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"
#include "run/rank_ctx.h"
#include "core/status.h"

/* How a worker reaches the coordinator. */
struct sw_channel_ops {
	/* Asks for up to want more points; one ask is outstanding at a time. */
	void (*ask)(void *impl, int want);
	/* The answer to the outstanding ask: 1 with *n points in idx (0: none
	 * left, ever), or 0 when it has not come yet; block waits for it. */
	int (*reply)(void *impl, int block, uint32_t *idx, int max, int *n);
	/* A finished record; the channel copies what it needs before returning. */
	void (*record)(void *impl, const struct sw_record *rec);
	/* Sends the records held back so far (before a long point). */
	void (*flush)(void *impl);
	/* Points this rank took but will not run. */
	void (*give_back)(void *impl, const uint32_t *idx, int n);
	/* The rank's last word: nothing more comes from it. */
	void (*bye)(void *impl);
};

struct sw_channel {
	const struct sw_channel_ops *ops;
	void *impl;
};

/* A record as it travels: everything up to the samples, then the samples it
 * has. Records are packed back to back in one message. */
static inline size_t sw_record_wire_bytes(const struct sw_record *rec)
{
	uint32_t n = rec->n_samples < SW_MAX_SAMPLES ? rec->n_samples : SW_MAX_SAMPLES;
	return offsetof(struct sw_record, samples_ns) + n * sizeof rec->samples_ns[0];
}

/* Points asked for at most at once. */
#define SW_WORKER_MAX_BATCH 64
/* A worker asks for more when less than this much expected work is queued
 * past the point it runs, and an answer holds about this much: a long point
 * goes alone, short ones in batches, so rank 0 serves few requests and no
 * worker sits on long points another could run. */
#define SW_WORKER_AHEAD_S 0.05

/* Runs this rank's share of r->todo. Returns SW_OK, or the status that
 * stopped this rank taking points (its backend failed), with the reason in
 * err; its points went back to the coordinator either way. */
enum sw_status sw_worker_run(struct sw_rank_ctx *r, const struct sw_channel *ch, int dynamic,
			     struct sw_err *err);

/* A worker rank's channel to rank 0, over MPI (the records' sends stay in
 * flight while the next point runs). */
enum sw_status sw_channel_mpi_open(struct sw_channel *ch, struct sw_err *err);
void sw_channel_mpi_close(struct sw_channel *ch);

#endif
