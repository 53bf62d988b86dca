/* The family suites' shared steps (family_scaffold.h). */
#include "check_run.h"
#include "family_scaffold.h"

#include <math.h>
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

static void same_figure(const char *what, int64_t block, double got, double want)
{
	int same = (isnan(got) && isnan(want)) || fabs(got - want) <= 1e-9 * fabs(want);
	ck_assert_msg(same, "block %lld: model %s %g, the variant's own launch %g",
		      (long long)block, what, got, want);
}

static void block_refused(const struct sw_ftest *t, struct sw_point p, int a, int64_t block,
			  const char *why_has)
{
	char why[160] = "";
	p.axis[a] = block;
	ck_assert_msg(sw_ftest_family(t)->refuse(&p, why, sizeof why), "block %lld runs",
		      (long long)block);
	ck_assert_msg(strstr(why, why_has), "\"%s\" does not say \"%s\"", why, why_has);
}

void sw_ftest_block_reshapes(const struct sw_ftest *t, struct sw_point p, uint64_t total,
			     const void *out, size_t bytes, uint64_t seed)
{
	const struct sw_family *f = sw_ftest_family(t);
	const struct sw_variant *v = &f->variants[p.variant];
	int a = sw_axis_find(f, "block");
	ck_assert_msg(a >= 0, "%s has no block axis", f->name);
	ck_assert(f->axes[a].baseline.set && f->axes[a].baseline.value == 0);
	ck_assert_msg(v->axes_used & (1u << a), "%s does not use the block axis", v->name);
	ck_assert_int_eq(p.axis[a], 0);
	struct sw_sizes own = { 0 };
	f->sizes(&p, &own);
	struct sw_model_figures m0 = { 0 };
	if (v->requests)
		m0 = sw_ftest_model(t, &p, 90);
	char why[160];
	for (int64_t b = 32; b <= 1024; b *= 2) {
		p.axis[a] = b;
		if (total && total % (uint64_t)b)
			continue;
		ck_assert_msg(!f->refuse(&p, why, sizeof why), "block %lld: %s", (long long)b, why);
		struct sw_sizes sz = { 0 };
		f->sizes(&p, &sz);
		ck_assert_int_eq(sz.n_buffers, own.n_buffers);
		for (int i = 0; i < own.n_buffers; i++)
			ck_assert_uint_eq(sz.bytes[i], own.bytes[i]);
		if (v->requests) {
			struct sw_model_figures m = sw_ftest_model(t, &p, 90);
			same_figure("requests", b, m.requests, m0.requests);
			same_figure("load requests", b, m.ld_requests, m0.ld_requests);
			same_figure("load transactions", b, m.ld_transactions, m0.ld_transactions);
			same_figure("shared wavefronts", b, m.shared_ld_wavefronts,
				    m0.shared_ld_wavefronts);
			same_figure("conflict degree", b, m.conflict_degree, m0.conflict_degree);
		}
		if (out) {
			struct sw_check c = sw_ftest_check(t, &p, out, bytes, seed);
			ck_assert_msg(c.ok, "block %lld: %s", (long long)b, c.msg);
		}
	}
	p.axis[a] = 0;
	block_refused(t, p, a, 48, "whole number of warps");
	if (total && !(total & (total - 1)))
		block_refused(t, p, a, 96, "does not divide");
}

int sw_ftest_run(const char *suite, const char *tcase, const TTest *const *tests, int n)
{
	Suite *s = suite_create(suite);
	TCase *tc = tcase_create(tcase);
	tcase_set_timeout(tc, 60);
	for (int i = 0; i < n; i++)
		tcase_add_test(tc, tests[i]);
	suite_add_tcase(s, tc);
	return sw_check_run(s);
}
