/*
 * The contract checks of contract.h. Duplicates are found on a sorted copy:
 * a range axis can hold SW_AXIS_MAX_VALUES values.
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */

#include "contract.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "core/record.h"

void fz_broken(const char *what, const char *file, int line)
{
	fprintf(stderr, "contract broken: %s (%s:%d)\n", what, file, line);
	abort();
}

/* The checks are not under test: coverage hooks in them only slow the
 * fuzzer down (the sort below is most of the time on a long axis). */
#if defined(__clang__)
#define NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define NO_COVERAGE
#endif

NO_COVERAGE static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return (a > b) - (a < b);
}

NO_COVERAGE void fz_check_axis(const struct sw_axis_values *a)
{
	int64_t *s;
	size_t rising;

	FZ_REQUIRE(a->v != NULL);
	FZ_REQUIRE(a->n >= 1 && a->n <= SW_AXIS_MAX_VALUES);
	for (rising = 1; rising < a->n && a->v[rising - 1] < a->v[rising]; rising++)
		;
	if (rising == a->n)
		return;
	s = malloc(a->n * sizeof *s);
	FZ_REQUIRE(s != NULL);
	memcpy(s, a->v, a->n * sizeof *s);
	qsort(s, a->n, sizeof *s, cmp_i64);
	for (size_t i = 1; i < a->n; i++)
		FZ_REQUIRE(s[i] != s[i - 1]);
	free(s);
}

void fz_check_family(const struct sw_job *job, int i)
{
	const struct sw_job_family *jf = &job->families[i];
	const struct sw_family *f = jf->family;
	unsigned all;

	FZ_REQUIRE(jf->index >= 0 && jf->index < sw_family_count());
	FZ_REQUIRE(f == sw_family_at(jf->index));
	for (int j = 0; j < i; j++)
		FZ_REQUIRE(job->families[j].family != f);
	all = f->n_variants >= 32 ? ~0u : (1u << f->n_variants) - 1;
	FZ_REQUIRE(jf->variants != 0 && (jf->variants & ~all) == 0);
	FZ_REQUIRE(jf->loc.line >= 1 && jf->loc.column >= 1);
	for (int a = 0; a < SW_MAX_AXES; a++) {
		const struct sw_axis_values *v = &jf->axes[a].values;
		if (a >= f->n_axes) {
			FZ_REQUIRE(v->n == 0 && v->v == NULL);
			continue;
		}
		fz_check_axis(v);
		for (size_t k = 0; k < v->n; k++)
			FZ_REQUIRE(v->v[k] >= f->axes[a].min && v->v[k] <= f->axes[a].max);
	}
}

void fz_check_job(const struct sw_job *job)
{
	const struct sw_measure_cfg *m = &job->measure;
	size_t name_len = strnlen(job->name, sizeof job->name);

	FZ_REQUIRE(job->path != NULL && job->text != NULL);
	FZ_REQUIRE(name_len >= 1 && name_len < sizeof job->name);
	for (size_t i = 0; i < name_len; i++) {
		unsigned char ch = (unsigned char)job->name[i];
		FZ_REQUIRE(isalnum(ch) || ch == '_' || ch == '.' || ch == '-');
	}

	FZ_REQUIRE(job->n_families >= 1 && job->families != NULL);
	for (int i = 0; i < job->n_families; i++)
		fz_check_family(job, i);

	FZ_REQUIRE(m->rse_target > 0 && m->rse_target < 1);
	FZ_REQUIRE(m->min_samples >= 1 && m->min_samples <= m->max_samples);
	FZ_REQUIRE(m->max_samples <= SW_MAX_SAMPLES);
	FZ_REQUIRE(m->warmup >= 0 && m->warmup <= 1000);
	FZ_REQUIRE(m->time_cap_s > 0 && m->time_cap_s <= 3600);
	FZ_REQUIRE(m->min_sample_s >= 0 && m->min_sample_s <= 1);
	FZ_REQUIRE(m->flush_l2 == SW_FLUSH_AUTO || m->flush_l2 == SW_FLUSH_ALWAYS ||
		   m->flush_l2 == SW_FLUSH_NEVER);

	FZ_REQUIRE(job->n_ccs >= 1 && job->n_ccs <= SW_MAX_CCS);
	for (int i = 0; i < job->n_ccs; i++) {
		FZ_REQUIRE(job->ccs[i] >= 10 && job->ccs[i] <= 159);
		for (int j = 0; j < i; j++)
			FZ_REQUIRE(job->ccs[j] != job->ccs[i]);
	}
}

void fz_check_refusal(enum sw_status st, const struct sw_err *err, const char *prefix)
{
	size_t len = strnlen(err->msg, sizeof err->msg);

	FZ_REQUIRE(st == SW_EINVAL || st == SW_ENOMEM);
	FZ_REQUIRE(err->status == st);
	FZ_REQUIRE(len > strlen(prefix) && len < sizeof err->msg);
	FZ_REQUIRE(strncmp(err->msg, prefix, strlen(prefix)) == 0);
}
