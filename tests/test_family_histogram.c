/* histogram on the CPU: its check against histograms built here from the
 * documented input (an independent copy of the generator), byte counts,
 * refusals and the model's requests. */
#include <stdlib.h>
#include <string.h>

#include "family_scaffold.h"

#define STREAM_T (4096u * 256u)

static const struct sw_ftest ft = { .family = "histogram", .out = 1, .sample_seed = 5 };

static const struct sw_family *fam(void)
{
	return sw_ftest_family(&ft);
}

static struct sw_point hist_point(const char *variant, int64_t bins, int64_t dist, int64_t n)
{
	return SW_FTEST_POINT(&ft, variant, bins, dist, n);
}

/* ---- the input as histogram.cuh documents it ---- */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static unsigned input_byte(uint64_t seed, int64_t dist, uint64_t i)
{
	if (dist == 2)
		return (unsigned)(mix64(seed) & 0xff);
	if (dist == 1) { /* trailing zeros of 16 random bits, four per hash */
		uint64_t r = mix64(seed ^ mix64(i / 4));
		unsigned bits = (unsigned)(r >> (16 * (i % 4))) & 0xffffu, v = 0;
		while (v < 16 && !(bits & (1u << v)))
			v++;
		return v;
	}
	return (unsigned)(mix64(seed ^ mix64(i / 8)) >> (8 * (i % 8))) & 0xff;
}

static uint32_t *expected_hist(const struct sw_point *p, uint64_t seed)
{
	uint32_t *h = calloc((size_t)p->axis[0], sizeof *h);
	for (uint64_t i = 0; i < (uint64_t)p->axis[2]; i++)
		h[input_byte(seed, p->axis[1], i) & (p->axis[0] - 1)]++;
	return h;
}

/* stream_read's input is uniform (it has no dist): word w holds bytes
 * 8w .. 8w+7 and lands in thread (w / 2) mod T. */
static uint32_t *expected_stream(const struct sw_point *p, uint64_t seed)
{
	uint32_t *out = calloc(STREAM_T, sizeof *out);
	for (uint64_t w = 0; w < (uint64_t)p->axis[2] / 8; w++) {
		uint64_t word = mix64(seed ^ mix64(w));
		out[(w / 2) % STREAM_T] ^= (uint32_t)word ^ (uint32_t)(word >> 32);
	}
	for (uint64_t i = 0; i < 64; i++) /* the words are the bytes the histograms count */
		ck_assert_uint_eq((mix64(seed ^ mix64(i / 8)) >> (8 * (i % 8))) & 0xff,
				  input_byte(seed, 0, i));
	return out;
}

START_TEST(test_check_accepts_and_rejects)
{
	const char *variants[] = { "global_atomic", "shared_priv", "shared_wide" };
	const int64_t bins[] = { 256, 16 };
	for (int v = 0; v < 3; v++)
		for (int b = 0; b < 2; b++)
			for (int dist = 0; dist <= 2; dist++) {
				/* n not a multiple of 16: the tail counts too */
				struct sw_point p =
					hist_point(variants[v], bins[b], dist, (1 << 20) + 13);
				uint32_t *h = expected_hist(&p, 42);
				size_t bytes = bins[b] * 4, last = bins[b] - 1;
				struct sw_check c = sw_ftest_passes(&ft, &p, h, bytes, 42,
								    SW_CHECK_FULL, bins[b]);
				ck_assert_double_eq(c.max_rel_err, 0);
				/* one count off by one is found */
				sw_ftest_finds_u32(&ft, &p, h, bytes, 42, last, h[last] + 1, "bin");
				/* as is input from another seed, unless both seeds give one
				 * value in the same bin */
				int same =
					dist == 2 && ((mix64(42) ^ mix64(43)) & (bins[b] - 1)) == 0;
				c = sw_ftest_check(&ft, &p, h, bytes, 43);
				ck_assert_msg(!c.ok || same, "%s dist %d: another seed passed",
					      variants[v], dist);
				free(h);
			}
}
END_TEST

START_TEST(test_distributions)
{
	/* the shapes the dist axis promises, on the input the check accepts */
	uint64_t n = 1 << 20;
	struct sw_point p = hist_point("shared_wide", 256, 0, n);
	uint32_t *h = expected_hist(&p, 7);
	for (int b = 0; b < 256; b++) /* uniform: 4096 per bin, a few sigma (64) either side */
		ck_assert_msg(h[b] > 4096 - 400 && h[b] < 4096 + 400, "bin %d: %u", b, h[b]);
	free(h);
	p.axis[1] = 1;
	h = expected_hist(&p, 7);
	ck_assert(h[0] > n / 2 - 4000 && h[0] < n / 2 + 4000);
	ck_assert(h[0] + h[1] + h[2] > n / 8 * 7 - 4000);
	for (int b = 17; b < 256; b++)
		ck_assert_uint_eq(h[b], 0);
	free(h);
	p.axis[1] = 2;
	h = expected_hist(&p, 7);
	ck_assert_uint_eq(h[mix64(7) & 0xff], n);
	free(h);
}
END_TEST

