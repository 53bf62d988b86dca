/*
 * On the GPU: every variant of every family runs, validates against its CPU
 * reference on fresh random input, and yields timings. Exits 77 (SKIPPED)
 * where no CUDA device is visible. `test_gpu --probe` only reports whether a
 * device exists (0 or 77), for the sanitizer wrapper. SW_TEST_QUICK=1 runs
 * the smallest points only (under compute-sanitizer).
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job/axis.h"
#include "job/job.h"
#include "backend/device.h"
#include "backend/measure.h"
#include "core/record.h"

#define SKIPPED        77
#define MAX_TEST_ELEMS (INT64_C(64) << 20) /* keeps each point well under a second */

static struct sw_device_info dev;
static struct sw_measure *gpu;
static int quick;

/* A few samples of each point: these tests check rows, not timings. */
static const struct sw_measure_cfg short_cfg = {
	.rse_target = 0.05, .min_samples = 3, .max_samples = 5, .warmup = 1, .time_cap_s = 0.1
};

/* Test values of an axis: the smallest and largest default, capped. */
static int axis_values(const struct sw_axis_def *ax, int64_t out[2])
{
	struct sw_axis_values v;
	struct sw_err err = { 0 };
	ck_assert_msg(sw_axis_def_parse(ax, ax->defaults, &v, &err) == SW_OK, "%s", err.msg);
	int64_t lo = v.v[0], hi = v.v[0];
	for (size_t i = 0; i < v.n; i++) {
		lo = v.v[i] < lo ? v.v[i] : lo;
		hi = v.v[i] > hi ? v.v[i] : hi;
	}
	sw_axis_values_fini(&v);
	if (quick && strcmp(ax->units, "elements") == 0 && ax->min <= (1 << 20))
		hi = lo = lo < (1 << 20) ? lo : (1 << 20);
	if (hi > MAX_TEST_ELEMS && ax->min <= MAX_TEST_ELEMS)
		hi = MAX_TEST_ELEMS;
	out[0] = lo;
	out[1] = hi;
	return lo == hi ? 1 : 2;
}

START_TEST(test_every_variant_validates)
{
	const struct sw_measure_cfg cfg = {
		.rse_target = 0.05,
		.min_samples = 3,
		.max_samples = 10,
		.warmup = 1,
		.time_cap_s = 0.2,
		.min_sample_s = 20e-6,
		.flush_l2 = SW_FLUSH_AUTO,
	};
	int points = 0;
	for (int fi = 0; fi < sw_family_count(); fi++) {
		const struct sw_family *f = sw_family_at(fi);
		int64_t vals[SW_MAX_AXES][2];
		int nvals[SW_MAX_AXES];
		for (int a = 0; a < f->n_axes; a++)
			nvals[a] = axis_values(&f->axes[a], vals[a]);
		for (int v = 0; v < f->n_variants; v++) {
			/* every corner of the used axes' {smallest, largest} */
			for (unsigned corner = 0; corner < (1u << f->n_axes); corner++) {
				struct sw_point p = { .variant = v };
				int dup = 0;
				for (int a = 0; a < f->n_axes; a++) {
					int hi = (corner >> a) & 1;
					int used = f->variants[v].axes_used & (1u << a);
					dup |= hi && (!used || nvals[a] == 1);
					p.axis[a] = used ? vals[a][hi] : SW_AXIS_UNUSED;
				}
				char why[160];
				if (dup || f->refuse(&p, why, sizeof why))
					continue;
				struct sw_record *rec = malloc(sizeof *rec);
				struct sw_err err = { 0 };
				sw_record_init(rec);
				rec->useful_bytes = f->useful_bytes(&p);
				rec->flops = f->flops(&p);
				ck_assert_int_eq(sw_measure_run_point(gpu, f, &p, &cfg, rec, &err),
						 SW_OK);
				ck_assert_msg(rec->status == SW_ROW_OK,
					      "%s/%s corner %u: status %d: %s", f->name,
					      f->variants[v].name, corner, rec->status,
					      rec->message);
				ck_assert_str_ne(rec->check_mode, "none");
				ck_assert_uint_ge(rec->n_samples, cfg.min_samples);
				ck_assert(rec->median_ns > 0 && rec->gbps > 0);
				printf("%-14s %-12s corner %u  %-7s check  %9.1f us  %7.1f GB/s\n",
				       f->name, f->variants[v].name, corner, rec->check_mode,
				       rec->median_ns / 1e3, rec->gbps);
				free(rec);
				points++;
			}
		}
	}
	ck_assert_int_gt(points, 0);
}
END_TEST

