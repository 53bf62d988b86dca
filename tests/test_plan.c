/* Plan expansion: cartesian products, unused axes, model targets, stable ids
 * (against the committed ids of jobs/seeds.yaml in tests/data/ids). */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "job/job.h"
#include "job/plan.h"

static const char *JOB =
	"name: t\n"
	"model:\n  ccs: [6.0, 9.0]\n"
	"families:\n  strided_read:\n    axes:\n      stride: 1,2,4\n      n: 1M,4M\n";

static void load(struct sw_job *job, const char *text)
{
	struct sw_err err = { 0 };
	ck_assert_msg(sw_job_parse("t.yaml", text, strlen(text), job, &err) == SW_OK, "%s",
		      err.msg);
}

START_TEST(test_counts)
{
	struct sw_job job;
	struct sw_plan plan;
	struct sw_err err = { 0 };
	load(&job, JOB);
	ck_assert_int_eq(sw_plan_build(&job, 0, &plan, &err), SW_OK);
	/* course, tuned: 3 strides x 2 n; stream_read, memcpy: 2 n each */
	ck_assert_uint_eq(plan.n, 3 * 2 * 2 + 2 + 2);
	for (size_t i = 0; i < plan.n; i++)
		ck_assert_int_eq(plan.points[i].cc, 0);
	/* last axis fastest: course stride=1 n=1M, then n=4M */
	ck_assert_int_eq(plan.points[0].p.axis[0], 1);
	ck_assert_int_eq(plan.points[0].p.axis[1], 1 << 20);
	ck_assert_int_eq(plan.points[1].p.axis[1], 4 << 20);
	ck_assert_int_eq(plan.points[2].p.axis[0], 2);
	/* a reference does not use stride */
	ck_assert_int_eq(plan.points[12].p.axis[0], SW_AXIS_UNUSED);
	sw_plan_fini(&plan);

	ck_assert_int_eq(sw_plan_build(&job, 1, &plan, &err), SW_OK);
	ck_assert_uint_eq(plan.n, 2 * 16);
	ck_assert_int_eq(plan.points[0].cc, 60);
	ck_assert_int_eq(plan.points[1].cc, 90);
	sw_plan_fini(&plan);
	sw_job_fini(&job);
}
END_TEST

START_TEST(test_ids_stable_and_unique)
{
	struct sw_job a, b;
	struct sw_plan pa, pb;
	struct sw_err err = { 0 };
	load(&a, JOB);
	load(&b, JOB);
	ck_assert_int_eq(sw_plan_build(&a, 1, &pa, &err), SW_OK);
	ck_assert_int_eq(sw_plan_build(&b, 1, &pb, &err), SW_OK);
	ck_assert_uint_eq(pa.n, pb.n);
	ck_assert_uint_eq(pa.fingerprint, pb.fingerprint);
	for (size_t i = 0; i < pa.n; i++) {
		ck_assert_uint_eq(pa.points[i].id, pb.points[i].id);
		for (size_t j = 0; j < i; j++)
			ck_assert_uint_ne(pa.points[i].id, pa.points[j].id);
	}
	sw_plan_fini(&pa);
	sw_plan_fini(&pb);
	sw_job_fini(&a);
	sw_job_fini(&b);
}
END_TEST

START_TEST(test_id_golden)
{
	/* FNV-1a 64 of "strided_read/course;stride=4;n=1048576", computed independently;
	 * block, grid, vec and elem_bytes at their baselines stay out of it. */
	struct sw_point p = { .variant = 0, .axis = { 4, 1 << 20, 0, 0, 1, 4 } };
	const char *text = "strided_read/course;stride=4;n=1048576";
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	for (const char *c = text; *c; c++) {
		h ^= (unsigned char)*c;
		h *= UINT64_C(0x100000001b3);
	}
	ck_assert_uint_eq(sw_point_id(sw_family_find("strided_read"), &p, 0), h);
	ck_assert_uint_ne(sw_point_id(sw_family_find("strided_read"), &p, 90), h);
}
END_TEST

/* A file under the source tree; ctest sets SW_SOURCE_DIR. */
static void source_path(char *buf, size_t len, const char *rel)
{
	const char *src = getenv("SW_SOURCE_DIR");
	ck_assert_msg(src != NULL, "SW_SOURCE_DIR is not set (run the test through ctest)");
	ck_assert_int_lt(snprintf(buf, len, "%s/%s", src, rel), (int)len);
}

