/*
 * Every rank agrees before work: right after MPI_Init, each rank sums up
 * what it was started with (its options, its job text, the plan they make,
 * the plug-ins) and its own verdict on them, and the ranks compare those in
 * one collective call. Ranks started differently (MPMD halves with other
 * options, another job file) would otherwise part ways at the first rank
 * that leaves early, or run two plans into one file.
 */
#ifndef SW_AGREE_H
#define SW_AGREE_H

#include "job/cli.h"
#include "job/job.h"
#include "core/status.h"

/*
 * Collective over MPI_COMM_WORLD; every rank calls it once, whatever its
 * command line said. opt is this rank's parsed options, or NULL when
 * sw_cli_parse failed with `parsed` (its message in err). Loads the job and
 * builds its plan unless the options need none (--help, --version, --list).
 * On SW_OK *job is that job, --set applied (the caller owns it: sw_run takes
 * it, else sw_job_fini); zeroed when none was loaded or on a failure.
 *
 * Returns the same status on every rank: SW_OK when all agree and all are
 * fine; the shared failure, its message in err, when every rank failed the
 * same way (bad options or job: report it once, as before); SW_EINVAL when
 * ranks differ in their options, job text, plan or plug-ins, with err naming
 * the first rank that differs from rank 0 and what differs; or the worst
 * status when only their verdicts differ. Only rank 0 should print err.
 */
enum sw_status sw_agree_check(int argc, char **argv, const struct sw_options *opt,
			      enum sw_status parsed, struct sw_job *job, struct sw_err *err);

#endif
