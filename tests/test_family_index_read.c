/* index_read on the CPU: its check against outputs built from the index's
 * definition (direct and indexed, windows that do and do not divide n),
 * byte counts, sizes and refusals, the launch shape, and the requests the
 * model sees against counts made here, request by request. */
#include <stdlib.h>
#include <string.h>

#include "family_scaffold.h"

enum { N, WINDOW };
enum { BUF_DATA, BUF_INDEX, BUF_OUT };

static const struct sw_ftest ft = { .family = "index_read", .out = BUF_OUT, .sample_seed = 17 };

static struct sw_point point(const char *variant, int64_t n, int64_t window)
{
	return SW_FTEST_POINT(&ft, variant, n, window);
}

static int indexed(const struct sw_point *p)
{
	return p->variant == sw_ftest_variant(&ft, "indexed");
}

/* The index the kernel reads at i, from its definition (index_read.cuh):
 * a hash of i under the family's fixed key, within the window of `window`
 * elements holding i, the last window cut at n; direct (ix 0) reads
 * element i. ix is indexed(p), asked once a point: an assert a call is a
 * write to check's pipe. */
static uint64_t index_at(const struct sw_point *p, int ix, uint64_t i)
{
	if (!ix)
		return i;
	uint64_t n = (uint64_t)p->axis[N], w = (uint64_t)p->axis[WINDOW];
	uint64_t base = i - i % w, span = n - base < w ? n - base : w;
	return base + sw_mix64(0x1dea5eedull ^ i) % span;
}

/* What the kernel writes: out[i] = data[index_at(i)]. */
static float *expected(const struct sw_point *p, uint64_t seed, size_t *bytes)
{
	uint64_t n = (uint64_t)p->axis[N];
	int ix = indexed(p);
	float *out = malloc(n * sizeof *out);
	ck_assert_ptr_nonnull(out);
	for (uint64_t i = 0; i < n; i++)
		out[i] = sw_input_value(seed, index_at(p, ix, i));
	*bytes = n * sizeof *out;
	return out;
}

/* Windows of one element (the identity), of a warp, one that divides
 * neither n nor a warp, and the whole array; n not a multiple of the
 * block, so the last block and the last window are partial. */
START_TEST(test_check_accepts_and_rejects)
{
	const int64_t n = (1 << 20) + 4, windows[] = { 1, 32, 1000, n };
	for (int w = -1; w < 4; w++) {
		struct sw_point p = w < 0 ? point("direct", n, SW_AXIS_UNUSED)
					  : point("indexed", n, windows[w]);
		size_t bytes, last = (size_t)n - 1;
		float *out = expected(&p, 42, &bytes);
		struct sw_check c =
			sw_ftest_passes(&ft, &p, out, bytes, 42, SW_CHECK_FULL, (uint64_t)n);
		ck_assert_double_eq(c.max_rel_err, 0); /* a copy: exact */
		sw_ftest_finds(&ft, &p, out, bytes, 42, last, out[last] + 1e-6f, "element");
		sw_ftest_finds(&ft, &p, out, bytes, 42, 7, out[7] * 0.5f, "element 7");
		sw_ftest_fails(&ft, &p, out, bytes, 43, NULL); /* data from another seed */
		free(out);
	}
}
END_TEST

/* The check reads through the index: the direct read's output fails the
 * indexed check (windows of 32 and more), and an indexed output fails
 * another window's check and the direct one's. */
START_TEST(test_check_sees_the_index)
{
	const int64_t n = 1 << 16;
	struct sw_point direct = point("direct", n, SW_AXIS_UNUSED);
	struct sw_point w32 = point("indexed", n, 32), wn = point("indexed", n, n);
	struct sw_point w1 = point("indexed", n, 1);
	size_t bytes;
	float *out = expected(&direct, 3, &bytes);
	sw_ftest_fails(&ft, &w32, out, bytes, 3, "element");
	sw_ftest_fails(&ft, &wn, out, bytes, 3, "element");
	sw_ftest_passes(&ft, &w1, out, bytes, 3, SW_CHECK_FULL, n); /* window 1: the identity */
	free(out);
	out = expected(&w32, 3, &bytes);
	sw_ftest_fails(&ft, &wn, out, bytes, 3, "element");
	sw_ftest_fails(&ft, &direct, out, bytes, 3, "element");
	free(out);
}
END_TEST

