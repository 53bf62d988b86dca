/* The cost model: a point's own duration by id (the latest row of an id),
 * on the class asked about first (the latest row of that pair), else its variant's median rate per byte or per flop, else the nominal
 * rate; which rows teach rates; the source of every estimate and the
 * counts per source over a plan. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "run/cost.h"
#include "job/job.h"
#include "job/plan.h"

/* strided_read: course and tuned at 2 strides x 2 n, stream_read and memcpy at 2 n. */
static const char *JOB = "name: t\n"
			 "families:\n  strided_read:\n    axes:\n      stride: 1,4\n"
			 "      n: 1M,4M\n";

static struct sw_job job;
static struct sw_plan plan;

static void setup(void)
{
	struct sw_err err = { 0 };

	ck_assert_msg(sw_job_parse("t.yaml", JOB, strlen(JOB), &job, &err) == SW_OK, "%s", err.msg);
	ck_assert_msg(sw_plan_build(&job, 0, &plan, &err) == SW_OK, "%s", err.msg);
	ck_assert_uint_eq(plan.n, 2 * 2 * 2 + 2 + 2);
}

static void teardown(void)
{
	sw_plan_fini(&plan);
	sw_job_fini(&job);
}

static struct sw_duration dur(uint64_t id, const char *family, const char *variant, int status,
			      double bytes, double flops, double wall_s)
{
	struct sw_duration d = { .point_id = id,
				 .status = status,
				 .useful_bytes = bytes,
				 .flops = flops,
				 .wall_s = wall_s };

	snprintf(d.family, sizeof d.family, "%s", family);
	snprintf(d.variant, sizeof d.variant, "%s", variant);
	return d;
}

static const char *variant_of(const struct sw_plan_point *pt)
{
	return sw_family_at(pt->family)->variants[pt->p.variant].name;
}

static double bytes_of(const struct sw_plan_point *pt)
{
	return sw_family_at(pt->family)->useful_bytes(&pt->p);
}

static double nominal(double bytes, double flops)
{
	return SW_COST_NOMINAL_POINT_S + bytes / SW_COST_NOMINAL_BYTES_PER_S +
	       flops / SW_COST_NOMINAL_FLOPS_PER_S;
}

/* Without a table every estimate is nominal, from the family's formulas. */
START_TEST(test_nominal)
{
	struct sw_cost_model m;
	struct sw_err err = { 0 };

	ck_assert_int_eq(sw_cost_init(&m, NULL, 0, &err), SW_OK);
	for (size_t i = 0; i < plan.n; i++) {
		const struct sw_plan_point *pt = &plan.points[i];
		double flops = sw_family_at(pt->family)->flops(&pt->p);
		struct sw_cost c = sw_cost_point(&m, pt);

		ck_assert_int_eq(c.source, SW_COST_NOMINAL);
		ck_assert_double_eq_tol(c.expected_s, nominal(bytes_of(pt), flops), 1e-15);
		ck_assert(c.expected_s > SW_COST_NOMINAL_POINT_S);
	}
	/* n = 4M floats read is 16 MiB: 5 ms + 0.42 ms + 4M flops at 1e11/s */
	ck_assert_double_eq_tol(sw_cost_estimate(&m, 1, "x", "y", 16777216.0, 4194304.0).expected_s,
				5e-3 + 16777216.0 / 40e9 + 4194304.0 / 100e9, 1e-15);
	/* counts that are not counts are 0 */
	ck_assert_double_eq(sw_cost_estimate(&m, 1, "x", "y", NAN, -3.0).expected_s,
			    SW_COST_NOMINAL_POINT_S);
	sw_cost_fini(&m);
	ck_assert_ptr_null(m.known);
	sw_cost_fini(&m); /* twice is safe */
}
END_TEST

/* A point's own row wins over everything, the latest row of an id over
 * earlier ones, skipped rows too; rows without a usable duration are not known. */
