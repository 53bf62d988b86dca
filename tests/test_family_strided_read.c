/* strided_read's launch-shape and width axes on the CPU: its check of
 * float2, float4, double and double2 loads and of other grids against
 * independently built outputs, their sizes and refusals, and the requests
 * the model sees (the rest of the family: tests/test_kernels.c, test_model.c). */
#include <stdlib.h>
#include <string.h>

#include "family_scaffold.h"

enum { STRIDE, N, BLOCK, GRID, VEC, ELEM_BYTES };

static const struct sw_ftest ft = { .family = "strided_read", .out = 1, .sample_seed = 5 };

static struct sw_point point(const char *variant, int64_t stride, int64_t n, int64_t block,
			     int64_t grid, int64_t vec, int64_t elem_bytes)
{
	return SW_FTEST_POINT(&ft, variant, stride, n, block, grid, vec, elem_bytes);
}

static uint64_t or_own(int64_t v, uint64_t own)
{
	return v > 0 ? (uint64_t)v : own;
}

/* What the kernel writes, from the pattern's definition: the j-th load of
 * the read (load j x stride of vec elements) is thread j % T's. */
static void *expected(const struct sw_point *p, uint64_t seed, size_t *n_out)
{
	uint64_t T = or_own(p->axis[BLOCK], 256) * or_own(p->axis[GRID], 4096);
	uint64_t vec = or_own(p->axis[VEC], 1), eb = or_own(p->axis[ELEM_BYTES], 4);
	uint64_t loads = (uint64_t)p->axis[N] / vec, s = (uint64_t)p->axis[STRIDE];
	void *out = sw_ftest_sums(T, (unsigned)eb);
	for (uint64_t j = 0; j * s < loads; j++)
		for (uint64_t e = 0; e < vec; e++)
			sw_ftest_add(out, (unsigned)eb, j % T,
				     sw_input_value(seed, j * s * vec + e));
	*n_out = T;
	return out;
}

/* Every width a load may have, on both variants, on a grid of its own. */
START_TEST(test_widths_checked)
{
	const int64_t widths[][2] = { { 1, 4 }, { 2, 4 }, { 4, 4 }, { 1, 8 }, { 2, 8 } };
	const char *variants[] = { "course", "tuned" };
	for (int v = 0; v < 2; v++)
		for (int w = 0; w < 5; w++) {
			struct sw_point p =
				point(variants[v], 3, 40000, 64, 32, widths[w][0], widths[w][1]);
			size_t n_out;
			void *out = expected(&p, 42, &n_out);
			ck_assert_uint_eq(n_out, 2048);
			sw_ftest_sums_checked(&ft, &p, out, n_out, (unsigned)widths[w][1], 42,
					      SW_CHECK_FULL, n_out, n_out / 3);
			free(out);
		}
}
END_TEST

/* A float2 load sums two floats: the output of scalar loads at the same
 * stride (other elements) does not pass. */
START_TEST(test_check_sees_the_width)
{
	struct sw_point scalar = point("course", 2, 40000, 64, 32, 1, 4);
	struct sw_point pair = point("course", 2, 40000, 64, 32, 2, 4);
	size_t n_out;
	void *out = expected(&scalar, 9, &n_out);
	sw_ftest_fails(&ft, &pair, out, n_out * 4, 9, NULL);
	free(out);
}
END_TEST

START_TEST(test_sizes_and_bytes)
{
	const struct sw_family *f = sw_ftest_family(&ft);
	/* doubles: 8 bytes each in, one double per thread out */
	struct sw_point p = point("course", 1, 1 << 20, 512, 128, 1, 8);
	struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 2, 1);
	ck_assert_uint_eq(sz.bytes[0], 8u << 20);
	ck_assert_uint_eq(sz.bytes[1], 512 * 128 * 8);
	ck_assert_double_eq(f->useful_bytes(&p), 8.0 * (1 << 20));
	ck_assert_double_eq(f->flops(&p), 1 << 20);
	/* float4 at stride 2: every other 16-byte load of n floats */
	p = point("tuned", 2, 1 << 20, 0, 0, 4, 4);
	f->sizes(&p, &sz);
	ck_assert_uint_eq(sz.bytes[0], 4u << 20);
	ck_assert_uint_eq(sz.bytes[1], 4096 * 256 * 4);
	ck_assert_double_eq(f->useful_bytes(&p), 2.0 * (1 << 20));
	ck_assert_double_eq(f->flops(&p), 0.5 * (1 << 20));
}
END_TEST

