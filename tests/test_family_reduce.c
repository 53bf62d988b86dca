/* reduce on the CPU: its check against dot products built here from
 * sw_input_value (including one summed in float the way the atomic variant
 * adds), byte and flop counts, refusals and the model's requests. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "family_scaffold.h"

#define T (4096u * 256u)

static const struct sw_ftest ft = { .family = "reduce", .out = 2, .sample_seed = 9 };

static const struct sw_family *fam(void)
{
	return sw_ftest_family(&ft);
}

static struct sw_point red_point(const char *variant, int64_t n)
{
	return SW_FTEST_POINT(&ft, variant, n);
}

/* Element i of vector v: the harness's uniform value, centred. */
static float value(uint64_t seed, int v, uint64_t i)
{
	return sw_input_value(seed + (uint64_t)v, i) - 0.5f;
}

static double dot_double(uint64_t seed, uint64_t n)
{
	double d = 0;
	for (uint64_t i = 0; i < n; i++)
		d += (double)value(seed, 0, i) * value(seed, 1, i);
	return d;
}

/* One float accumulator, element after element: the atomic variant's
 * order when its atomics land in index order, its worst case. */
static float dot_float_sequential(uint64_t seed, uint64_t n)
{
	float d = 0;
	for (uint64_t i = 0; i < n; i++)
		d += value(seed, 0, i) * value(seed, 1, i);
	return d;
}

/* stream_read's per-thread sums, in the kernel's float order: four
 * accumulators over unrolled float4 steps, then the tail into the first. */
static float *expected_stream(uint64_t seed, uint64_t n)
{
	uint64_t n4 = n / 4;
	float *out = calloc(T, sizeof *out);
	for (uint64_t t = 0; t < T; t++) {
		float acc[4] = { 0, 0, 0, 0 };
		uint64_t j = t;
		for (; j + 3 * (uint64_t)T < n4; j += 4 * (uint64_t)T)
			for (int u = 0; u < 4; u++)
				for (int c = 0; c < 4; c++) {
					uint64_t i = 4 * (j + u * (uint64_t)T) + c;
					acc[u] = fmaf(value(seed, 0, i), value(seed, 1, i), acc[u]);
				}
		for (; j < n4; j += T)
			for (int c = 0; c < 4; c++)
				acc[0] = fmaf(value(seed, 0, 4 * j + c), value(seed, 1, 4 * j + c),
					      acc[0]);
		out[t] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
	}
	return out;
}

START_TEST(test_dot_check)
{
	const char *variants[] = { "atomic", "shared_tree", "warp_shuffle" };
	uint64_t n = 1 << 20;
	double want = dot_double(3, n);
	for (int v = 0; v < 3; v++) {
		struct sw_point p = red_point(variants[v], n);
		float got = (float)want;
		sw_ftest_passes(&ft, &p, &got, 4, 3, SW_CHECK_FULL, 1);
		/* a tenth of the vectors missing (about sqrt(n / 10) / 12 = 27) */
		sw_ftest_finds(&ft, &p, &got, 4, 3, 0, (float)(want - dot_double(3, n / 10)),
			       "element 0");
		sw_ftest_fails(&ft, &p, &got, 4, 4, NULL); /* another input */
	}
}
END_TEST

START_TEST(test_float_sum_within_tolerance)
{
	/* the atomic variant's worst order, summed in float, passes at 16M */
	uint64_t n = 16 << 20;
	struct sw_point p = red_point("atomic", n);
	float got = dot_float_sequential(5, n);
	struct sw_check c = sw_ftest_check(&ft, &p, &got, 4, 5);
	ck_assert_msg(c.ok, "%s", c.msg);
	/* its error is well inside the tolerance: below a quarter of it */
	double want = dot_double(5, n), q = 0;
	for (uint64_t i = 0; i < n; i += 1) {
		double a = (double)value(5, 0, i) * value(5, 1, i);
		q += a * a;
	}
	double tol = 8 * 0x1p-24 * sqrt((double)n) * sqrt(q);
	ck_assert_double_lt(fabs(got - want), tol / 4);
}
END_TEST

