/* offset_read on the CPU: its check against independently built outputs,
 * byte counts, refusals, and the model's sectors per request (C1, C15). */
#include <stdlib.h>
#include <string.h>

#include "family_scaffold.h"

#define T (4096u * 256u)

static const struct sw_ftest ft = { .family = "offset_read", .out = 1, .sample_seed = 99 };

static const struct sw_family *fam(void)
{
	return sw_ftest_family(&ft);
}

static struct sw_point point(const char *variant, int64_t offset, int64_t n)
{
	return SW_FTEST_POINT(&ft, variant, offset, n);
}

/* The output each variant's kernel writes, recomputed independently. */
static float *expected(const struct sw_point *p, uint64_t seed, size_t *n_out)
{
	struct sw_sizes sz = { 0 };
	fam()->sizes(p, &sz);
	*n_out = sz.bytes[1] / sizeof(float);
	float *out = calloc(*n_out, sizeof *out);
	uint64_t n = (uint64_t)p->axis[1];
	const char *name = fam()->variants[p->variant].name;
	if (strcmp(name, "stream_read") == 0) {
		for (uint64_t j = 0; j < n; j++) /* float4 j / 4 belongs to thread (j / 4) % T */
			out[(j / 4) % T] += sw_input_value(seed, j);
	} else {
		uint64_t start = strcmp(name, "offset") == 0 ? (uint64_t)p->axis[0] : 0;
		for (uint64_t i = 0; i < n; i++)
			out[i % T] += sw_input_value(seed, start + i);
	}
	return out;
}

START_TEST(test_check_accepts_and_rejects)
{
	const char *variants[] = { "aligned", "offset", "stream_read" };
	for (int v = 0; v < 3; v++) {
		struct sw_point p = point(variants[v], 5, (3 << 20) + 1000);
		if (strcmp(variants[v], "offset"))
			p.axis[0] = SW_AXIS_UNUSED;
		size_t n_out;
		float *out = expected(&p, 42, &n_out);
		size_t bytes = n_out * sizeof(float);
		sw_ftest_passes(&ft, &p, out, bytes, 42, SW_CHECK_FULL, n_out);
		sw_ftest_finds(&ft, &p, out, bytes, 42, n_out / 2, out[n_out / 2] + 0.5f,
			       "element");
		sw_ftest_fails(&ft, &p, out, bytes, 43, NULL); /* input from another seed */
		free(out);
	}
}
END_TEST

START_TEST(test_check_sees_the_offset)
{
	/* the aligned read's output is not the output of a read from element 5 */
	struct sw_point aligned = point("aligned", SW_AXIS_UNUSED, 1 << 20);
	struct sw_point off = point("offset", 5, 1 << 20);
	size_t n_out;
	float *out = expected(&aligned, 7, &n_out);
	sw_ftest_fails(&ft, &off, out, n_out * sizeof(float), 7, NULL);
	free(out);
	/* offset 0 reads what aligned reads */
	struct sw_point zero = point("offset", 0, 1 << 20);
	out = expected(&aligned, 7, &n_out);
	struct sw_check c = sw_ftest_check(&ft, &zero, out, n_out * sizeof(float), 7);
	ck_assert_msg(c.ok, "%s", c.msg);
	free(out);
}
END_TEST

START_TEST(test_check_samples_large_points)
{
	struct sw_point p = point("offset", 3, 64 << 20);
	size_t n_out;
	float *out = expected(&p, 11, &n_out);
	size_t bytes = n_out * sizeof(float);
	/* 4096: SW_CHECK_SAMPLES */
	struct sw_check c = sw_ftest_passes(&ft, &p, out, bytes, 11, SW_CHECK_SAMPLED, 4096);
	ck_assert_double_lt(c.max_rel_err, 1e-5);
	for (size_t i = 0; i < n_out; i++) /* everything off by 1%: any sample sees it */
		out[i] *= 1.01f;
	sw_ftest_fails(&ft, &p, out, bytes, 11, NULL);
	free(out);
}
END_TEST

START_TEST(test_bytes_and_sizes)
{
	const struct sw_family *f = fam();
	struct sw_point p = point("offset", 7, 64 << 20);
	ck_assert_double_eq(f->useful_bytes(&p), 256.0 * (1 << 20));
	ck_assert_double_eq(f->flops(&p), 64.0 * (1 << 20));
	struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 2, 1);
	ck_assert_uint_eq(sz.bytes[0], (256u << 20) + 7 * 4); /* the offset's floats too */
	ck_assert_uint_eq(sz.bytes[1], T * 4);
	p = point("aligned", SW_AXIS_UNUSED, 1024);
	f->sizes(&p, &sz);
	ck_assert_uint_eq(sz.bytes[0], 4096);
	ck_assert_double_eq(f->useful_bytes(&p), 4096);
	p = point("stream_read", SW_AXIS_UNUSED, 1024);
	ck_assert_double_eq(f->useful_bytes(&p), 4096);
}
END_TEST

