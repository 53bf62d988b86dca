/* The model's first form: sectors per request for strided_read (C9) and the
 * useful-over-moved efficiency, from the kernels' own request functions. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static const struct sw_family *fam(void)
{
	return sw_family_find("strided_read");
}

static struct sw_model_figures eval(const char *variant, int64_t stride, int64_t n, int cc)
{
	struct sw_model_figures m;
	struct sw_err err = {0};
	const struct sw_family *f = fam();
	int v = sw_variant_find(f, variant);
	struct sw_point p = {.variant = v, .axis = {stride, n}};
	ck_assert_int_eq(sw_model_eval(&f->variants[v], &p, cc, &m, &err), SW_OK);
	return m;
}

/* C9: 4 sectors per request at stride 1, 32 once every lane has its own sector. */
START_TEST(test_c9_sectors_per_request)
{
	const int64_t strides[] = {1, 2, 4, 8, 16, 32, 64, 128};
	const double want[] = {4, 8, 16, 32, 32, 32, 32, 32};
	for (int i = 0; i < 8; i++) {
		struct sw_model_figures m = eval("course", strides[i], 64 << 20, 90);
		ck_assert_double_eq_tol(m.sectors_per_request, want[i], 1e-9);
		ck_assert_double_eq_tol(m.efficiency, 4.0 / want[i], 1e-9);
		struct sw_model_figures t = eval("tuned", strides[i], 64 << 20, 90);
		ck_assert_double_eq_tol(t.sectors_per_request, want[i], 1e-9);
	}
}
END_TEST

START_TEST(test_bytes_match_useful)
{
	const struct sw_family *f = fam();
	/* the model's useful bytes agree with the family's formula */
	for (int64_t s = 1; s <= 128; s *= 2) {
		struct sw_point p = {.variant = 0, .axis = {s, 64 << 20}};
		struct sw_model_figures m = eval("course", s, 64 << 20, 90);
		ck_assert_double_eq_tol(m.useful_bytes / f->useful_bytes(&p), 1.0, 1e-3);
		ck_assert_double_eq_tol(m.moved_bytes, m.useful_bytes / m.efficiency, 1);
	}
	/* float4 streaming: 16 sectors carry 512 useful bytes per request */
	struct sw_model_figures r = eval("stream_read", SW_AXIS_UNUSED, 64 << 20, 90);
	ck_assert_double_eq_tol(r.sectors_per_request, 16, 1e-9);
	ck_assert_double_eq_tol(r.efficiency, 1, 1e-9);
}
END_TEST

START_TEST(test_partial_warp)
{
	/* n smaller than the grid: the last warps have idle lanes, none issue empty requests */
	struct sw_model_figures m = eval("course", 1, 1024, 90);
	ck_assert_double_eq_tol(m.requests, 1024 / 32, 1e-9);
	ck_assert_double_eq_tol(m.sectors_per_request, 4, 1e-9);
}
END_TEST

START_TEST(test_refusals)
{
	const struct sw_family *f = fam();
	struct sw_model_figures m;
	struct sw_err err = {0};
	struct sw_point p = {.variant = sw_variant_find(f, "memcpy"), .axis = {SW_AXIS_UNUSED, 1 << 20}};
	ck_assert_int_eq(sw_model_eval(&f->variants[p.variant], &p, 90, &m, &err), SW_SKIP);
	ck_assert_ptr_nonnull(strstr(err.msg, "memcpy"));
	p.variant = 0;
	p.axis[0] = 1;
	ck_assert_int_eq(sw_model_eval(&f->variants[0], &p, 35, &m, &err), SW_SKIP);
	ck_assert_ptr_nonnull(strstr(err.msg, "3.5"));
	ck_assert(!sw_model_supports(52));
	ck_assert(sw_model_supports(60) && sw_model_supports(120));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("model");
	tcase_add_test(tc, test_c9_sectors_per_request);
	tcase_add_test(tc, test_bytes_match_useful);
	tcase_add_test(tc, test_partial_warp);
	tcase_add_test(tc, test_refusals);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
