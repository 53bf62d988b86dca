/*
 * MPI discipline for the run's parts: every call's result is checked.
 * sw_mpi_init sets MPI_ERRORS_RETURN before the first collective, so a
 * failure comes back as a code instead of killing the job unexplained.
 * CHECK_MPI records file, line, the call and MPI_Error_string and returns a
 * status, so the goto stays at the call site. sw_mpi_must is for calls after
 * whose failure this rank cannot reach the next collective: it prints the
 * reason and aborts the job, so no other rank waits forever.
 */
#ifndef SW_COMM_H
#define SW_COMM_H

#include <mpi.h>

#include "core/status.h"

/* Message tags between a worker and rank 0's coordinator. */
enum sw_tag { SW_TAG_RECORD = 1, SW_TAG_REQUEST, SW_TAG_WORK, SW_TAG_RETURN, SW_TAG_BYE };

#define CHECK_MPI(call, err) sw_mpi_check((call), #call, __FILE__, __LINE__, (err))
#define MUST_MPI(call)       sw_mpi_must((call), #call, __FILE__, __LINE__)

/* Starts MPI with MPI_THREAD_SERIALIZED (rank 0's coordinator serves on a
 * thread of its own, coord.h) and sets MPI_ERRORS_RETURN on MPI_COMM_WORLD
 * before any collective call; *rank: this rank in it. Collective. SW_OK, or
 * SW_EMPI when MPI could not start (err says why; nothing to finalize then).
 * A failure once MPI runs aborts the job: no rank could report it. */
enum sw_status sw_mpi_init(int *argc, char ***argv, int *rank, struct sw_err *err);

/* Finalizes MPI (collective). Returns st, or the worse of st and SW_EMPI
 * when MPI_Finalize fails; that failure is said on stderr, naming rank,
 * since no rank can gather it afterwards. */
enum sw_status sw_mpi_fini(int rank, enum sw_status st);

/* SW_OK for MPI_SUCCESS; else SW_EMPI with where and why in err. */
enum sw_status sw_mpi_check(int rc, const char *call, const char *file, int line,
			    struct sw_err *err);

/* Returns on MPI_SUCCESS; else prints the failure and calls MPI_Abort. */
void sw_mpi_must(int rc, const char *call, const char *file, int line);

/* Ends every rank of the job with exit code code: for a rank that cannot
 * reach the next collective call. Never returns, even where MPI_Abort would. */
_Noreturn void sw_mpi_abort(int code);

/* Collective over MPI_COMM_WORLD: the worst status of all ranks, the same on
 * every rank. A failed reduction aborts: ranks could not agree otherwise. */
enum sw_status sw_mpi_worst(enum sw_status mine);

/* Waits for req without spinning a core: tests, sleeping a little longer
 * each time (up to 1 ms), so idle ranks leave the CPU to those that work. */
void sw_mpi_wait_idle(MPI_Request *req, MPI_Status *st);

/* A sleep for polling loops that found nothing: *idle counts the empty
 * rounds in a row, and the pause grows with it from 20 us to 1 ms. */
void sw_idle_pause(int *idle);

#endif
