/* The matmul family on the CPU: its check against products built here (in
 * double, and in float the way the naive kernel sums), byte and flop counts,
 * refusals and the modelled global loads of naive and tiled. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

enum { SIZE, TILE, PAD };

static const struct sw_family *fam(void)
{
	return sw_family_find("matmul");
}

static struct sw_point mm_point(const char *variant, int64_t n, int64_t tile, int64_t pad)
{
	struct sw_point p = { .variant = sw_variant_find(fam(), variant),
			      .axis = { n, tile, pad } };
	ck_assert_int_ge(p.variant, 0);
	return p;
}

/* C = A B with A from seed and B from seed + 1, summed in double or, like
 * the naive kernel, in float from k = 0 up. */
static float *mm_expected(uint64_t n, uint64_t seed, int in_float)
{
	float *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
	float *c = malloc(n * n * sizeof *c);
	for (uint64_t i = 0; i < n * n; i++) {
		a[i] = sw_input_value(seed, i);
		b[i] = sw_input_value(seed + 1, i);
	}
	for (uint64_t r = 0; r < n; r++)
		for (uint64_t col = 0; col < n; col++) {
			double sum = 0;
			float fsum = 0;
			for (uint64_t k = 0; k < n; k++) {
				sum += (double)a[r * n + k] * b[k * n + col];
				fsum += a[r * n + k] * b[k * n + col];
			}
			c[r * n + col] = in_float ? fsum : (float)sum;
		}
	free(a);
	free(b);
	return c;
}

static void mm_check(const struct sw_point *p, const float *out, uint64_t seed, struct sw_check *c)
{
	struct sw_host_out o = { .seed = seed, .sample_seed = 77 };
	o.out[2] = out;
	o.bytes[2] = (size_t)p->axis[SIZE] * (size_t)p->axis[SIZE] * sizeof(float);
	memset(c, 0, sizeof *c);
	fam()->check(p, &o, c);
}

static const char *variants[] = { "naive", "tiled", "tiled_reg", "cublas" };

START_TEST(test_check_full)
{
	float *want = mm_expected(64, 42, 0), *other = mm_expected(64, 43, 0);
	for (int v = 0; v < 4; v++) {
		struct sw_point p = mm_point(variants[v], 64, v < 2 ? 16 : SW_AXIS_UNUSED,
					     v == 1 ? 1 : SW_AXIS_UNUSED);
		struct sw_check c;
		mm_check(&p, want, 42, &c);
		ck_assert_msg(c.ok, "%s: %s", variants[v], c.msg);
		ck_assert_int_eq(c.mode, SW_CHECK_FULL);
		ck_assert_uint_eq(c.checked, 64 * 64);
		ck_assert_double_lt(c.max_rel_err, 1e-7);
		/* one element off by 0.1% is found */
		float keep = want[1000];
		want[1000] *= 1.001f;
		mm_check(&p, want, 42, &c);
		ck_assert_msg(!c.ok, "%s: a wrong element passed", variants[v]);
		ck_assert_ptr_nonnull(strstr(c.msg, "row 15, col 40"));
		want[1000] = keep;
		mm_check(&p, other, 42, &c);
		ck_assert(!c.ok);
	}
	free(want);
	free(other);
}
END_TEST

START_TEST(test_check_sampled)
{
	/* 512^3 = 2^27 multiply-adds: past the full-check limit */
	float *want = mm_expected(512, 7, 1);
	struct sw_point p = mm_point("tiled_reg", 512, SW_AXIS_UNUSED, SW_AXIS_UNUSED);
	struct sw_check c;
	mm_check(&p, want, 7, &c); /* float sums in the naive kernel's order pass */
	ck_assert_msg(c.ok, "%s", c.msg);
	ck_assert_int_eq(c.mode, SW_CHECK_SAMPLED);
	ck_assert_uint_eq(c.checked, 4096);
	ck_assert_double_gt(c.max_rel_err, 0);
	/* C transposed (the course's swapped blockIdx) is globally wrong */
	float *t = malloc(512 * 512 * sizeof *t);
	for (int r = 0; r < 512; r++)
		for (int col = 0; col < 512; col++)
			t[col * 512 + r] = want[r * 512 + col];
	mm_check(&p, t, 7, &c);
	ck_assert(!c.ok);
	/* as is a uniform error of 0.1% */
	for (int i = 0; i < 512 * 512; i++)
		t[i] = want[i] * 1.001f;
	mm_check(&p, t, 7, &c);
	ck_assert(!c.ok);
	free(t);
	free(want);
}
END_TEST

