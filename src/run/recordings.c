/*
 * The recordings of a replay run (recordings.h): which class replays which
 * file, read once on rank 0 for the output's /replays, its inputs and each
 * class's expected times.
 */
#include "run/recordings.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/hash.h"
#include "core/safe_open.h"
#include "h5/h5replay.h"
#include "job/replay_spec.h"

static int is_csv(const char *path)
{
	size_t len = strlen(path);
	return len > 4 && strcmp(path + len - 4, ".csv") == 0;
}

/* The row of (cls, file) in rows[0..n), appended when new. */
static struct sw_h5_recording *row_of(struct sw_h5_recording *rows, int *n, const char *cls,
				      const char *file)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(rows[i].device_class, cls) && !strcmp(rows[i].file, file))
			return &rows[i];
	if (*n == SW_MAX_RECORDINGS)
		return NULL;
	struct sw_h5_recording *r = &rows[(*n)++];
	memset(r, 0, sizeof *r);
	snprintf(r->device_class, sizeof r->device_class, "%s", cls);
	snprintf(r->file, sizeof r->file, "%s", file);
	return r;
}

int sw_recordings_of(const struct sw_options *o, int size, struct sw_h5_recording *rows)
{
	int n = 0;
	if (o->backend_arg) /* first, where some rank replays it */
		for (int k = 0; k < size; k++)
			if (sw_replay_spec_recording(o, k) == o->backend_arg) {
				row_of(rows, &n, "", o->backend_arg);
				break;
			}
	for (int k = 0; k < size; k++) {
		int index;
		const struct sw_replay_class *c = sw_replay_spec_device(o, k, &index);
		const char *file = sw_replay_spec_recording(o, k);
		struct sw_h5_recording *r =
			file ? row_of(rows, &n, c && c->file ? c->name : "", file) : NULL;
		if (r)
			r->devices++;
	}
	for (int i = 0; i < n; i++) {
		struct sw_replay_device dev;
		struct sw_err why;
		rows[i].file_hash = sw_file_hash(rows[i].file);
		if (!is_csv(rows[i].file) &&
		    sw_replay_device_read(rows[i].file, rows[i].device_class, &dev, &why) == SW_OK)
			snprintf(rows[i].emulates, sizeof rows[i].emulates, "%s",
				 sw_replay_device_gpu(&dev));
	}
	return n;
}

const struct sw_h5_recording *sw_recording_of_class(const struct sw_h5_recording *rows, int n,
						    const char *cls)
{
	const struct sw_h5_recording *shared = NULL;
	for (int i = 0; i < n; i++) {
		if (!strcmp(rows[i].device_class, cls))
			return &rows[i];
		if (!rows[i].device_class[0])
			shared = &rows[i];
	}
	return shared;
}
