/* The transpose family on the CPU: its check against outputs built here,
 * byte counts, refusals and the model's addresses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "family_scaffold.h"

enum { ROWS, COLS, TILE, BLOCK_ROWS, PAD };

static const struct sw_ftest ft = { .family = "transpose", .out = 1, .sample_seed = 1234 };

static const struct sw_family *fam(void)
{
	return sw_ftest_family(&ft);
}

static struct sw_point tp_point(const char *variant, int64_t rows, int64_t cols, int64_t tile,
				int64_t block_rows, int64_t pad)
{
	return SW_FTEST_POINT(&ft, variant, rows, cols, tile, block_rows, pad);
}

/* What the kernel must write: the input itself (copy) or its transpose,
 * cols x rows. */
static float *tp_expected(const struct sw_point *p, uint64_t seed)
{
	uint64_t rows = (uint64_t)p->axis[ROWS], cols = (uint64_t)p->axis[COLS];
	float *out = malloc(rows * cols * sizeof *out);
	int copy = strcmp(fam()->variants[p->variant].name, "copy") == 0;
	for (uint64_t r = 0; r < rows; r++)
		for (uint64_t c = 0; c < cols; c++)
			out[copy ? r * cols + c : c * rows + r] =
				sw_input_value(seed, r * cols + c);
	return out;
}

/* The bytes of p's output: the whole matrix, transposed or not. */
static size_t out_bytes(const struct sw_point *p)
{
	return (size_t)p->axis[ROWS] * (size_t)p->axis[COLS] * sizeof(float);
}

START_TEST(test_check_full)
{
	const char *variants[] = { "copy", "naive", "shared" };
	for (int v = 0; v < 3; v++) {
		struct sw_point p =
			tp_point(variants[v], 96, 160, 32, 8, v == 2 ? 1 : SW_AXIS_UNUSED);
		size_t n = 96 * 160;
		float *out = tp_expected(&p, 42);
		struct sw_check c =
			sw_ftest_passes(&ft, &p, out, out_bytes(&p), 42, SW_CHECK_FULL, n);
		ck_assert_double_eq(c.max_rel_err, 0);
		/* one element off by one bit's worth is found */
		sw_ftest_finds(&ft, &p, out, out_bytes(&p), 42, n / 3, nextafterf(out[n / 3], 2.0f),
			       "element");
		free(out);
		/* input from another seed is found */
		out = tp_expected(&p, 43);
		sw_ftest_fails(&ft, &p, out, out_bytes(&p), 42, NULL);
		free(out);
	}
}
END_TEST

START_TEST(test_check_sampled)
{
	/* 4096 x 8192 = 2^25 elements, past the full-check limit */
	struct sw_point p = tp_point("shared", 4096, 8192, 32, 8, 1);
	float *out = tp_expected(&p, 7);
	sw_ftest_passes(&ft, &p, out, out_bytes(&p), 7, SW_CHECK_SAMPLED, 4096);
	free(out);
	/* the untransposed matrix is globally wrong */
	struct sw_point copy = tp_point("copy", 4096, 8192, 32, 8, SW_AXIS_UNUSED);
	out = tp_expected(&copy, 7);
	sw_ftest_fails(&ft, &p, out, out_bytes(&p), 7, NULL);
	free(out);
}
END_TEST

START_TEST(test_bytes_and_sizes)
{
	struct sw_point p = tp_point("shared", 4096, 8192, 32, 8, 1);
	ck_assert_double_eq(fam()->useful_bytes(&p), 2.0 * 4096 * 8192 * 4); /* read and written */
	ck_assert_double_eq(fam()->flops(&p), 0);
	struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 2, 1);
	ck_assert_uint_eq(sz.bytes[0], (size_t)4096 * 8192 * 4);
	ck_assert_uint_eq(sz.bytes[1], (size_t)4096 * 8192 * 4);
	/* the largest point: 2^32 elements need 64-bit sizes */
	p = tp_point("naive", 65536, 65536, 32, 32, SW_AXIS_UNUSED);
	fam()->sizes(&p, &sz);
	ck_assert_uint_eq(sz.bytes[0], (size_t)1 << 34);
}
END_TEST