START_TEST(test_bytes_and_sizes)
{
	struct sw_point p = mm_point("cublas", 4096, SW_AXIS_UNUSED, SW_AXIS_UNUSED);
	ck_assert_double_eq(fam()->flops(&p), 2.0 * 4096 * 4096 * 4096);
	ck_assert_double_eq(fam()->useful_bytes(&p), 3.0 * 4096 * 4096 * 4);
	struct sw_sizes sz = { 0 };
	fam()->sizes(&p, &sz);
	ck_assert_int_eq(sz.n_buffers, 3);
	ck_assert_int_eq(sz.n_inputs, 2);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(sz.bytes[i], (size_t)4096 * 4096 * 4);
	/* prepare makes a cuBLAS handle for cublas alone: no CUDA call here */
	struct sw_buffers b = { 0 };
	p = mm_point("naive", 64, 8, SW_AXIS_UNUSED);
	ck_assert_ptr_nonnull(fam()->prepare);
	ck_assert_int_eq(fam()->prepare(&p, &b, NULL), cudaSuccess);
	ck_assert_ptr_null(b.state);
	fam()->release(&p, &b);
	ck_assert_ptr_null(b.state);
}
END_TEST

START_TEST(test_refusals)
{
	char why[160] = "";
	struct sw_point p = mm_point("naive", 1024, 12, SW_AXIS_UNUSED);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "8, 16 and 32"));
	p = mm_point("tiled", 1000, 16, 0);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "not a multiple of tile 16"));
	p = mm_point("tiled_reg", 1088, SW_AXIS_UNUSED, SW_AXIS_UNUSED);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "128 x 128"));
	p = mm_point("cublas", 1000, SW_AXIS_UNUSED, SW_AXIS_UNUSED);
	ck_assert(!fam()->refuse(&p, why, sizeof why));
	/* the largest points run */
	for (int v = 0; v < 4; v++) {
		p = mm_point(variants[v], 16384, v < 2 ? 32 : SW_AXIS_UNUSED,
			     v == 1 ? 1 : SW_AXIS_UNUSED);
		ck_assert_msg(!fam()->refuse(&p, why, sizeof why), "%s", why);
	}
}
END_TEST

static int distinct_addrs(const struct sw_request *req)
{
	int n = 0;
	for (int l = 0; l < 32; l++) {
		int dup = 0;
		for (int i = 0; i < l; i++)
			dup |= req->addr[i] == req->addr[l];
		n += !dup;
	}
	return n;
}

START_TEST(test_requests)
{
	struct sw_request req;
	/* n 64, tile 32: 4 blocks of 32 warps, each 64 loads of A and 64 of B */
	struct sw_point p = mm_point("naive", 64, 32, SW_AXIS_UNUSED);
	const struct sw_variant *v = &fam()->variants[p.variant];
	ck_assert_ptr_nonnull(v->requests);
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 4 * 32 * 128);
	/* warp 32 + 3 = block (bx 1, by 0), row 3; step 5; B's loads follow all of A's */
	uint64_t r = 35 * 64 + 5, half = 4 * 32 * 64;
	v->requests(&p, r, &req);
	ck_assert_int_eq(req.space, SW_SPACE_GLOBAL);
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 4 * (3 * 64 + 5)); /* A[3][5] for all: one word */
	v->requests(&p, half + r, &req);
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 4 * (5 * 64 + 32 + l)); /* B[5][32 + l] */
	/* tile 8: a warp spans 4 rows of C and 8 columns */
	p = mm_point("naive", 64, 8, SW_AXIS_UNUSED);
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 64 * 2 * 64 * 2);
	v->requests(&p, 0, &req);
	ck_assert_int_eq(distinct_addrs(&req), 4);
	v->requests(&p, 64 * 2 * 64, &req);
	ck_assert_int_eq(distinct_addrs(&req), 8);
	/* tiled: n / tile steps instead of n (C7); a tile row of A, a tile row of B */
	p = mm_point("tiled", 64, 32, 1);
	v = &fam()->variants[p.variant];
	ck_assert_ptr_nonnull(v->requests);
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 4 * 32 * 2 * 2);
	r = 35 * 2 + 1; /* warp 35 (block bx 1, by 0, row 3), step 1 */
	v->requests(&p, r, &req);
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 4 * (3 * 64 + 32 + l)); /* A[3][32 + l] */
	v->requests(&p, 4 * 32 * 2 + r, &req);
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l],
				  4 * ((32 + 3) * 64 + 32 + l)); /* B[32 + 3][32 + l] */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("family_matmul");
	TCase *tc = tcase_create("matmul");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_check_full);
	tcase_add_test(tc, test_check_sampled);
	tcase_add_test(tc, test_bytes_and_sizes);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_requests);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
