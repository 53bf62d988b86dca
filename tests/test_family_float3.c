/* float3 on the CPU: its check against independently built outputs in each
 * layout, byte counts, refusals, and the model's sectors per request
 * (C3: 12 for AoS against 4 for the coalesced layouts). */
#include <stdlib.h>
#include <string.h>

#include "family_scaffold.h"

static const struct sw_ftest ft = { .family = "float3", .out = 1, .sample_seed = 99 };

static const struct sw_family *fam(void)
{
	return sw_ftest_family(&ft);
}

static struct sw_point point(const char *variant, int64_t n)
{
	return SW_FTEST_POINT(&ft, variant, n);
}

/* The output each variant's kernel writes, recomputed independently:
 * AoS x0 y0 z0 x1 ... (aos, staged), planes x[n] y[n] z[n] (soa), or the
 * input unchanged (copy, memcpy). */
static float *expected(const struct sw_point *p, uint64_t seed, size_t *n_out)
{
	const char *name = fam()->variants[p->variant].name;
	uint64_t n = (uint64_t)p->axis[0];
	*n_out = 3 * n;
	float *out = malloc(*n_out * sizeof *out);
	for (uint64_t i = 0; i < n; i++)
		for (int c = 0; c < 3; c++) {
			uint64_t j = strcmp(name, "soa") == 0 ? c * n + i : 3 * i + c;
			out[j] = sw_input_value(seed, j);
			if (strcmp(name, "copy") && strcmp(name, "memcpy"))
				out[j] += 2.0f + (float)c;
		}
	return out;
}

static const char *variants[] = { "aos", "staged", "soa", "copy", "memcpy" };

START_TEST(test_check_accepts_and_rejects)
{
	for (int v = 0; v < 5; v++) {
		/* not a multiple of 256: the last block of staged is partial */
		struct sw_point p = point(variants[v], (1 << 20) + 4);
		size_t n_out;
		float *out = expected(&p, 42, &n_out);
		size_t bytes = n_out * sizeof(float), last = n_out - 1;
		struct sw_check c = sw_ftest_passes(&ft, &p, out, bytes, 42, SW_CHECK_FULL, n_out);
		ck_assert_double_lt(c.max_rel_err, 1e-7);
		/* the last z: one wrong float */
		sw_ftest_finds(&ft, &p, out, bytes, 42, last, out[last] + 1e-5f, "element");
		sw_ftest_fails(&ft, &p, out, bytes, 43, NULL); /* input from another seed */
		free(out);
	}
}
END_TEST

START_TEST(test_check_sees_the_layout)
{
	/* AoS output is wrong for soa, and the other way round; an update that
	 * adds to the wrong component is wrong for aos */
	struct sw_point aos = point("aos", 4096), soa = point("soa", 4096);
	size_t n_out;
	float *out = expected(&aos, 5, &n_out);
	sw_ftest_fails(&ft, &soa, out, n_out * sizeof(float), 5, NULL);
	free(out);
	out = expected(&soa, 5, &n_out);
	sw_ftest_fails(&ft, &aos, out, n_out * sizeof(float), 5, NULL);
	free(out);
	struct sw_point copy = point("copy", 4096);
	out = expected(&copy, 5, &n_out);
	sw_ftest_fails(&ft, &aos, out, n_out * sizeof(float), 5, NULL);
	free(out);
}
END_TEST

START_TEST(test_check_samples_large_points)
{
	for (int v = 0; v < 5; v++) {
		struct sw_point p = point(variants[v], 8 << 20);
		size_t n_out;
		float *out = expected(&p, 11, &n_out);
		size_t bytes = n_out * sizeof(float);
		/* 4096: SW_CHECK_SAMPLES */
		sw_ftest_passes(&ft, &p, out, bytes, 11, SW_CHECK_SAMPLED, 4096);
		for (size_t i = 0; i < n_out; i++) /* everything off by 1%: any sample sees it */
			out[i] = out[i] * 1.01f + 0.01f;
		sw_ftest_fails(&ft, &p, out, bytes, 11, NULL);
		free(out);
	}
}
END_TEST

