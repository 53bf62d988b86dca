/*
 * The recordings a replay run replays (rank 0): the shared one of
 * --backend replay=FILE and each --replay-devices class's own
 * (CLASS:COUNT=FILE), as /replays records them (h5out.h), each hashed and
 * its recorded GPU read. Other backends replay nothing. Never prints.
 */
#ifndef SW_RECORDINGS_H
#define SW_RECORDINGS_H

#include "h5/h5out.h"
#include "job/cli.h"

/* The most rows: each class with its own recording, and the shared one. */
#define SW_MAX_RECORDINGS (SW_REPLAY_MAX_FILES + 1)

/* The recordings the size ranks of a replay run replay into rows (at most
 * SW_MAX_RECORDINGS): one per class that names its own, in SPEC order,
 * after the shared one where some rank replays it (class ""); each with
 * the ranks that replay it, its hash (0: unreadable) and the GPU its first
 * /devices row names ("" for a .csv, or a file that cannot be read: the
 * backend says why when it binds). How many. */
int sw_recordings_of(const struct sw_options *o, int size, struct sw_h5_recording *rows);

/* The row of rows[0..n) that class cls replays (its own, else the
 * shared one), or NULL. */
const struct sw_h5_recording *sw_recording_of_class(const struct sw_h5_recording *rows, int n,
						    const char *cls);

#endif