START_TEST(test_refusals)
{
	char why[160] = "";
	struct sw_point p = tp_point("shared", 4096, 4096, 24, 8, 0);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "8, 16 and 32"));
	p = tp_point("shared", 4096, 4096, 32, 3, 0);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "does not divide"));
	p = tp_point("copy", 4096, 4096, 8, 2, SW_AXIS_UNUSED);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "less than a warp"));
	p = tp_point("naive", 4096, 4100, 32, 8, SW_AXIS_UNUSED);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "multiples of tile"));
	int64_t ok[][2] = { { 32, 1 },  { 32, 8 }, { 32, 32 }, { 16, 2 },
			    { 16, 16 }, { 8, 4 },  { 8, 8 } };
	for (int i = 0; i < 7; i++) {
		p = tp_point("shared", 65536, 65536, ok[i][0], ok[i][1], 4);
		ck_assert_msg(!fam()->refuse(&p, why, sizeof why), "%s", why);
	}
}
END_TEST

static int distinct_banks(const struct sw_request *req)
{
	unsigned seen = 0;
	for (int l = 0; l < 32; l++)
		seen |= 1u << (req->addr[l] / 4 % 32);
	return __builtin_popcount(seen);
}

START_TEST(test_requests)
{
	/* 64 x 64, tile 32 x 8: 4 blocks x 8 warps x 4 steps = 128 of each kind */
	struct sw_point p = tp_point("shared", 64, 64, 32, 8, 0);
	const struct sw_variant *v = &fam()->variants[p.variant];
	struct sw_request req;
	ck_assert_ptr_nonnull(v->requests);
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 3 * 128);
	/* step 1 of warp 2 of block (bx 1, by 0): tile rows 2 + 8 */
	uint64_t r = (1 * 8 + 2) * 4 + 1;
	v->requests(&p, r, &req);
	ck_assert_int_eq(req.space, SW_SPACE_GLOBAL);
	ck_assert_int_eq(req.is_store, 0);
	ck_assert_uint_eq(req.active, 0xffffffffu);
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 4 * (10 * 64 + 32 + l));
	v->requests(&p, 128 + r, &req); /* its store: output row 32 + 10 */
	ck_assert_int_eq(req.is_store, 1);
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 4 * (42 * 64 + l));
	v->requests(&p, 256 + r, &req); /* the column read: one bank at pad 0 (C11) */
	ck_assert_int_eq(req.space, SW_SPACE_SHARED);
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 4 * (l * 32 + 10));
	ck_assert_int_eq(distinct_banks(&req), 1);
	p.axis[PAD] = 1; /* every bank at pad 1 (C12) */
	v->requests(&p, 256 + r, &req);
	ck_assert_uint_eq(req.addr[1], 4 * (33 + 10));
	ck_assert_int_eq(distinct_banks(&req), 32);

	p = tp_point("naive", 64, 64, 32, 8, SW_AXIS_UNUSED);
	v = &fam()->variants[p.variant];
	ck_assert_uint_eq(v->requests(&p, 0, NULL), 2 * 128);
	v->requests(&p, 128 + r, &req); /* a column of the output: 64 floats apart */
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 4 * ((32 + l) * 64 + 10));

	p = tp_point("copy", 64, 64, 32, 8, SW_AXIS_UNUSED);
	v = &fam()->variants[p.variant];
	v->requests(&p, 128 + r, &req); /* stores where it loaded */
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 4 * (10 * 64 + 32 + l));
	v->requests(&p, 256 + r, &req); /* a row of the tile */
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 4 * (10 * 32 + l));
}
END_TEST

int main(void)
{
	const TTest *tests[] = { test_check_full, test_check_sampled, test_bytes_and_sizes,
				 test_refusals, test_requests };
	return sw_ftest_run("family_transpose", "transpose", tests, SW_COUNT(tests));
}
