/*
 * The test-only fault switch, SW_TEST_FAULT, so tests can make a run fail
 * where real failures are rare: `dead:ID` (this rank's backend dies on
 * point ID; `dead:ID:FILE` also holds rank 0's worker before its first
 * point until FILE exists, so a test can let the other ranks finish their
 * shares first), `stage:NAME` or `stage:NAME@RANK` (the stage fails on every
 * rank where it runs, or on RANK only), and for the writer (h5out.c):
 * `publish-wait:FILE` (creation pauses, holding its lock, before it gives
 * the file its name, until FILE exists), `close-wait:FILE` (the end of a
 * session, before its last flush, waits until FILE exists, so a test can
 * give the output's name to another file first), `enospc:ROWS` (a flush that
 * would take /measurements past ROWS rows fails as a full disk would) and
 * `full:MOMENT` (the disk is full at MOMENT: `create`, `resume`, `swmr`,
 * `flush` or `close`, where the writer reserves the room a step needs,
 * h5room.c), and `agree-mpi:RANK` (RANK's call in the agreement's
 * collective is one MPI refuses, so a test sees an MPI check fire before
 * the run). measure.c reads its own GPU faults (`launch:ID`, `trap:ID`).
 * Pure; never set outside tests.
 */
#ifndef SW_FAULTS_H
#define SW_FAULTS_H

#include <stdint.h>

/* The stages of a run, in order; each can fail on each rank it runs on. */
enum sw_stage {
	SW_STAGE_JOB,   /* taking the job the ranks agreed on */
	SW_STAGE_BIND,  /* binding the backend (a GPU) */
	SW_STAGE_OPEN,  /* creating or resuming the output (rank 0) */
	SW_STAGE_FIRST, /* the rank's first point */
	SW_STAGE_LAST,  /* the rank's last point */
	SW_STAGE_CLOSE, /* closing the output (rank 0) */
	SW_STAGE_COUNT
};

/* "job", "binding", ... for messages. */
const char *sw_stage_name(enum sw_stage s);

struct sw_faults {
	int dead; /* dead:ID given */
	uint64_t dead_id;
	const char *hold_rank0;   /* dead:ID:FILE: FILE, inside text; else NULL */
	int stage;                /* enum sw_stage, or -1 */
	int stage_rank;           /* -1: every rank */
	const char *publish_wait; /* publish-wait:FILE: FILE, inside text; else NULL */
	const char *close_wait;   /* close-wait:FILE: FILE, inside text; else NULL */
	long long enospc_rows;    /* enospc:ROWS: ROWS; else -1 */
	const char *full_at;      /* full:MOMENT: MOMENT, inside text; else NULL */
	int agree_mpi_rank;       /* agree-mpi:RANK: RANK; else -1 */
};

/* Reads text (NULL or empty: no faults); f may point into text. Unknown text means no faults:
 * measure.c's kinds share the variable. */
void sw_faults_parse(const char *text, struct sw_faults *f);

/* Nonzero when stage s is to fail on rank. */
int sw_fault_at(const struct sw_faults *f, enum sw_stage s, int rank);

#endif
