/* constant_read on the CPU: its check against per-thread sums built here
 * from sw_input_value, byte counts and the model's requests (how many
 * distinct words, and in how many lines, a warp reads). */
#include <stdlib.h>

#include "family_scaffold.h"

#define T     (8192u * 256u)
#define LOADS 1024

static const struct sw_ftest ft = { .family = "constant_read", .out = 1, .sample_seed = 17 };

static const struct sw_family *fam(void)
{
	return sw_ftest_family(&ft);
}

static struct sw_point cr_point(const char *variant, int64_t distinct)
{
	return SW_FTEST_POINT(&ft, variant, distinct);
}

/* Word read by `lane` on load k, as constant_read.cuh documents it: load k
 * starts at word (96 k) mod 256, lane groups of 32 / distinct share a word. */
static uint32_t word_of(uint32_t k, uint32_t lane, uint32_t distinct)
{
	return ((k * 96) & 255) + lane * distinct / 32;
}

/* A thread's sum depends on its lane only: 32 sums, repeated. */
static float *expected(uint64_t seed, uint32_t distinct)
{
	float lane_sum[32];
	for (uint32_t l = 0; l < 32; l++) {
		double s = 0;
		for (uint32_t k = 0; k < LOADS; k++)
			s += sw_input_value(seed, word_of(k, l, distinct));
		lane_sum[l] = (float)s;
	}
	float *out = malloc(T * sizeof *out);
	for (uint32_t t = 0; t < T; t++)
		out[t] = lane_sum[t % 32];
	return out;
}

START_TEST(test_check_accepts_and_rejects)
{
	const char *variants[] = { "constant", "global", "readonly" };
	const int64_t distinct[] = { 1, 3, 32 };
	for (int v = 0; v < 3; v++)
		for (int d = 0; d < 3; d++) {
			struct sw_point p = cr_point(variants[v], distinct[d]);
			float *out = expected(21, (uint32_t)distinct[d]);
			struct sw_check c = sw_ftest_passes(&ft, &p, out, T * sizeof(float), 21,
							    SW_CHECK_SAMPLED, 4096);
			ck_assert_double_lt(c.max_rel_err, 1e-6);
			/* the sums of another table fail */
			sw_ftest_fails(&ft, &p, out, T * sizeof(float), 22, "element");
			/* as does every sum 1% high */
			for (uint32_t t = 0; t < T; t++)
				out[t] *= 1.01f;
			sw_ftest_fails(&ft, &p, out, T * sizeof(float), 21, NULL);
			free(out);
		}
	/* sums for one distinct do not pass for another */
	struct sw_point p = cr_point("constant", 4);
	float *out = expected(21, 2);
	sw_ftest_fails(&ft, &p, out, T * sizeof(float), 21, NULL);
	free(out);
}
END_TEST

START_TEST(test_bytes_and_sizes)
{
	struct sw_point p = cr_point("global", 8);
	/* every thread reads 1024 words of 4 bytes */
	ck_assert_double_eq(fam()->useful_bytes(&p), (double)T * LOADS * 4);
	ck_assert_double_eq(fam()->flops(&p), 0);
	struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 2, 1);
	ck_assert_uint_eq(sz.bytes[0], 64 * 1024); /* the whole of constant memory */
	ck_assert_uint_eq(sz.bytes[1], T * 4);
	char why[160];
	for (int64_t d = 1; d <= 32; d++) {
		p = cr_point("constant", d);
		ck_assert(!fam()->refuse(&p, why, sizeof why));
	}
}
END_TEST

static int distinct_addrs(const struct sw_request *req)
{
	int n = 0;
	for (int l = 0; l < 32; l++) {
		int seen = 0;
		for (int m = 0; m < l; m++)
			seen |= req->addr[m] == req->addr[l];
		n += !seen;
	}
	return n;
}

START_TEST(test_requests)
{
	const char *variants[] = { "global", "readonly", "constant" };
	for (int v = 0; v < 3; v++)
		for (int64_t d = 1; d <= 32; d++) {
			struct sw_point p = cr_point(variants[v], d);
			const struct sw_variant *var = &fam()->variants[p.variant];
			struct sw_request req;
			ck_assert_uint_eq(var->requests(&p, 0, NULL), (uint64_t)T / 32 * LOADS);
			for (uint64_t r = 0; r < 3 * LOADS; r += 131) {
				var->requests(&p, r, &req);
				ck_assert_int_eq(req.word_bytes, 4);
				ck_assert_int_eq(req.space,
						 v == 2 ? SW_SPACE_CONSTANT : SW_SPACE_GLOBAL);
				ck_assert_uint_eq(req.active, 0xffffffffu);
				ck_assert_int_eq(distinct_addrs(&req), d);
				/* all in one 128-byte line of the first 1 KB */
				ck_assert_uint_eq(req.addr[0] / 128, req.addr[31] / 128);
				ck_assert_uint_lt(req.addr[31], 1024);
				for (uint32_t l = 0; l < 32; l++)
					ck_assert_uint_eq(req.addr[l],
							  4 * word_of(r % LOADS, l, (uint32_t)d));
			}
		}
	/* a known point: distinct 4, load 1: lanes 0-7 read word 96, 8-15 word 97, ... */
	struct sw_point p = cr_point("global", 4);
	struct sw_request req;
	fam()->variants[p.variant].requests(&p, 1, &req);
	ck_assert_uint_eq(req.addr[0], 384);
	ck_assert_uint_eq(req.addr[7], 384);
	ck_assert_uint_eq(req.addr[8], 388);
	ck_assert_uint_eq(req.addr[31], 396);
}
END_TEST

/* C17 from the model alone: the constant variant's cost is its distinct
 * words per request, the global load of the same words one 128-byte line. */
START_TEST(test_model_c17)
{
	for (int64_t d = 1; d <= 32; d *= 2) {
		struct sw_point pc = cr_point("constant", d), pg = cr_point("global", d);
		struct sw_model_figures c = sw_ftest_model(&ft, &pc, 90);
		struct sw_model_figures g = sw_ftest_model(&ft, &pg, 90);
		ck_assert_double_eq_tol(c.conflict_degree, (double)d, 1e-9);
		ck_assert_double_le(g.sectors_per_request, 4); /* one 128-byte line, flat */
		/* on 1.x a half-warp is served at a time: half the distinct words */
		c = sw_ftest_model(&ft, &pc, 10);
		ck_assert_double_eq_tol(c.conflict_degree, d > 1 ? (double)d / 2 : 1, 1e-9);
	}
}
END_TEST

/* The block axis splits the same 2M threads into other blocks: each
 * thread's loads and sum, and the model's requests, stay as they are. */
START_TEST(test_block_axis)
{
	const char *variants[] = { "constant", "global", "readonly" };
	float *out = expected(21, 4);
	for (int v = 0; v < 3; v++)
		sw_ftest_block_reshapes(&ft, cr_point(variants[v], 4), T, out, T * sizeof(float),
					21);
	free(out);
}
END_TEST

int main(void)
{
	const TTest *tests[] = { test_check_accepts_and_rejects, test_bytes_and_sizes,
				 test_requests, test_model_c17, test_block_axis };
	return sw_ftest_run("family_constant_read", "constant_read", tests, SW_COUNT(tests));
}