/* Builds jobs/seeds.yaml's plan and compares every id and label, in order,
 * with the golden file: ids written by an earlier version must not move. */
static void expect_golden_ids(int model_targets, const char *golden)
{
	char path[4096], line[512], label[256];
	struct sw_job job;
	struct sw_plan plan;
	struct sw_err err = { 0 };
	size_t i = 0;

	source_path(path, sizeof path, "jobs/seeds.yaml");
	ck_assert_msg(sw_job_load(path, &job, &err) == SW_OK, "%s", err.msg);
	ck_assert_msg(sw_plan_build(&job, model_targets, &plan, &err) == SW_OK, "%s", err.msg);
	source_path(path, sizeof path, golden);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (fgets(line, sizeof line, f)) {
		unsigned long long id;
		int at = 0;
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		ck_assert_msg(sscanf(line, "%16llx %n", &id, &at) == 1 && at == 17,
			      "%s: bad line '%s'", golden, line);
		ck_assert_msg(i < plan.n, "%s: more lines than the plan's %zu points", golden,
			      plan.n);
		sw_point_label(&plan.points[i], label, sizeof label);
		ck_assert_msg(plan.points[i].id == id && strcmp(label, line + at) == 0,
			      "%s point %zu: %016" PRIx64 " %s, golden %s", golden, i,
			      plan.points[i].id, label, line);
		i++;
	}
	fclose(f);
	ck_assert_msg(i == plan.n, "%s: %zu lines, the plan has %zu points", golden, i, plan.n);
	sw_plan_fini(&plan);
	sw_job_fini(&job);
}

START_TEST(test_ids_golden_seeds)
{
	expect_golden_ids(0, "tests/data/ids/seeds-cuda.txt");
	expect_golden_ids(1, "tests/data/ids/seeds-model.txt");
}
END_TEST

/* A copy of strided_read with a third axis, "block", as a later version might
 * add it; every variant uses it. baseline_set says whether it has baseline 0. */
struct grown {
	struct sw_family f;
	struct sw_axis_def axes[SW_MAX_AXES];
	struct sw_variant variants[8];
};

static void grow(struct grown *g, const struct sw_family *orig, int baseline_set)
{
	ck_assert_int_lt(orig->n_axes, SW_MAX_AXES);
	ck_assert_int_le(orig->n_variants, 8);
	g->f = *orig;
	memcpy(g->axes, orig->axes, (size_t)orig->n_axes * sizeof *g->axes);
	g->axes[orig->n_axes] = (struct sw_axis_def){
		.name = "block",
		.units = "threads",
		.min = 0,
		.max = 1024,
		.defaults = "0",
		.about = "threads per block; 0: the variant's own launch",
		.baseline = SW_BASELINE(0),
	};
	g->axes[orig->n_axes].baseline.set = baseline_set;
	memcpy(g->variants, orig->variants, (size_t)orig->n_variants * sizeof *g->variants);
	for (int v = 0; v < orig->n_variants; v++)
		g->variants[v].axes_used |= 1u << orig->n_axes;
	g->f.axes = g->axes;
	g->f.n_axes = orig->n_axes + 1;
	g->f.variants = g->variants;
}

START_TEST(test_id_baseline_axis)
{
	/* strided_read as it was before its launch axes: stride and n */
	struct grown before;
	grow(&before, sw_family_find("strided_read"), 1);
	before.f.n_axes = 2;
	for (int v = 0; v < before.f.n_variants; v++)
		before.variants[v].axes_used &= 3u;
	const struct sw_family *orig = &before.f;
	struct grown g;
	/* course stride=4 n=1M, and the reference stream_read, which ignores stride */
	const struct sw_point old_pts[] = {
		{ .variant = 0, .axis = { 4, 1 << 20 } },
		{ .variant = sw_variant_find(orig, "stream_read"),
		  .axis = { SW_AXIS_UNUSED, 1 << 20 } },
	};
	ck_assert_int_eq(orig->n_axes, 2);
	ck_assert_int_ge(old_pts[1].variant, 0);
	grow(&g, orig, 1);
	for (size_t i = 0; i < sizeof old_pts / sizeof old_pts[0]; i++) {
		for (int cc = 0; cc <= 90; cc += 90) {
			uint64_t old_id = sw_point_id(orig, &old_pts[i], cc);
			struct sw_point p = old_pts[i];
			/* at the baseline: the id of the point before the axis existed */
			p.axis[2] = 0;
			ck_assert_uint_eq(sw_point_id(&g.f, &p, cc), old_id);
			/* off it: a point of its own */
			p.axis[2] = 256;
			uint64_t off_id = sw_point_id(&g.f, &p, cc);
			ck_assert_uint_ne(off_id, old_id);
			p.axis[2] = 128;
			ck_assert_uint_ne(sw_point_id(&g.f, &p, cc), off_id);
			ck_assert_uint_ne(sw_point_id(&g.f, &p, cc), old_id);
		}
	}
	/* Without a baseline the axis counts at every value, as axes always did. */
	grow(&g, orig, 0);
	struct sw_point p = old_pts[0];
	p.axis[2] = 0;
	ck_assert_uint_ne(sw_point_id(&g.f, &p, 0), sw_point_id(orig, &old_pts[0], 0));
}
END_TEST

