/*
 * Durations as text (durations.h): `point_id_hex,family,variant,seconds`
 * per line after a header, the form the replay fixtures under tests/data
 * and generated test inputs take. Pure: no HDF5. Every row is an ok row;
 * its seconds pass the check the result file's reader makes too.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/durations.h"
#include "core/safe_open.h"

/* One line into d: 1; 0 when it does not read, or when its time fails the
 * check both readers make (why then says so; else why is ""). */
static int parse_line(char *line, struct sw_duration *d, char *why, size_t len)
{
	char *id = strtok(line, ","), *family = strtok(NULL, ","), *variant = strtok(NULL, ",");
	char *secs = strtok(NULL, ",\r\n"), *end;
	why[0] = '\0';
	if (!id || !family || !variant || !secs)
		return 0;
	errno = 0;
	memset(d, 0, sizeof *d);
	d->point_id = strtoull(id, &end, 16);
	if (*end || errno)
		return 0;
	d->wall_s = strtod(secs, &end);
	if (*end || end == secs || (errno && errno != ERANGE))
		return 0;
	if (!sw_duration_wall_ok(d->wall_s, why, len))
		return 0;
	snprintf(d->family, sizeof d->family, "%s", family);
	snprintf(d->variant, sizeof d->variant, "%s", variant);
	d->status = 0; /* SW_ROW_OK */
	d->useful_bytes = d->flops = NAN;
	return 1;
}

static enum sw_status grow(struct sw_durations *out, size_t *cap, struct sw_err *err)
{
	if (out->n < *cap)
		return SW_OK;
	size_t n = *cap ? 2 * *cap : 1024;
	struct sw_duration *rows = realloc(out->rows, n * sizeof *rows);
	if (!rows)
		return sw_fail(err, SW_ENOMEM, "no memory for %zu durations", n);
	out->rows = rows;
	*cap = n;
	return SW_OK;
}

enum sw_status sw_durations_read_csv(const char *path, struct sw_durations *out, struct sw_err *err)
{
	char line[512];
	size_t cap = 0, lineno = 1;
	enum sw_status st = SW_OK;
	memset(out, 0, sizeof *out);
	const char *kind;
	int fd = sw_safe_open_read(path, &kind);
	if (fd == SW_SAFE_OPEN_NOT_REG)
		return sw_fail(err, SW_EINVAL,
			       "cannot read durations from %s: not a regular file: it is %s", path,
			       kind);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return sw_fail(err, SW_EIO, "cannot read durations from %s: %s", path, strerror(e));
	}
	if (!fgets(line, sizeof line, f) || strncmp(line, "point_id_hex,", 13) != 0)
		st = sw_fail(err, SW_EINVAL,
			     "%s: not a durations table (its first line must be "
			     "point_id_hex,family,variant,seconds)",
			     path);
	while (st == SW_OK && fgets(line, sizeof line, f)) {
		lineno++;
		if ((st = grow(out, &cap, err)) != SW_OK)
			break;
		struct sw_duration *d = &out->rows[out->n];
		char why[128];
		if (parse_line(line, d, why, sizeof why))
			out->n++;
		else if (why[0])
			st = sw_fail(err, SW_EINVAL, "%s:%zu: the time of point %016" PRIx64 ", %s",
				     path, lineno, d->point_id, why);
		else
			st = sw_fail(err, SW_EINVAL,
				     "%s:%zu: expected point_id_hex,family,variant,"
				     "seconds",
				     path, lineno);
	}
	fclose(f);
	if (st != SW_OK) {
		free(out->rows);
		memset(out, 0, sizeof *out);
	}
	return st;
}