START_TEST(test_bytes_and_sizes)
{
	const struct sw_family *f = fam();
	for (int v = 0; v < 5; v++) {
		struct sw_point p = point(variants[v], 16 << 20);
		ck_assert_double_eq(f->useful_bytes(&p),
				    384.0 * (1 << 20)); /* 12 read + 12 written */
		int adds = v < 3;
		ck_assert_double_eq(f->flops(&p), adds ? 48.0 * (1 << 20) : 0);
		struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 2, 1);
		ck_assert_uint_eq(sz.bytes[0], 192u << 20);
		ck_assert_uint_eq(sz.bytes[1], 192u << 20);
	}
	/* the largest point: 12 GiB each, sizes in 64 bits */
	struct sw_point p = point("staged", (int64_t)1 << 30);
	struct sw_sizes sz = { 0 };
	f->sizes(&p, &sz);
	ck_assert_uint_eq(sz.bytes[0], (size_t)12 << 30);
}
END_TEST

START_TEST(test_refusal)
{
	const struct sw_family *f = fam();
	char why[160] = "";
	struct sw_point p = point("copy", 1026);
	ck_assert(f->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "multiple of 4"));
	for (int v = 0; v < 5; v++) {
		p = point(variants[v], 1028);
		ck_assert(!f->refuse(&p, why, sizeof why));
		p = point(variants[v], (int64_t)1 << 30);
		ck_assert(!f->refuse(&p, why, sizeof why));
	}
	for (int v = 0; v < 3; v++) { /* the kernels take any n */
		p = point(variants[v], 1027);
		ck_assert(!f->refuse(&p, why, sizeof why));
	}
}
END_TEST

static struct sw_model_figures model(const char *variant, int64_t n)
{
	struct sw_point p = point(variant, n);
	return sw_ftest_model(&ft, &p, 90);
}

START_TEST(test_requests)
{
	struct sw_request req;
	struct sw_point p = point("aos", 1 << 20);
	const struct sw_variant *v = &fam()->variants[p.variant];
	ck_assert_uint_eq(v->requests(&p, 0, NULL), (1 << 20) / 32 * 3);
	v->requests(&p, 4, &req); /* warp 1, y */
	ck_assert_uint_eq(req.active, 0xffffffffu);
	ck_assert_uint_eq(req.addr[0], (3 * 32 + 1) * 4);
	ck_assert_uint_eq(req.addr[1], (3 * 33 + 1) * 4); /* lanes 12 bytes apart */
	p = point("soa", 1 << 20);
	v = &fam()->variants[p.variant];
	v->requests(&p, 5, &req); /* warp 1, z */
	ck_assert_uint_eq(req.addr[0], ((2 << 20) + 32) * 4);
	ck_assert_uint_eq(req.addr[1], ((2 << 20) + 33) * 4);
	p = point("staged", 1 << 20);
	v = &fam()->variants[p.variant];
	ck_assert_uint_eq(v->requests(&p, 0, NULL), (1 << 20) / 256 * 24);
	v->requests(&p, 24 + 8 + 3, &req); /* block 1, pass 1, warp 3 */
	ck_assert_uint_eq(req.addr[0], (768 + 256 + 96) * 4);
	/* a partial last block: lanes past 3n are idle */
	p = point("staged", 1100);
	v->requests(&p, v->requests(&p, 0, NULL) - 1, &req);
	ck_assert_uint_eq(req.active, 0);

	/* C3: a float3 component spans 384 bytes per warp, 12 sectors */
	ck_assert_double_eq(model("aos", 16 << 20).sectors_per_request, 12);
	ck_assert_double_eq_tol(model("aos", 16 << 20).efficiency, 1.0 / 3, 1e-12);
	ck_assert_double_eq(model("staged", 16 << 20).sectors_per_request, 4);
	ck_assert_double_eq(model("soa", 16 << 20).sectors_per_request, 4);
	ck_assert_double_eq(model("copy", 16 << 20).sectors_per_request, 16);
	ck_assert_ptr_null(fam()->variants[sw_variant_find(fam(), "memcpy")].requests);
}
END_TEST

/* aos and soa take one element per thread in any block: the same output
 * and the same requests. */
START_TEST(test_block_axis)
{
	const char *shaped[] = { "aos", "soa" };
	for (int v = 0; v < 2; v++) {
		struct sw_point p = point(shaped[v], (1 << 16) + 5);
		size_t n_out;
		float *out = expected(&p, 4, &n_out);
		sw_ftest_block_reshapes(&ft, p, 0, out, n_out * sizeof(float), 4);
		free(out);
	}
}
END_TEST

int main(void)
{
	const TTest *tests[] = { test_check_accepts_and_rejects,
				 test_check_sees_the_layout,
				 test_check_samples_large_points,
				 test_bytes_and_sizes,
				 test_refusal,
				 test_requests,
				 test_block_axis };
	return sw_ftest_run("float3", "float3", tests, SW_COUNT(tests));
}