START_TEST(test_measured)
{
	const struct sw_plan_point *p0 = &plan.points[0], *p1 = &plan.points[1];
	const struct sw_plan_point *p2 = &plan.points[2], *p3 = &plan.points[3];
	struct sw_duration rows[] = {
		dur(p0->id, "strided_read", "course", SW_ROW_OK, 1, 0, 1.25),
		dur(p1->id, "strided_read", "course", SW_ROW_OK, 1, 0, 7.0),
		dur(p2->id, "strided_read", "course", SW_ROW_SKIPPED, 1, 0, 2e-5),
		dur(p3->id, "strided_read", "course", SW_ROW_OK, 1, 0, NAN),
		dur(p1->id, "strided_read", "course", SW_ROW_OK, 1, 0, 0.5), /* a later session */
	};
	struct sw_cost_model m;
	struct sw_err err = { 0 };
	struct sw_cost c;

	ck_assert_int_eq(sw_cost_init(&m, rows, 5, &err), SW_OK);
	ck_assert_uint_eq(m.n_known, 3);
	c = sw_cost_point(&m, p0);
	ck_assert_int_eq(c.source, SW_COST_MEASURED);
	ck_assert_double_eq(c.expected_s, 1.25);
	ck_assert_double_eq(sw_cost_point(&m, p1).expected_s, 0.5);
	ck_assert_double_eq(sw_cost_point(&m, p2).expected_s, 2e-5);
	/* p3's row has no duration: learned from the course rows instead */
	ck_assert_int_eq(sw_cost_point(&m, p3).source, SW_COST_LEARNED);
	sw_cost_fini(&m);
	/* rates alone: no point known by id, p0 costs its variant's rate */
	ck_assert_int_eq(sw_cost_init_rates(&m, rows, 5, &err), SW_OK);
	ck_assert_uint_eq(m.n_known, 0);
	ck_assert_uint_gt(m.n_rates, 0);
	ck_assert_int_eq(sw_cost_point(&m, p0).source, SW_COST_LEARNED);
	sw_cost_fini(&m);
}
END_TEST

static struct sw_duration on(struct sw_duration d, const char *cls)
{
	snprintf(d.device_class, sizeof d.device_class, "%s", cls);
	return d;
}

/* Per class: a point's time on a GPU of the class asked about, the latest
 * row of that pair; else its time on any class (the latest row of its id,
 * whatever class); else its variant's rate; else the nominal rate. A class
 * the table never names, NULL and "" are any class. */
START_TEST(test_measured_per_class)
{
	const struct sw_plan_point *p0 = &plan.points[0], *p1 = &plan.points[1];
	const struct sw_plan_point *p2 = &plan.points[2], *p8 = &plan.points[8];
	struct sw_duration rows[] = {
		on(dur(p0->id, "strided_read", "course", SW_ROW_OK, 1, 0, 1.0), "A"),
		on(dur(p0->id, "strided_read", "course", SW_ROW_OK, 1, 0, 2.0), "B"),
		on(dur(p1->id, "strided_read", "course", SW_ROW_OK, 1, 0, 3.0), "A"),
		on(dur(p0->id, "strided_read", "course", SW_ROW_OK, 1, 0, 4.0), "A"), /* later */
		dur(p2->id, "strided_read", "course", SW_ROW_OK, 1, 0, 5.0),          /* no class */
		on(dur(p2->id, "strided_read", "course", SW_ROW_OK, 1, 0, NAN), "B"), /* no time */
	};
	struct sw_cost_model m;
	struct sw_err err = { 0 };
	double expected[12];

	ck_assert_int_eq(sw_cost_init(&m, rows, 6, &err), SW_OK);
	ck_assert_uint_eq(m.n_classes, 2);
	ck_assert_uint_eq(m.n_class_known, 3);
	ck_assert(sw_cost_knows_class(&m, "A") && sw_cost_knows_class(&m, "B"));
	ck_assert(!sw_cost_knows_class(&m, "C") && !sw_cost_knows_class(&m, "") &&
		  !sw_cost_knows_class(&m, NULL));
	ck_assert_double_eq(sw_cost_point_on(&m, "A", p0).expected_s, 4.0);
	ck_assert_double_eq(sw_cost_point_on(&m, "B", p0).expected_s, 2.0);
	ck_assert_int_eq(sw_cost_point_on(&m, "B", p0).source, SW_COST_MEASURED);
	/* any class: the latest row of the id, as without classes */
	ck_assert_double_eq(sw_cost_point_on(&m, "C", p0).expected_s, 4.0);
	ck_assert_double_eq(sw_cost_point_on(&m, NULL, p0).expected_s, 4.0);
	ck_assert_double_eq(sw_cost_point(&m, p0).expected_s, 4.0);
	/* p1 only on A: B falls back to its time on A */
	ck_assert_double_eq(sw_cost_point_on(&m, "B", p1).expected_s, 3.0);
	ck_assert_int_eq(sw_cost_point_on(&m, "B", p1).source, SW_COST_MEASURED);
	/* p2: no time on B, the row without a class */
	ck_assert_double_eq(sw_cost_point_on(&m, "B", p2).expected_s, 5.0);
	/* p8 nowhere: the variant's rate, or the nominal, as without a class */
	ck_assert_double_eq(sw_cost_point_on(&m, "A", p8).expected_s,
			    sw_cost_point(&m, p8).expected_s);
	ck_assert_int_ne(sw_cost_point_on(&m, "A", p8).source, SW_COST_MEASURED);
	sw_cost_todo_on(&m, "B", &plan, NULL, 0, expected, NULL);
	ck_assert_double_eq(expected[0], 2.0);
	ck_assert_double_eq(expected[1], 3.0);
	sw_cost_fini(&m);
	ck_assert_ptr_null(m.classes);
	ck_assert_uint_eq(m.n_class_known, 0);
	/* rates alone know no class */
	ck_assert_int_eq(sw_cost_init_rates(&m, rows, 6, &err), SW_OK);
	ck_assert(!sw_cost_knows_class(&m, "A"));
	ck_assert_int_ne(sw_cost_point_on(&m, "A", p0).source, SW_COST_MEASURED);
	sw_cost_fini(&m);
}
END_TEST

