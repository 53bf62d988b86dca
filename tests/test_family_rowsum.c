/* rowsum on the CPU: its check against independently built row sums, byte
 * counts, refusals, and the model's sectors per request (C10: about 32 for
 * a thread per row against 4 for a block per row). */
#include <stdlib.h>
#include <string.h>

#include "family_scaffold.h"

#define T (4096u * 256u)

static const struct sw_ftest ft = { .family = "rowsum", .out = 1, .sample_seed = 99 };

static const struct sw_family *fam(void)
{
	return sw_ftest_family(&ft);
}

static struct sw_point point(const char *variant, int64_t rows, int64_t cols)
{
	return SW_FTEST_POINT(&ft, variant, rows, cols);
}

/* The output each variant's kernel writes, recomputed independently in
 * double: row sums, or for stream_read the per-thread sums of its float4s.
 * shift = 1 sums the next row instead (a plausible indexing bug). */
static float *expected(const struct sw_point *p, uint64_t seed, int shift, size_t *n_out)
{
	uint64_t rows = (uint64_t)p->axis[0], cols = (uint64_t)p->axis[1];
	int stream = strcmp(fam()->variants[p->variant].name, "stream_read") == 0;
	*n_out = stream ? T : rows;
	double *sum = calloc(*n_out, sizeof *sum);
	for (uint64_t j = 0; j < rows * cols; j++) {
		uint64_t o = stream ? (j / 4) % T : (j / cols + rows - shift) % rows;
		sum[o] += sw_input_value(seed, j);
	}
	float *out = malloc(*n_out * sizeof *out);
	for (size_t o = 0; o < *n_out; o++)
		out[o] = (float)sum[o];
	free(sum);
	return out;
}

static const char *variants[] = { "thread_per_row", "block_per_row", "warp_per_row",
				  "stream_read" };

START_TEST(test_check_accepts_and_rejects)
{
	for (int v = 0; v < 4; v++) {
		/* rows not a multiple of the block, cols not of the warp */
		struct sw_point p = point(variants[v], 300, 1000);
		size_t n_out;
		float *out = expected(&p, 42, 0, &n_out);
		size_t bytes = n_out * sizeof(float), i = n_out / 3;
		sw_ftest_passes(&ft, &p, out, bytes, 42, SW_CHECK_FULL, n_out);
		/* one term of one sum wrong by a quarter */
		sw_ftest_finds(&ft, &p, out, bytes, 42, i, out[i] + 0.25f, "element");
		sw_ftest_fails(&ft, &p, out, bytes, 43, NULL); /* input from another seed */
		free(out);
	}
}
END_TEST

START_TEST(test_check_catches_the_next_row)
{
	/* the tolerance stays tight on the longest default rows: summing the
	 * neighbouring row fails for every variant */
	for (int v = 0; v < 3; v++) {
		struct sw_point p = point(variants[v], 64, 32768);
		size_t n_out;
		float *out = expected(&p, 3, 1, &n_out);
		sw_ftest_fails(&ft, &p, out, n_out * sizeof(float), 3, NULL);
		free(out);
		out = expected(&p, 3, 0, &n_out);
		sw_ftest_passes(&ft, &p, out, n_out * sizeof(float), 3, SW_CHECK_FULL, n_out);
		free(out);
	}
}
END_TEST

START_TEST(test_check_samples_large_points)
{
	for (int v = 0; v < 4; v++) {
		struct sw_point p = point(variants[v], 5000, 4000);
		size_t n_out;
		float *out = expected(&p, 11, 0, &n_out);
		size_t bytes = n_out * sizeof(float);
		/* 4096: SW_CHECK_SAMPLES */
		struct sw_check c =
			sw_ftest_passes(&ft, &p, out, bytes, 11, SW_CHECK_SAMPLED, 4096);
		ck_assert_double_lt(c.max_rel_err, 1e-5);
		for (size_t i = 0; i < n_out; i++) /* everything off by 1%: any sample sees it */
			out[i] *= 1.01f;
		sw_ftest_fails(&ft, &p, out, bytes, 11, NULL);
		free(out);
	}
}
END_TEST

