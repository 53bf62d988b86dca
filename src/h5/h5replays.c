/*
 * /replays (schema 8): the recordings a replay run replayed, the shared one
 * (--backend replay=FILE) and each class's own (--replay-devices
 * CLASS:COUNT=FILE), with the hash of each and the GPU it recorded; a
 * resume or extend refuses a recording whose bytes are not the ones
 * recorded (docs/hdf5-schema.md, "/replays").
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "h5/h5internal.h"

static const char replays_about[] =
	"The recordings the replay backend replayed (a test instrument), one row per class "
	"with one of its own (--replay-devices CLASS:COUNT=FILE) and one for --backend "
	"replay=FILE's (class empty), with each file's hash, the GPU it recorded and the "
	"ranks that replayed it.";

#define RCOL(field, kind)                                                                          \
	{                                                                                          \
#field, offsetof(struct sw_h5_recording, field),                                   \
			sizeof(((struct sw_h5_recording *)0)->field), kind, NULL                   \
	}
static const struct sw_column replay_columns[] = {
	RCOL(device_class, SW_COL_TEXT), RCOL(file, SW_COL_TEXT),   RCOL(file_hash, SW_COL_U64),
	RCOL(emulates, SW_COL_TEXT),     RCOL(devices, SW_COL_I32),
};
#undef RCOL
#define N_REPLAY_COLS (sizeof replay_columns / sizeof replay_columns[0])

enum sw_status sw_h5_write_recordings(hid_t file, const struct sw_h5_recording *rows, int n,
				      struct sw_err *err)
{
	static const struct sw_h5_recording none = { .devices = -1 };
	const struct sw_h5_table t = { "replays", replays_about,   replay_columns, N_REPLAY_COLS,
				       16,        H5I_INVALID_HID, &none };
	return sw_h5_write_table(file, t, sizeof none, rows, n, err);
}

/* The row of rows[0..n) of a's class and file, or NULL. */
static const struct sw_h5_recording *same_recording(const struct sw_h5_recording *a,
						    const struct sw_h5_recording *rows, int n)
{
	for (int k = 0; k < n; k++)
		if (!strcmp(rows[k].device_class, a->device_class) &&
		    !strcmp(rows[k].file, a->file))
			return &rows[k];
	return NULL;
}

/* How a message names recording a: "--replay-devices class A's a.h5". */
static const char *named(const struct sw_h5_recording *a, char *buf, size_t len)
{
	if (a->device_class[0])
		snprintf(buf, len, "--replay-devices class %s's recording %s", a->device_class,
			 a->file);
	else
		snprintf(buf, len, "--backend replay=%s", a->file);
	return buf;
}

enum sw_status sw_h5_check_recordings(hid_t file, const char *path,
				      const struct sw_h5_recording *now, int n_now,
				      struct sw_err *err)
{
	struct sw_h5_recording *was;
	int n_was;
	char a[1200];
	int present = H5Lexists(file, "replays", H5P_DEFAULT) > 0;
	void *rows;
	enum sw_status st = sw_h5_read_table(file, "replays", replay_columns, N_REPLAY_COLS,
					     sizeof *was, &rows, &n_was, err);
	was = rows;
	/* every recording of this run must be one the file records, byte for byte */
	for (int i = 0; st == SW_OK && present && i < n_now; i++) {
		const struct sw_h5_recording *then = same_recording(&now[i], was, n_was);
		if (then && then->file_hash == now[i].file_hash)
			continue;
		st = then ? sw_fail(err, SW_EINVAL,
				    "%s was made with %s, whose content has changed since (hash "
				    "%016" PRIx64 " now, %016" PRIx64 " then): give the "
				    "recording it was made with, or start a new output",
				    path, named(&now[i], a, sizeof a), now[i].file_hash,
				    then->file_hash)
			  : sw_fail(err, SW_EINVAL,
				    "%s was made without %s: give the recordings it was made "
				    "with (h5dump -d /replays %s)",
				    path, named(&now[i], a, sizeof a), path);
	}
	/* and every recording it records, one of this run's */
	for (int i = 0; st == SW_OK && i < n_was; i++)
		if (!same_recording(&was[i], now, n_now))
			st = sw_fail(err, SW_EINVAL, "%s was made with %s: give it again", path,
				     named(&was[i], a, sizeof a));
	free(was);
	return st;
}