START_TEST(test_too_big_is_skipped)
{
	/* a point larger than the device's memory is skipped with a reason, not failed */
	const struct sw_family *f = sw_family_find("strided_read");
	const struct sw_measure_cfg cfg = { .rse_target = 0.05,
					    .min_samples = 3,
					    .max_samples = 10,
					    .warmup = 1,
					    .time_cap_s = 0.2 };
	struct sw_point p = { .variant = sw_variant_find(f, "memcpy"),
			      .axis = { SW_AXIS_UNUSED, 0 } };
	p.axis[1] = (int64_t)(dev.mem_bytes / 4 / 2 + (1 << 20)); /* in + out > memory */
	struct sw_record *rec = malloc(sizeof *rec);
	struct sw_err err = { 0 };
	sw_record_init(rec);
	ck_assert_int_eq(sw_measure_run_point(gpu, f, &p, &cfg, rec, &err), SW_OK);
	ck_assert_int_eq(rec->status, SW_ROW_SKIPPED);
	ck_assert_ptr_nonnull(strstr(rec->message, "GiB"));
	free(rec);
}
END_TEST

/* --counters: the strided read's load sectors per request are C9's 4 and 32,
 * its requests one per warp, and a cold L2 reads its bytes from DRAM once.
 * Where the profiler is unavailable, every row says why instead. */
START_TEST(test_counters)
{
	const struct sw_family *f = sw_family_find("strided_read");
	const struct sw_measure_cfg cfg = short_cfg;
	struct sw_measure *g = NULL;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_measure_create(&dev, &g, &err), SW_OK);
	sw_measure_use_counters(g);
	const char *why = sw_measure_counters_unavailable(g);
	const int64_t n = 16 << 20, strides[] = { 1, 32 };
	for (int i = 0; i < 2; i++) {
		struct sw_point p = { .variant = sw_variant_find(f, "course"),
				      .axis = { strides[i], n } };
		struct sw_record *rec = malloc(sizeof *rec);
		sw_record_init(rec);
		rec->point_id = 1 + i;
		rec->useful_bytes = f->useful_bytes(&p);
		ck_assert_int_eq(sw_measure_run_point(g, f, &p, &cfg, rec, &err), SW_OK);
		ck_assert_int_eq(rec->status, SW_ROW_OK);
		ck_assert(rec->median_ns > 0); /* the timing is still taken */
		if (why) {
			printf("counters unavailable here, rows say so: %s\n", why);
			ck_assert_str_eq(rec->counter_note, why);
			ck_assert(isnan(rec->ctr_ld_sectors));
			free(rec);
			continue;
		}
		ck_assert_str_eq(rec->counter_note, "ok");
		ck_assert_int_ge(rec->counter_passes, 1);
		double requests = (double)(n / strides[i]) / 32;
		ck_assert_double_eq(rec->ctr_ld_requests, requests);
		ck_assert_double_eq(rec->ctr_ld_sectors / rec->ctr_ld_requests,
				    strides[i] == 1 ? 4 : 32);
		ck_assert_double_eq(rec->ctr_shared_ld_wavefronts, 0);
		/* a cold L2 reads every sector the loads touch once, within 5%;
		 * DRAM may fetch a lone sector with its 64-byte neighbour (the H200
		 * reads 2.0x at stride 32), never more */
		double ratio = rec->ctr_dram_read_bytes / (rec->ctr_ld_sectors * 32);
		ck_assert_msg(strides[i] == 1 ? fabs(ratio - 1) < 0.05
					      : ratio > 0.95 && ratio < 2.1,
			      "DRAM read %.3fx the bytes of the sectors loaded", ratio);
		printf("counters: stride %2lld: %.0f requests, %.1f sectors/request, %.3g DRAM "
		       "bytes "
		       "read, %d passes\n",
		       (long long)strides[i], rec->ctr_ld_requests,
		       rec->ctr_ld_sectors / rec->ctr_ld_requests, rec->ctr_dram_read_bytes,
		       rec->counter_passes);
		free(rec);
	}
	sw_measure_destroy(&g);
}
END_TEST