START_TEST(test_bytes_and_sizes)
{
	const struct sw_family *f = fam();
	for (int v = 0; v < 4; v++) {
		struct sw_point p = point(variants[v], 8192, 8192);
		int stream = v == 3;
		/* the matrix read, and the row sums written */
		ck_assert_double_eq(f->useful_bytes(&p),
				    256.0 * (1 << 20) + (stream ? 0 : 8192 * 4));
		ck_assert_double_eq(f->flops(&p), 64.0 * (1 << 20));
		struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 2, 1);
		ck_assert_uint_eq(sz.bytes[0], 256u << 20);
		ck_assert_uint_eq(sz.bytes[1], stream ? T * 4 : 8192 * 4);
	}
	/* the largest point: 256 GiB, sizes in 64 bits (the harness refuses it) */
	struct sw_point p = point("block_per_row", 1 << 20, 64 << 10);
	struct sw_sizes sz = { 0 };
	f->sizes(&p, &sz);
	ck_assert_uint_eq(sz.bytes[0], (size_t)256 << 30);
	ck_assert_double_eq(f->useful_bytes(&p),
			    4.0 * ((double)(1 << 20) * (64 << 10) + (1 << 20)));
}
END_TEST

START_TEST(test_refusal)
{
	const struct sw_family *f = fam();
	char why[160] = "";
	struct sw_point p = point("stream_read", 33, 33);
	ck_assert(f->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "multiple of 4"));
	for (int v = 0; v < 3; v++) { /* the row kernels take any shape */
		p = point(variants[v], 33, 33);
		ck_assert(!f->refuse(&p, why, sizeof why));
	}
	for (int v = 0; v < 4; v++) {
		p = point(variants[v], 1 << 20, 64 << 10);
		ck_assert(!f->refuse(&p, why, sizeof why));
	}
}
END_TEST

static double sectors(const char *variant, int64_t rows, int64_t cols)
{
	struct sw_point p = point(variant, rows, cols);
	struct sw_model_figures m = sw_ftest_model(&ft, &p, 90);
	/* the model scales a sample of requests: exact when every request is full */
	ck_assert_double_eq_tol(m.useful_bytes, 4.0 * rows * cols, 0.02 * 4.0 * rows * cols);
	return m.sectors_per_request;
}

START_TEST(test_requests)
{
	struct sw_request req;
	struct sw_point p = point("thread_per_row", 8192, 8192);
	const struct sw_variant *v = &fam()->variants[p.variant];
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 8192 / 32 * 8192);
	v->requests(&p, 8192 + 5, &req); /* warp 1, column 5 */
	ck_assert_uint_eq(req.active, 0xffffffffu);
	ck_assert_uint_eq(req.addr[0], (32 * 8192 + 5) * 4);
	ck_assert_uint_eq(req.addr[1], (33 * 8192 + 5) * 4); /* neighbours a row apart */
	p = point("block_per_row", 8192, 8192);
	v = &fam()->variants[p.variant];
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 8192 * 8 * 32);
	v->requests(&p, 8 * 32 + 8 * 2 + 3, &req); /* row 1, step 2, warp 3 */
	ck_assert_uint_eq(req.addr[0], (8192 + 2 * 256 + 96) * 4);
	ck_assert_uint_eq(req.addr[31], (8192 + 2 * 256 + 127) * 4);
	p = point("warp_per_row", 8192, 1000);
	v = &fam()->variants[p.variant];
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 8192 * 32);
	v->requests(&p, 31, &req); /* row 0, last step: columns 992 .. 999 */
	ck_assert_uint_eq(req.active, 0xffu);

	/* C10: about 32 sectors per request against about 4 */
	ck_assert_double_eq(sectors("thread_per_row", 8192, 8192), 32);
	ck_assert_double_eq(sectors("block_per_row", 8192, 8192), 4);
	ck_assert_double_eq(sectors("warp_per_row", 8192, 8192), 4);
	ck_assert_double_eq(sectors("stream_read", 8192, 8192), 16);
	/* rows 4 bytes off a sector boundary: some requests take a fifth */
	double odd = sectors("block_per_row", 8192, 1001);
	ck_assert(odd > 4 && odd < 5);
}
END_TEST

/* thread_per_row and warp_per_row: a row's thread or warp reads the same
 * addresses in any block, so the sums and requests stay. */
START_TEST(test_block_axis)
{
	const char *shaped[] = { "thread_per_row", "warp_per_row" };
	for (int v = 0; v < 2; v++) {
		struct sw_point p = point(shaped[v], 1000, 96);
		size_t n_out;
		float *out = expected(&p, 6, 0, &n_out);
		sw_ftest_block_reshapes(&ft, p, 0, out, n_out * sizeof(float), 6);
		free(out);
	}
}
END_TEST

int main(void)
{
	const TTest *tests[] = { test_check_accepts_and_rejects,
				 test_check_catches_the_next_row,
				 test_check_samples_large_points,
				 test_bytes_and_sizes,
				 test_refusal,
				 test_requests,
				 test_block_axis };
	return sw_ftest_run("rowsum", "rowsum", tests, SW_COUNT(tests));
}
