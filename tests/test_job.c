/*
 * Unit tests of job.c: good job files with their values and defaults, one
 * bad fixture per kind of mistake (status and exact file:line:column), file
 * loading limits and types, --set overrides, compute capabilities, the one
 * number syntax of every numeric key and a leading byte order mark.
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check_run.h"
#include "job/job.h"
#include "job/plan.h"
#include "core/record.h"

static char data_dir[4096];

/* SW_TEST_DATA (set by ctest), else tests/data beside this source file. */
static void find_data_dir(void)
{
	const char *env = getenv("SW_TEST_DATA");
	const char *slash;

	if (env && *env) {
		snprintf(data_dir, sizeof data_dir, "%s", env);
		return;
	}
	slash = strrchr(__FILE__, '/');
	if (slash)
		snprintf(data_dir, sizeof data_dir, "%.*s/data", (int)(slash - __FILE__), __FILE__);
	else
		snprintf(data_dir, sizeof data_dir, "data");
}

static void job_path(char *buf, size_t len, const char *file)
{
	snprintf(buf, len, "%s/jobs/%s", data_dir, file);
}

/* A job after a failure: nothing left to free. */
static void assert_empty(const struct sw_job *job)
{
	ck_assert_ptr_null(job->path);
	ck_assert_ptr_null(job->text);
	ck_assert_ptr_null(job->families);
	ck_assert_int_eq(job->n_families, 0);
	ck_assert_int_eq(job->n_ccs, 0);
	ck_assert_str_eq(job->name, "");
}