START_TEST(test_stream_check)
{
	/* small: every thread checked */
	struct sw_point p = hist_point("stream_read", SW_AXIS_UNUSED, SW_AXIS_UNUSED, 1 << 20);
	uint32_t *out = expected_stream(&p, 11);
	sw_ftest_passes(&ft, &p, out, STREAM_T * 4, 11, SW_CHECK_FULL, STREAM_T);
	sw_ftest_finds_u32(&ft, &p, out, STREAM_T * 4, 11, 12345, out[12345] ^ 1, "element 12345");
	free(out);
	/* large: sampled, and an output wrong everywhere is caught */
	p.axis[2] = 256 << 20;
	out = expected_stream(&p, 11);
	sw_ftest_passes(&ft, &p, out, STREAM_T * 4, 11, SW_CHECK_SAMPLED, 4096);
	for (uint32_t t = 0; t < STREAM_T; t++)
		out[t] = ~out[t];
	sw_ftest_fails(&ft, &p, out, STREAM_T * 4, 11, NULL);
	free(out);
}
END_TEST

START_TEST(test_bytes_and_sizes)
{
	struct sw_point p = hist_point("shared_wide", 256, 1, 256 << 20);
	ck_assert_double_eq(fam()->useful_bytes(&p), 256.0 * (1 << 20));
	ck_assert_double_eq(fam()->flops(&p), 0);
	struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 2, 1);
	ck_assert_uint_eq(sz.bytes[0], 256u << 20);
	ck_assert_uint_eq(sz.bytes[1], 256 * 4);
	p = hist_point("global_atomic", 32, 2, 1000);
	fam()->sizes(&p, &sz);
	ck_assert_uint_eq(sz.bytes[1], 32 * 4);
	ck_assert_double_eq(fam()->useful_bytes(&p), 1000);
	p = hist_point("stream_read", SW_AXIS_UNUSED, SW_AXIS_UNUSED, 1 << 20);
	fam()->sizes(&p, &sz);
	ck_assert_uint_eq(sz.bytes[0], 1 << 20);
	ck_assert_uint_eq(sz.bytes[1], STREAM_T * 4);
	ck_assert_double_eq(fam()->useful_bytes(&p), 1 << 20);
	/* the reference is a reference; the histograms are not */
	ck_assert(fam()->variants[p.variant].is_reference);
	ck_assert(!fam()->variants[sw_variant_find(fam(), "shared_wide")].is_reference);
}
END_TEST

START_TEST(test_refusals)
{
	char why[160] = "";
	struct sw_point p = hist_point("shared_priv", 48, 0, 1 << 20);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "power of two"));
	p = hist_point("stream_read", SW_AXIS_UNUSED, SW_AXIS_UNUSED, (1 << 20) + 8);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "multiple of 16"));
	p = hist_point("shared_wide", 256, 2, (1 << 20) + 8); /* the histograms take any n */
	ck_assert(!fam()->refuse(&p, why, sizeof why));
	p = hist_point("global_atomic", 256, 1, INT64_C(2) << 30); /* the largest point */
	ck_assert(!fam()->refuse(&p, why, sizeof why));
}
END_TEST

START_TEST(test_requests)
{
	struct sw_request req;
	/* byte loads: 32 neighbouring bytes per warp request, the last one partial */
	struct sw_point p = hist_point("global_atomic", 256, 0, 1024 + 5);
	const struct sw_variant *v = &fam()->variants[p.variant];
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 33);
	v->requests(&p, 3, &req);
	ck_assert_int_eq(req.word_bytes, 1);
	ck_assert_int_eq(req.space, SW_SPACE_GLOBAL);
	ck_assert_int_eq(req.is_store, 0);
	ck_assert_uint_eq(req.active, 0xffffffffu);
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 96 + l);
	v->requests(&p, 32, &req);
	ck_assert_uint_eq(req.active, 0x1f);
	/* uint4 loads: 512 bytes per request */
	p = hist_point("shared_wide", 256, 0, 1 << 20);
	v = &fam()->variants[p.variant];
	ck_assert_uint_eq(v->requests(&p, 0, NULL), (1 << 20) / 512);
	v->requests(&p, 2, &req);
	ck_assert_int_eq(req.word_bytes, 16);
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 1024 + 16 * l);
	p = hist_point("stream_read", SW_AXIS_UNUSED, SW_AXIS_UNUSED, 1 << 20);
	ck_assert_ptr_nonnull(fam()->variants[p.variant].requests);
}
END_TEST

/* global_atomic and shared_priv stride over a grid of any block: the same
 * histogram, and loads that do not depend on the grid. */
START_TEST(test_block_axis)
{
	const char *variants[] = { "global_atomic", "shared_priv" };
	for (int v = 0; v < 2; v++) {
		struct sw_point p = hist_point(variants[v], 64, 1, 1 << 16);
		uint32_t *h = expected_hist(&p, 12);
		sw_ftest_block_reshapes(&ft, p, 0, h, 64 * sizeof(uint32_t), 12);
		free(h);
	}
}
END_TEST

int main(void)
{
	const TTest *tests[] = { test_check_accepts_and_rejects,
				 test_distributions,
				 test_stream_check,
				 test_bytes_and_sizes,
				 test_refusals,
				 test_requests,
				 test_block_axis };
	return sw_ftest_run("family_histogram", "histogram", tests, SW_COUNT(tests));
}
