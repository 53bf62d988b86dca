/*
 * Fuzz target for --set: each line of the input is one assignment
 * ("FAMILY.AXIS=VALUES", "FAMILY.variants=NAMES"), parsed alone by
 * sw_axis_parse (the value syntax --set and job files share) and then applied
 * with sw_job_set, in order, to a job that runs every registered family, so
 * every axis and variant name is within reach. Besides crashes, leaks and
 * undefined behaviour it checks the promises of axis.h and job.h: what is
 * accepted is in range and free of duplicates and changes one family only;
 * a refusal says why, starts with "--set " and leaves the job as it was.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "job/job.h"
#include "kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FAMILIES 64

/* What a --set may change, taken before each one. */
struct snapshot {
	unsigned variants[MAX_FAMILIES];
	struct sw_axis_values axes[MAX_FAMILIES][SW_MAX_AXES]; /* borrowed, not owned */
};

/* A job that runs every registered family, parsed once. */
static const struct sw_job *every_family_job(void)
{
	static struct sw_job job;
	static int parsed;
	char text[4096];
	size_t used;
	struct sw_err err = { 0 };

	if (parsed)
		return &job;
	used = (size_t)snprintf(text, sizeof text, "families:\n");
	for (int i = 0; i < sw_family_count(); i++) {
		FZ_REQUIRE(used < sizeof text);
		used += (size_t)snprintf(text + used, sizeof text - used, "  %s:\n",
					 sw_family_at(i)->name);
	}
	FZ_REQUIRE(used < sizeof text && sw_family_count() <= MAX_FAMILIES);
	if (sw_job_parse("every_family.yaml", text, used, &job, &err) != SW_OK)
		fz_broken(err.msg, __FILE__, __LINE__);
	fz_check_job(&job);
	parsed = 1;
	return &job;
}

static char *dup_string(const char *s)
{
	size_t len = strlen(s) + 1;
	char *d = malloc(len);

	FZ_REQUIRE(d != NULL);
	return memcpy(d, s, len);
}

/* A deep copy, owned like a parsed job (sw_job_fini frees it): cheaper
 * than parsing the YAML again for every input. */
static void copy_job(struct sw_job *to, const struct sw_job *from)
{
	*to = *from;
	to->path = dup_string(from->path);
	to->text = dup_string(from->text);
	to->families = malloc((size_t)from->n_families * sizeof *to->families);
	FZ_REQUIRE(to->families != NULL);
	memcpy(to->families, from->families, (size_t)from->n_families * sizeof *to->families);
	for (int i = 0; i < to->n_families; i++) {
		for (int a = 0; a < SW_MAX_AXES; a++) {
			struct sw_axis_values *v = &to->families[i].axes[a].values;
			int64_t *owned;
			if (!v->n)
				continue;
			owned = malloc(v->n * sizeof *owned);
			FZ_REQUIRE(owned != NULL);
			memcpy(owned, v->v, v->n * sizeof *owned);
			v->v = owned;
		}
	}
}

static void take(struct snapshot *s, const struct sw_job *job)
{
	for (int i = 0; i < job->n_families; i++) {
		s->variants[i] = job->families[i].variants;
		for (int a = 0; a < SW_MAX_AXES; a++)
			s->axes[i][a] = job->families[i].axes[a].values;
	}
}

static int changed(const struct snapshot *s, const struct sw_job *job, int i)
{
	if (s->variants[i] != job->families[i].variants)
		return 1;
	for (int a = 0; a < SW_MAX_AXES; a++) {
		const struct sw_axis_values *now = &job->families[i].axes[a].values;
		if (s->axes[i][a].v != now->v || s->axes[i][a].n != now->n)
			return 1;
	}
	return 0;
}

static void one_line(struct sw_job *job, const char *line)
{
	static struct snapshot before;
	struct sw_axis_values vals;
	struct sw_err err = { 0 };
	enum sw_status st = sw_axis_parse(line, &vals, &err);

	if (st == SW_OK) {
		fz_check_axis(&vals);
		sw_axis_values_fini(&vals);
	} else {
		fz_check_refusal(st, &err, "");
		FZ_REQUIRE(vals.v == NULL && vals.n == 0);
	}

	take(&before, job);
	memset(&err, 0, sizeof err);
	st = sw_job_set(job, line, &err);
	/* One family at most changes, and only when the --set is accepted. */
	for (int i = 0, n_changed = 0; i < job->n_families; i++) {
		if (!changed(&before, job, i))
			continue;
		FZ_REQUIRE(st == SW_OK && ++n_changed == 1);
		fz_check_family(job, i);
	}
	if (st != SW_OK)
		fz_check_refusal(st, &err, "--set ");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sw_job job;
	char *text, *line, *nl;

	copy_job(&job, every_family_job());
	/* A C string, as argv gives it: a NUL byte ends its line early. */
	text = malloc(size + 1);
	FZ_REQUIRE(text != NULL);
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = text;; line = nl + 1) {
		nl = memchr(line, '\n', size - (size_t)(line - text));
		if (nl)
			*nl = '\0';
		one_line(&job, line);
		if (!nl)
			break;
	}
	free(text);
	sw_job_fini(&job);
	return 0;
}
