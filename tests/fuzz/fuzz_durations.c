/*
 * Fuzz target for the durations table (durations_csv.c), the text form of
 * what the replay backend and --costs read: the input is the file's bytes.
 * Besides crashes, leaks and undefined behaviour it checks the promises of
 * durations.h: an accepted table holds only ok rows whose every time passes
 * sw_duration_wall_ok, the one check the result file's reader makes too; a
 * refusal is SW_EINVAL (or SW_ENOMEM) with a message naming the file, and
 * leaves the table empty.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contract.h"
#include "core/durations.h"
#include "core/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One scratch file per process, rewritten for each input. */
static const char *scratch(void)
{
	static char path[64];
	if (!path[0])
		snprintf(path, sizeof path, "/tmp/fuzz_durations.%d.csv", (int)getpid());
	return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = scratch();
	FILE *f = fopen(path, "wb");
	struct sw_durations d;
	struct sw_err err = { 0 };

	FZ_REQUIRE(f != NULL);
	FZ_REQUIRE(fwrite(data, 1, size, f) == size && fclose(f) == 0);
	enum sw_status st = sw_durations_read_csv(path, &d, &err);
	if (st == SW_OK) {
		for (size_t i = 0; i < d.n; i++) {
			FZ_REQUIRE(sw_duration_wall_ok(d.rows[i].wall_s, NULL, 0));
			FZ_REQUIRE(d.rows[i].status == SW_ROW_OK);
			FZ_REQUIRE(memchr(d.rows[i].family, 0, sizeof d.rows[i].family));
			FZ_REQUIRE(memchr(d.rows[i].variant, 0, sizeof d.rows[i].variant));
		}
	} else {
		FZ_REQUIRE(st == SW_EINVAL || st == SW_ENOMEM);
		FZ_REQUIRE(memchr(err.msg, 0, sizeof err.msg) && strstr(err.msg, path));
		FZ_REQUIRE(d.rows == NULL && d.n == 0);
	}
	sw_durations_fini(&d);
	unlink(path);
	return 0;
}
