/*
 * The one check of a recorded wall time (durations.h), which both readers
 * of durations make: the result file's (h5durations.c) and the text
 * table's (durations_csv.c), so that neither takes what the other refuses;
 * and freeing a table either made. Pure: no I/O.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/durations.h"

int sw_duration_wall_ok(double wall_s, char *why, size_t len)
{
	const char *fault = isnan(wall_s)                ? "is not a number"
			    : isinf(wall_s)              ? "is infinite"
			    : wall_s < 0                 ? "is negative"
			    : wall_s > SW_DURATION_MAX_S ? "is longer than a week"
							 : NULL;
	if (fault && why)
		snprintf(why, len, "%g s %s; a duration is from 0 to %.0f s", wall_s, fault,
			 SW_DURATION_MAX_S);
	return !fault;
}

void sw_durations_fini(struct sw_durations *d)
{
	free(d->rows);
	memset(d, 0, sizeof *d);
}