static void assert_values(const struct sw_axis_values *a, const int64_t *want, size_t n)
{
	ck_assert_uint_eq(a->n, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(a->v[i] == want[i], "value %zu is %lld, want %lld", i,
			      (long long)a->v[i], (long long)want[i]);
}

/* The values an axis takes by default, from the registry itself. */
static void assert_default_axis(const struct sw_job_family *jf, int axis)
{
	struct sw_axis_values want;
	struct sw_err err = { 0 };

	ck_assert_int_eq(sw_axis_def_parse(&jf->family->axes[axis], jf->family->axes[axis].defaults,
					   &want, &err),
			 SW_OK);
	assert_values(&jf->axes[axis].values, want.v, want.n);
	ck_assert_int_eq(jf->axes[axis].loc.line, 0);
	ck_assert_int_eq(jf->axes[axis].loc.column, 0);
	sw_axis_values_fini(&want);
}

static void load_ok(const char *file, struct sw_job *job)
{
	char path[4200];
	struct sw_err err = { 0 };
	enum sw_status st;

	job_path(path, sizeof path, file);
	st = sw_job_load(path, job, &err);
	ck_assert_msg(st == SW_OK, "%s: status %d: %s", file, st, err.msg);
	ck_assert_str_eq(job->path, path);
}

static int stride_axis(void)
{
	return sw_axis_find(sw_family_find("strided_read"), "stride");
}

static int n_axis(void)
{
	return sw_axis_find(sw_family_find("strided_read"), "n");
}

START_TEST(test_registry_has_strided_read)
{
	const struct sw_family *f = sw_family_find("strided_read");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(stride_axis(), 0);
	ck_assert_int_ge(n_axis(), 0);
	ck_assert_int_ge(sw_variant_find(f, "course"), 0);
	ck_assert_int_ge(sw_variant_find(f, "tuned"), 0);
	ck_assert_int_ge(sw_variant_find(f, "stream_read"), 0);
	ck_assert_int_ge(sw_variant_find(f, "memcpy"), 0);
	/* The bad fixtures rely on these ranges. */
	ck_assert_int_eq(f->axes[stride_axis()].min, 1);
	ck_assert_int_eq(f->axes[stride_axis()].max, 128);
	ck_assert_int_eq(f->axes[n_axis()].min, 1024);
	ck_assert_int_eq(f->axes[n_axis()].max, INT64_C(4) << 30);
}
END_TEST

START_TEST(test_good_full)
{
	static const int64_t strides[] = { 1, 2, 4, 8, 16, 32, 64, 128 };
	static const int64_t n[] = { INT64_C(64) << 20 };
	const struct sw_family *f = sw_family_find("strided_read");
	struct sw_job job;
	const struct sw_job_family *jf;

	load_ok("good_full.yaml", &job);
	ck_assert_str_eq(job.name, "full-test.1");
	ck_assert_double_eq(job.measure.rse_target, 0.01);
	ck_assert_int_eq(job.measure.min_samples, 5);
	ck_assert_int_eq(job.measure.max_samples, 300);
	ck_assert_int_eq(job.measure.warmup, 0);
	ck_assert_double_eq(job.measure.time_cap_s, 2.5);
	ck_assert_double_eq(job.measure.min_sample_s, 0);
	ck_assert_int_eq(job.measure.flush_l2, SW_FLUSH_ALWAYS);
	ck_assert_int_eq(job.n_ccs, 4);
	ck_assert_int_eq(job.ccs[0], 60);
	ck_assert_int_eq(job.ccs[1], 70);
	ck_assert_int_eq(job.ccs[2], 90);
	ck_assert_int_eq(job.ccs[3], 120);
	ck_assert_int_eq(job.n_families, 1);
	jf = &job.families[0];
	ck_assert_ptr_eq(jf->family, f);
	ck_assert_int_eq(jf->index, sw_family_index(f));
	ck_assert_uint_eq(jf->variants,
			  1u << sw_variant_find(f, "course") | 1u << sw_variant_find(f, "tuned"));
	ck_assert_int_eq(jf->loc.line, 14);
	ck_assert_int_eq(jf->loc.column, 3);
	assert_values(&jf->axes[stride_axis()].values, strides, 8);
	ck_assert_int_eq(jf->axes[stride_axis()].loc.line, 17);
	ck_assert_int_eq(jf->axes[stride_axis()].loc.column, 15);
	assert_values(&jf->axes[n_axis()].values, n, 1);
	ck_assert_int_eq(jf->axes[n_axis()].loc.line, 18);
	ck_assert_int_eq(jf->axes[n_axis()].loc.column, 10);
	/* The whole text is kept, NUL-terminated. */
	ck_assert_ptr_nonnull(job.text);
	ck_assert_ptr_nonnull(strstr(job.text, "name: full-test.1\n"));
	ck_assert_uint_eq(job.text[strlen(job.text) - 1], '\n');
	sw_job_fini(&job);
	assert_empty(&job);
	sw_job_fini(&job); /* idempotent */
}
END_TEST

START_TEST(test_good_minimal_defaults)
{
	const struct sw_family *f = sw_family_find("strided_read");
	static const int ccs[] = { 60, 70, 80, 90, 100, 120 };
	struct sw_job job;

	load_ok("good_minimal.yaml", &job);
	ck_assert_str_eq(job.name, "good_minimal"); /* the file's stem */
	ck_assert_double_eq(job.measure.rse_target, 0.005);
	ck_assert_int_eq(job.measure.min_samples, 10);
	ck_assert_int_eq(job.measure.max_samples, 200);
	ck_assert_int_eq(job.measure.warmup, 2);
	ck_assert_double_eq(job.measure.time_cap_s, 1.0);
	ck_assert_double_eq(job.measure.min_sample_s, 20e-6);
	ck_assert_int_eq(job.measure.flush_l2, SW_FLUSH_AUTO);
	ck_assert_int_eq(job.n_ccs, 6);
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(job.ccs[i], ccs[i]);
	ck_assert_int_eq(job.n_families, 1);
	ck_assert_ptr_eq(job.families[0].family, f);
	ck_assert_uint_eq(job.families[0].variants, (1u << f->n_variants) - 1);
	for (int a = 0; a < f->n_axes; a++)
		assert_default_axis(&job.families[0], a);
	sw_job_fini(&job);
}
END_TEST

START_TEST(test_good_forms)
{
	static const int64_t strides[] = { 1, 3, 5 };
	static const int64_t n[] = { 1024, INT64_C(2) << 20, INT64_C(4) << 30 };
	const struct sw_family *f = sw_family_find("strided_read");
	struct sw_job job;

	load_ok("good_forms.yaml", &job);
	ck_assert_str_eq(job.name, "forms");
	ck_assert_int_eq(job.measure.min_samples, 10); /* `measure:` left empty */
	ck_assert_int_eq(job.n_ccs, 2);
	ck_assert_int_eq(job.ccs[0], 60);
	ck_assert_int_eq(job.ccs[1], 90);
	ck_assert_uint_eq(job.families[0].variants, 1u << sw_variant_find(f, "stream_read") |
							    1u << sw_variant_find(f, "memcpy"));
	assert_values(&job.families[0].axes[stride_axis()].values, strides, 3);
	assert_values(&job.families[0].axes[n_axis()].values, n, 3);
	ck_assert_int_eq(job.families[0].axes[stride_axis()].loc.line, 10);
	ck_assert_int_eq(job.families[0].axes[stride_axis()].loc.column, 15);
	sw_job_fini(&job);
}
END_TEST

/* One bad fixture: the status, the exact position, and what the message says. */
struct bad_case {
	const char *file;
	int line, column;
	const char *says;
};

static const struct bad_case bad_cases[] = {
	{ "bad_syntax.yaml", 3, 25, "YAML syntax error: did not find expected ',' or ']'" },
	{ "bad_tab.yaml", 2, 1, "YAML syntax error" },
	{ "bad_top_key.yaml", 2, 1,
	  "unknown key `famlies` in the job; expected one of: name, measure, model, plugins, "
	  "families" },
	{ "bad_family.yaml", 2, 3,
	  "unknown family `strided_write`; registered families: strided_read" },
	{ "bad_variant.yaml", 3, 24,
	  "unknown variant `fancy` of family strided_read; expected one of:" },
	{ "bad_axis.yaml", 5, 7,
	  "unknown axis `strides` in strided_read.axes; expected one of: stride, n" },
	{ "bad_family_key.yaml", 3, 5,
	  "unknown key `variant` in strided_read; expected one of: variants, axes" },
	{ "bad_type.yaml", 1, 10,
	  "measure: expected a mapping of measurement settings, found a sequence" },
	{ "bad_type_scalar.yaml", 2, 15,
	  "measure.rse_target: expected a number x with 0 < x < 1, found a mapping" },
	{ "bad_null_value.yaml", 2, 14,
	  "measure.rse_target: expected a number x with 0 < x < 1, found nothing" },
	{ "bad_empty_axis.yaml", 4, 15, "stride: empty; expected axis values" },
	{ "bad_empty_variants.yaml", 3, 15, "strided_read.variants: empty" },
	{ "bad_dup_value.yaml", 4, 22, "stride: the value 4 appears twice" },
	{ "bad_range.yaml", 5, 15, "stride value 0 is out of range 1..128" },
	{ "bad_seq_range.yaml", 4, 15, "n value 8G is out of range 1K..4G" },
	{ "bad_reversed.yaml", 4, 15, "stride: \"128:1\": the start 128 is above the end 1" },
	{ "bad_step.yaml", 4, 15, "stride: \"0:32:0\": the step must be at least 1" },
	{ "bad_axis_junk.yaml", 4, 10, "n: \"64MB\" is not an integer: unexpected \"B\"" },
	{ "bad_overflow.yaml", 4, 10,
	  "n: \"99999999999999999999\" does not fit in a 64-bit integer" },
	{ "bad_dup_key.yaml", 4, 3,
	  "duplicate key `warmup` in measure (first at line 2, column 3)" },
	{ "bad_dup_family.yaml", 4, 3,
	  "duplicate family `strided_read` in families (first at line 2, column 3)" },
	{ "bad_not_mapping.yaml", 1, 1,
	  "expected a mapping with keys name, measure, model and families, found a sequence" },
	{ "bad_empty.yaml", 1, 1, "the job file is empty" },
	{ "bad_no_families.yaml", 1, 1, "missing the required key `families`" },
	{ "bad_families_empty.yaml", 2, 11,
	  "families: empty; expected at least one kernel family" },
	{ "bad_two_docs.yaml", 3, 1, "a second YAML document" },
	{ "bad_cc.yaml", 2, 14, "model.ccs: \"9.x\" is not a compute capability" },
	{ "bad_dup_cc.yaml", 2, 8, "model.ccs: 8.0 is listed twice" },
	{ "bad_rse.yaml", 2, 15, "measure.rse_target: 1.5 is out of range" },
	{ "bad_min_max.yaml", 3, 16, "measure.max_samples: 10 is below min_samples 20" },
	{ "bad_flush.yaml", 2, 13,
	  "measure.flush_l2: expected auto, always or never, found \"sometimes\"" },
	{ "bad_name.yaml", 1, 7, "name: expected a name of 1 to 63 characters" },
	{ "bad_nul.yaml", 4, 11, "NUL byte" },
	{ "bad_utf8.yaml", 1, 10, "invalid UTF-8 (byte 0xE9)" },
	{ "bad_utf8_column.yaml", 3, 9, "invalid UTF-8 (byte 0xFF)" },
};

START_TEST(test_bad_fixture)
{
	const struct bad_case *b = &bad_cases[_i];
	char path[4200], prefix[4300];
	struct sw_job job;
	struct sw_err err = { 0 };
	enum sw_status st;

	job_path(path, sizeof path, b->file);
	memset(&job, 0xA5, sizeof job); /* the loader must not trust what it is given */
	st = sw_job_load(path, &job, &err);
	ck_assert_msg(st == SW_EINVAL, "%s: status %d (%s), want SW_EINVAL", b->file, st, err.msg);
	ck_assert_int_eq(err.status, SW_EINVAL);
	snprintf(prefix, sizeof prefix, "%s:%d:%d: ", path, b->line, b->column);
	ck_assert_msg(!strncmp(err.msg, prefix, strlen(prefix)),
		      "%s: message \"%s\" does not start with \"%s\"", b->file, err.msg, prefix);
	ck_assert_msg(strstr(err.msg, b->says), "%s: message \"%s\" lacks \"%s\"", b->file, err.msg,
		      b->says);
	assert_empty(&job);
	sw_job_fini(&job);
}
END_TEST

/* Every bad_*.yaml in the data directory has a case above, and back. */
START_TEST(test_bad_fixtures_all_listed)
{
	int n = (int)(sizeof bad_cases / sizeof bad_cases[0]), found = 0;
	char path[4200];
	struct dirent *e;
	DIR *d;

	ck_assert_int_ge(n, 16);
	snprintf(path, sizeof path, "%s/jobs", data_dir);
	d = opendir(path);
	ck_assert_msg(d != NULL, "cannot open %s", path);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		int listed = 0;
		if (strncmp(e->d_name, "bad_", 4) || len < 5 ||
		    strcmp(e->d_name + len - 5, ".yaml"))
			continue;
		for (int i = 0; i < n; i++)
			listed |= !strcmp(bad_cases[i].file, e->d_name);
		ck_assert_msg(listed, "fixture %s has no case in bad_cases", e->d_name);
		found++;
	}
	closedir(d);
	ck_assert_int_eq(found, n);
}
END_TEST