static void refused(struct sw_point p, const char *why_has)
{
	char why[160] = "";
	ck_assert_msg(sw_ftest_family(&ft)->refuse(&p, why, sizeof why), "not refused: %s",
		      why_has);
	ck_assert_msg(strstr(why, why_has), "\"%s\" does not say \"%s\"", why, why_has);
}

START_TEST(test_refusals)
{
	const struct sw_family *f = sw_ftest_family(&ft);
	char why[160];
	refused(point("course", 1, 1 << 20, 0, 0, 4, 8), "at most 16");
	refused(point("tuned", 1, 1 << 20, 0, 0, 3, 4), "1, 2 or 4");
	refused(point("course", 1, 1 << 20, 0, 0, 1, 6), "doubles (8)");
	refused(point("course", 1, 1 << 20, 48, 0, 1, 4), "whole number");
	refused(point("course", 1, 1026, 0, 0, 4, 4), "whole loads");
	struct sw_point p = point("course", 1, 1 << 20, 1024, 65536, 2, 8);
	ck_assert(!f->refuse(&p, why, sizeof why));
	p = point("course", 128, (int64_t)4 << 30, 32, 1, 4, 4); /* one warp, 64-bit loads */
	ck_assert(!f->refuse(&p, why, sizeof why));
}
END_TEST

/* The grid and block set the threads T a step covers: requests are warps
 * (T / 32) times steps (loads over stride x T), and lanes sit where
 * sw_strided_index puts them. */
START_TEST(test_shape_requests)
{
	struct sw_point p = point("course", 2, 1 << 22, 128, 8, 1, 4);
	const struct sw_variant *v = &sw_ftest_family(&ft)->variants[p.variant];
	struct sw_request req;
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 32 * 2048); /* T 1024: 2048 steps */
	v->requests(&p, 33, &req);                              /* step 1 of warp 1 */
	ck_assert_uint_eq(req.addr[0], (1024 + 32) * 2 * 4);
	ck_assert_uint_eq(req.addr[31], (1024 + 63) * 2 * 4);
	p = point("course", 2, 1 << 22, 0, 0, 1, 4);
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 32768 * 2); /* the course's 4096 x 256 */
	p = point("course", 2, 1 << 22, 1024, 4096, 1, 4);
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 131072 * 1);
	/* float4: a quarter of the loads, each a 16-byte word at lane x stride x 16 */
	p = point("tuned", 2, 1 << 22, 128, 8, 4, 4);
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 32 * 512);
	v->requests(&p, 1, &req);
	ck_assert_int_eq(req.word_bytes, 16);
	ck_assert_uint_eq(req.addr[0], 32 * 2 * 16);
	ck_assert_uint_eq(req.active, 0xffffffffu);
	/* the block changes the requests' count, not their cost */
	for (int64_t b = 64; b <= 1024; b *= 2) {
		p = point("course", 1, 1 << 22, b, 0, 1, 4);
		struct sw_model_figures m = sw_ftest_model(&ft, &p, 90);
		ck_assert_double_eq_tol(m.sectors_per_request, 4, 1e-9);
		ck_assert_double_eq_tol(m.ld_requests, (double)(1 << 22) / 32, 1e-6);
	}
}
END_TEST

/* The model's useful bytes are the family's at every width. */
START_TEST(test_model_bytes_follow_width)
{
	const int64_t widths[][2] = { { 1, 4 }, { 2, 4 }, { 4, 4 }, { 1, 8 }, { 2, 8 } };
	const struct sw_family *f = sw_ftest_family(&ft);
	for (int w = 0; w < 5; w++)
		for (int64_t s = 1; s <= 8; s *= 2) {
			struct sw_point p =
				point("course", s, 64 << 20, 0, 0, widths[w][0], widths[w][1]);
			struct sw_model_figures m = sw_ftest_model(&ft, &p, 90);
			ck_assert_double_eq_tol(m.useful_bytes / f->useful_bytes(&p), 1.0, 1e-3);
		}
}
END_TEST

int main(void)
{
	const TTest *tests[] = { test_widths_checked,  test_check_sees_the_width,
				 test_sizes_and_bytes, test_refusals,
				 test_shape_requests,  test_model_bytes_follow_width };
	return sw_ftest_run("strided_read", "strided_read", tests, SW_COUNT(tests));
}
