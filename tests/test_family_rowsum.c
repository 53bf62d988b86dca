/* rowsum on the CPU: its check against independently built row sums, byte
 * counts, refusals, and the model's sectors per request (C10: about 32 for
 * a thread per row against 4 for a block per row). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "model.h"

#define T (4096u * 256u)

static const struct sw_family *fam(void)
{
	return sw_family_find("rowsum");
}

static struct sw_point point(const char *variant, int64_t rows, int64_t cols)
{
	struct sw_point p = { .variant = sw_variant_find(fam(), variant), .axis = { rows, cols } };
	return p;
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

static void run_check(const struct sw_point *p, float *out, size_t n_out, uint64_t seed,
		      struct sw_check *c)
{
	struct sw_host_out o = { .seed = seed, .sample_seed = 99 };
	o.out[1] = out;
	o.bytes[1] = n_out * sizeof(float);
	memset(c, 0, sizeof *c);
	fam()->check(p, &o, c);
}

static const char *variants[] = { "thread_per_row", "block_per_row", "warp_per_row",
				  "stream_read" };

START_TEST(test_check_accepts_and_rejects)
{
	for (int v = 0; v < 4; v++) {
		/* rows not a multiple of the block, cols not of the warp */
		struct sw_point p = point(variants[v], 300, 1000);
		size_t n_out;
		struct sw_check c;
		float *out = expected(&p, 42, 0, &n_out);
		run_check(&p, out, n_out, 42, &c);
		ck_assert_msg(c.ok, "%s: %s", variants[v], c.msg);
		ck_assert_int_eq(c.mode, SW_CHECK_FULL);
		ck_assert_uint_eq(c.checked, n_out);
		out[n_out / 3] += 0.25f; /* one term of one sum wrong by a quarter */
		run_check(&p, out, n_out, 42, &c);
		ck_assert_msg(!c.ok, "%s: a wrong element passed", variants[v]);
		ck_assert_ptr_nonnull(strstr(c.msg, "element"));
		out[n_out / 3] -= 0.25f;
		run_check(&p, out, n_out, 43, &c); /* input from another seed */
		ck_assert(!c.ok);
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
		struct sw_check c;
		float *out = expected(&p, 3, 1, &n_out);
		run_check(&p, out, n_out, 3, &c);
		ck_assert_msg(!c.ok, "%s", variants[v]);
		free(out);
		out = expected(&p, 3, 0, &n_out);
		run_check(&p, out, n_out, 3, &c);
		ck_assert_msg(c.ok, "%s: %s", variants[v], c.msg);
		ck_assert_int_eq(c.mode, SW_CHECK_FULL);
		free(out);
	}
}
END_TEST

START_TEST(test_check_samples_large_points)
{
	for (int v = 0; v < 4; v++) {
		struct sw_point p = point(variants[v], 5000, 4000);
		size_t n_out;
		struct sw_check c;
		float *out = expected(&p, 11, 0, &n_out);
		run_check(&p, out, n_out, 11, &c);
		ck_assert_msg(c.ok, "%s: %s", variants[v], c.msg);
		ck_assert_int_eq(c.mode, SW_CHECK_SAMPLED);
		ck_assert_uint_eq(c.checked, 4096); /* SW_CHECK_SAMPLES */
		ck_assert_double_lt(c.max_rel_err, 1e-5);
		for (size_t i = 0; i < n_out; i++) /* everything off by 1%: any sample sees it */
			out[i] *= 1.01f;
		run_check(&p, out, n_out, 11, &c);
		ck_assert_msg(!c.ok, "%s", variants[v]);
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
		struct sw_sizes sz = { 0 };
		f->sizes(&p, &sz);
		ck_assert_int_eq(sz.n_buffers, 2);
		ck_assert_int_eq(sz.n_inputs, 1);
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
	struct sw_model_figures m;
	struct sw_err err = { 0 };
	struct sw_point p = point(variant, rows, cols);
	ck_assert_int_eq(sw_model_eval(&fam()->variants[p.variant], &p, 90, &m, &err), SW_OK);
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

int main(void)
{
	Suite *s = suite_create("rowsum");
	TCase *tc = tcase_create("rowsum");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_check_accepts_and_rejects);
	tcase_add_test(tc, test_check_catches_the_next_row);
	tcase_add_test(tc, test_check_samples_large_points);
	tcase_add_test(tc, test_bytes_and_sizes);
	tcase_add_test(tc, test_refusal);
	tcase_add_test(tc, test_requests);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
