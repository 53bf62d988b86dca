/*
 * What the end-to-end tests share: launching the sweep binary under mpirun
 * (paths from ctest's SW_MPIEXEC and SW_SWEEP), killing a whole run or one
 * rank of it, and reading a result file's rows back, plainly or as a SWMR
 * reader, waiting for a killed writer's file lock to go.
 */
#ifndef SW_TEST_LAUNCH_H
#define SW_TEST_LAUNCH_H

#include <stdint.h>
#include <sys/types.h>

#include <check.h>
#include <hdf5.h>

/* The variable's value; exits with a message when ctest did not set it. */
const char *launch_env(const char *name);

/* Starts `mpirun -np NP --oversubscribe sweep ARGS...` (args NULL-ended),
 * stdout and stderr to log. */
pid_t launch_start(int np, const char *log, const char *const *args);
/* Starts `sweep ARGS...` alone, without mpirun (an MPI singleton, as a user
 * or a batch script runs it), stdout and stderr to log. */
pid_t launch_start_alone(const char *log, const char *const *args);
/* Exit code of the run (128 + signal when killed). */
int launch_finish(pid_t pid);
/* The same, or -1 when it runs past limit_s (it is then killed with
 * SIGKILL, and reaped): the bound of a test, never its measure. */
int launch_finish_within(pid_t pid, double limit_s);
int launch_run(int np, const char *log, const char *const *args);

/* The rank processes of a run (mpirun's children: Open MPI puts each in a
 * process group of its own); returns how many, up to max. */
int launch_ranks(pid_t mpirun, pid_t *pids, int *ranks, int max);
/* kill -9 of mpirun and every rank; returns once they are gone. */
void launch_kill_all(pid_t mpirun);

/* Runs suite s in this process (CK_NOFORK: the tests launch mpirun) and
 * removes dir when every test passed, keeping it, and saying so, when one
 * failed. Returns the exit code for main: 0, or 1. */
int launch_run_suite(Suite *s, const char *dir);

/* The text of a (log) file, in a static buffer. */
const char *launch_slurp(const char *path);

/* The whole of a file (caller frees), NUL-ended; *len its bytes where len
 * is not NULL. Fails the test when it cannot be read. */
char *launch_read_file(const char *path, size_t *len);

/* Writes text to path; fails the test when it cannot. */
void launch_write_text(const char *path, const char *text);

/* A new directory sweep-NAME-XXXXXX under TMPDIR (else /tmp) into dir;
 * 0, or -1 with errno when it cannot be made. */
int launch_make_tmpdir(char *dir, size_t len, const char *name);

/* Rows of a table; with ids, the point_id column (caller frees). Retries
 * the open while a killed writer's lock lingers; -1 when it never opens.
 * launch_rows opens the file as any reader does, which HDF5 refuses while
 * a sweep writes it or after one was killed (the consistency flags are
 * set); launch_rows_swmr opens it as a SWMR reader, which reads those too. */
hssize_t launch_rows(const char *path, const char *dataset, uint64_t **ids);
hssize_t launch_rows_swmr(const char *path, const char *dataset, uint64_t **ids);

/* Rows a SWMR reader sees in path now: written rows, fill rows (allocated,
 * never written: point id UINT64_MAX) aside; -1 when it cannot be read. */
hssize_t launch_rows_seen(const char *path);
/* Waits until a SWMR reader sees at least min rows of path (min 0: until it
 * opens the file at all); returns how many it saw, or -1 when the run ends
 * first. Not the file's size: HDF5 writes a flush's raw chunks before the
 * metadata that makes them rows, so a file past any size can still show a
 * reader no row at all. */
hssize_t launch_wait_for_rows(const char *path, hssize_t min, pid_t run);

/* Keeps the rows of table whose point_id is one of ids[0..n_ids), in their
 * order, and shrinks it: the file as a run of those points alone wrote it
 * (other tables as they were). How many rows are left; fails the test
 * when the file cannot be changed. */
size_t launch_keep_rows(const char *path, const char *table, const uint64_t *ids, size_t n_ids);

/* The points of jobs/fleet.yaml before it grew (git 49b7bd2: 9 points, a
 * course read at strides 1 and 8, an aligned read, two bank strides, the
 * tiled and cuBLAS matmuls, two reductions): a fleet file of fleet (a
 * docs/results/h100-fleet.h5) as that job made it, written at to, its
 * /measurements those points' rows alone. How many rows it holds. */
size_t launch_old_fleet(const char *fleet, const char *to);

/* One column of a table, every row, into a new buffer of elem bytes a row
 * (caller frees): type a native number type, or H5I_INVALID_HID for a fixed
 * string of elem bytes; *n rows. Fails the test when it cannot be read. */
void *launch_column(const char *path, const char *table, const char *name, hid_t type, size_t elem,
		    size_t *n);

/* 1 when a plain read-only open of path fails: the consistency flags of a
 * live or killed writer are set. One try, no waiting. */
int launch_flags_set(const char *path);

/* `h5clear -s` then `h5dump -H` of a copy of path, the HDF5 convention for
 * a file a killed writer left: 0 when h5dump reads it, 77 when the HDF5
 * tools are not installed, else the failing command's status. */
int launch_h5clear_h5dump(const char *path);

#endif
