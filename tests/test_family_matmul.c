/* The matmul family on the CPU: its check against products built here (in
 * double, and in float the way the naive kernel sums), byte and flop counts,
 * refusals and the modelled global loads of naive and tiled. */
#include <stdlib.h>
#include <string.h>

#include "family_scaffold.h"

enum { SIZE, TILE, PAD };

static const struct sw_ftest ft = { .family = "matmul", .out = 2, .sample_seed = 77 };

static const struct sw_family *fam(void)
{
	return sw_ftest_family(&ft);
}

static struct sw_point mm_point(const char *variant, int64_t n, int64_t tile, int64_t pad)
{
	return SW_FTEST_POINT(&ft, variant, n, tile, pad);
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

/* The bytes of p's output: C, n x n floats. */
static size_t out_bytes(const struct sw_point *p)
{
	return (size_t)p->axis[SIZE] * (size_t)p->axis[SIZE] * sizeof(float);
}

static const char *variants[] = { "naive", "tiled", "tiled_reg", "cublas" };

START_TEST(test_check_full)
{
	float *want = mm_expected(64, 42, 0), *other = mm_expected(64, 43, 0);
	for (int v = 0; v < 4; v++) {
		struct sw_point p = mm_point(variants[v], 64, v < 2 ? 16 : SW_AXIS_UNUSED,
					     v == 1 ? 1 : SW_AXIS_UNUSED);
		struct sw_check c =
			sw_ftest_passes(&ft, &p, want, out_bytes(&p), 42, SW_CHECK_FULL, 64 * 64);
		ck_assert_double_lt(c.max_rel_err, 1e-7);
		/* one element off by 0.1% is found */
		sw_ftest_finds(&ft, &p, want, out_bytes(&p), 42, 1000, want[1000] * 1.001f,
			       "row 15, col 40");
		sw_ftest_fails(&ft, &p, other, out_bytes(&p), 42, NULL);
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
	/* float sums in the naive kernel's order pass */
	struct sw_check c =
		sw_ftest_passes(&ft, &p, want, out_bytes(&p), 7, SW_CHECK_SAMPLED, 4096);
	ck_assert_double_gt(c.max_rel_err, 0);
	/* C transposed (the course's swapped blockIdx) is globally wrong */
	float *t = malloc(512 * 512 * sizeof *t);
	for (int r = 0; r < 512; r++)
		for (int col = 0; col < 512; col++)
			t[col * 512 + r] = want[r * 512 + col];
	sw_ftest_fails(&ft, &p, t, out_bytes(&p), 7, NULL);
	/* as is a uniform error of 0.1% */
	for (int i = 0; i < 512 * 512; i++)
		t[i] = want[i] * 1.001f;
	sw_ftest_fails(&ft, &p, t, out_bytes(&p), 7, NULL);
	free(t);
	free(want);
}
END_TEST

START_TEST(test_bytes_and_sizes)
{
	struct sw_point p = mm_point("cublas", 4096, SW_AXIS_UNUSED, SW_AXIS_UNUSED);
	ck_assert_double_eq(fam()->flops(&p), 2.0 * 4096 * 4096 * 4096);
	ck_assert_double_eq(fam()->useful_bytes(&p), 3.0 * 4096 * 4096 * 4);
	struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 3, 2);
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
	const TTest *tests[] = { test_check_full, test_check_sampled, test_bytes_and_sizes,
				 test_refusals, test_requests };
	return sw_ftest_run("family_matmul", "matmul", tests, SW_COUNT(tests));
}
