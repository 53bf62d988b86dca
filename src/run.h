/*
 * A whole sweep across MPI ranks: load the job, build the plan, bind GPUs,
 * schedule points, gather records to rank 0 and write them. Collective over
 * MPI_COMM_WORLD: every rank calls sw_run with the same options.
 */
#ifndef SW_RUN_H
#define SW_RUN_H

#include "cli.h"
#include "status.h"

/* Collective. Returns the worst status over all ranks (same on every rank);
 * rank 0 has printed what went wrong. */
enum sw_status sw_run(const struct sw_options *opt, int argc, char **argv, struct sw_err *err);

/* Collective, before --list or sw_run: loads opt's --plugin files (none when
 * opt is NULL) on every rank, and agrees on the worst of that and `parsed`
 * (this rank's option parse). A rank other than 0 that failed prints its
 * message naming itself; ranks whose plug-ins differ from rank 0's (family
 * names, file contents) fail with SW_EINVAL naming the first such rank. */
enum sw_status sw_setup_plugins(const struct sw_options *opt, enum sw_status parsed, int rank,
				struct sw_err *err);

#endif
