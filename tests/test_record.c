/* Unit tests for record.c: the blank values of sw_record_init and
 * sw_record_no_counters, the copies from the model and the counters (every
 * field, and nothing else), the column table covering struct sw_record up to
 * its samples, docs/hdf5-schema.md naming every column with its type and
 * units, the axis columns, and sw_registry_check on the real registry and on
 * synthetic ones past each limit. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_run.h"
#include "backend/counters.h"
#include "column_check.h"
#include "kernel.h"
#include "model/model.h"
#include "core/record.h"

static struct sw_record a, b; /* big: not on the stack */

/* ---- blank rows and copies ------------------------------------------- */

START_TEST(init_blanks)
{
	memset(&a, 0x5a, sizeof a);
	sw_record_init(&a);
	ck_assert_uint_eq(a.point_id, 0);
	ck_assert_int_eq(a.status, SW_ROW_OK);
	ck_assert_str_eq(a.family, "");
	ck_assert_str_eq(a.check_mode, "none");
	ck_assert_str_eq(a.counter_note, "");
	for (int c = 0; c < SW_MAX_AXIS_COLUMNS; c++)
		ck_assert_int_eq(a.axis[c], -1);
	ck_assert(isnan(a.max_rel_err) && isnan(a.median_ns) && isnan(a.gbps));
	ck_assert(isnan(a.model_requests) && isnan(a.model_time_bound_ns));
	ck_assert(isnan(a.model_shared_ld_conflicts) && isnan(a.ctr_dram_write_bytes));
	ck_assert_double_eq(a.timed_s, 0);
	ck_assert_double_eq(a.start_unix, 0);
	ck_assert_int_eq(a.counter_passes, 0);
	ck_assert_uint_eq(a.n_samples, 0);
	ck_assert_double_eq(a.samples_ns[SW_MAX_SAMPLES - 1], 0);
	/* and every column of the list has the blank the list gives it */
#define X_NUM(name, kind, units, blank)                                                            \
	ck_assert_msg(isnan((double)(blank)) ? isnan((double)a.name) : a.name == (blank), #name);
#define X_TEXT(name, len, blank) ck_assert_str_eq(a.name, blank);
#include "core/record_columns.h"
}
END_TEST

/* Nonzero when x and y differ only within [from, to) of their bytes. */
static int same_outside(const struct sw_record *x, const struct sw_record *y, size_t from,
			size_t to)
{
	const unsigned char *p = (const void *)x, *q = (const void *)y;

	for (size_t i = 0; i < sizeof *x; i++)
		if ((i < from || i >= to) && p[i] != q[i])
			return 0;
	return 1;
}

START_TEST(no_counters_blanks_only_counters)
{
	memset(&a, 0x5a, sizeof a);
	strcpy(a.counter_note, "ok");
	b = a;
	sw_record_no_counters(&a);
	ck_assert_int_eq(a.counter_passes, 0);
	ck_assert(isnan(a.ctr_ld_requests) && isnan(a.ctr_ld_sectors));
	ck_assert(isnan(a.ctr_st_requests) && isnan(a.ctr_st_sectors));
	ck_assert(isnan(a.ctr_shared_ld_requests) && isnan(a.ctr_shared_ld_wavefronts));
	ck_assert(isnan(a.ctr_shared_ld_conflicts) && isnan(a.ctr_shared_st_requests));
	ck_assert(isnan(a.ctr_shared_st_wavefronts) && isnan(a.ctr_shared_st_conflicts));
	ck_assert(isnan(a.ctr_dram_read_bytes) && isnan(a.ctr_dram_write_bytes));
	ck_assert_str_eq(a.counter_note, "ok");
	ck_assert(same_outside(&a, &b, offsetof(struct sw_record, counter_passes),
			       offsetof(struct sw_record, start_unix)));
}
END_TEST

START_TEST(set_model_copies_every_figure)
{
	struct sw_model_figures m;
	double *d = (double *)&m;

	/* every figure distinct, so a swap shows */
	memset(&m, 0, sizeof m);
	for (size_t i = 0; i < offsetof(struct sw_model_figures, n_accesses) / sizeof *d; i++)
		d[i] = 100.0 + (double)i;
	m.n_accesses = 2;
	m.access[1] = (struct sw_access_figures){ .requests = 7,
						  .transactions = 28,
						  .counts = SW_COUNTS_REQUESTS };
	sw_record_init(&a);
	b = a;
	sw_record_set_model(&a, &m);
	ck_assert_double_eq(a.model_requests, m.requests);
	ck_assert_double_eq(a.model_transactions_per_request, m.transactions_per_request);
	ck_assert_double_eq(a.model_sectors_per_request, m.sectors_per_request);
	ck_assert_double_eq(a.model_moved_bytes, m.moved_bytes);
	ck_assert_double_eq(a.model_efficiency, m.efficiency);
	ck_assert_double_eq(a.model_conflict_degree, m.conflict_degree);
	ck_assert_double_eq(a.model_ld_requests, m.ld_requests);
	ck_assert_double_eq(a.model_ld_transactions, m.ld_transactions);
	ck_assert_double_eq(a.model_st_requests, m.st_requests);
	ck_assert_double_eq(a.model_st_transactions, m.st_transactions);
	ck_assert_double_eq(a.model_shared_ld_requests, m.shared_ld_requests);
	ck_assert_double_eq(a.model_shared_ld_wavefronts, m.shared_ld_wavefronts);
	ck_assert_double_eq(a.model_shared_ld_conflicts, m.shared_ld_conflicts);
	/* the time bound is the caller's, from the device's peak */
	ck_assert(isnan(a.model_time_bound_ns));
	ck_assert(isnan(a.useful_bytes));
	/* the per-access figures, beside the columns (/model_accesses) */
	ck_assert_int_eq(a.accesses.n, 2);
	ck_assert(!memcmp(&a.accesses.a[1], &m.access[1], sizeof m.access[1]));
	memcpy(&b.accesses, &a.accesses, sizeof a.accesses);
	ck_assert(same_outside(&a, &b, offsetof(struct sw_record, model_requests),
			       offsetof(struct sw_record, counter_note)));
}
END_TEST

START_TEST(set_counters_copies_every_count)
{
	struct sw_counter_values cv;
	double *d = (double *)&cv;

	for (size_t i = 0; i < offsetof(struct sw_counter_values, passes) / sizeof *d; i++)
		d[i] = 200.0 + (double)i;
	cv.passes = 4;
	sw_record_init(&a);
	strcpy(a.counter_note, "ok");
	b = a;
	sw_record_set_counters(&a, &cv);
	ck_assert_int_eq(a.counter_passes, 4);
	ck_assert_double_eq(a.ctr_ld_requests, cv.ld_requests);
	ck_assert_double_eq(a.ctr_ld_sectors, cv.ld_sectors);
	ck_assert_double_eq(a.ctr_st_requests, cv.st_requests);
	ck_assert_double_eq(a.ctr_st_sectors, cv.st_sectors);
	ck_assert_double_eq(a.ctr_shared_ld_requests, cv.shared_ld_requests);
	ck_assert_double_eq(a.ctr_shared_ld_wavefronts, cv.shared_ld_wavefronts);
	ck_assert_double_eq(a.ctr_shared_ld_conflicts, cv.shared_ld_conflicts);
	ck_assert_double_eq(a.ctr_shared_st_requests, cv.shared_st_requests);
	ck_assert_double_eq(a.ctr_shared_st_wavefronts, cv.shared_st_wavefronts);
	ck_assert_double_eq(a.ctr_shared_st_conflicts, cv.shared_st_conflicts);
	ck_assert_double_eq(a.ctr_dram_read_bytes, cv.dram_read_bytes);
	ck_assert_double_eq(a.ctr_dram_write_bytes, cv.dram_write_bytes);
	ck_assert_str_eq(a.counter_note, "ok");
	ck_assert(same_outside(&a, &b, offsetof(struct sw_record, counter_passes),
			       offsetof(struct sw_record, start_unix)));
}
END_TEST

/* ---- the column table ------------------------------------------------ */

/* Laid out as C lays out the columns one after another, nothing between
 * them but alignment, so no field hides between two columns. */
START_TEST(columns_cover_the_struct)
{
	char why[256];

	ck_assert_int_gt(sw_record_n_columns, 50);
	ck_assert_msg(columns_tile(sw_record_columns, sw_record_n_columns,
				   offsetof(struct sw_record, metrics), why, sizeof why),
		      "sw_record_columns: %s", why);
	ck_assert_str_eq(sw_record_columns[0].name, "point_id");
	ck_assert_str_eq(sw_record_columns[sw_record_n_columns - 1].name, "sample_offset");
}
END_TEST

static const char *doc_type(const struct sw_column *c, char *buf, size_t len)
{
	static const char *const names[] = {
		[SW_COL_I32] = "int32",  [SW_COL_U32] = "uint32",  [SW_COL_I64] = "int64",
		[SW_COL_U64] = "uint64", [SW_COL_F64] = "float64", [SW_COL_AXES] = "int64",
	};

	if (c->kind == SW_COL_TEXT)
		snprintf(buf, len, "string[%zu]", c->size);
	else
		snprintf(buf, len, "%s", names[c->kind]);
	return buf;
}

/* The doc's /measurements table names every column, with its type and
 * units, and no column the file lacks. */
START_TEST(doc_names_every_column)
{
	struct doc_column doc[128];
	int n = doc_columns("## `/measurements`", doc, 128);

	ck_assert_msg(n > 0, "no /measurements table in $SW_SOURCE_DIR/docs/hdf5-schema.md");
	for (int i = 0; i < sw_record_n_columns; i++) {
		const struct sw_column *c = &sw_record_columns[i];
		const struct doc_column *d = doc_find(doc, n, c->name);
		char type[32];

		if (c->kind == SW_COL_AXES) /* one row stands for every axis column */
			continue;
		ck_assert_msg(d, "docs/hdf5-schema.md: /measurements has no row for column %s",
			      c->name);
		ck_assert_msg(strcmp(d->type, doc_type(c, type, sizeof type)) == 0,
			      "docs/hdf5-schema.md says column %s is %s; it is %s", c->name,
			      d->type, type);
		ck_assert_msg(strcmp(d->units, c->units ? c->units : "") == 0,
			      "docs/hdf5-schema.md gives column %s units '%s'; it has '%s'",
			      c->name, d->units, c->units ? c->units : "");
	}
	for (int k = 0; k < n; k++) {
		int found = 0;

		for (int i = 0; i < sw_record_n_columns; i++)
			found |= strcmp(sw_record_columns[i].name, doc[k].name) == 0;
		ck_assert_msg(found, "docs/hdf5-schema.md names a column %s that is not written",
			      doc[k].name);
	}
}
END_TEST

/* ---- axis columns ---------------------------------------------------- */

START_TEST(every_registered_axis_has_its_column)
{
	for (int f = 0; f < sw_family_count(); f++)
		for (int x = 0; x < sw_family_at(f)->n_axes; x++) {
			int c = sw_axis_column_of(f, x);

			ck_assert_int_ge(c, 0);
			ck_assert_int_lt(c, sw_axis_column_count());
			ck_assert_str_eq(sw_axis_column_name(c), sw_family_at(f)->axes[x].name);
		}
	ck_assert_ptr_null(sw_axis_column_name(sw_axis_column_count()));
	ck_assert_ptr_null(sw_axis_column_name(-1));
}
END_TEST

/* ---- the registry check ---------------------------------------------- */

#define MAX_FAMILIES 8

static char axis_names[MAX_FAMILIES][SW_MAX_AXES + 1][8];
static struct sw_axis_def axes[MAX_FAMILIES][SW_MAX_AXES + 1];
static struct sw_variant variants[MAX_FAMILIES][SW_MAX_VARIANTS + 1];
static char variant_names[MAX_FAMILIES][SW_MAX_VARIANTS + 1][8];
static struct sw_family fams[MAX_FAMILIES];
static const struct sw_family *list[MAX_FAMILIES];
static char family_names[MAX_FAMILIES][8];

/* n families of n_axes axes each, named a<first>, a<first+1>, ... with
 * first = f * stride, and two variants each. */
static void make_families(int n, int n_axes, int stride)
{
	memset(fams, 0, sizeof fams);
	for (int f = 0; f < n; f++) {
		snprintf(family_names[f], sizeof family_names[f], "f%d", f);
		for (int x = 0; x < SW_MAX_AXES + 1; x++) {
			snprintf(axis_names[f][x], sizeof axis_names[f][x], "a%d", f * stride + x);
			axes[f][x] = (struct sw_axis_def){ .name = axis_names[f][x], .units = "" };
		}
		for (int v = 0; v < SW_MAX_VARIANTS + 1; v++) {
			snprintf(variant_names[f][v], sizeof variant_names[f][v], "v%d", v);
			variants[f][v] = (struct sw_variant){ .name = variant_names[f][v] };
		}
		fams[f] = (struct sw_family){ .name = family_names[f],
					      .axes = axes[f],
					      .n_axes = n_axes,
					      .variants = variants[f],
					      .n_variants = 2 };
		list[f] = &fams[f];
	}
}

/* Refused, and the message has each of the words. */
static void expect_refused(int n, const char *word1, const char *word2)
{
	struct sw_err e = { 0 };

	ck_assert_int_eq(sw_registry_check(list, n, &e), SW_EINVAL);
	ck_assert_msg(strstr(e.msg, word1), "'%s' lacks '%s'", e.msg, word1);
	ck_assert_msg(strstr(e.msg, word2), "'%s' lacks '%s'", e.msg, word2);
}

static void expect_accepted(int n)
{
	struct sw_err e = { 0 };

	ck_assert_msg(sw_registry_check(list, n, &e) == SW_OK, "%s", e.msg);
}

START_TEST(real_registry_passes)
{
	struct sw_err e = { 0 };

	ck_assert_msg(sw_registry_check(sw_family_list(), sw_family_count(), &e) == SW_OK, "%s",
		      e.msg);
	ck_assert_int_eq(sw_registry_check(NULL, 0, &e), SW_OK);
}
END_TEST

START_TEST(refuses_too_many_axis_names)
{
	make_families(3, 8, 8); /* 24 distinct names: the most a record holds */
	expect_accepted(3);
	make_families(4, 7, 7); /* 28, the fourth family brings the 25th: a24 */
	expect_refused(4, "family 'f3'", "axis 'a24'");
	make_families(4, 8, 6); /* shared names count once: a0..a25, 26 */
	expect_refused(4, "family 'f3'", "SW_MAX_AXIS_COLUMNS");
	make_families(4, 6, 6); /* a0..a23 */
	expect_accepted(4);
}
END_TEST

START_TEST(refuses_bad_counts)
{
	make_families(2, SW_MAX_AXES, 10);
	expect_accepted(2);
	fams[1].n_axes = SW_MAX_AXES + 1;
	expect_refused(2, "family 'f1'", "SW_MAX_AXES");
	fams[1].n_axes = -1;
	expect_refused(2, "family 'f1'", "SW_MAX_AXES");
	fams[1].n_axes = 1;
	fams[1].n_variants = SW_MAX_VARIANTS;
	expect_accepted(2);
	fams[1].n_variants = SW_MAX_VARIANTS + 1;
	expect_refused(2, "family 'f1'", "33 variants");
	fams[1].n_variants = 0;
	expect_refused(2, "family 'f1'", "0 variants");
}
END_TEST

/* -1 is SW_AXIS_UNUSED: a range that holds it is refused, at either end or
 * inside; one that stops short of it on either side is not. */
START_TEST(refuses_a_range_holding_unused)
{
	static const int64_t ranges[][3] = {
		/* min, max, refused */
		{ -1, 4, 1 }, { -8, -1, 1 }, { -3, 3, 1 }, { -1, -1, 1 },
		{ 0, 4, 0 },  { -8, -2, 0 }, { 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
		make_families(2, 2, 2);
		axes[1][1].min = ranges[i][0];
		axes[1][1].max = ranges[i][1];
		if (ranges[i][2])
			expect_refused(2, "family 'f1': axis 'a3'", "holds -1, SW_AXIS_UNUSED");
		else
			expect_accepted(2);
	}
}
END_TEST

START_TEST(refuses_bad_names)
{
	static const char long_name[] = "a_name_of_exactly_32_characters_";
	static const char just_fits[] = "a_name_of_exactly_31_characters";

	ck_assert_uint_eq(strlen(long_name), 32);
	make_families(2, 2, 10);
	fams[1].name = just_fits;
	expect_accepted(2);
	fams[1].name = long_name;
	expect_refused(2, "family 'a_name", "31 characters");
	fams[1].name = "";
	expect_refused(2, "family 1 of the registry", "1 to 31");
	fams[1].name = NULL;
	expect_refused(2, "family 1 of the registry", "1 to 31");
	fams[1].name = "f0";
	expect_refused(2, "family 'f0'", "twice");

	make_families(2, 2, 10);
	axes[1][1].name = just_fits;
	expect_accepted(2);
	axes[1][1].name = long_name;
	expect_refused(2, "family 'f1'", "axis 1");
	axes[1][1].name = "";
	expect_refused(2, "family 'f1'", "axis 1");
	axes[1][1].name = "a10";
	expect_refused(2, "family 'f1'", "axis 'a10' twice");
	axes[1][1].name = "rank"; /* would make a second /measurements column "rank" */
	expect_refused(2, "axis 'rank'", "column");

	make_families(2, 2, 10);
	variants[0][1].name = "";
	expect_refused(2, "family 'f0'", "variant 1");
	variants[0][1].name = long_name;
	expect_refused(2, "family 'f0'", "variant 1");
	variants[0][1].name = "v0";
	expect_refused(2, "family 'f0'", "variant 'v0' twice");
}
END_TEST

START_TEST(axis_names_may_repeat_across_families)
{
	make_families(3, 4, 0); /* every family has a0..a3 */
	expect_accepted(3);
}
END_TEST

/* The host half of a sampled copy (issue 22): the packed elements land
 * where a sampled check reads them, element sw_sample_index(seed, k, n). */
START_TEST(scatter_puts_sampled_elements_where_the_check_reads)
{
	enum { N = 100000 };
	static double full[N], view[N], packed[SW_CHECK_SAMPLES];
	uint64_t seed = 0x1234abcdull;
	for (uint64_t i = 0; i < N; i++)
		full[i] = (double)i + 0.5;
	for (uint32_t k = 0; k < SW_CHECK_SAMPLES; k++) /* what the gather kernel packs */
		packed[k] = full[sw_sample_index(seed, k, N)];
	memset(view, 0, sizeof view);
	sw_scatter_sampled(packed, sizeof(double), N, seed, SW_CHECK_SAMPLES, view);
	struct sw_host_out o = { .sample_seed = seed };
	struct sw_check c;
	uint64_t count = sw_check_begin(&c, N, 0);
	for (uint64_t k = 0; k < count; k++) {
		uint64_t i = sw_check_pick(&c, &o, k, N);
		ck_assert_msg(view[i] == full[i], "pick %llu", (unsigned long long)k);
	}
}
END_TEST

static Suite *record_suite(void)
{
	Suite *s = suite_create("record");
	TCase *t = tcase_create("record");

	tcase_add_test(t, init_blanks);
	tcase_add_test(t, no_counters_blanks_only_counters);
	tcase_add_test(t, set_model_copies_every_figure);
	tcase_add_test(t, set_counters_copies_every_count);
	tcase_add_test(t, columns_cover_the_struct);
	tcase_add_test(t, doc_names_every_column);
	tcase_add_test(t, every_registered_axis_has_its_column);
	tcase_add_test(t, real_registry_passes);
	tcase_add_test(t, refuses_too_many_axis_names);
	tcase_add_test(t, refuses_bad_counts);
	tcase_add_test(t, refuses_a_range_holding_unused);
	tcase_add_test(t, refuses_bad_names);
	tcase_add_test(t, axis_names_may_repeat_across_families);
	tcase_add_test(t, scatter_puts_sampled_elements_where_the_check_reads);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return sw_check_run(record_suite());
}