/* --metrics by name: a cold stride-1 streaming read brings each of its n
 * floats from DRAM once and asks L2 for n * 4 / 32 sectors; both come back
 * with their units. An unknown name is refused with the nearest the chip has. */
START_TEST(test_metrics)
{
	static const char *const names[] = { "dram__bytes_read.sum",
					     "lts__t_sectors_srcunit_tex_op_read.sum" };
	static const char *const typo[] = { "dram__bytes_raed.sum" };
	const struct sw_family *f = sw_family_find("strided_read");
	const struct sw_measure_cfg cfg = short_cfg;
	struct sw_measure *g = NULL;
	struct sw_err err = { 0 };

	ck_assert_int_eq(sw_measure_create(&dev, &g, &err), SW_OK);
	enum sw_status st = sw_measure_use_metrics(g, names, 2, &err);
	if (st == SW_ECUDA) { /* no profiling here (permissions): said, not run */
		printf("metrics unavailable here, the run is refused: %s\n", err.msg);
		ck_assert_ptr_nonnull(strstr(err.msg, "--metrics: counters unavailable"));
		sw_measure_destroy(&g);
		return;
	}
	ck_assert_msg(st == SW_OK, "%s", err.msg);
	const int64_t n = 16 << 20;
	struct sw_point p = { .variant = sw_variant_find(f, "course"), .axis = { 1, n } };
	struct sw_record *rec = malloc(sizeof *rec);
	sw_record_init(rec);
	rec->point_id = 1;
	rec->useful_bytes = f->useful_bytes(&p);
	ck_assert_int_eq(sw_measure_run_point(g, f, &p, &cfg, rec, &err), SW_OK);
	ck_assert_int_eq(rec->status, SW_ROW_OK);
	ck_assert_msg(rec->metrics.n == 2, "no metrics counted: %s", rec->counter_note);
	printf("metrics: %s = %.4g %s, %s = %.4g %s\n", names[0], rec->metrics.values[0],
	       rec->metrics.units[0], names[1], rec->metrics.values[1], rec->metrics.units[1]);
	double dram = rec->metrics.values[0] / (4.0 * (double)n);
	double lts = rec->metrics.values[1] / (4.0 * (double)n / 32);
	ck_assert_msg(fabs(dram - 1) < 0.05, "DRAM read %.3fx the bytes", dram);
	ck_assert_msg(fabs(lts - 1) < 0.1, "L2 read %.3fx the sectors", lts);
	ck_assert_ptr_nonnull(strstr(rec->metrics.units[0], "byte"));
	ck_assert_ptr_nonnull(strstr(rec->metrics.units[1], "sector"));
	free(rec);
	sw_measure_destroy(&g);

	ck_assert_int_eq(sw_measure_create(&dev, &g, &err), SW_OK);
	ck_assert_int_eq(sw_measure_use_metrics(g, typo, 1, &err), SW_EINVAL);
	ck_assert_msg(strstr(err.msg, "has no metric dram__bytes_raed.sum; did you mean "
				      "dram__bytes_read.sum"),
		      "%s", err.msg);
	sw_measure_destroy(&g);
}
END_TEST

/* What cmd prints, stdout and stderr, into out; its wait status in *rc. */
static void capture(const char *cmd, char *out, size_t size, int *rc)
{
	char line[1024];
	FILE *pipe = popen(cmd, "r");

	ck_assert_ptr_nonnull(pipe);
	out[0] = 0;
	while (fgets(line, sizeof line, pipe))
		strncat(out, line, size - strlen(out) - 1);
	*rc = pclose(pipe);
}

