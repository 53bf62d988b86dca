/*
 * A whole sweep across MPI ranks: build the plan of the agreed job, bind GPUs,
 * schedule points, gather records to rank 0 and write them. Collective over
 * MPI_COMM_WORLD: every rank calls sw_run with the same options.
 */
#ifndef SW_RUN_H
#define SW_RUN_H

#include "job/cli.h"
#include "job/job.h"
#include "core/status.h"

/* Collective. job: the job the ranks agreed on (sw_agree_check), which the
 * run takes over (*job is zeroed). Returns the worst status over all ranks
 * (same on every rank); rank 0 has printed what went wrong. */
enum sw_status sw_run(const struct sw_options *opt, struct sw_job *job, int argc, char **argv,
		      struct sw_err *err);

#endif
