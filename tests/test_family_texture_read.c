/* texture_read on the CPU: its check against sums built here from
 * sw_input_value and an independent copy of the pixel patterns, byte
 * counts, refusals and the model's requests (rows, columns, and a gather
 * that stays in its window). */
#include <stdlib.h>
#include <string.h>

#include "family_scaffold.h"

static const struct sw_ftest ft = { .family = "texture_read", .out = 1, .sample_seed = 31 };

static const struct sw_family *fam(void)
{
	return sw_ftest_family(&ft);
}

static struct sw_point tex_point(const char *variant, int64_t pattern, int64_t size)
{
	return SW_FTEST_POINT(&ft, variant, pattern, size);
}

static uint32_t clamp(int32_t v, uint32_t size)
{
	return v < 0 ? 0 : v >= (int32_t)size ? size - 1 : (uint32_t)v;
}

/* Read j of the thread summing output (y, x), as texture_read.cuh
 * documents it. */
static void pixel(int pattern, uint32_t size, uint32_t x, uint32_t y, uint32_t j, uint32_t *row,
		  uint32_t *col)
{
	uint32_t r = 8 * y + j;
	if (pattern == 0) {
		*row = r;
		*col = x;
	} else if (pattern == 2) {
		*row = x;
		*col = r;
	} else {
		uint32_t h = r * 0x9e3779b1u ^ x * 0x85ebca77u;
		h ^= h >> 15;
		h *= 0x2c1b3c6du;
		h ^= h >> 12;
		*row = clamp((int32_t)r + (int32_t)(h % 8) - 4, size);
		*col = clamp((int32_t)x + (int32_t)(h / 8 % 8) - 4, size);
	}
}

static float *expected(int pattern, uint32_t size, uint64_t seed)
{
	uint64_t n_out = (uint64_t)size * size / 8;
	float *out = malloc(n_out * sizeof *out);
	for (uint64_t o = 0; o < n_out; o++) {
		float s = 0;
		for (uint32_t j = 0; j < 8; j++) {
			uint32_t row, col;
			pixel(pattern, size, (uint32_t)(o % size), (uint32_t)(o / size), j, &row,
			      &col);
			s += sw_input_value(seed, (uint64_t)row * size + col);
		}
		out[o] = s;
	}
	return out;
}

/* The bytes of p's output: one float per 8 pixels. */
static size_t out_bytes(const struct sw_point *p)
{
	return (size_t)p->axis[1] * p->axis[1] / 8 * sizeof(float);
}

START_TEST(test_check_accepts_and_rejects)
{
	const char *variants[] = { "texture", "global", "readonly" };
	for (int v = 0; v < 3; v++)
		for (int pattern = 0; pattern <= 2; pattern++) {
			struct sw_point p = tex_point(variants[v], pattern, 256);
			float *out = expected(pattern, 256, 13);
			size_t bytes = out_bytes(&p);
			sw_ftest_passes(&ft, &p, out, bytes, 13, SW_CHECK_FULL, 256 * 256 / 8);
			sw_ftest_finds(&ft, &p, out, bytes, 13, 1000, out[1000] + 0.001f,
				       "element 1000");
			free(out);
		}
	/* one pattern's sums are not another's */
	struct sw_point p = tex_point("global", 1, 256);
	float *out = expected(0, 256, 13);
	sw_ftest_fails(&ft, &p, out, out_bytes(&p), 13, NULL);
	free(out);
}
END_TEST

START_TEST(test_check_samples_large_images)
{
	struct sw_point p = tex_point("texture", 1, 8192);
	float *out = expected(1, 8192, 14);
	sw_ftest_passes(&ft, &p, out, out_bytes(&p), 14, SW_CHECK_SAMPLED, 4096);
	sw_ftest_fails(&ft, &p, out, out_bytes(&p), 15, NULL); /* another image */
	free(out);
}
END_TEST

