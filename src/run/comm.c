/* Checked MPI calls, the worst-status reduction and waiting without spinning. */
#define _POSIX_C_SOURCE 200809L
#include "run/comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum sw_status sw_mpi_init(int *argc, char ***argv, int *rank, struct sw_err *err)
{
	int provided = MPI_THREAD_SINGLE;
	enum sw_status st =
		CHECK_MPI(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided), err);
	if (st != SW_OK)
		return st;
	/* before the agreement's collectives, so their checks can fire */
	MUST_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	MUST_MPI(MPI_Comm_rank(MPI_COMM_WORLD, rank));
	return SW_OK;
}

enum sw_status sw_mpi_fini(int rank, enum sw_status st)
{
	struct sw_err err = { 0 };
	if (CHECK_MPI(MPI_Finalize(), &err) == SW_OK)
		return st;
	fprintf(stderr, "sweep: rank %d: %s\n", rank, err.msg);
	return st > SW_EMPI ? st : SW_EMPI;
}

enum sw_status sw_mpi_check(int rc, const char *call, const char *file, int line,
			    struct sw_err *err)
{
	if (rc == MPI_SUCCESS)
		return SW_OK;
	char why[MPI_MAX_ERROR_STRING] = "";
	int len = 0;
	if (MPI_Error_string(rc, why, &len) != MPI_SUCCESS)
		snprintf(why, sizeof why, "MPI error %d", rc);
	return sw_fail(err, SW_EMPI, "%s failed (%s:%d): %s", call, file, line, why);
}

void sw_mpi_must(int rc, const char *call, const char *file, int line)
{
	struct sw_err err = { 0 };
	if (sw_mpi_check(rc, call, file, line, &err) == SW_OK)
		return;
	int rank = -1;
	if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS)
		rank = -1; /* the message goes out all the same */
	fprintf(stderr, "sweep: rank %d: %s; aborting the job\n", rank, err.msg);
	sw_mpi_abort(sw_status_exit_code(SW_EMPI));
}

void sw_mpi_abort(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
	_Exit(code); /* the standard lets MPI_Abort return; this rank stops here anyway */
}

enum sw_status sw_mpi_worst(enum sw_status mine)
{
	int in = (int)mine, out = (int)SW_EMPI;
	MUST_MPI(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	return (enum sw_status)out;
}

void sw_idle_pause(int *idle)
{
	long ns = 20000L << (*idle < 6 ? *idle : 6); /* 20 us .. 1.28 ms */
	if (ns > 1000000L)
		ns = 1000000L;
	(*idle)++;
	nanosleep(&(struct timespec){ 0, ns }, NULL);
}

void sw_mpi_wait_idle(MPI_Request *req, MPI_Status *st)
{
	int flag = 0, idle = 0;
	for (;;) {
		MUST_MPI(MPI_Test(req, &flag, st ? st : MPI_STATUS_IGNORE));
		if (flag)
			return;
		sw_idle_pause(&idle);
	}
}
