/*
 * Fuzz target for the job parser: the input is the text of a job file, given
 * to sw_job_parse as it is (not NUL-terminated: a read past its end is an
 * AddressSanitizer error). Besides crashes, leaks and undefined behaviour it
 * checks job.h's promises: an accepted job holds only what the registry
 * allows (contract.c); a refused one comes back empty, with a message that
 * names fuzz.yaml:LINE:COLUMN. The same text is then read as a result
 * file's stored job_text (sw_job_parse_stored) whose file records no
 * plug-in: the same verdict, except that a plugins: entry is damage,
 * refused before any file is looked for.
 */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "contract.h"
#include "job/job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* "LINE:COLUMN: " at s, both numbers 1 or more. */
static int is_position(const char *s)
{
	for (int part = 0; part < 2; part++) {
		if (*s < '1' || *s > '9')
			return 0;
		while (isdigit((unsigned char)*s))
			s++;
		if (*s++ != ':')
			return 0;
	}
	return *s == ' ';
}

/* The text as a stored job of a file that records no plug-in: accepted
 * exactly when the job file is (no fuzzed plugins: entry loads), with no
 * plug-in; refused with a message that starts job_text:, resolving none. */
static void as_stored(const uint8_t *data, size_t size, enum sw_status as_file)
{
	static const struct sw_job empty;
	struct sw_plugin_where w = { .job_path = "fuzz.yaml", .n_recorded = 0 };
	struct sw_job job;
	struct sw_err err = { 0 };
	enum sw_status st =
		sw_job_parse_stored("job_text", (const char *)data, size, &w, &job, &err);

	FZ_REQUIRE(w.stored && !w.failed);
	FZ_REQUIRE((st == SW_OK) == (as_file == SW_OK));
	if (st == SW_OK) {
		fz_check_job(&job);
		FZ_REQUIRE(job.n_plugins == 0);
		sw_job_fini(&job);
	} else {
		fz_check_refusal(st, &err, "job_text:");
	}
	FZ_REQUIRE(memcmp(&job, &empty, sizeof job) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct sw_job empty;
	static const char path[] = "fuzz.yaml";
	struct sw_job job;
	struct sw_err err = { 0 };
	enum sw_status st = sw_job_parse(path, (const char *)data, size, &job, &err);

	as_stored(data, size, st);
	if (st == SW_OK) {
		fz_check_job(&job);
		FZ_REQUIRE(strcmp(job.path, path) == 0);
		FZ_REQUIRE(memcmp(job.text, data, size) == 0 && job.text[size] == '\0');
		sw_job_fini(&job);
		FZ_REQUIRE(memcmp(&job, &empty, sizeof job) == 0);
		return 0;
	}
	fz_check_refusal(st, &err, "fuzz.yaml:");
	if (st == SW_EINVAL && size <= SW_JOB_MAX_BYTES)
		FZ_REQUIRE(is_position(err.msg + strlen(path) + 1));
	FZ_REQUIRE(memcmp(&job, &empty, sizeof job) == 0);
	return 0;
}