/* Past SW_CHECK_FULL_TERMS elements the check samples, and only the sampled
 * elements come back (sampled_elem). */
START_TEST(test_check_samples_large_points)
{
	struct sw_point p = point("indexed", (16 << 20) + 32, 1 << 20);
	size_t bytes;
	float *out = expected(&p, 11, &bytes);
	sw_ftest_passes(&ft, &p, out, bytes, 11, SW_CHECK_SAMPLED, SW_CHECK_SAMPLES);
	for (size_t i = 0; i < bytes / sizeof(float); i++) /* all off: any sample sees it */
		out[i] += 1.0f;
	sw_ftest_fails(&ft, &p, out, bytes, 11, "element");
	free(out);
	struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 3, 2);
	ck_assert_uint_eq(sz.sampled_elem[BUF_OUT], sizeof(float));
	p = point("indexed", 16 << 20, 1 << 20); /* checked whole: all of it back */
	sz = sw_ftest_sizes(&ft, &p, 3, 2);
	ck_assert_uint_eq(sz.sampled_elem[BUF_OUT], 0);
}
END_TEST

START_TEST(test_sizes_and_bytes)
{
	const struct sw_family *f = sw_ftest_family(&ft);
	struct sw_point p = point("indexed", 1 << 20, 32);
	struct sw_sizes sz = sw_ftest_sizes(&ft, &p, 3, 2);
	ck_assert_uint_eq(sz.bytes[BUF_DATA], 4u << 20);
	ck_assert_uint_eq(sz.bytes[BUF_INDEX], 4u << 20);
	ck_assert_uint_eq(sz.bytes[BUF_OUT], 4u << 20);
	ck_assert_double_eq(f->useful_bytes(&p), 12.0 * (1 << 20)); /* index, data, out */
	ck_assert_double_eq(f->flops(&p), 0);
	p = point("direct", 1 << 20, SW_AXIS_UNUSED);
	sw_ftest_sizes(&ft, &p, 3, 2);
	ck_assert_double_eq(f->useful_bytes(&p), 8.0 * (1 << 20)); /* data, out */
	ck_assert_double_eq(f->flops(&p), 0);
	/* the largest point: 8 GiB a buffer, sizes in 64 bits */
	p = point("indexed", (int64_t)1 << 31, (int64_t)1 << 31);
	f->sizes(&p, &sz);
	ck_assert_uint_eq(sz.bytes[BUF_DATA], (size_t)8 << 30);
}
END_TEST

START_TEST(test_refusals)
{
	const struct sw_family *f = sw_ftest_family(&ft);
	char why[160] = "";
	struct sw_point p = point("indexed", 4096, 4097);
	ck_assert(f->refuse(&p, why, sizeof why));
	ck_assert_msg(strstr(why, "locality 4097 is more than n 4096"), "%s", why);
	p = point("indexed", 4096, 4096);
	ck_assert_msg(!f->refuse(&p, why, sizeof why), "%s", why);
	p = point("direct", 4096, SW_AXIS_UNUSED);
	ck_assert_msg(!f->refuse(&p, why, sizeof why), "%s", why);
}
END_TEST

/* One thread an element in blocks of 256; each thread's loads wait on each
 * other (indexed) or are one (direct): one in flight. */
START_TEST(test_launch_shape)
{
	const struct sw_family *f = sw_ftest_family(&ft);
	struct sw_point pts[] = { point("indexed", (256 << 20) + 1, 1 << 20),
				  point("direct", 1 << 20, SW_AXIS_UNUSED) };
	const uint64_t blocks[] = { (1 << 20) + 1, 4096 };
	for (int i = 0; i < 2; i++) {
		struct sw_launch_shape s;
		ck_assert_ptr_null(f->shape(&pts[i], 132, &s));
		ck_assert_uint_eq(s.blocks, blocks[i]);
		ck_assert_uint_eq(s.threads, 256);
		ck_assert_uint_eq(s.shared_bytes, 0);
		ck_assert_uint_eq(s.in_flight, 1);
	}
}
END_TEST

/* Distinct 32-byte sectors among the active lanes' 4-byte words at
 * word indices w[0..lanes). */
static int sectors(const uint64_t *w, int lanes)
{
	int count = 0;
	for (int l = 0; l < lanes; l++) {
		int seen = 0;
		for (int k = 0; k < l && !seen; k++)
			seen = w[k] / 8 == w[l] / 8;
		count += !seen;
	}
	return count;
}