/* Parses text from memory; the status and the message. */
static enum sw_status parse(const char *text, struct sw_job *job, struct sw_err *err)
{
	return sw_job_parse("mem.yaml", text, strlen(text), job, err);
}

static void parse_fails(const char *text, const char *says)
{
	struct sw_job job;
	struct sw_err err = { 0 };
	enum sw_status st = parse(text, &job, &err);

	ck_assert_msg(st == SW_EINVAL, "\"%s\": status %d, want SW_EINVAL", text, st);
	ck_assert_msg(strstr(err.msg, says), "\"%s\": message \"%s\" lacks \"%s\"", text, err.msg,
		      says);
	ck_assert_msg(!strncmp(err.msg, "mem.yaml:", 9), "message \"%s\" lacks the path", err.msg);
	assert_empty(&job);
}

/* A categorical axis by its names: a job's list and scalar, --set, the
 * defaults; the values its ids need, in the order written. */
START_TEST(test_named_axis_values)
{
	struct sw_job job;
	struct sw_err err = { 0 };
	const int64_t cols_rows[] = { 2, 0 }, gather[] = { 1 }, all[] = { 0, 1, 2 };

	ck_assert_int_eq(parse("families:\n  texture_read:\n    axes: {pattern: [columns, 0]}\n",
			       &job, &err),
			 SW_OK);
	const struct sw_family *f = job.families[0].family;
	int a = sw_axis_find(f, "pattern");
	assert_values(&job.families[0].axes[a].values, cols_rows, 2);
	ck_assert_int_eq(sw_job_set(&job, "texture_read.pattern=gather", &err), SW_OK);
	assert_values(&job.families[0].axes[a].values, gather, 1);
	ck_assert_int_eq(sw_job_set(&job, "texture_read.pattern=rows,diagonal", &err), SW_EINVAL);
	ck_assert_msg(strstr(err.msg, "unknown value \"diagonal\"; expected one of: rows, "
				      "gather, columns"),
		      "%s", err.msg);
	ck_assert_int_eq(sw_job_set(&job, "texture_read.pattern=3", &err), SW_EINVAL);
	ck_assert_msg(strstr(err.msg, "value 3 is none of rows (0), gather (1), columns (2)"), "%s",
		      err.msg);
	sw_job_fini(&job);

	ck_assert_int_eq(
		parse("families: {texture_read: {axes: {pattern: \"rows, columns\"}}}", &job, &err),
		SW_OK);
	sw_job_fini(&job);
	ck_assert_int_eq(parse("families: {texture_read: }", &job, &err), SW_OK);
	assert_values(&job.families[0].axes[a].values, all, 3); /* "rows,gather,columns" */
	sw_job_fini(&job);
	parse_fails("families:\n  texture_read:\n    axes: {pattern: [rows, diagonal]}\n",
		    "mem.yaml:3:28: pattern: unknown value \"diagonal\"");
	parse_fails("families:\n  histogram:\n    axes: {dist: 3}\n",
		    "dist value 3 is none of uniform (0), skewed (1), single (2)");
	/* names belong to their axis: stride has none */
	parse_fails("families:\n  strided_read:\n    axes: {stride: rows}\n", "is not an integer");
}
END_TEST

