/*
 * The model against hardware counters an H200 recorded (issue 4), on any
 * machine: tests/data/counters/h200-seeds.csv holds the counters of every
 * jobs/seeds.yaml point (made by `sweep --counters`, extracted by
 * analysis/counter_agreement.py; docs/results/h200-counters.md). For every
 * point the model evaluates at CC 9.0 the global-load sectors per request and
 * requests, and the shared-load wavefronts per request and requests, must
 * agree within 2%, except the deviations listed below with their reason,
 * which must still deviate as documented.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define TOLERANCE 0.02
#define CC        90

/* Documented deviations (docs/results/h200-counters.md): the counter adds
 * 2-5% wavefronts to conflict-free tile reads that run beside tile stores. */
static struct deviation {
	const char *family, *variant, *axis_match; /* axis_match: substring of the axes field */
	const char *figure;
	double lo, hi; /* counter over model, outside the tolerance */
	int seen;
} deviations[] = {
	{ "transpose", "copy", "", "shared wavefronts/request", 1.02, 1.06, 0 },
	{ "transpose", "shared", "pad=1", "shared wavefronts/request", 1.02, 1.06, 0 },
};
#define N_DEVIATIONS (sizeof deviations / sizeof deviations[0])

struct fixture_row {
	char family[32], variant[32], axes[160];
	double ld_requests, ld_sectors, shared_ld_requests, shared_ld_wavefronts;
};

static int parse_row(char *line, struct fixture_row *r)
{
	char *field[12];
	int n = 0;
	for (char *tok = strtok(line, ",\n"); tok && n < 12; tok = strtok(NULL, ",\n"))
		field[n++] = tok;
	/* family,variant,axes,ld_req,ld_sec,st_req,st_sec,sh_req,sh_wave,sh_conf,dram_r,dram_w;
	 * a point with no axis in use has an empty axes field, which strtok skips */
	int has_axes = n == 12;
	if (n < 11)
		return 0;
	snprintf(r->family, sizeof r->family, "%s", field[0]);
	snprintf(r->variant, sizeof r->variant, "%s", field[1]);
	snprintf(r->axes, sizeof r->axes, "%s", has_axes ? field[2] : "");
	int k = has_axes ? 3 : 2;
	r->ld_requests = atof(field[k]);
	r->ld_sectors = atof(field[k + 1]);
	r->shared_ld_requests = atof(field[k + 4]);
	r->shared_ld_wavefronts = atof(field[k + 5]);
	return 1;
}

/* The point a row names: its axes field is name=value pairs split by ';'. */
static struct sw_point point_of(const struct sw_family *f, const struct fixture_row *r)
{
	struct sw_point p = { .variant = sw_variant_find(f, r->variant) };
	ck_assert_msg(p.variant >= 0, "no variant %s/%s", r->family, r->variant);
	for (int a = 0; a < SW_MAX_AXES; a++)
		p.axis[a] = SW_AXIS_UNUSED;
	char axes[sizeof r->axes];
	snprintf(axes, sizeof axes, "%s", r->axes);
	char *save = NULL;
	for (char *kv = strtok_r(axes, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(kv, '=');
		ck_assert_ptr_nonnull(eq);
		*eq = 0;
		int a = sw_axis_find(f, kv);
		ck_assert_msg(a >= 0, "%s has no axis %s", f->name, kv);
		p.axis[a] = strtoll(eq + 1, NULL, 10);
	}
	return p;
}

static int compared, shared_compared, deviated;

/* counter/model outside the tolerance must be a listed deviation in range. */
static void compare(const struct fixture_row *r, const char *figure, double model, double counter)
{
	double q = counter / model;
	compared++;
	if (fabs(q - 1) <= TOLERANCE)
		return;
	for (size_t i = 0; i < N_DEVIATIONS; i++) {
		struct deviation *d = &deviations[i];
		if (!strcmp(d->family, r->family) && !strcmp(d->variant, r->variant) &&
		    strstr(r->axes, d->axis_match) && !strcmp(d->figure, figure)) {
			ck_assert_msg(q >= d->lo && q <= d->hi,
				      "%s/%s %s: %s counter/model %.4f "
				      "outside the documented %.2f-%.2f",
				      r->family, r->variant, r->axes, figure, q, d->lo, d->hi);
			d->seen++;
			deviated++;
			return;
		}
	}
	ck_abort_msg("%s/%s %s: %s: model %.4f, counters %.4f (%.1f%% apart)", r->family,
		     r->variant, r->axes, figure, model, counter, 100 * fabs(q - 1));
}

START_TEST(test_model_matches_counters)
{
	char path[1024], line[1024];
	const char *data = getenv("SW_TEST_DATA");
	ck_assert_msg(data != NULL, "SW_TEST_DATA is not set: run this test through ctest");
	snprintf(path, sizeof path, "%s/counters/h200-seeds.csv", data);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	int rows = 0, header = 0;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#')
			continue;
		if (!header++) {
			ck_assert_msg(strncmp(line, "family,variant,axes,ctr_ld_requests,", 36) ==
					      0,
				      "unexpected header: %s", line);
			continue;
		}
		struct fixture_row r;
		ck_assert_msg(parse_row(line, &r), "bad fixture row %d", rows + 1);
		rows++;
		const struct sw_family *fam = sw_family_find(r.family);
		ck_assert_msg(fam != NULL, "no family %s", r.family);
		struct sw_point p = point_of(fam, &r);
		struct sw_model_figures m;
		struct sw_err err = { 0 };
		if (sw_model_eval(&fam->variants[p.variant], &p, CC, &m, &err) != SW_OK)
			continue; /* not modelled (cuBLAS, memcpy): nothing to compare */
		if (m.ld_requests > 0) {
			compare(&r, "global load sectors/request",
				m.ld_transactions / m.ld_requests, r.ld_sectors / r.ld_requests);
			compare(&r, "global load requests", m.ld_requests, r.ld_requests);
		}
		if (m.shared_ld_requests > 0) {
			compare(&r, "shared wavefronts/request",
				m.shared_ld_wavefronts / m.shared_ld_requests,
				r.shared_ld_wavefronts / r.shared_ld_requests);
			compare(&r, "shared load requests", m.shared_ld_requests,
				r.shared_ld_requests);
			shared_compared++;
		}
	}
	fclose(f);
	printf("%d fixture rows: %d figures compared (%d shared-memory rows), %d documented "
	       "deviations, the rest within %.0f%%\n",
	       rows, compared, shared_compared, deviated, 100 * TOLERANCE);
	/* the whole of seeds.yaml, and enough of each kind that a pass means something */
	ck_assert_int_eq(rows, 113);
	ck_assert_int_ge(compared, 180);
	ck_assert_int_ge(shared_compared, 15);
	for (size_t i = 0; i < N_DEVIATIONS; i++)
		ck_assert_msg(deviations[i].seen > 0,
			      "documented deviation %s/%s %s never met: "
			      "update docs/results/h200-counters.md",
			      deviations[i].family, deviations[i].variant,
			      deviations[i].axis_match);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("counter_fixture");
	TCase *tc = tcase_create("counter_fixture");
	tcase_add_test(tc, test_model_matches_counters);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