/* The same through the binary: a tiny --family job with --metrics exits 0,
 * and an unknown name exits 2 before anything is written, naming the nearest;
 * --dry-run makes the same check. */
START_TEST(test_metrics_end_to_end)
{
	const char *sweep = getenv("SW_SWEEP");
	char cmd[2048], out[256];

	if (!sweep || !*sweep) {
		printf("SW_SWEEP not set (run through ctest): end to end not run\n");
		return;
	}
	snprintf(out, sizeof out, "%s/sweep-test-metrics-%d.h5",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	const char *common = "--backend cuda -q --family strided_read --set strided_read.n=1M "
			     "--set strided_read.stride=1,2 --set strided_read.variants=course";
	snprintf(cmd, sizeof cmd,
		 "%s %s --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum "
		 "-o %s 2>&1",
		 sweep, common, out);
	int rc = system(cmd);
	ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "%s: exit %d", cmd, rc);
	ck_assert_int_eq(access(out, R_OK), 0);
	unlink(out);
	snprintf(cmd, sizeof cmd, "%s %s --metrics dram__bytes_raed.sum -o %s 2>&1", sweep, common,
		 out);
	char all[4096];
	capture(cmd, all, sizeof all, &rc);
	if (strstr(all, "counters unavailable")) {
		printf("metrics unavailable here: %s\n", all);
		return;
	}
	ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "exit %d: %s", rc, all);
	ck_assert_msg(strstr(all, "did you mean dram__bytes_read.sum"), "%s", all);
	ck_assert_int_ne(access(out, F_OK), 0); /* nothing written */
	/* a dry run checks the names on the GPU too, and runs nothing */
	snprintf(cmd, sizeof cmd, "%s %s --dry-run --metrics dram__bytes_raed.sum -o %s 2>&1",
		 sweep, common, out);
	capture(cmd, all, sizeof all, &rc);
	ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "dry run: exit %d: %s", rc, all);
	ck_assert_msg(strstr(all, "did you mean dram__bytes_read.sum"), "dry run: %s", all);
	snprintf(cmd, sizeof cmd, "%s %s --dry-run --metrics dram__bytes_read.sum -o %s 2>&1",
		 sweep, common, out);
	capture(cmd, all, sizeof all, &rc);
	ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "dry run: exit %d: %s", rc, all);
	ck_assert_int_ne(access(out, F_OK), 0);
}
END_TEST

/* Issue 22: points pipelined with several checks in flight complete in
 * the order they ran, and a sampled check that gets only its picked
 * elements back (strided_read's memcpy of 32M floats) validates them. */
START_TEST(test_pipelined_checks_in_order)
{
	enum { N = 12 };
	const struct sw_family *f = sw_family_find("strided_read");
	const struct sw_measure_cfg cfg = short_cfg;
	struct sw_record *recs = calloc(N, sizeof *recs), *done[SW_MEASURE_MAX_DONE], *r;
	struct sw_err err = { 0 };
	uint64_t next = 0;
	int n_done = 0;
	for (int i = 0; i < N; i++) {
		struct sw_point p = { .variant = i % 2 ? sw_variant_find(f, "memcpy") : 0,
				      .axis = { i % 2 ? SW_AXIS_UNUSED : 1,
						i % 2 ? INT64_C(32) << 20 : 1 << 20 } };
		sw_record_init(&recs[i]);
		recs[i].point_id = (uint64_t)i;
		recs[i].useful_bytes = f->useful_bytes(&p);
		ck_assert_int_eq(
			sw_measure_start_point(gpu, f, &p, &cfg, &recs[i], done, &n_done, &err),
			SW_OK);
		for (int k = 0; k < n_done; k++)
			ck_assert_uint_eq(done[k]->point_id, next++);
	}
	while ((r = sw_measure_settle(gpu)))
		ck_assert_uint_eq(r->point_id, next++);
	ck_assert_uint_eq(next, N);
	for (int i = 0; i < N; i++) {
		ck_assert_msg(recs[i].status == SW_ROW_OK, "point %d: %s", i, recs[i].message);
		ck_assert_str_eq(recs[i].check_mode, i % 2 ? "sampled" : "full");
		if (i % 2)
			ck_assert_uint_eq(recs[i].checked_elems, SW_CHECK_SAMPLES);
	}
	free(recs);
}
END_TEST