START_TEST(test_parse_memory)
{
	struct sw_job job;
	struct sw_err err = { 0 };

	/* Flow style, a single cc scalar, a variants string, a one-value axis. */
	ck_assert_int_eq(parse("{name: m, model: {ccs: 9.0}, families: {strided_read: "
			       "{variants: course, axes: {stride: 4, n: \"1K:4K:x2\"}}}}",
			       &job, &err),
			 SW_OK);
	ck_assert_str_eq(job.name, "m");
	ck_assert_int_eq(job.n_ccs, 1);
	ck_assert_int_eq(job.ccs[0], 90);
	ck_assert_uint_eq(job.families[0].variants,
			  1u << sw_variant_find(job.families[0].family, "course"));
	ck_assert_uint_eq(job.families[0].axes[stride_axis()].values.n, 1);
	ck_assert_int_eq(job.families[0].axes[stride_axis()].values.v[0], 4);
	ck_assert_uint_eq(job.families[0].axes[n_axis()].values.n, 3);
	ck_assert_str_eq(job.path, "mem.yaml");
	sw_job_fini(&job);

	/* Anchors and aliases resolve; an empty axes mapping keeps the defaults. */
	ck_assert_int_eq(
		parse("families:\n  strided_read:\n    axes: {}\n    variants: &v [tuned]\n", &job,
		      &err),
		SW_OK);
	assert_default_axis(&job.families[0], stride_axis());
	sw_job_fini(&job);

	/* The default name comes from the stem, made a valid name. */
	ck_assert_int_eq(sw_job_parse("dir.d/my job.v2.yaml", "families: {strided_read: }\n", 27,
				      &job, &err),
			 SW_OK);
	ck_assert_str_eq(job.name, "my_job.v2");
	sw_job_fini(&job);

	/* min_samples above the default max_samples says to set both. */
	parse_fails(
		"measure: {min_samples: 300}\nfamilies: {strided_read: }\n",
		"mem.yaml:1:24: measure.min_samples: 300 is above max_samples 200 (the default)");
	parse_fails("measure: {max_samples: 513}\nfamilies: {strided_read: }\n",
		    "1:24: measure.max_samples: 513 is out of range: expected an integer 1..512");
	parse_fails("measure: {warmup: 1.5}\nfamilies: {strided_read: }\n",
		    "measure.warmup: expected an integer 0..1000, found \"1.5\"");
	parse_fails(
		"measure: {time_cap_s: 0}\nfamilies: {strided_read: }\n",
		"measure.time_cap_s: 0 is out of range: expected a number x with 0 < x <= 3600");
	parse_fails("measure: {min_sample_s: nan}\nfamilies: {strided_read: }\n",
		    "measure.min_sample_s: expected a number");
	parse_fails("measure: {rse_target: 1}\nfamilies: {strided_read: }\n", "out of range");
	parse_fails("name: \"a\\0b\"\nfamilies: {strided_read: }\n", "1:7: name: a NUL character");
	parse_fails("name: [a]\nfamilies: {strided_read: }\n", "1:7: name: expected a name");
	parse_fails("name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"
		    "families: {strided_read: }\n",
		    "name: expected a name");
	parse_fails("families: [strided_read]\n", "1:11: families: expected a mapping");
	parse_fails("families:\n", "1:10: families: expected a mapping");
	parse_fails("families: {strided_read: {axes: [1]}}\n",
		    "1:33: strided_read.axes: expected a mapping");
	parse_fails("families: {strided_read: {axes: {stride: }}}\n",
		    "stride: expected axis values");
	parse_fails("families: {strided_read: {axes: {stride: [[1]]}}}\n",
		    "1:43: stride: expected an integer, found a sequence");
	parse_fails("families: {strided_read: {axes: {stride: {a: 1}}}}\n",
		    "stride: expected axis values");
	parse_fails("families: {strided_read: {variants: \"course,,tuned\"}}\n",
		    "empty variant name");
	parse_fails("families: {strided_read: {variants: [tuned, tuned]}}\n",
		    "1:45: strided_read.variants: variant tuned is listed twice");
	parse_fails("families: {strided_read: 5}\n", "1:26: strided_read: expected a mapping");
	parse_fails("model: {ccs: []}\nfamilies: {strided_read: }\n", "1:14: model.ccs: empty");
	parse_fails("model: {ccs: [9.0, [8.0]]}\nfamilies: {strided_read: }\n",
		    "1:20: model.ccs: expected a compute capability like 9.0, found a sequence");
	parse_fails("model: {cc: [9.0]}\nfamilies: {strided_read: }\n",
		    "unknown key `cc` in model");
	parse_fails("model: {kepler_bank_bytes: 6}\nfamilies: {strided_read: }\n",
		    "1:28: model.kepler_bank_bytes: 6: Kepler's banks are 4 or 8 bytes wide");
	parse_fails("model: {kepler_bank_bytes: 16}\nfamilies: {strided_read: }\n",
		    "model.kepler_bank_bytes: 16 is out of range");
	parse_fails("{[a]: 1}\n", "1:2: expected a key name in the job, found a sequence");
	parse_fails("families: {strided_read: }\n---\n", "2:1: a second YAML document");
	parse_fails("families: *nope\n", "YAML syntax error: found undefined alias");
	parse_fails("# only a comment\n", "1:1: the job file is empty");
	parse_fails("---\n", "the job file is empty");
	parse_fails("\"just text\"\n", "1:1: expected a mapping with keys name, measure, model and "
				       "families, found \"just text\"");
	parse_fails("families: {strided_read: }\r\nname: \x01\r\n", "2:7:");
}
END_TEST

/* Every numeric key of the job, with the one syntax of number.h. */
struct num_key {
	const char *fmt; /* a job with %s where the value goes */
	const char *good, *hex;
};

static const struct num_key num_keys[] = {
	{ "measure: {rse_target: %s}\nfamilies: {strided_read: }\n", "5e-3", "0x1p-8" },
	{ "measure: {time_cap_s: %s}\nfamilies: {strided_read: }\n", ".5", "0x10" },
	{ "measure: {min_sample_s: %s}\nfamilies: {strided_read: }\n", "0", "0x0" },
	{ "measure: {min_samples: %s}\nfamilies: {strided_read: }\n", "010", "0x10" },
	{ "measure: {max_samples: %s}\nfamilies: {strided_read: }\n", "20", "0x14" },
	{ "measure: {warmup: %s}\nfamilies: {strided_read: }\n", "3", "0x3" },
	{ "model: {kepler_bank_bytes: %s}\nfamilies: {strided_read: }\n", "8", "0x8" },
	{ "families: {strided_read: {axes: {stride: %s}}}\n", "4", "0x4" },
	{ "families: {strided_read: {axes: {n: [%s]}}}\n", "4K", "0x1000" },
};