/* Rates are medians over a variant's ok rows of any ids; outliers, skipped
 * rows and zero durations do not move them; other variants stay nominal. */
START_TEST(test_learned_per_byte)
{
	struct sw_duration rows[] = {
		dur(901, "strided_read", "course", SW_ROW_OK, 1e6, 0, 3e-3),
		dur(902, "histogram", "global_atomic", SW_ROW_OK, 1e6, 0, 9.0),
		dur(903, "strided_read", "course", SW_ROW_OK, 2e6, 0, 2e-3),
		dur(904, "strided_read", "course", SW_ROW_OK, 1e6, 0, 100.0), /* an outlier */
		dur(905, "strided_read", "course", SW_ROW_SKIPPED, 1e6, 0, 1e3),
		dur(906, "strided_read", "course", SW_ROW_OK, 1e6, 0, 0.0),
		dur(907, "strided_read", "course", SW_ROW_OK, 4e6, 0, 8e-3),
		dur(908, "strided_read", "course", SW_ROW_INVALID, 1e6, 0, 1e3),
		dur(909, "reduce", "atomic", SW_ROW_OK, 1e6, 0, 5.0),
	};
	/* course's ok rates: 3e-9, 1e-9, 1e-4, 2e-9: median (2e-9 + 3e-9) / 2 */
	const double rate = 2.5e-9;
	struct sw_cost_model m;
	struct sw_err err = { 0 };
	size_t n_course = 0;

	ck_assert_int_eq(sw_cost_init(&m, rows, sizeof rows / sizeof rows[0], &err), SW_OK);
	ck_assert_uint_eq(m.n_rates, 3);
	for (size_t i = 1; i < m.n_rates; i++) /* sorted, for the lookup */
		ck_assert_int_lt(strcmp(m.rates[i - 1].family, m.rates[i].family), 0);
	for (size_t i = 0; i < plan.n; i++) {
		const struct sw_plan_point *pt = &plan.points[i];
		struct sw_cost c = sw_cost_point(&m, pt);

		if (strcmp(variant_of(pt), "course") != 0) {
			ck_assert_int_eq(c.source, SW_COST_NOMINAL);
			continue;
		}
		n_course++;
		ck_assert_int_eq(c.source, SW_COST_LEARNED);
		ck_assert_double_eq_tol(c.expected_s, rate * bytes_of(pt), 1e-12 * c.expected_s);
	}
	ck_assert_uint_eq(n_course, 4);
	/* an odd count takes the middle one */
	rows[3].wall_s = 0.0;
	sw_cost_fini(&m);
	ck_assert_int_eq(sw_cost_init(&m, rows, sizeof rows / sizeof rows[0], &err), SW_OK);
	ck_assert_double_eq_tol(sw_cost_point(&m, &plan.points[0]).expected_s,
				2e-9 * bytes_of(&plan.points[0]),
				1e-12 * bytes_of(&plan.points[0]) * 2e-9);
	sw_cost_fini(&m);
}
END_TEST

/* Rows without bytes teach a rate per flop, used where a point has flops
 * and no byte rate applies; a variant can have both. */
