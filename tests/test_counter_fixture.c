/*
 * The model against hardware counters an H200 recorded (issue 4), on any
 * machine: each CSV file in tests/data/counters holds the counters of every point
 * of the job its "# Made by:" line ran (`sweep --counters`, extracted by
 * analysis/counter_agreement.py; docs/results/h200-counters.md):
 * h200-seeds.csv jobs/seeds.yaml's, and any other file (h200-launch.csv:
 * jobs/launch.yaml's) the same columns. Every file must hold every measured
 * point of its job's plan. For every point the model evaluates at CC 9.0
 * the global-load sectors per request and requests, and the shared-load
 * wavefronts per request and requests, must agree within 2% (tail.csv's
 * within 0.1%), except the deviations listed below with their reason, which
 * must still deviate as documented.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "job/job.h"
#include "model/model.h"
#include "job/plan.h"

#define TOLERANCE 0.02
#define CC        90
/* tail.csv (tests/data/counters/tail.yaml's points, issue 24): the partial
 * warp of a grid-stride loop's last step, which the model counts exactly */
#define TAIL_FIXTURE   "tail.csv"
#define TAIL_TOLERANCE 0.001
static double tolerance = TOLERANCE;

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
	if (fabs(q - 1) <= tolerance)
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

/* A file under SW_TEST_DATA or SW_SOURCE_DIR (ctest sets both). */
static void data_path(char *buf, size_t len, const char *var, const char *rel)
{
	const char *dir = getenv(var);
	ck_assert_msg(dir != NULL, "%s is not set: run this test through ctest", var);
	ck_assert_int_lt(snprintf(buf, len, "%s/%s", dir, rel), (int)len);
}

/* The job a fixture's "# Made by:" line ran, relative to the source:
 * jobs/NAME.yaml, or one beside the fixtures (tests/data/counters/tail.yaml),
 * the word of the command line that ends in .yaml. */
static void fixture_job(const char *path, char *job, size_t len)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	job[0] = 0;
	while (fgets(line, sizeof line, f) && line[0] == '#') {
		char *end = strstr(line, ".yaml"), *at = end;
		if (strncmp(line, "# Made by:", 10) || !end)
			continue;
		while (at > line && at[-1] != ' ' && at[-1] != '`')
			at--;
		if (!strncmp(at, "./", 2))
			at += 2;
		snprintf(job, len, "%.*s", (int)(end + 5 - at), at);
	}
	fclose(f);
	ck_assert_msg(job[0], "%s: no \"# Made by:\" line naming a job's .yaml", path);
}

/* The ids of a fixture's rows, as the plan gives them (no model target). */
static size_t fixture_ids(const char *path, uint64_t *ids, size_t max)
{
	char line[1024];
	size_t n = 0;
	int header = 0;
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (fgets(line, sizeof line, f)) {
		struct fixture_row r;
		if (line[0] == '#' || !header++)
			continue;
		ck_assert_msg(parse_row(line, &r) && n < max, "%s: bad row %zu", path, n + 1);
		const struct sw_family *fam = sw_family_find(r.family);
		ck_assert_msg(fam != NULL, "no family %s", r.family);
		struct sw_point p = point_of(fam, &r);
		ids[n++] = sw_point_id(fam, &p, 0);
	}
	fclose(f);
	return n;
}

/* Measured points of the job that the fixture at path lacks; the first one's
 * label in first. */
/* Points added to a fixture's job after its counters were recorded, which
 * it may lack: seeds.yaml's float3 at block 32 (issue 29, the time model's
 * block-start point). Their requests are block 0's, which the fixture
 * holds: the block regroups the same threads (family_scaffold's check). */
static const char *const newer_points[] = { "float3/aos n=64M block=32",
					    "float3/soa n=64M block=32" };

static int newer(const char *label)
{
	for (size_t i = 0; i < sizeof newer_points / sizeof newer_points[0]; i++)
		if (!strcmp(label, newer_points[i]))
			return 1;
	return 0;
}

static size_t missing_points(const char *path, const char *job_rel, char *first, size_t len)
{
	char job_path[4096];
	static uint64_t ids[100000];
	struct sw_job job;
	struct sw_plan plan;
	struct sw_err err = { 0 };
	size_t missing = 0, n = fixture_ids(path, ids, sizeof ids / sizeof ids[0]);
	data_path(job_path, sizeof job_path, "SW_SOURCE_DIR", job_rel);
	ck_assert_msg(sw_job_load(job_path, &job, &err) == SW_OK, "%s", err.msg);
	ck_assert_msg(sw_plan_build(&job, 0, &plan, &err) == SW_OK, "%s", err.msg);
	first[0] = 0;
	for (size_t i = 0; i < plan.n; i++) {
		const struct sw_family *fam = sw_family_at(plan.points[i].family);
		char why[160];
		size_t k = 0;
		/* a point its family refuses is skipped, never counted */
		if (fam->refuse && fam->refuse(&plan.points[i].p, why, sizeof why))
			continue;
		while (k < n && ids[k] != plan.points[i].id)
			k++;
		if (k < n)
			continue;
		char label[256];
		sw_point_label(&plan.points[i], label, sizeof label);
		if (newer(label))
			continue;
		if (!missing++)
			snprintf(first, len, "%s", label);
	}
	sw_plan_fini(&plan);
	sw_job_fini(&job);
	return missing;
}