/* Hexadecimal is refused in every key, not read in some; so are the other
 * spellings strtod and strtoll would take. Each key's good value parses. */
START_TEST(test_numbers_one_way)
{
	static const char *const junk[] = { "0X10", "+1", "inf", "1_000", "1e", "--1" };
	const struct num_key *k = &num_keys[_i];
	char text[256];
	struct sw_job job;
	struct sw_err err = { 0 };

	snprintf(text, sizeof text, k->fmt, k->good);
	ck_assert_msg(parse(text, &job, &err) == SW_OK, "%s: %s", text, err.msg);
	sw_job_fini(&job);
	snprintf(text, sizeof text, k->fmt, k->hex);
	parse_fails(text, k->hex);
	for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
		snprintf(text, sizeof text, k->fmt, junk[i]);
		parse_fails(text, junk[i]);
	}
}
END_TEST

/* The integer keys take the axis syntax's suffixes; 010 is ten, not octal. */
START_TEST(test_numbers_same_syntax)
{
	struct sw_job job;
	struct sw_err err = { 0 };

	ck_assert_int_eq(parse("measure: {warmup: 010, max_samples: 0}\n"
			       "families: {strided_read: }\n",
			       &job, &err),
			 SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "max_samples: 0 is out of range"));
	ck_assert_int_eq(parse("measure: {warmup: 010}\nfamilies: {strided_read: }\n", &job, &err),
			 SW_OK);
	ck_assert_int_eq(job.measure.warmup, 10);
	sw_job_fini(&job);
	parse_fails("measure: {warmup: 1K}\nfamilies: {strided_read: }\n",
		    "measure.warmup: 1024 is out of range: expected an integer 0..1000");
	ck_assert_int_eq(
		parse("measure: {time_cap_s: 2.5E1}\nfamilies: {strided_read: }\n", &job, &err),
		SW_OK);
	ck_assert(job.measure.time_cap_s == 25.0);
	sw_job_fini(&job);
}
END_TEST

/* YAML allows a byte order mark: the job parses, keeps its text as read, and
 * positions in messages do not count the mark. */
START_TEST(test_parse_bom)
{
	static const char good[] = "\xEF\xBB\xBF"
				   "name: b\nfamilies: {strided_read: }\n";
	struct sw_job job;
	struct sw_err err = { 0 };

	ck_assert_msg(parse(good, &job, &err) == SW_OK, "%s", err.msg);
	ck_assert_str_eq(job.name, "b");
	ck_assert_str_eq(job.text, good);
	sw_job_fini(&job);
	parse_fails("\xEF\xBB\xBF"
		    "---\nfamilies:\n  strided_read:\n    axes: {strides: 1}\n",
		    "mem.yaml:4:12: unknown axis `strides`");
	/* only one, at the start */
	ck_assert_int_ne(parse("name: b\xEF\xBB\xBF\nfamilies: {strided_read: }\n", &job, &err),
			 SW_OK);
}
END_TEST

/* A FIFO with no writer, a device and a directory are refused at once; a
 * load that blocked would run into check's timeout and fail. */
START_TEST(test_load_not_regular)
{
	char dir[] = "/tmp/sw_test_job_XXXXXX", fifo[64];
	struct sw_job job;
	struct sw_err err = { 0 };

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(fifo, sizeof fifo, "%s/job.yaml", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(sw_job_load(fifo, &job, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "job.yaml: is a FIFO, expected a job file (YAML)"));
	assert_empty(&job);
	ck_assert_int_eq(sw_job_load("/dev/zero", &job, &err), SW_EINVAL);
	ck_assert_str_eq(err.msg, "/dev/zero: is a character device, expected a job file (YAML)");
	assert_empty(&job);
	ck_assert_int_eq(sw_job_load(dir, &job, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "is a directory"));
	unlink(fifo);
	rmdir(dir);
}
END_TEST

START_TEST(test_parse_binary_in_memory)
{
	static const char text[] = "families:\n  strided_read:\n\0\n";
	struct sw_job job;
	struct sw_err err = { 0 };

	/* The length given, not strlen, is what is checked. */
	ck_assert_int_eq(sw_job_parse("mem.yaml", text, sizeof text - 1, &job, &err), SW_EINVAL);
	ck_assert_str_eq(
		err.msg,
		"mem.yaml:3:1: NUL byte: a job file is YAML text, this looks like a binary file");
	assert_empty(&job);
	/* Overlong encodings and surrogates are not UTF-8. */
	ck_assert_int_eq(sw_job_parse("mem.yaml", "name: \xC0\xAF\n", 9, &job, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "mem.yaml:1:7: invalid UTF-8 (byte 0xC0)"));
	ck_assert_int_eq(sw_job_parse("mem.yaml", "name: \xED\xA0\x80\n", 10, &job, &err),
			 SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "mem.yaml:1:7: invalid UTF-8"));
	ck_assert_int_eq(sw_job_parse("mem.yaml", "# \xE2\x82\n", 5, &job, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "mem.yaml:1:3: invalid UTF-8"));
	/* Valid multi-byte text in comments is fine. */
	ck_assert_int_eq(parse("# Größe → 𝄞\nfamilies: {strided_read: }\n", &job, &err), SW_OK);
	sw_job_fini(&job);
}
END_TEST

START_TEST(test_fini_safe)
{
	struct sw_job job;

	memset(&job, 0, sizeof job);
	sw_job_fini(&job);
	sw_job_fini(&job);
	sw_job_fini(NULL);
	assert_empty(&job);
}
END_TEST

START_TEST(test_load_missing)
{
	char path[4200];
	struct sw_job job;
	struct sw_err err = { 0 };

	job_path(path, sizeof path, "no_such_file.yaml");
	ck_assert_int_eq(sw_job_load(path, &job, &err), SW_EIO);
	ck_assert_ptr_nonnull(strstr(err.msg, path));
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot open"));
	assert_empty(&job);
}
END_TEST