START_TEST(test_learned_per_flop)
{
	struct sw_duration rows[] = {
		dur(1, "gemm", "naive", SW_ROW_OK, 0, 1e9, 2.0),
		dur(2, "gemm", "naive", SW_ROW_OK, 0, 2e9, 2.0),
		dur(3, "gemm", "naive", SW_ROW_OK, 0, 4e9, 2.0),
		dur(4, "gemm", "tiled", SW_ROW_OK, 0, 1e9, 0.5),
		dur(5, "gemm", "tiled", SW_ROW_OK, 1e9, 1e9, 4.0),
		dur(6, "gemm", "empty", SW_ROW_OK, 0, 0, 4.0), /* teaches nothing */
	};
	struct sw_cost_model m;
	struct sw_err err = { 0 };
	struct sw_cost c;

	ck_assert_int_eq(sw_cost_init(&m, rows, 6, &err), SW_OK);
	ck_assert_uint_eq(m.n_rates, 2);
	c = sw_cost_estimate(&m, 77, "gemm", "naive", 0, 3e9);
	ck_assert_int_eq(c.source, SW_COST_LEARNED);
	ck_assert_double_eq_tol(c.expected_s, 1e-9 * 3e9, 1e-12);
	/* bytes, but naive learned no byte rate: its flop rate */
	ck_assert_double_eq_tol(sw_cost_estimate(&m, 77, "gemm", "naive", 5e8, 3e9).expected_s, 3.0,
				1e-12);
	/* tiled has both: bytes first, flops without bytes */
	ck_assert_double_eq_tol(sw_cost_estimate(&m, 77, "gemm", "tiled", 2e9, 1e9).expected_s, 8.0,
				1e-12);
	ck_assert_double_eq_tol(sw_cost_estimate(&m, 77, "gemm", "tiled", 0, 2e9).expected_s, 1.0,
				1e-12);
	/* neither bytes nor flops, or an unknown variant: nominal */
	c = sw_cost_estimate(&m, 77, "gemm", "naive", 0, 0);
	ck_assert_int_eq(c.source, SW_COST_NOMINAL);
	ck_assert_double_eq(c.expected_s, SW_COST_NOMINAL_POINT_S);
	ck_assert_int_eq(sw_cost_estimate(&m, 77, "gemm", "empty", 0, 1e9).source, SW_COST_NOMINAL);
	ck_assert_int_eq(sw_cost_estimate(&m, 77, "gemmx", "naive", 0, 1e9).source,
			 SW_COST_NOMINAL);
	sw_cost_fini(&m);
}
END_TEST

/* Over a to-do list (or the whole plan), estimates by source. */
START_TEST(test_todo_counts)
{
	struct sw_duration rows[] = {
		/* skipped: known by id, but teaches no rate */
		dur(plan.points[5].id, "strided_read", "tuned", SW_ROW_SKIPPED, 4e6, 0, 0.25),
		dur(999, "strided_read", "tuned", SW_ROW_OK, 4e6, 0, 0.004),
	};
	const uint32_t todo[] = { 5, 0, 6, 11 };
	double expected[12];
	size_t by[SW_COST_N_SOURCES];
	struct sw_cost_model m;
	struct sw_err err = { 0 };

	ck_assert_str_eq(variant_of(&plan.points[5]), "tuned");
	ck_assert_str_eq(variant_of(&plan.points[6]), "tuned");
	ck_assert_int_eq(sw_cost_init(&m, rows, 2, &err), SW_OK);
	sw_cost_todo(&m, &plan, todo, 4, expected, by);
	ck_assert_double_eq(expected[0], 0.25);
	ck_assert_uint_eq(by[SW_COST_MEASURED], 1);
	ck_assert_uint_eq(by[SW_COST_LEARNED], 1);
	ck_assert_uint_eq(by[SW_COST_NOMINAL], 2);
	ck_assert_double_eq_tol(expected[2], 1e-9 * bytes_of(&plan.points[6]), 1e-15);
	ck_assert_double_eq(expected[3], sw_cost_point(&m, &plan.points[11]).expected_s);
	sw_cost_todo(&m, &plan, NULL, 0, expected, by);
	ck_assert_uint_eq(by[SW_COST_MEASURED] + by[SW_COST_LEARNED] + by[SW_COST_NOMINAL], plan.n);
	ck_assert_uint_eq(by[SW_COST_LEARNED], 3); /* the other tuned points */
	for (size_t i = 0; i < plan.n; i++)
		ck_assert_double_eq(expected[i], sw_cost_point(&m, &plan.points[i]).expected_s);
	sw_cost_todo(&m, &plan, todo, 4, expected, NULL); /* counts are optional */
	sw_cost_fini(&m);
}
END_TEST

START_TEST(test_source_names)
{
	ck_assert_str_eq(sw_cost_source_name(SW_COST_MEASURED), "from --costs");
	ck_assert_str_eq(sw_cost_source_name(SW_COST_LEARNED), "learned rates");
	ck_assert_str_eq(sw_cost_source_name(SW_COST_NOMINAL), "bytes and flops");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cost");
	TCase *tc = tcase_create("cost");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_nominal);
	tcase_add_test(tc, test_measured);
	tcase_add_test(tc, test_measured_per_class);
	tcase_add_test(tc, test_learned_per_byte);
	tcase_add_test(tc, test_learned_per_flop);
	tcase_add_test(tc, test_todo_counts);
	tcase_add_test(tc, test_source_names);
	suite_add_tcase(s, tc);
	return sw_check_run(s);
}