START_TEST(test_fingerprint_changes_with_job)
{
	struct sw_job a, b;
	struct sw_plan pa, pb;
	struct sw_err err = { 0 };
	load(&a, JOB);
	load(&b, JOB);
	ck_assert_int_eq(sw_job_set(&b, "strided_read.stride=1,2,8", &err), SW_OK);
	ck_assert_int_eq(sw_plan_build(&a, 0, &pa, &err), SW_OK);
	ck_assert_int_eq(sw_plan_build(&b, 0, &pb, &err), SW_OK);
	ck_assert_uint_ne(pa.fingerprint, pb.fingerprint);
	sw_plan_fini(&pa);
	sw_plan_fini(&pb);
	/* Kepler's 8-byte banks change the model rows: another plan; not the GPU's */
	ck_assert_int_eq(a.kepler_bank_bytes, 4);
	sw_job_fini(&b);
	load(&b, JOB);
	b.kepler_bank_bytes = 8;
	ck_assert_int_eq(sw_plan_build(&a, 1, &pa, &err), SW_OK);
	ck_assert_int_eq(sw_plan_build(&b, 1, &pb, &err), SW_OK);
	ck_assert_uint_ne(pa.fingerprint, pb.fingerprint);
	sw_plan_fini(&pa);
	sw_plan_fini(&pb);
	ck_assert_int_eq(sw_plan_build(&a, 0, &pa, &err), SW_OK);
	ck_assert_int_eq(sw_plan_build(&b, 0, &pb, &err), SW_OK);
	ck_assert_uint_eq(pa.fingerprint, pb.fingerprint);
	sw_plan_fini(&pa);
	sw_plan_fini(&pb);
	sw_job_fini(&a);
	sw_job_fini(&b);
}
END_TEST

START_TEST(test_label)
{
	struct sw_job job;
	struct sw_plan plan;
	struct sw_err err = { 0 };
	char label[128];
	load(&job, JOB);
	ck_assert_int_eq(sw_plan_build(&job, 1, &plan, &err), SW_OK);
	sw_point_label(&plan.points[1], label, sizeof label);
	ck_assert_str_eq(label, "strided_read/course stride=1 n=1M cc=9.0");
	sw_plan_fini(&plan);
	sw_job_fini(&job);
}
END_TEST

START_TEST(test_too_big)
{
	struct sw_job job;
	struct sw_plan plan;
	struct sw_err err = { 0 };
	load(&job, JOB);
	ck_assert_int_eq(sw_job_set(&job, "strided_read.stride=1:128", &err), SW_OK);
	ck_assert_int_eq(sw_job_set(&job, "strided_read.n=1024:100000000:1024", &err), SW_OK);
	ck_assert_int_eq(sw_plan_build(&job, 1, &plan, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "more than"));
	ck_assert_ptr_null(plan.points);
	sw_job_fini(&job);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("plan");
	tcase_add_test(tc, test_counts);
	tcase_add_test(tc, test_ids_stable_and_unique);
	tcase_add_test(tc, test_id_golden);
	tcase_add_test(tc, test_ids_golden_seeds);
	tcase_add_test(tc, test_id_baseline_axis);
	tcase_add_test(tc, test_fingerprint_changes_with_job);
	tcase_add_test(tc, test_label);
	tcase_add_test(tc, test_too_big);
	suite_add_tcase(s, tc);
	return sw_check_run(s);
}
