/* The smem_bank family on the CPU: its check against outputs built here,
 * byte counts and the model's shared addresses and conflict degrees. */
#include <stdlib.h>
#include <string.h>

#include "family_scaffold.h"

#define THREADS (2048u * 256u)
#define LOADS   2048u
#define UNROLL  8u
#define BYTES   (THREADS * sizeof(uint32_t)) /* the output, a sum per thread */

static const struct sw_ftest ft = { .family = "smem_bank", .out = 1, .sample_seed = 5 };

static const struct sw_family *fam(void)
{
	return sw_ftest_family(&ft);
}

static struct sw_point sb_point(const char *variant, int64_t word_stride)
{
	return SW_FTEST_POINT(&ft, variant, word_stride);
}

/* Word lane l reads in unrolled load u, written out per variant. */
static uint32_t word(const char *variant, uint32_t l, uint32_t s, uint32_t u)
{
	if (strcmp(variant, "stride") == 0)
		return l * s + 32 * u;
	if (strcmp(variant, "two_way") == 0)
		return (l % 2) * 32 + 32 * u;
	if (strcmp(variant, "conflict_free") == 0)
		return l + 32 * u;
	return 32 * u; /* broadcast */
}

static uint32_t *sb_expected(const struct sw_point *p, const char *variant, uint64_t seed)
{
	uint32_t *out = malloc(THREADS * sizeof *out);
	uint32_t s = p->axis[0] == SW_AXIS_UNUSED ? 0 : (uint32_t)p->axis[0];
	for (uint32_t t = 0; t < 32; t++) {
		uint32_t sum = 0;
		for (uint32_t k = 0; k < LOADS; k++) {
			float v = sw_input_value(seed, word(variant, t, s, k % UNROLL));
			uint32_t bits;
			memcpy(&bits, &v, sizeof bits);
			sum += bits;
		}
		out[t] = sum;
	}
	for (uint32_t t = 32; t < THREADS; t++) /* every warp reads the same words */
		out[t] = out[t % 32];
	return out;
}

START_TEST(test_check)
{
	const char *variants[] = { "stride", "broadcast", "two_way", "conflict_free" };
	for (int v = 0; v < 4; v++) {
		struct sw_point p = sb_point(variants[v], v == 0 ? 7 : SW_AXIS_UNUSED);
		uint32_t *out = sb_expected(&p, variants[v], 42);
		size_t i = THREADS / 2 + 5;
		sw_ftest_passes(&ft, &p, out, BYTES, 42, SW_CHECK_FULL, THREADS);
		sw_ftest_finds_u32(&ft, &p, out, BYTES, 42, i, out[i] + 1, "thread");
		free(out);
		out = sb_expected(&p, variants[v], 43);
		sw_ftest_fails(&ft, &p, out, BYTES, 42, NULL);
		free(out);
	}
	/* a stride read as another stride is found */
	struct sw_point p = sb_point("stride", 2);
	struct sw_point q = sb_point("stride", 3);
	uint32_t *out = sb_expected(&q, "stride", 9);
	sw_ftest_fails(&ft, &p, out, BYTES, 9, NULL);
	free(out);
}
END_TEST

START_TEST(test_bytes_and_sizes)
{
	struct sw_point p = sb_point("stride", 32);
	/* 2^19 threads x 2048 loads x 4 bytes */
	ck_assert_double_eq(fam()->useful_bytes(&p), 4294967296.0);
	ck_assert_double_eq(fam()->flops(&p), 0);
	struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 2, 1);
	ck_assert_uint_ge(sz.bytes[0], 4 * (31 * 32 + 32 * 7 + 1)); /* every word read */
	ck_assert_uint_eq(sz.bytes[1], THREADS * 4);
	char why[160];
	for (int s = 0; s <= 32; s++) {
		p = sb_point("stride", s);
		ck_assert(!fam()->refuse(&p, why, sizeof why));
	}
}
END_TEST

/* Distinct words in the most loaded bank: the conflict degree. */
static int conflict_degree(const struct sw_request *req)
{
	int worst = 0;
	for (int bank = 0; bank < 32; bank++) {
		uint64_t words[32];
		int n = 0;
		for (int l = 0; l < 32; l++) {
			uint64_t w = req->addr[l] / 4;
			if (w % 32 != (uint64_t)bank)
				continue;
			int dup = 0;
			for (int i = 0; i < n; i++)
				dup |= words[i] == w;
			if (!dup)
				words[n++] = w;
		}
		worst = n > worst ? n : worst;
	}
	return worst;
}

static int gcd(int a, int b)
{
	return b ? gcd(b, a % b) : a;
}

START_TEST(test_requests)
{
	struct sw_request req;
	uint64_t warps = THREADS / 32;
	for (int s = 0; s <= 32; s++) {
		struct sw_point p = sb_point("stride", s);
		const struct sw_variant *v = &fam()->variants[p.variant];
		ck_assert_uint_eq(v->requests(&p, 0, NULL), warps * LOADS);
		v->requests(&p, 3 * warps + 17, &req); /* load 3 of warp 17 */
		ck_assert_int_eq(req.space, SW_SPACE_SHARED);
		ck_assert_int_eq(req.word_bytes, 4);
		ck_assert_uint_eq(req.active, 0xffffffffu);
		for (int l = 0; l < 32; l++)
			ck_assert_uint_eq(req.addr[l], 4 * (uint64_t)(l * s + 96));
		ck_assert_int_eq(conflict_degree(&req), s ? gcd(s, 32) : 1);
	}
	struct {
		const char *name;
		int degree;
	} fixed[] = { { "broadcast", 1 }, { "two_way", 2 }, { "conflict_free", 1 } };
	for (int i = 0; i < 3; i++) {
		struct sw_point p = sb_point(fixed[i].name, SW_AXIS_UNUSED);
		fam()->variants[p.variant].requests(&p, 5 * warps, &req);
		for (int l = 0; l < 32; l++)
			ck_assert_uint_eq(req.addr[l], 4 * (uint64_t)word(fixed[i].name, l, 0, 5));
		ck_assert_int_eq(conflict_degree(&req), fixed[i].degree);
	}
}
END_TEST

/* The block axis splits the same 512K threads into other blocks: a lane's
 * words, its sum and the conflict degree stay as they are. */
START_TEST(test_block_axis)
{
	struct sw_point p = sb_point("stride", 2);
	uint32_t *out = sb_expected(&p, "stride", 8);
	sw_ftest_block_reshapes(&ft, p, THREADS, out, BYTES, 8);
	free(out);
	p = sb_point("two_way", SW_AXIS_UNUSED);
	out = sb_expected(&p, "two_way", 8);
	sw_ftest_block_reshapes(&ft, p, THREADS, out, BYTES, 8);
	free(out);
}
END_TEST

int main(void)
{
	const TTest *tests[] = { test_check, test_bytes_and_sizes, test_requests, test_block_axis };
	return sw_ftest_run("family_smem_bank", "smem_bank", tests, SW_COUNT(tests));
}
