/* Every registered family's descriptor, and each family's CPU reference
 * check, byte counts and point refusal, on the CPU alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job/axis.h"
#include "job/job.h"
#include "family_scaffold.h"

/* ---- a loop over every registered family ---- */

START_TEST(test_descriptors)
{
	ck_assert_int_gt(sw_family_count(), 0);
	for (int i = 0; i < sw_family_count(); i++) {
		const struct sw_family *f = sw_family_at(i);
		ck_assert_ptr_eq(sw_family_find(f->name), f);
		ck_assert_int_le(strlen(f->name), SW_NAME_LEN - 1);
		ck_assert_int_gt(f->n_axes, 0);
		ck_assert_int_le(f->n_axes, SW_MAX_AXES);
		ck_assert_int_gt(f->n_variants, 0);
		ck_assert_int_le(f->n_variants, 32);
		ck_assert(f->sizes && f->refuse && f->useful_bytes && f->flops && f->check);
		for (int a = 0; a < f->n_axes; a++) {
			const struct sw_axis_def *ax = &f->axes[a];
			struct sw_axis_values vals;
			struct sw_err err = { 0 };
			ck_assert_int_eq(sw_axis_find(f, ax->name), a);
			ck_assert_int_le(ax->min, ax->max);
			ck_assert_msg(sw_axis_def_parse(ax, ax->defaults, &vals, &err) == SW_OK,
				      "%s.%s: %s", f->name, ax->name, err.msg);
			for (size_t k = 0; k < vals.n; k++)
				ck_assert(vals.v[k] >= ax->min && vals.v[k] <= ax->max);
			sw_axis_values_fini(&vals);
		}
		for (int v = 0; v < f->n_variants; v++) {
			const struct sw_variant *var = &f->variants[v];
			ck_assert_int_eq(sw_variant_find(f, var->name), v);
			ck_assert_ptr_nonnull(var->launch);
			ck_assert_uint_eq(var->axes_used & ~((1u << f->n_axes) - 1), 0);
		}
	}
}
END_TEST

/* ---- strided_read ---- */

#define T (4096u * 256u)

static const struct sw_ftest sr = { .family = "strided_read", .out = 1, .sample_seed = 99 };

static struct sw_point sr_point(const char *variant, int64_t stride, int64_t n)
{
	return SW_FTEST_POINT(&sr, variant, stride, n);
}

/* The output each variant's kernel writes, recomputed independently. */
static float *sr_expected(const struct sw_point *p, uint64_t seed, size_t *n_out)
{
	const struct sw_family *f = sw_ftest_family(&sr);
	struct sw_sizes sz = { 0 };
	f->sizes(p, &sz);
	*n_out = sz.bytes[1] / sizeof(float);
	float *out = calloc(*n_out, sizeof *out);
	uint64_t n = (uint64_t)p->axis[1];
	const char *name = f->variants[p->variant].name;
	if (strcmp(name, "memcpy") == 0) {
		for (uint64_t i = 0; i < n; i++)
			out[i] = sw_input_value(seed, i);
	} else if (strcmp(name, "stream_read") == 0) {
		for (uint64_t t = 0; t < T; t++)
			for (uint64_t j = t; j < n / 4; j += T)
				for (int c = 0; c < 4; c++)
					out[t] += sw_input_value(seed, 4 * j + c);
	} else {
		uint64_t s = (uint64_t)p->axis[0];
		for (uint64_t t = 0; t < T; t++)
			for (uint64_t i = t * s; i < n; i += s * T)
				out[t] += sw_input_value(seed, i);
	}
	return out;
}

START_TEST(test_strided_check_accepts_and_rejects)
{
	const char *variants[] = { "course", "tuned", "stream_read", "memcpy" };
	for (int v = 0; v < 4; v++) {
		struct sw_point p = sr_point(variants[v], 3, 3 << 20);
		if (strcmp(variants[v], "course") && strcmp(variants[v], "tuned"))
			p.axis[0] = SW_AXIS_UNUSED;
		size_t n_out;
		float *out = sr_expected(&p, 42, &n_out);
		size_t bytes = n_out * sizeof(float), i = n_out / 2;
		sw_ftest_passes(&sr, &p, out, bytes, 42, SW_CHECK_FULL, n_out);
		/* one wrong element is found */
		sw_ftest_finds(&sr, &p, out, bytes, 42, i, out[i] + 0.5f, "element");
		/* as is input from another seed */
		sw_ftest_fails(&sr, &p, out, bytes, 43, NULL);
		free(out);
	}
}
END_TEST

START_TEST(test_strided_check_samples_large_points)
{
	struct sw_point p = sr_point("course", 1, 64 << 20);
	size_t n_out;
	float *out = sr_expected(&p, 7, &n_out);
	struct sw_check c = sw_ftest_check(&sr, &p, out, n_out * sizeof(float), 7);
	ck_assert_msg(c.ok, "%s", c.msg);
	ck_assert_int_eq(c.mode, SW_CHECK_SAMPLED);
	ck_assert_uint_ge(c.checked, 4096);
	ck_assert_double_lt(c.max_rel_err, 1e-5);
	for (size_t i = 0; i < n_out; i++) /* everything off by 1%: any sample sees it */
		out[i] *= 1.01f;
	sw_ftest_fails(&sr, &p, out, n_out * sizeof(float), 7, NULL);
	free(out);
}
END_TEST

START_TEST(test_strided_bytes_and_sizes)
{
	const struct sw_family *f = sw_ftest_family(&sr);
	struct sw_point p = sr_point("course", 3, 1024);
	ck_assert_double_eq(f->useful_bytes(&p), 342 * 4); /* ceil(1024 / 3) elements */
	p = sr_point("course", 1, 64 << 20);
	ck_assert_double_eq(f->useful_bytes(&p), 256.0 * (1 << 20));
	ck_assert_double_eq(f->flops(&p), 64.0 * (1 << 20));
	struct sw_sizes sz = sw_ftest_sizes(&sr, &p, 2, 1);
	ck_assert_uint_eq(sz.bytes[0], 256u << 20);
	ck_assert_uint_eq(sz.bytes[1], T * 4);
	p = sr_point("memcpy", SW_AXIS_UNUSED, 1 << 20);
	ck_assert_double_eq(f->useful_bytes(&p), 8.0 * (1 << 20)); /* read and written */
	f->sizes(&p, &sz);
	ck_assert_uint_eq(sz.bytes[1], 4u << 20);
	p = sr_point("stream_read", SW_AXIS_UNUSED, 1 << 20);
	ck_assert_double_eq(f->useful_bytes(&p), 4.0 * (1 << 20));
}
END_TEST

START_TEST(test_strided_refusal)
{
	const struct sw_family *f = sw_ftest_family(&sr);
	char why[160] = "";
	struct sw_point p = sr_point("stream_read", SW_AXIS_UNUSED, 1026);
	ck_assert(f->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "multiple of 4"));
	p = sr_point("stream_read", SW_AXIS_UNUSED, 1024);
	ck_assert(!f->refuse(&p, why, sizeof why));
	p = sr_point("course", 128, (int64_t)4 << 30); /* the largest point: 64-bit indices */
	ck_assert(!f->refuse(&p, why, sizeof why));
}
END_TEST

int main(void)
{
	const TTest *tests[] = { test_descriptors, test_strided_check_accepts_and_rejects,
				 test_strided_check_samples_large_points,
				 test_strided_bytes_and_sizes, test_strided_refusal };
	return sw_ftest_run("kernels", "kernels", tests, SW_COUNT(tests));
}