START_TEST(test_stream_check)
{
	/* small: every thread, exact float order */
	struct sw_point p = red_point("stream_read", 1 << 20);
	float *out = expected_stream(8, 1 << 20);
	sw_ftest_passes(&ft, &p, out, T * 4, 8, SW_CHECK_FULL, T);
	sw_ftest_finds(&ft, &p, out, T * 4, 8, 777, out[777] + 0.01f, "element 777");
	free(out);
	/* large: sampled; every sum off by 0.01 is caught */
	p.axis[0] = 16 << 20;
	out = expected_stream(8, 16 << 20);
	sw_ftest_passes(&ft, &p, out, T * 4, 8, SW_CHECK_SAMPLED, 4096);
	for (uint32_t t = 0; t < T; t++)
		out[t] += 0.01f;
	sw_ftest_fails(&ft, &p, out, T * 4, 8, NULL);
	free(out);
}
END_TEST

START_TEST(test_bytes_and_sizes)
{
	const char *variants[] = { "atomic", "shared_tree", "warp_shuffle", "stream_read" };
	for (int v = 0; v < 4; v++) {
		struct sw_point p = red_point(variants[v], 64 << 20);
		ck_assert_double_eq(fam()->useful_bytes(&p), 512.0 * (1 << 20)); /* 2 x n x 4 */
		ck_assert_double_eq(fam()->flops(&p), 128.0 * (1 << 20));
		struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 3, 2);
		ck_assert_uint_eq(sz.bytes[0], 256u << 20);
		ck_assert_uint_eq(sz.bytes[1], 256u << 20);
		ck_assert_uint_eq(sz.bytes[2], v == 3 ? T * 4 : 4);
		ck_assert_int_eq(fam()->variants[p.variant].is_reference, v == 3);
	}
}
END_TEST

START_TEST(test_refusals)
{
	char why[160] = "";
	struct sw_point p = red_point("warp_shuffle", 1026);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "multiple of 4"));
	p = red_point("stream_read", 1026);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	p = red_point("atomic", 1026);
	ck_assert(!fam()->refuse(&p, why, sizeof why));
	p = red_point("shared_tree", 1026);
	ck_assert(!fam()->refuse(&p, why, sizeof why));
	p = red_point("warp_shuffle", INT64_C(2) << 30); /* the largest point */
	ck_assert(!fam()->refuse(&p, why, sizeof why));
}
END_TEST

START_TEST(test_requests)
{
	struct sw_request req;
	struct sw_point p = red_point("shared_tree", 1024 + 8);
	const struct sw_variant *v = &fam()->variants[p.variant];
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 2 * 33); /* x's 33, then y's */
	v->requests(&p, 2, &req);
	ck_assert_int_eq(req.word_bytes, 4);
	ck_assert_uint_eq(req.active, 0xffffffffu);
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], (64 + l) * 4);
	v->requests(&p, 32, &req);
	ck_assert_uint_eq(req.active, 0xff);
	struct sw_request y;
	v->requests(&p, 33 + 2, &y); /* y's request 2: the same offsets in its buffer */
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(y.addr[l], (64 + l) * 4);
	p = red_point("warp_shuffle", 1 << 20);
	v = &fam()->variants[p.variant];
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 2 * (1 << 20) / 128);
	v->requests(&p, 5, &req);
	ck_assert_int_eq(req.word_bytes, 16);
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], (5 * 32 + l) * 16);
}
END_TEST

/* atomic's one thread per element in any block: the same dot product. */
START_TEST(test_block_axis)
{
	uint64_t n = 1 << 16;
	float got = (float)dot_double(3, n);
	sw_ftest_block_reshapes(&ft, red_point("atomic", (int64_t)n), 0, &got, 4, 3);
}
END_TEST

int main(void)
{
	const TTest *tests[] = { test_dot_check,    test_float_sum_within_tolerance,
				 test_stream_check, test_bytes_and_sizes,
				 test_refusals,     test_requests,
				 test_block_axis };
	return sw_ftest_run("family_reduce", "reduce", tests, SW_COUNT(tests));
}