START_TEST(test_load_directory)
{
	char path[4200];
	struct sw_job job;
	struct sw_err err = { 0 };

	snprintf(path, sizeof path, "%s/jobs", data_dir);
	ck_assert_int_eq(sw_job_load(path, &job, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, path));
	ck_assert_ptr_nonnull(strstr(err.msg, "is a directory"));
	assert_empty(&job);
}
END_TEST

/* Writes a job of exactly `bytes` bytes (comment padding) into dir. */
static void write_sized(const char *path, size_t bytes)
{
	static const char body[] = "families:\n  strided_read:\n";
	FILE *f = fopen(path, "w");
	size_t left = bytes - (sizeof body - 1);

	ck_assert_ptr_nonnull(f);
	fputs(body, f);
	while (left) {
		size_t line = left > 80 ? 80 : left;
		fputc('#', f);
		for (size_t i = 1; i + 1 < line; i++)
			fputc('x', f);
		if (line > 1)
			fputc('\n', f);
		left -= line;
	}
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_load_size_limit)
{
	char dir[] = "/tmp/sw_test_job_XXXXXX", at[64], over[64];
	struct sw_job job;
	struct sw_err err = { 0 };
	struct stat sb;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(at, sizeof at, "%s/at_limit.yaml", dir);
	snprintf(over, sizeof over, "%s/over_limit.yaml", dir);
	write_sized(at, SW_JOB_MAX_BYTES);
	write_sized(over, SW_JOB_MAX_BYTES + 1);
	ck_assert_int_eq(stat(at, &sb), 0);
	ck_assert_int_eq(sb.st_size, SW_JOB_MAX_BYTES);
	ck_assert_int_eq(stat(over, &sb), 0);
	ck_assert_int_eq(sb.st_size, SW_JOB_MAX_BYTES + 1);

	ck_assert_int_eq(sw_job_load(at, &job, &err), SW_OK);
	ck_assert_uint_eq(strlen(job.text), SW_JOB_MAX_BYTES);
	ck_assert_str_eq(job.name, "at_limit");
	sw_job_fini(&job);

	ck_assert_int_eq(sw_job_load(over, &job, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, over));
	ck_assert_ptr_nonnull(strstr(err.msg, "more than a job file may hold"));
	assert_empty(&job);

	/* The in-memory entry point refuses the same size. */
	{
		char *big = malloc(SW_JOB_MAX_BYTES + 1);
		ck_assert_ptr_nonnull(big);
		memset(big, '\n', SW_JOB_MAX_BYTES + 1);
		ck_assert_int_eq(sw_job_parse("big.yaml", big, SW_JOB_MAX_BYTES + 1, &job, &err),
				 SW_EINVAL);
		ck_assert_ptr_nonnull(strstr(err.msg, "big.yaml: "));
		free(big);
	}
	unlink(at);
	unlink(over);
	rmdir(dir);
}
END_TEST

/* A near-limit file of 100000 family keys is refused in well under a second;
 * a duplicate scan over all its keys took a minute. */