START_TEST(test_bytes_sizes_refusals)
{
	struct sw_point p = tex_point("global", 1, 4096);
	/* the image read once, one float written per 8 pixels */
	ck_assert_double_eq(fam()->useful_bytes(&p), 4096.0 * 4096 * 4 * 9 / 8);
	ck_assert_double_eq(fam()->flops(&p), 0);
	struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 2, 1);
	ck_assert_uint_eq(sz.bytes[0], 64u << 20);
	ck_assert_uint_eq(sz.bytes[1], 8u << 20);
	char why[160] = "";
	p = tex_point("texture", 0, 4000);
	ck_assert(fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "multiple of 64"));
	p = tex_point("texture", 2, 32768); /* the largest point */
	ck_assert(!fam()->refuse(&p, why, sizeof why));
	p = tex_point("readonly", 1, 64);
	ck_assert(!fam()->refuse(&p, why, sizeof why));
	ck_assert_ptr_null(fam()->variants[sw_variant_find(fam(), "texture")].requests);
}
END_TEST

START_TEST(test_requests)
{
	const uint32_t size = 1024;
	struct sw_request req;
	/* rows: request 0 is warp 0's first read, row 0, columns 0..31 */
	struct sw_point p = tex_point("global", 0, size);
	const struct sw_variant *v = &fam()->variants[p.variant];
	ck_assert_uint_eq(v->requests(&p, 0, NULL), size * size / 32);
	v->requests(&p, 0, &req);
	ck_assert_int_eq(req.word_bytes, 4);
	ck_assert_uint_eq(req.active, 0xffffffffu);
	for (uint32_t l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 4 * l);
	/* request 8 + 3: warp 1 (threadIdx.y 1), read 3: row 8 + 3 */
	v->requests(&p, 11, &req);
	for (uint32_t l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 4 * ((uint64_t)11 * size + l));
	/* columns: the same warp reads down column 11, rows 0..31 */
	p = tex_point("readonly", 2, size);
	v = &fam()->variants[p.variant];
	v->requests(&p, 11, &req);
	for (uint32_t l = 0; l < 32; l++)
		ck_assert_uint_eq(req.addr[l], 4 * ((uint64_t)l * size + 11));
	/* the second block of a grid row: columns 32..63 */
	v->requests(&p, 64, &req);
	ck_assert_uint_eq(req.addr[0], 4 * ((uint64_t)32 * size));
	/* gather: every read within -4..3 of the pixel the rows pattern reads */
	p = tex_point("global", 1, size);
	v = &fam()->variants[p.variant];
	uint64_t total = v->requests(&p, 0, NULL);
	for (uint64_t r = 0; r < total; r += 997) {
		struct sw_request rows;
		struct sw_point p0 = tex_point("global", 0, size);
		v->requests(&p, r, &req);
		v->requests(&p0, r, &rows);
		for (uint32_t l = 0; l < 32; l++) {
			int64_t dr = (int64_t)(req.addr[l] / 4 / size) -
				     (int64_t)(rows.addr[l] / 4 / size);
			int64_t dc = (int64_t)(req.addr[l] / 4 % size) -
				     (int64_t)(rows.addr[l] / 4 % size);
			ck_assert(dr >= -4 && dr <= 3 && dc >= -4 && dc <= 3);
			uint32_t row, col, x = (uint32_t)(rows.addr[l] / 4 % size);
			pixel(1, size, x, (uint32_t)(rows.addr[l] / 4 / size / 8),
			      (uint32_t)(rows.addr[l] / 4 / size % 8), &row, &col);
			ck_assert_uint_eq(req.addr[l], 4 * ((uint64_t)row * size + col));
		}
	}
}
END_TEST

int main(void)
{
	const TTest *tests[] = { test_check_accepts_and_rejects, test_check_samples_large_images,
				 test_bytes_sizes_refusals, test_requests };
	return sw_ftest_run("family_texture_read", "texture_read", tests, SW_COUNT(tests));
}
