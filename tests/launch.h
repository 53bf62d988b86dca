/*
 * What the end-to-end tests share: launching the sweep binary under mpirun
 * (paths from ctest's SW_MPIEXEC and SW_SWEEP), killing a whole run or one
 * rank of it, and reading a result file's rows back, waiting for a killed
 * writer's file lock to go.
 */
#ifndef SW_TEST_LAUNCH_H
#define SW_TEST_LAUNCH_H

#include <stdint.h>
#include <sys/types.h>

#include <hdf5.h>

/* The variable's value; exits with a message when ctest did not set it. */
const char *launch_env(const char *name);

/* Starts `mpirun -np NP --oversubscribe sweep ARGS...` (args NULL-ended),
 * stdout and stderr to log. */
pid_t launch_start(int np, const char *log, const char *const *args);
/* Exit code of the run (128 + signal when killed). */
int launch_finish(pid_t pid);
int launch_run(int np, const char *log, const char *const *args);

/* The rank processes of a run (mpirun's children: Open MPI puts each in a
 * process group of its own); returns how many, up to max. */
int launch_ranks(pid_t mpirun, pid_t *pids, int *ranks, int max);
/* kill -9 of mpirun and every rank; returns once they are gone. */
void launch_kill_all(pid_t mpirun);
/* Waits until path is larger than bytes: 0; -1 when the run ends first. */
int launch_wait_for_size(const char *path, off_t bytes, pid_t run);

/* The text of a (log) file, in a static buffer. */
const char *launch_slurp(const char *path);

/* Rows of a table; with ids, the point_id column (caller frees). Retries
 * the open while a killed writer's lock lingers; -1 when it never opens. */
hssize_t launch_rows(const char *path, const char *dataset, uint64_t **ids);

#endif