START_TEST(test_many_families_fast)
{
	size_t cap = SW_JOB_MAX_BYTES, len;
	char *text = malloc(cap);
	struct sw_job job;
	struct sw_err err = { 0 };
	struct timespec t0, t1;

	ck_assert_ptr_nonnull(text);
	len = (size_t)snprintf(text, cap, "families:\n");
	for (int i = 0; len + 16 < cap; i++)
		len += (size_t)snprintf(text + len, cap - len, "  k%d:\n", i);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(sw_job_parse("many.yaml", text, len, &job, &err), SW_EINVAL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_ptr_nonnull(strstr(err.msg, "many.yaml:2:3: unknown family `k0`"));
	ck_assert_double_lt(
		(double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), 10.0);
	assert_empty(&job);
	free(text);
}
END_TEST

static void load_minimal(struct sw_job *job)
{
	load_ok("good_minimal.yaml", job);
}

START_TEST(test_set_axis)
{
	static const int64_t strides[] = { 3, 5 };
	static const int64_t n[] = { 1024, 4096, 16384 };
	struct sw_job job;
	struct sw_err err = { 0 };

	load_minimal(&job);
	ck_assert_int_eq(sw_job_set(&job, "strided_read.stride=3,5", &err), SW_OK);
	assert_values(&job.families[0].axes[stride_axis()].values, strides, 2);
	ck_assert_int_eq(job.families[0].axes[stride_axis()].loc.line, 0);
	ck_assert_int_eq(sw_job_set(&job, "strided_read.n=1K:16K:x4", &err), SW_OK);
	assert_values(&job.families[0].axes[n_axis()].values, n, 3);
	sw_job_fini(&job);

	/* An axis the file set is replaced, and its position forgotten. */
	load_ok("good_full.yaml", &job);
	ck_assert_int_eq(sw_job_set(&job, "strided_read.stride=3,5", &err), SW_OK);
	assert_values(&job.families[0].axes[stride_axis()].values, strides, 2);
	ck_assert_int_eq(job.families[0].axes[stride_axis()].loc.line, 0);
	ck_assert_int_eq(job.families[0].axes[stride_axis()].loc.column, 0);
	sw_job_fini(&job);
}
END_TEST

/* --family: the families in order with their defaults, named after them,
 * and --set applies to the job it makes. */
START_TEST(test_from_families)
{
	static const char *const names[] = { "strided_read", "transpose" };
	static const int64_t strides[] = { 2, 8 };
	const struct sw_family *f = sw_family_find("strided_read");
	struct sw_job job;
	struct sw_err err = { 0 };

	ck_assert_int_eq(sw_job_from_families(names, 2, &job, &err), SW_OK);
	ck_assert_int_eq(job.n_families, 2);
	ck_assert_ptr_eq(job.families[0].family, f);
	ck_assert_ptr_eq(job.families[1].family, sw_family_find("transpose"));
	ck_assert_uint_eq(job.families[0].variants, (1u << f->n_variants) - 1);
	for (int a = 0; a < f->n_axes; a++)
		assert_default_axis(&job.families[0], a);
	ck_assert_str_eq(job.name, "strided_read-transpose");
	ck_assert_str_eq(job.path, SW_JOB_FAMILY_PATH);
	ck_assert_ptr_nonnull(strstr(job.text, "  transpose:\n"));
	ck_assert_int_eq(sw_job_set(&job, "strided_read.stride=2,8", &err), SW_OK);
	assert_values(&job.families[0].axes[stride_axis()].values, strides, 2);
	sw_job_fini(&job);

	/* the text re-parses to the same job, as the other ranks parse it */
	ck_assert_int_eq(sw_job_from_families(names, 1, &job, &err), SW_OK);
	struct sw_job again;
	ck_assert_int_eq(sw_job_parse(SW_JOB_FAMILY_PATH, job.text, strlen(job.text), &again, &err),
			 SW_OK);
	ck_assert_str_eq(again.name, "strided_read");
	ck_assert_int_eq(again.n_families, 1);
	sw_job_fini(&again);
	sw_job_fini(&job);
}
END_TEST

START_TEST(test_from_families_errors)
{
	static const char *const typo[] = { "strided_raed" };
	static const char *const twice[] = { "reduce", "reduce" };
	static const char *const far[] = { "qqqqqqqqqqqqqqqqqq" };
	struct sw_job job;
	struct sw_err err = { 0 };

	ck_assert_int_eq(sw_job_from_families(typo, 1, &job, &err), SW_EINVAL);
	ck_assert_msg(strstr(err.msg, "--family strided_raed: unknown family; did you mean "
				      "strided_read"),
		      "%s", err.msg);
	ck_assert_int_eq(sw_job_from_families(twice, 2, &job, &err), SW_EINVAL);
	ck_assert_msg(strstr(err.msg, "--family reduce: named twice"), "%s", err.msg);
	ck_assert_int_eq(sw_job_from_families(far, 1, &job, &err), SW_EINVAL);
	ck_assert_msg(strstr(err.msg, "unknown family; registered families: "), "%s", err.msg);
	ck_assert_int_eq(sw_job_from_families(far, 0, &job, &err), SW_EINVAL);
	ck_assert_int_eq(job.n_families, 0);
	sw_job_fini(&job); /* nothing to free, and safe */
}
END_TEST

START_TEST(test_set_variants)
{
	const struct sw_family *f = sw_family_find("strided_read");
	struct sw_job job;
	struct sw_err err = { 0 };

	load_minimal(&job);
	ck_assert_int_eq(sw_job_set(&job, "strided_read.variants=course, memcpy", &err), SW_OK);
	ck_assert_uint_eq(job.families[0].variants,
			  1u << sw_variant_find(f, "course") | 1u << sw_variant_find(f, "memcpy"));
	sw_job_fini(&job);
}
END_TEST

static void set_fails(struct sw_job *job, const char *assignment, const char *says)
{
	struct sw_err err = { 0 };
	const struct sw_job_family *jf = job->n_families ? &job->families[0] : NULL;
	unsigned variants = jf ? jf->variants : 0;
	size_t n_stride = jf ? jf->axes[stride_axis()].values.n : 0;
	enum sw_status st = sw_job_set(job, assignment, &err);

	ck_assert_msg(st == SW_EINVAL, "%s: status %d, want SW_EINVAL", assignment, st);
	ck_assert_msg(strstr(err.msg, says), "%s: message \"%s\" lacks \"%s\"", assignment, err.msg,
		      says);
	/* A failed --set leaves the job as it was. */
	if (jf) {
		ck_assert_uint_eq(jf->variants, variants);
		ck_assert_uint_eq(jf->axes[stride_axis()].values.n, n_stride);
	}
}

START_TEST(test_set_errors)
{
	struct sw_job job, none;
	struct sw_err err = { 0 };

	load_minimal(&job);
	set_fails(&job, "strided_read.stride=0",
		  "--set strided_read.stride=0: value 0 is out of range 1..128");
	set_fails(&job, "strided_read.n=8G",
		  "--set strided_read.n=8G: value 8G is out of range 1K..4G");
	set_fails(&job, "strided_read.stride",
		  "--set strided_read.stride: expected FAMILY.AXIS=VALUES");
	set_fails(&job, "stride=4", "--set stride=4: expected FAMILY.AXIS=VALUES");
	set_fails(&job, "", "expected FAMILY.AXIS=VALUES");
	set_fails(&job, "nosuch.stride=4", "--set nosuch.stride=4: unknown family `nosuch`");
	set_fails(&job, "strided_read.strides=4",
		  "--set strided_read.strides=4: family strided_read has no axis `strides`; "
		  "expected one of: stride, n, block, grid, vec, elem_bytes, variants");
	set_fails(&job, "strided_read.variants=fancy",
		  "--set strided_read.variants=fancy: unknown variant `fancy`");
	set_fails(&job, "strided_read.variants=", "empty variant name");
	set_fails(&job, "strided_read.variants=tuned,tuned", "variant tuned is listed twice");
	set_fails(&job, "strided_read.stride=", "--set strided_read.stride=: empty axis");
	set_fails(&job, "strided_read.stride=1,1", "the value 1 appears twice");
	set_fails(&job, "strided_read.stride=8:1", "the start 8 is above the end 1");
	set_fails(&job, "strided_read.stride=abc", "\"abc\" is not an integer");
	ck_assert_int_eq(sw_job_set(&job, "x", NULL), SW_EINVAL);
	sw_job_fini(&job);

	/* The axes listed are the family's own, not the job's other families. */
	static const char two[] = "families:\n  strided_read:\n  offset_read:\n";
	ck_assert_int_eq(sw_job_parse("two.yaml", two, strlen(two), &job, &err), SW_OK);
	set_fails(&job, "strided_read.strides=4",
		  "; expected one of: stride, n, block, grid, vec, elem_bytes, variants");
	sw_job_fini(&job);

	/* A registered family the job does not run. */
	memset(&none, 0, sizeof none);
	ck_assert_int_eq(sw_job_set(&none, "strided_read.stride=4", &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(
		err.msg, "--set strided_read.stride=4: family strided_read is not in this job"));
}
END_TEST

START_TEST(test_cc_parse)
{
	static const struct {
		const char *text;
		int cc;
	} good[] = { { "9.0", 90 },   { "12.0", 120 }, { "1.0", 10 },  { "1.3", 13 },
		     { " 8.6 ", 86 }, { "15.9", 159 }, { "10.3", 103 } };
	static const char *const bad[] = { "9", "9.",   ".0",   "9.10",  "0.0", "16.0", "a.b",
					   "",  "9.0a", "-9.0", "100.0", "9,0", "9 .0" };
	struct sw_err err = { 0 };
	int cc;

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		cc = -1;
		ck_assert_msg(sw_cc_parse(good[i].text, &cc, &err) == SW_OK, "\"%s\": %s",
			      good[i].text, err.msg);
		ck_assert_int_eq(cc, good[i].cc);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(sw_cc_parse(bad[i], &cc, &err) == SW_EINVAL, "\"%s\" accepted",
			      bad[i]);
		ck_assert_ptr_nonnull(strstr(err.msg, "is not a compute capability"));
	}
	ck_assert_int_eq(sw_cc_parse(NULL, &cc, NULL), SW_EINVAL);
}
END_TEST

/* placement and calibrate: parsed; a point in both is one plan point,
 * marked; ids and the fingerprint of a job without calibrate unchanged. */
START_TEST(test_placement_and_calibrate)
{
	static const char fam[] = "families:\n  strided_read:\n    variants: [course]\n"
				  "    axes: {stride: '1,2,4', n: 1M}\n";
	static const char both[] = "placement: per_class\ncalibrate:\n  strided_read:\n"
				   "    variants: [course]\n    axes: {stride: '4,8', n: 1M}\n"
				   "families:\n  strided_read:\n    variants: [course]\n"
				   "    axes: {stride: '1,2,4', n: 1M}\n";
	static const char alone[] = "calibrate:\n  strided_read:\n    variants: [course]\n"
				    "    axes: {stride: 1, n: 1M}\n";
	struct sw_job a, b, c;
	struct sw_plan pa, pb, pc;
	struct sw_err err = { 0 };
	ck_assert_msg(sw_job_parse("a", fam, strlen(fam), &a, &err) == SW_OK, "%s", err.msg);
	ck_assert_msg(sw_job_parse("b", both, strlen(both), &b, &err) == SW_OK, "%s", err.msg);
	ck_assert_msg(sw_job_parse("c", alone, strlen(alone), &c, &err) == SW_OK, "%s", err.msg);
	ck_assert_int_eq(a.placement, SW_PLACE_ONCE);
	ck_assert_int_eq(b.placement, SW_PLACE_PER_CLASS);
	ck_assert_int_eq(b.n_calibrate, 1);
	ck_assert_int_eq(c.n_families, 0); /* a fleet check: calibrate alone */
	ck_assert_int_eq(sw_plan_build(&a, 0, &pa, &err), SW_OK);
	ck_assert_int_eq(sw_plan_build(&b, 0, &pb, &err), SW_OK);
	ck_assert_int_eq(sw_plan_build(&c, 0, &pc, &err), SW_OK);
	ck_assert_uint_eq(pa.n, 3);
	ck_assert_uint_eq(pb.n, 4); /* stride 4 is in both: one point */
	ck_assert_uint_eq(pc.n, 1);
	ck_assert_int_eq(pc.points[0].calibration, 1);
	for (size_t i = 0; i < 3; i++) { /* the families' points first, ids unchanged */
		ck_assert_uint_eq(pb.points[i].id, pa.points[i].id);
		ck_assert_int_eq(pb.points[i].calibration, i == 2);
		ck_assert_int_eq(pa.points[i].calibration, 0);
	}
	ck_assert_int_eq(pb.points[3].calibration, 1);
	ck_assert_uint_eq(pc.points[0].id, pa.points[0].id);
	ck_assert_uint_ne(pa.fingerprint, pb.fingerprint);
	ck_assert_str_eq(sw_placement_name(SW_PLACE_EVERY_GPU), "every_gpu");
	sw_plan_fini(&pa);
	sw_plan_fini(&pb);
	sw_plan_fini(&pc);
	sw_job_fini(&a);
	sw_job_fini(&b);
	sw_job_fini(&c);
}
END_TEST

static Suite *job_suite(void)
{
	Suite *s = suite_create("job");
	TCase *good = tcase_create("good");
	TCase *bad = tcase_create("bad");
	TCase *load = tcase_create("load");
	TCase *set = tcase_create("set");

	tcase_add_test(good, test_registry_has_strided_read);
	tcase_add_test(good, test_good_full);
	tcase_add_test(good, test_good_minimal_defaults);
	tcase_add_test(good, test_good_forms);
	tcase_add_test(good, test_fini_safe);
	tcase_add_test(good, test_cc_parse);
	tcase_add_loop_test(bad, test_bad_fixture, 0,
			    (int)(sizeof bad_cases / sizeof bad_cases[0]));
	tcase_add_test(bad, test_bad_fixtures_all_listed);
	tcase_add_test(bad, test_parse_memory);
	tcase_add_test(bad, test_parse_binary_in_memory);
	tcase_add_loop_test(bad, test_numbers_one_way, 0,
			    (int)(sizeof num_keys / sizeof num_keys[0]));
	tcase_add_test(bad, test_numbers_same_syntax);
	tcase_add_test(bad, test_parse_bom);
	tcase_add_test(load, test_load_not_regular);
	tcase_add_test(load, test_load_missing);
	tcase_add_test(load, test_load_directory);
	tcase_add_test(load, test_load_size_limit);
	tcase_add_test(load, test_many_families_fast);
	tcase_add_test(set, test_set_axis);
	tcase_add_test(set, test_set_variants);
	tcase_add_test(set, test_set_errors);
	tcase_add_test(set, test_from_families);
	tcase_add_test(set, test_from_families_errors);
	tcase_add_test(set, test_placement_and_calibrate);
	tcase_add_test(set, test_named_axis_values);
	suite_add_tcase(s, good);
	suite_add_tcase(s, bad);
	suite_add_tcase(s, load);
	suite_add_tcase(s, set);
	return s;
}

int main(void)
{
	find_data_dir();
	return sw_check_run(job_suite());
}