START_TEST(test_refusal)
{
	const struct sw_family *f = fam();
	char why[160] = "";
	struct sw_point p = point("stream_read", SW_AXIS_UNUSED, 1026);
	ck_assert(f->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "multiple of 4"));
	p = point("offset", 3, 1026); /* scalar reads take any n */
	ck_assert(!f->refuse(&p, why, sizeof why));
	p = point("offset", 32, (int64_t)4 << 30); /* the largest point */
	ck_assert(!f->refuse(&p, why, sizeof why));
	struct sw_sizes sz = { 0 };
	f->sizes(&p, &sz);
	ck_assert_uint_eq(sz.bytes[0], ((size_t)16 << 30) + 128);
}
END_TEST

static double sectors(const char *variant, int64_t offset, int64_t n)
{
	struct sw_point p = point(variant, offset, n);
	return sw_ftest_model(&ft, &p, 90).sectors_per_request;
}

/* C1/C15: a misaligned start costs one extra sector per warp request. */
START_TEST(test_requests)
{
	struct sw_request req;
	struct sw_point p = point("offset", 1, 64 << 20);
	const struct sw_variant *v = &fam()->variants[p.variant];
	ck_assert_uint_eq(v->requests(&p, 0, NULL), (T / 32) * 64);
	v->requests(&p, 1, &req); /* warp 1, step 0: elements 33 .. 64 */
	ck_assert_uint_eq(req.active, 0xffffffffu);
	ck_assert_int_eq(req.word_bytes, 4);
	ck_assert_uint_eq(req.addr[0], 33 * 4);
	ck_assert_uint_eq(req.addr[31], 64 * 4);
	v->requests(&p, T / 32, &req); /* warp 0, step 1 */
	ck_assert_uint_eq(req.addr[0], (T + 1) * 4);

	ck_assert_double_eq(sectors("aligned", SW_AXIS_UNUSED, 64 << 20), 4);
	ck_assert_double_eq(sectors("offset", 0, 64 << 20), 4);
	for (int64_t k = 1; k < 8; k++)
		ck_assert_double_eq(sectors("offset", k, 64 << 20), 5);
	ck_assert_double_eq(sectors("offset", 8, 64 << 20), 4);
	ck_assert_double_eq(sectors("offset", 32, 64 << 20), 4);
	ck_assert_double_eq(sectors("stream_read", SW_AXIS_UNUSED, 64 << 20), 16);
}
END_TEST

static uint64_t or_own(int64_t v, uint64_t own)
{
	return v > 0 ? (uint64_t)v : own;
}

/* The output of a read of loads of vec elements from load `offset` on a
 * grid of its own (axes offset, n, block, grid, vec, elem_bytes): load i of
 * the range is thread i % T's. */
static void *expected_wide(const struct sw_point *p, uint64_t seed, size_t *n_out)
{
	uint64_t T_ = or_own(p->axis[2], 256) * or_own(p->axis[3], 4096);
	uint64_t vec = or_own(p->axis[4], 1), eb = or_own(p->axis[5], 4);
	uint64_t start = p->axis[0] > 0 ? (uint64_t)p->axis[0] : 0;
	void *out = sw_ftest_sums(T_, (unsigned)eb);
	for (uint64_t i = 0; i < (uint64_t)p->axis[1] / vec; i++)
		for (uint64_t e = 0; e < vec; e++)
			sw_ftest_add(out, (unsigned)eb, i % T_,
				     sw_input_value(seed, (start + i) * vec + e));
	*n_out = T_;
	return out;
}

/* float2, float4, double and double2 loads, misaligned by whole loads. */
START_TEST(test_widths_checked)
{
	const int64_t widths[][2] = { { 1, 4 }, { 2, 4 }, { 4, 4 }, { 1, 8 }, { 2, 8 } };
	for (int w = 0; w < 5; w++) {
		struct sw_point p = SW_FTEST_POINT(&ft, "offset", 3, 40000, 128, 16, widths[w][0],
						   widths[w][1]);
		size_t n_out;
		void *out = expected_wide(&p, 21, &n_out);
		ck_assert_uint_eq(n_out, 2048);
		sw_ftest_sums_checked(&ft, &p, out, n_out, (unsigned)widths[w][1], 21,
				      SW_CHECK_FULL, n_out, 100);
		struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 2, 1);
		ck_assert_uint_eq(sz.bytes[0], (uint64_t)(40000 + 3 * widths[w][0]) * widths[w][1]);
		ck_assert_uint_eq(sz.bytes[1], 2048 * widths[w][1]);
		ck_assert_double_eq(fam()->useful_bytes(&p), 40000.0 * widths[w][1]);
		free(out);
	}
	char why[160] = "";
	struct sw_point p = SW_FTEST_POINT(&ft, "aligned", SW_AXIS_UNUSED, 1 << 20, 0, 0, 4, 8);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "at most 16"));
	p = SW_FTEST_POINT(&ft, "offset", 1, 1 << 20, 200, 0, 1, 4);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "whole number of warps"));
}
END_TEST

int main(void)
{
	const TTest *tests[] = { test_check_accepts_and_rejects,
				 test_check_sees_the_offset,
				 test_check_samples_large_points,
				 test_bytes_and_sizes,
				 test_refusal,
				 test_requests,
				 test_widths_checked };
	return sw_ftest_run("offset_read", "offset_read", tests, SW_COUNT(tests));
}
