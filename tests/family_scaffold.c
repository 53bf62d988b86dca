/* The family suites' shared steps (family_scaffold.h). */
#include "family_scaffold.h"

#include <stdlib.h>
#include <string.h>

const struct sw_family *sw_ftest_family(const struct sw_ftest *t)
{
	const struct sw_family *f = sw_family_find(t->family);
	ck_assert_msg(f, "family %s is not registered", t->family);
	return f;
}

int sw_ftest_variant(const struct sw_ftest *t, const char *name)
{
	int v = sw_variant_find(sw_ftest_family(t), name);
	ck_assert_msg(v >= 0, "%s has no variant %s", t->family, name);
	return v;
}

static const char *variant_name(const struct sw_ftest *t, const struct sw_point *p)
{
	return sw_ftest_family(t)->variants[p->variant].name;
}

struct sw_check sw_ftest_check(const struct sw_ftest *t, const struct sw_point *p, const void *out,
			       size_t bytes, uint64_t seed)
{
	struct sw_host_out o = { .seed = seed, .sample_seed = t->sample_seed };
	struct sw_check c;
	o.out[t->out] = out;
	o.bytes[t->out] = bytes;
	memset(&c, 0, sizeof c);
	sw_ftest_family(t)->check(p, &o, &c);
	return c;
}

struct sw_check sw_ftest_passes(const struct sw_ftest *t, const struct sw_point *p, const void *out,
				size_t bytes, uint64_t seed, enum sw_check_mode mode,
				uint64_t checked)
{
	struct sw_check c = sw_ftest_check(t, p, out, bytes, seed);
	ck_assert_msg(c.ok, "%s: %s", variant_name(t, p), c.msg);
	ck_assert_int_eq(c.mode, mode);
	ck_assert_uint_eq(c.checked, checked);
	return c;
}

void sw_ftest_fails(const struct sw_ftest *t, const struct sw_point *p, const void *out,
		    size_t bytes, uint64_t seed, const char *what)
{
	struct sw_check c = sw_ftest_check(t, p, out, bytes, seed);
	ck_assert_msg(!c.ok, "%s: a wrong output passed", variant_name(t, p));
	if (what)
		ck_assert_msg(strstr(c.msg, what), "%s: \"%s\" does not say \"%s\"",
			      variant_name(t, p), c.msg, what);
}

void sw_ftest_finds(const struct sw_ftest *t, const struct sw_point *p, float *out, size_t bytes,
		    uint64_t seed, size_t i, float wrong, const char *what)
{
	float keep = out[i];
	out[i] = wrong;
	sw_ftest_fails(t, p, out, bytes, seed, what);
	out[i] = keep;
}

void sw_ftest_finds_u32(const struct sw_ftest *t, const struct sw_point *p, uint32_t *out,
			size_t bytes, uint64_t seed, size_t i, uint32_t wrong, const char *what)
{
	uint32_t keep = out[i];
	out[i] = wrong;
	sw_ftest_fails(t, p, out, bytes, seed, what);
	out[i] = keep;
}

void sw_ftest_finds_f64(const struct sw_ftest *t, const struct sw_point *p, double *out,
			size_t bytes, uint64_t seed, size_t i, double wrong, const char *what)
{
	double keep = out[i];
	out[i] = wrong;
	sw_ftest_fails(t, p, out, bytes, seed, what);
	out[i] = keep;
}

void *sw_ftest_sums(size_t n_out, unsigned elem_bytes)
{
	ck_assert(elem_bytes == 4 || elem_bytes == 8);
	void *out = calloc(n_out, elem_bytes);
	ck_assert_ptr_nonnull(out);
	return out;
}

void sw_ftest_add(void *out, unsigned elem_bytes, size_t t, double v)
{
	if (elem_bytes == 8)
		((double *)out)[t] += v;
	else
		((float *)out)[t] += (float)v;
}

double sw_ftest_get(const void *out, unsigned elem_bytes, size_t i)
{
	return elem_bytes == 8 ? ((const double *)out)[i] : ((const float *)out)[i];
}

void sw_ftest_sums_checked(const struct sw_ftest *t, const struct sw_point *p, void *out,
			   size_t n_out, unsigned elem_bytes, uint64_t seed,
			   enum sw_check_mode mode, uint64_t checked, size_t i)
{
	size_t bytes = n_out * elem_bytes;
	sw_ftest_passes(t, p, out, bytes, seed, mode, checked);
	if (elem_bytes == 8)
		sw_ftest_finds_f64(t, p, out, bytes, seed, i, ((double *)out)[i] + 0.5, "element");
	else
		sw_ftest_finds(t, p, out, bytes, seed, i, ((float *)out)[i] + 0.5f, "element");
	sw_ftest_fails(t, p, out, bytes, seed + 1, NULL); /* input from another seed */
}

struct sw_sizes sw_ftest_sizes(const struct sw_ftest *t, const struct sw_point *p, int n_buffers,
			       int n_inputs)
{
	struct sw_sizes sz = { 0 };
	sw_ftest_family(t)->sizes(p, &sz);
	ck_assert_int_eq(sz.n_buffers, n_buffers);
	ck_assert_int_eq(sz.n_inputs, n_inputs);
	return sz;
}

struct sw_model_figures sw_ftest_model(const struct sw_ftest *t, const struct sw_point *p, int cc)
{
	struct sw_model_figures m;
	struct sw_err err = { 0 };
	const struct sw_variant *v = &sw_ftest_family(t)->variants[p->variant];
	ck_assert_msg(sw_model_eval(v, p, cc, &m, &err) == SW_OK, "%s on %d: %s", v->name, cc,
		      err.msg);
	return m;
}

int sw_ftest_run(const char *suite, const char *tcase, const TTest *const *tests, int n)
{
	Suite *s = suite_create(suite);
	TCase *tc = tcase_create(tcase);
	tcase_set_timeout(tc, 60);
	for (int i = 0; i < n; i++)
		tcase_add_test(tc, tests[i]);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