/* The test-only switch SW_TEST_FAULT: a bad launch configuration is
 * recorded with its CUDA error and the context goes on; a trap leaves the
 * context unusable and the call says so (SW_ECUDA). The trap runs last: it
 * ends this process's use of the GPU. */
static void run_faulted(const char *fault, struct sw_record *rec, enum sw_status *st)
{
	const struct sw_family *f = sw_family_find("strided_read");
	const struct sw_measure_cfg cfg = short_cfg;
	struct sw_point p = { .variant = 0, .axis = { 1, 1 << 20 } };
	struct sw_measure *g = NULL;
	struct sw_err err = { 0 };
	setenv("SW_TEST_FAULT", fault, 1);
	ck_assert_int_eq(sw_measure_create(&dev, &g, &err), SW_OK);
	unsetenv("SW_TEST_FAULT");
	sw_record_init(rec);
	rec->point_id = 0xfa17;
	rec->useful_bytes = f->useful_bytes(&p);
	*st = sw_measure_run_point(g, f, &p, &cfg, rec, &err);
	ck_assert_int_eq(rec->status, SW_ROW_FAILED);
	if (*st == SW_OK) { /* the context lives: the next point measures */
		struct sw_record *next = malloc(sizeof *next);
		sw_record_init(next);
		next->point_id = 1;
		next->useful_bytes = rec->useful_bytes;
		ck_assert_int_eq(sw_measure_run_point(g, f, &p, &cfg, next, &err), SW_OK);
		ck_assert_int_eq(next->status, SW_ROW_OK);
		free(next);
	}
	sw_measure_destroy(&g);
}

START_TEST(test_injected_faults)
{
	struct sw_record *rec = malloc(sizeof *rec);
	enum sw_status st;
	run_faulted("launch:fa17", rec, &st);
	ck_assert_int_eq(st, SW_OK);
	/* CUDA 12 names a too-large block InvalidConfiguration, CUDA 13 InvalidValue */
	ck_assert_msg(strstr(rec->message, "launching: cudaErrorInvalid"), "%s", rec->message);
	run_faulted("trap:fa17", rec, &st);
	ck_assert_int_eq(st, SW_ECUDA);
	ck_assert_msg(strstr(rec->message, "launching"), "%s", rec->message);
	free(rec);
}
END_TEST

int main(int argc, char **argv)
{
	if (sw_device_count() == 0) {
		printf("no CUDA device visible: SKIPPED\n");
		return SKIPPED;
	}
	if (argc > 1 && strcmp(argv[1], "--probe") == 0)
		return 0;
	quick = getenv("SW_TEST_QUICK") != NULL;
	struct sw_err err = { 0 };
	if (sw_device_bind(0, &dev, &err) != SW_OK ||
	    sw_measure_create(&dev, &gpu, &err) != SW_OK) {
		fprintf(stderr, "%s\n", err.msg);
		return EXIT_FAILURE;
	}
	printf("device: %s (CC %d.%d, %d SMs, %.0f GB/s theoretical)\n", dev.name, dev.cc / 10,
	       dev.cc % 10, dev.sm_count, dev.peak_gbps);
	Suite *s = suite_create("gpu");
	TCase *tc = tcase_create("gpu");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_every_variant_validates);
	tcase_add_test(tc, test_pipelined_checks_in_order);
	if (!quick) {
		tcase_add_test(tc, test_too_big_is_skipped);
		tcase_add_test(tc, test_counters);
		tcase_add_test(tc, test_metrics);
		tcase_add_test(tc, test_metrics_end_to_end);
		tcase_add_test(tc, test_injected_faults); /* last: the trap ends the context */
	}
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK); /* one CUDA context for the whole run */
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	sw_measure_destroy(&gpu);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