/* Compares every row of one fixture; returns its rows. */
static int check_fixture(const char *path)
{
	char line[1024];
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
	return rows;
}

/* The fixtures in SW_TEST_DATA/counters, sorted; returns how many. */
static int fixtures(char names[][256], int max)
{
	char dir[4096];
	data_path(dir, sizeof dir, "SW_TEST_DATA", "counters");
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len > 4 && !strcmp(e->d_name + len - 4, ".csv") && n < max)
			snprintf(names[n++], sizeof names[0], "%s", e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
	return n;
}

START_TEST(test_model_matches_counters)
{
	char names[32][256], path[4096], job[256], first[256];
	int n = fixtures(names, 32), seeds_rows = -1;
	for (int i = 0; i < n; i++) {
		char rel[300];
		snprintf(rel, sizeof rel, "counters/%s", names[i]);
		data_path(path, sizeof path, "SW_TEST_DATA", rel);
		fixture_job(path, job, sizeof job);
		size_t missing = missing_points(path, job, first, sizeof first);
		ck_assert_msg(missing == 0, "%s lacks %zu points of %s, the first %s", names[i],
			      missing, job, first);
		int before = compared;
		tolerance = strcmp(names[i], TAIL_FIXTURE) ? TOLERANCE : TAIL_TOLERANCE;
		int rows = check_fixture(path);
		printf("%s (%s): %d rows, %d figures compared\n", names[i], job, rows,
		       compared - before);
		ck_assert_int_gt(compared, before);
		if (!strcmp(names[i], "h200-seeds.csv"))
			seeds_rows = rows;
	}
	printf("%d fixtures: %d figures compared (%d shared-memory rows), %d documented "
	       "deviations, the rest within %.0f%%\n",
	       n, compared, shared_compared, deviated, 100 * TOLERANCE);
	/* the whole of seeds.yaml, and enough of each kind that a pass means something */
	ck_assert_msg(seeds_rows >= 0, "no counters/h200-seeds.csv");
	ck_assert_int_eq(seeds_rows, 113);
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

/* A fixture that lacks a point of its job is caught: h200-seeds.csv less
 * its last row lacks that row's point, and says which. */
START_TEST(test_missing_points_caught)
{
	char src[4096], dst[4096], line[1024], first[256];
	const char *tmp = getenv("TMPDIR");
	snprintf(dst, sizeof dst, "%s/sw_fixture_XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	data_path(src, sizeof src, "SW_TEST_DATA", "counters/h200-seeds.csv");
	int fd = mkstemp(dst);
	ck_assert_int_ge(fd, 0);
	FILE *in = fopen(src, "r"), *out = fdopen(fd, "w");
	ck_assert(in && out);
	char prev[1024] = "";
	while (fgets(line, sizeof line, in)) {
		fputs(prev, out);
		snprintf(prev, sizeof prev, "%s", line);
	}
	fclose(in);
	fclose(out);
	char job[256];
	fixture_job(src, job, sizeof job);
	ck_assert_str_eq(job, "jobs/seeds.yaml");
	/* a job beside the fixtures, as tail.csv's is */
	snprintf(line, sizeof line, "%s.made", dst);
	FILE *made = fopen(line, "w");
	ck_assert_ptr_nonnull(made);
	fputs("# Made by: `build/sweep --counters -o t.h5 tests/data/counters/tail.yaml` on X\n",
	      made);
	fclose(made);
	fixture_job(line, job, sizeof job);
	ck_assert_str_eq(job, "tests/data/counters/tail.yaml");
	unlink(line);
	fixture_job(src, job, sizeof job);
	ck_assert_uint_eq(missing_points(src, job, first, sizeof first), 0);
	ck_assert_uint_eq(missing_points(dst, job, first, sizeof first), 1);
	/* the row dropped, "family,variant,axes,...", is the point named */
	char *comma = strchr(prev, ','), want[256];
	ck_assert_ptr_nonnull(comma);
	*comma = '/';
	snprintf(want, sizeof want, "%.*s ", (int)strcspn(prev, ","), prev);
	ck_assert_msg(!strncmp(first, want, strlen(want)), "first missing: %s, dropped %s", first,
		      want);
	unlink(dst);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("counter_fixture");
	TCase *tc = tcase_create("counter_fixture");
	tcase_add_test(tc, test_model_matches_counters);
	tcase_add_test(tc, test_missing_points_caught);
	suite_add_tcase(s, tc);
	return sw_check_run(s);
}