/* Counts made here, warp by warp from the index's definition, for each of
 * the variant's accesses: requests and sectors, and each request holds
 * the lanes' addresses in the buffer it names. */
static void counts_match(struct sw_point p)
{
	const struct sw_variant *v = &sw_ftest_family(&ft)->variants[p.variant];
	uint64_t n = (uint64_t)p.axis[N], warps = (n + 31) / 32;
	int ix = indexed(&p), slots = ix ? 3 : 2;
	const int buffer[] = { BUF_INDEX, BUF_DATA, BUF_OUT };
	double sec[3] = { 0 };
	ck_assert_uint_eq(v->requests(&p, 0, NULL), warps * (uint64_t)slots);
	for (int a = 0; a < slots; a++) {
		int slot = a + !ix; /* direct: data, out */
		for (uint64_t w = 0; w < warps; w++) {
			uint64_t words[32];
			int lanes = 0;
			for (uint64_t i = 32 * w; i < n && i < 32 * w + 32; i++)
				words[lanes++] = slot == 1 ? index_at(&p, ix, i) : i;
			sec[a] += sectors(words, lanes);
			struct sw_request req;
			v->requests(&p, a * warps + w, &req);
			ck_assert_int_eq(req.access, a);
			ck_assert_int_eq(req.buffer, buffer[slot]);
			ck_assert_int_eq(req.is_store, slot == 2);
			ck_assert_int_eq(req.word_bytes, 4);
			for (int l = 0; l < lanes; l++)
				ck_assert_uint_eq(req.addr[l], 4 * words[l]);
			ck_assert_uint_eq(req.active,
					  lanes == 32 ? 0xffffffffu : (1u << lanes) - 1);
		}
	}
	struct sw_model_figures m = sw_ftest_model(&ft, &p, 90);
	ck_assert_int_eq(m.n_accesses, slots);
	for (int a = 0; a < slots; a++) {
		ck_assert_int_eq(m.access[a].counts, SW_COUNTS_EXACT);
		ck_assert_double_eq(m.access[a].requests, (double)warps);
		ck_assert_double_eq(m.access[a].transactions, sec[a]);
	}
	ck_assert_double_eq(m.st_requests, (double)warps);
	ck_assert_double_eq(m.ld_requests, (double)warps * (slots - 1));
}

/* Small points, every request costed: the model's counts are those made
 * here; 129 warps, the last one of 5 lanes. */
START_TEST(test_requests_counted)
{
	const int64_t n = 4096 + 5, windows[] = { 1, 8, 32, 100, n };
	counts_match(point("direct", n, SW_AXIS_UNUSED));
	for (int w = 0; w < 5; w++)
		counts_match(point("indexed", n, windows[w]));
}
END_TEST

/* The fleet's points (jobs/fleet.yaml): over the whole of 256M elements
 * each data request scatters to nearly 32 sectors; within windows of 1M
 * too (the window, not the sectors, keeps it in the L2); at window 1 the
 * data load is the index load's 4. */
START_TEST(test_scatter_by_window)
{
	const int64_t n = 256 << 20;
	struct sw_point p = point("indexed", n, n);
	struct sw_model_figures m = sw_ftest_model(&ft, &p, 90);
	ck_assert_double_eq(m.access[1].requests, (double)(n / 32));
	ck_assert_double_gt(m.access[1].transactions / m.access[1].requests, 31.5);
	ck_assert_double_eq_tol(m.access[0].transactions / m.access[0].requests, 4, 1e-9);
	p = point("indexed", n, 1 << 20);
	m = sw_ftest_model(&ft, &p, 90);
	ck_assert_double_gt(m.access[1].transactions / m.access[1].requests, 31.5);
	p = point("indexed", n, 1);
	m = sw_ftest_model(&ft, &p, 90);
	ck_assert_double_eq_tol(m.access[1].transactions / m.access[1].requests, 4, 1e-9);
	ck_assert_double_eq_tol(m.useful_bytes, 12.0 * n, 1e-6 * n);
}
END_TEST

int main(void)
{
	const TTest *tests[] = { test_check_accepts_and_rejects,
				 test_check_sees_the_index,
				 test_check_samples_large_points,
				 test_sizes_and_bytes,
				 test_refusals,
				 test_launch_shape,
				 test_requests_counted,
				 test_scatter_by_window };
	return sw_ftest_run("family_index_read", "index_read", tests, SW_COUNT(tests));
}
