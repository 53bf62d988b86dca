/*
 * The time model (model/time_model.h, gpus.h, time_fit.h, time_plan.h): the
 * GPU table's lookups and sources, each term's count over its rate, the
 * fit recovering rates it was given, and the transfer's ratio.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "model/time_fit.h"
#include "model/time_plan.h"

static const struct sw_gpu *gpu(const char *name)
{
	const struct sw_gpu *g;
	struct sw_err err = { 0 };
	ck_assert_msg(sw_gpu_find(name, &g, &err) == SW_OK, "%s", err.msg);
	return g;
}

/* Every entry: a CC the model has limits for, figures above 0, a source
 * key a figure whose citation the table holds. */
START_TEST(test_table_sourced)
{
	ck_assert_int_ge(sw_gpu_count(), 10);
	int lowest = 1000, highest = 0;
	for (int i = 0; i < sw_gpu_count(); i++) {
		const struct sw_gpu *g = sw_gpu_at(i);
		ck_assert_ptr_nonnull(sw_cc_limits_of(g->cc));
		ck_assert(g->sms > 0 && g->boost_mhz > 0 && g->dram_gbps > 0);
		lowest = g->cc < lowest ? g->cc : lowest;
		highest = g->cc > highest ? g->cc : highest;
		int keys = 0;
		for (const char *s = g->sources; *s; keys++) {
			char key[64];
			size_t len = strcspn(s, " (");
			snprintf(key, sizeof key, "%.*s", (int)len, s);
			ck_assert_msg(sw_gpu_source(key), "%s: no citation for %s", g->name, key);
			s += strcspn(s, " ");
			s += *s == ' ';
		}
		ck_assert_msg(keys == 5, "%s: %d source keys, want one a figure", g->name, keys);
	}
	ck_assert_int_lt(lowest, 40);
	ck_assert_int_eq(highest, 120);
	ck_assert_ptr_nonnull(sw_gpu_of_driver_name("NVIDIA H100 80GB HBM3"));
	ck_assert_ptr_nonnull(sw_gpu_of_driver_name("NVIDIA H200"));
	ck_assert_ptr_null(sw_gpu_of_driver_name("H100"));
}
END_TEST

/* Names: the table's, the driver's, any case; one that fits two refused,
 * naming both; an unknown one with a suggestion. */
START_TEST(test_names)
{
	const struct sw_gpu *g;
	struct sw_err err = { 0 };
	ck_assert_str_eq(gpu("h200")->name, "H200");
	ck_assert_str_eq(gpu("NVIDIA H100 80GB HBM3")->name, "H100-SXM");
	ck_assert_str_eq(gpu("NVIDIA H100 PCIe")->name, "H100-PCIe");
	ck_assert_str_eq(gpu("A100")->name, "A100-SXM4-80GB");
	ck_assert_int_eq(sw_gpu_find("H100", &g, &err), SW_EINVAL);
	ck_assert_ptr_null(g);
	ck_assert_ptr_nonnull(strstr(err.msg, "H100-SXM"));
	ck_assert_ptr_nonnull(strstr(err.msg, "H100-PCIe"));
	ck_assert_int_eq(sw_gpu_find("H300", &g, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "did you mean"));
	ck_assert_int_eq(sw_gpu_find("", &g, &err), SW_EINVAL);
	ck_assert_int_eq(sw_gpu_find("  ", &g, &err), SW_EINVAL);
	/* issue 36, cause 4: a part of a name is no name (the H20 is a GPU of
	 * its own), and the spaces around a name go, as "H200, A10" has them */
	ck_assert_int_eq(sw_gpu_find("NVIDIA H20", &g, &err), SW_EINVAL);
	ck_assert_ptr_null(g);
	ck_assert_ptr_nonnull(strstr(err.msg, "no GPU 'NVIDIA H20' in the table"));
	ck_assert_ptr_nonnull(strstr(err.msg, "H200 (NVIDIA H200)"));
	ck_assert_int_eq(sw_gpu_find("RTX 5090", &g, &err), SW_EINVAL);
	ck_assert_str_eq(gpu(" A10")->name, "A10");
	ck_assert_str_eq(gpu(" T4 ")->name, "T4");
	ck_assert_str_eq(gpu("\tnvidia h200 ")->name, "H200");
	ck_assert_str_eq(gpu("GeForce RTX 5090")->name, "RTX-5090");
}
END_TEST

/* A streaming read is the DRAM term, at the peak in datasheet mode: the
 * bytes over the bandwidth; twice the bandwidth, half the time. */
START_TEST(test_dram_term)
{
	const struct sw_family *f = sw_family_find("strided_read");
	struct sw_point p = { .variant = sw_variant_find(f, "stream_read"),
			      .axis = { -1, INT64_C(1) << 30, -1, -1, -1, -1 } };
	struct sw_time_inputs in;
	struct sw_time_rates r;
	struct sw_time a, b;
	struct sw_err err = { 0 };
	ck_assert_int_eq(sw_time_inputs_of(f, &p, gpu("H100-SXM"), 4, &in, &err), SW_OK);
	sw_time_rates_datasheet(gpu("H100-SXM"), &r);
	sw_time_eval(gpu("H100-SXM"), &r, &in, &a);
	ck_assert_int_eq(a.term, SW_TERM_DRAM);
	ck_assert_str_eq(sw_time_term_word(a.term), "dram");
	double bytes = 4.0 * (INT64_C(1) << 30);
	ck_assert_double_eq_tol(a.term_ns[SW_TERM_DRAM], (bytes + in.out_bytes) / 3350.0, 1);
	ck_assert(a.ns >= a.term_ns[SW_TERM_DRAM] && a.ns < 1.05 * a.term_ns[SW_TERM_DRAM]);
	sw_time_rates_datasheet(gpu("H200"), &r);
	sw_time_eval(gpu("H200"), &r, &in, &b);
	ck_assert_double_eq_tol(a.term_ns[SW_TERM_DRAM] / b.term_ns[SW_TERM_DRAM], 4800 / 3350.0,
				1e-6);
}
END_TEST

/* Shared-memory banks: an s-way conflict is s times the wavefronts, and
 * the shared term binds it. */
START_TEST(test_shared_term)
{
	const struct sw_family *f = sw_family_find("smem_bank");
	int v = sw_variant_find(f, "stride");
	struct sw_point p1 = { .variant = v, .axis = { 1, 0 } }, p32 = p1;
	p32.axis[0] = 32;
	struct sw_time_inputs i1, i32;
	struct sw_time_rates r;
	struct sw_time t1, t32;
	struct sw_err err = { 0 };
	const struct sw_gpu *g = gpu("H200");
	ck_assert_int_eq(sw_time_inputs_of(f, &p1, g, 4, &i1, &err), SW_OK);
	ck_assert_int_eq(sw_time_inputs_of(f, &p32, g, 4, &i32, &err), SW_OK);
	sw_time_rates_datasheet(g, &r);
	sw_time_eval(g, &r, &i1, &t1);
	sw_time_eval(g, &r, &i32, &t32);
	ck_assert_int_eq(t32.term, SW_TERM_SHARED);
	ck_assert_double_eq_tol(t32.term_ns[SW_TERM_SHARED] / t1.term_ns[SW_TERM_SHARED], 32, 0.5);
}
END_TEST

/* The naive matmul's step: two requests on every tile, but the warp's rows
 * of A are 4, 2 or 1 lines and B's row one: 5, 3 and 2 lines a step for
 * tiles 8, 16 and 32 at one line a cycle, where requests (2) and sectors
 * (5, 4 and 5 over four a cycle) would make the three tiles alike. */
START_TEST(test_l1_lines_term)
{
	const struct sw_family *f = sw_family_find("matmul");
	const struct sw_gpu *g = gpu("H200");
	struct sw_time_rates r;
	struct sw_time t[3];
	struct sw_err err = { 0 };
	const double lines_a_step[3] = { 5, 3, 2 };
	sw_time_rates_datasheet(g, &r);
	r.l1_requests_per_clk = r.l1_sectors_per_clk = 1000; /* the lines alone */
	for (int i = 0; i < 3; i++) {
		struct sw_point p = { .variant = sw_variant_find(f, "naive"),
				      .axis = { 2048, 8 << i, 0 } };
		struct sw_time_inputs in;
		ck_assert_int_eq(sw_time_inputs_of(f, &p, g, 4, &in, &err), SW_OK);
		ck_assert_double_eq_tol(in.ld_lines / in.ld_requests, lines_a_step[i] / 2, 1e-6);
		sw_time_eval(g, &r, &in, &t[i]);
		ck_assert_int_eq(t[i].term, SW_TERM_L1);
	}
	ck_assert_double_eq_tol(t[0].term_ns[SW_TERM_L1] / t[1].term_ns[SW_TERM_L1], 5 / 3.0, 1e-6);
	ck_assert_double_eq_tol(t[0].term_ns[SW_TERM_L1] / t[2].term_ns[SW_TERM_L1], 5 / 2.0, 1e-6);
}
END_TEST

/* Variants outside the time model say why: no requests (cuBLAS), atomics. */
START_TEST(test_not_covered)
{
	struct sw_time_inputs in;
	struct sw_err err = { 0 };
	const struct sw_family *mm = sw_family_find("matmul"), *h = sw_family_find("histogram");
	struct sw_point p = { .variant = sw_variant_find(mm, "cublas"), .axis = { 1024, -1, -1 } };
	ck_assert_int_eq(sw_time_inputs_of(mm, &p, gpu("H200"), 4, &in, &err), SW_SKIP);
	struct sw_point q = { .variant = sw_variant_find(h, "global_atomic"),
			      .axis = { 256, 0, 1 << 24, 0 } };
	ck_assert_int_eq(sw_time_inputs_of(h, &q, gpu("H200"), 4, &in, &err), SW_SKIP);
	ck_assert_ptr_nonnull(strstr(err.msg, "atomics"));
}
END_TEST

/* The index of a rate in SW_TIME_RATES order. */
static int rate_index(const char *name)
{
	static const char *const names[] = {
#define X(n, units, about) #n,
		SW_TIME_RATES(X)
#undef X
	};
	for (int k = 0; k < SW_N_RATES; k++)
		if (!strcmp(names[k], name))
			return k;
	ck_abort_msg("no rate %s", name);
	return -1;
}

/* A fit given times the model made at known rates finds rates that give
 * those times back, and keeps the datasheet's where no point needs one. */
START_TEST(test_fit_recovers)
{
	const struct sw_gpu *g = gpu("H100-SXM");
	const struct sw_family *f = sw_family_find("strided_read"),
			       *s = sw_family_find("smem_bank");
	struct sw_time_rates truth, fit;
	sw_time_rates_datasheet(g, &truth);
	truth.dram_efficiency = 0.8;
	truth.shared_wavefronts_per_clk = 0.5;
	struct sw_time_obs obs[7];
	int n = 0;
	struct sw_err err = { 0 };
	/* a read of a word a granule: DRAM moves twice what L2 passes on, so
	 * an L2 term cannot stand in for the DRAM bandwidth */
	struct sw_point wide = { .variant = sw_variant_find(f, "course"),
				 .axis = { 16, INT64_C(64) << 20, -1, -1, -1, -1 } };
	ck_assert_int_eq(sw_time_inputs_of(f, &wide, g, 4, &obs[n++].in, &err), SW_OK);
	for (int k = 0; k < 3; k++) {
		struct sw_point p = { .variant = sw_variant_find(f, "stream_read"),
				      .axis = { -1, (INT64_C(64) << 20) << k, -1, -1, -1, -1 } };
		ck_assert_int_eq(sw_time_inputs_of(f, &p, g, 4, &obs[n].in, &err), SW_OK);
		n++;
		struct sw_point q = { .variant = sw_variant_find(s, "stride"),
				      .axis = { 1 << k, 0 } };
		ck_assert_int_eq(sw_time_inputs_of(s, &q, g, 4, &obs[n].in, &err), SW_OK);
		n++;
	}
	for (int i = 0; i < n; i++) {
		struct sw_time t;
		sw_time_eval(g, &truth, &obs[i].in, &t);
		obs[i].measured_ns = t.ns;
	}
	struct sw_time_fit_report rep;
	sw_time_rates_datasheet(g, &fit);
	ck_assert_int_eq(sw_time_fit(g, obs, n, &fit, &rep, &err), SW_OK);
	ck_assert(rep.error_before > 0.1 && rep.error_after < 0.01);
	ck_assert_double_eq_tol(fit.dram_efficiency, 0.8, 0.02);
	ck_assert_double_eq_tol(fit.shared_wavefronts_per_clk, 0.5, 0.02);
	ck_assert_int_eq(rep.fitted[SW_N_RATES - 2], 0); /* blocks_per_us_sm: no point needs it */
	ck_assert_double_eq(fit.blocks_per_us_sm, 0);
	/* the points behind each rate: the reads fit the DRAM's, the banks the
	 * shared memory's; none the constant cache's or a term left out */
	ck_assert_int_ge(rep.points[rate_index("dram_efficiency")], 3);
	ck_assert_int_le(rep.points[rate_index("dram_efficiency")], 4);
	ck_assert_int_eq(rep.points[rate_index("shared_wavefronts_per_clk")], 3);
	ck_assert_int_eq(rep.points[rate_index("blocks_per_us_sm")], 0);
	ck_assert_int_eq(rep.points[rate_index("constant_passes_per_clk")], 0);
	ck_assert_int_eq(sw_time_fit(g, obs, 2, &fit, &rep, &err), SW_EINVAL);
}
END_TEST

/* Inputs of a gather of 4-byte words through an index: 256M elements,
 * each request 32 scattered sectors of the data buffer (buffer 0, 1 GiB),
 * whose lanes span span_bytes of it; an index and an output stream beside. */
static void gather_inputs(double span_bytes, struct sw_time_inputs *in)
{
	double n = 256.0 * (1 << 20), warps = n / 32;
	memset(in, 0, sizeof *in);
	in->ld_requests = 2 * warps;
	in->st_requests = warps;
	in->ld_sectors = warps * (32 + 4);
	in->st_sectors = warps * 4;
	in->ld_lines = warps * (32 + 1);
	in->st_lines = warps;
	in->ld_granules = warps * (32 + 2);
	in->st_granules = warps * 2;
	in->ld_chunks = warps * (32 + 1);
	in->st_chunks = warps;
	in->in_bytes = 8 * n;
	in->out_bytes = 4 * n;
	in->buf_bytes[0] = in->buf_bytes[1] = in->buf_bytes[2] = 4 * n;
	in->buf_ld_sectors[0] = 32 * warps;
	in->buf_ld_span_bytes[0] = span_bytes;
	in->buf_ld_sectors[1] = 4 * warps;
	in->buf_ld_span_bytes[1] = 128;
	in->shape = (struct sw_launch_shape){ (uint64_t)(n / 256), 256, 0, 1 };
}

/* The L2's capacity: re-reads within a window the L2 holds cost no DRAM;
 * re-reads spread over four times more than the L2 mostly do, at the
 * granule a missed sector costs; a GPU whose L2 is unknown takes them as
 * hits. */
START_TEST(test_l2_capacity)
{
	const struct sw_gpu *g = gpu("H100-SXM");
	struct sw_time_rates r;
	struct sw_time_inputs near, far;
	struct sw_time a, b;
	sw_time_rates_datasheet(g, &r);
	gather_inputs(4 << 20, &near); /* a window of 1M words: 12 MB go by */
	gather_inputs(1 << 30, &far);  /* anywhere in 1 GiB: 3 GiB go by */
	sw_time_eval(g, &r, &near, &a);
	sw_time_eval(g, &r, &far, &b);
	double n = 256.0 * (1 << 20), first = 8 * n + 4 * n;
	ck_assert_double_eq_tol(a.term_ns[SW_TERM_DRAM] * 3350, first, first * 1e-9);
	/* 28 of every 32 bytes re-read, 1 - 50 MiB / 3 GiB of them missed */
	double missed = (32 - 4) * n / 32 * (1 - g->l2_bytes / (3.0 * (1 << 30)));
	ck_assert_double_eq_tol(b.term_ns[SW_TERM_DRAM] * 3350, first + 64 * missed, first * 1e-6);
	ck_assert(b.ns > 4 * a.ns);
	/* the rate a missed sector costs is the fit's to move */
	r.miss_sector_bytes = 32;
	sw_time_eval(g, &r, &far, &b);
	ck_assert_double_eq_tol(b.term_ns[SW_TERM_DRAM] * 3350, first + 32 * missed, first * 1e-6);
	/* an L2 the table does not know (0): no re-read misses */
	struct sw_gpu unknown = *g;
	unknown.l2_bytes = 0;
	sw_time_rates_datasheet(&unknown, &r);
	sw_time_eval(&unknown, &r, &far, &b);
	ck_assert_double_eq_tol(b.term_ns[SW_TERM_DRAM] * unknown.dram_gbps, first, first * 1e-9);
}
END_TEST

/* Latency: a warp waits on its loads, not its stores; each warp's start
 * and end is a round; a block with shared memory waits barrier_factor
 * times longer a round. */
START_TEST(test_latency_rounds)
{
	const struct sw_gpu *g = gpu("H100-SXM");
	struct sw_time_rates r;
	struct sw_time_inputs in;
	struct sw_time a, b;
	sw_time_rates_datasheet(g, &r);
	gather_inputs(4 << 20, &in);
	sw_time_eval(g, &r, &in, &a);
	double warps = 256.0 * (1 << 20) / 32, resident = 132 * 64; /* 2048 threads an SM */
	/* loads that wait: first touches (8 of the 36 bytes a load asks) */
	double waits = in.ld_requests * 8 / 36;
	double rounds = ceil((waits + warps) / resident);
	ck_assert_double_eq_tol(a.term_ns[SW_TERM_LATENCY], rounds * r.latency_ns, 1e-6);
	in.st_requests *= 4; /* more stores: no more waiting */
	sw_time_eval(g, &r, &in, &b);
	ck_assert_double_eq_tol(b.term_ns[SW_TERM_LATENCY], a.term_ns[SW_TERM_LATENCY], 1e-9);
	r.barrier_factor = 1.5;
	sw_time_eval(g, &r, &in, &b); /* no shared memory: no barrier */
	ck_assert_double_eq_tol(b.term_ns[SW_TERM_LATENCY], a.term_ns[SW_TERM_LATENCY], 1e-9);
	in.shape.shared_bytes = 4096;
	sw_time_eval(g, &r, &in, &b);
	ck_assert_double_eq_tol(b.term_ns[SW_TERM_LATENCY], 1.5 * a.term_ns[SW_TERM_LATENCY], 1e-6);
	/* twice the loads in flight: half the load rounds */
	in.shape.shared_bytes = 0;
	in.shape.in_flight = 2;
	sw_time_eval(g, &r, &in, &b);
	ck_assert_double_eq_tol(b.term_ns[SW_TERM_LATENCY],
				ceil((waits / 2 + warps) / resident) * r.latency_ns, 1e-6);
}
END_TEST

/* The rates a point's time uses: a term not zero for it. A read uses the
 * DRAM's and the L2's (a term the datasheet leaves out counts), not the
 * shared memory's; the banks the shared memory's, not the constant
 * cache's; every point the launch's. */
START_TEST(test_rates_used)
{
	const struct sw_gpu *g = gpu("H100-SXM");
	const struct sw_family *f = sw_family_find("strided_read"),
			       *s = sw_family_find("smem_bank");
	struct sw_time_inputs in;
	struct sw_err err = { 0 };
	struct sw_point p = { .variant = sw_variant_find(f, "stream_read"),
			      .axis = { -1, INT64_C(64) << 20, -1, -1, -1, -1 } };
	int used[SW_N_RATES] = { 0 };
	ck_assert_int_eq(sw_time_inputs_of(f, &p, g, 4, &in, &err), SW_OK);
	sw_time_rates_used(g, &in, used);
	ck_assert(used[rate_index("dram_efficiency")] && used[rate_index("l2_gbps")]);
	ck_assert(used[rate_index("launch_ns")]);
	ck_assert(!used[rate_index("shared_wavefronts_per_clk")]);
	ck_assert(!used[rate_index("constant_passes_per_clk")]);
	struct sw_point q = { .variant = sw_variant_find(s, "stride"), .axis = { 32, 0 } };
	ck_assert_int_eq(sw_time_inputs_of(s, &q, g, 4, &in, &err), SW_OK);
	sw_time_rates_used(g, &in, used); /* adds, never clears */
	ck_assert(used[rate_index("shared_wavefronts_per_clk")] && used[rate_index("l2_gbps")]);
	ck_assert(!used[rate_index("constant_passes_per_clk")]);
	ck_assert_str_eq(sw_rate_fit_word(SW_RATE_NOT_IDENTIFIABLE), "not identifiable");
	ck_assert_str_eq(sw_rate_fit_word(SW_RATE_DATASHEET), "");
}
END_TEST

/* FILE[:CLASS]: split at the last ':' only where FILE alone is no file. */
START_TEST(test_file_spec)
{
	char path[64], cls[64];
	sw_time_file_spec("a.h5:NVIDIA H200", path, sizeof path, cls, sizeof cls);
	ck_assert_str_eq(path, "a.h5");
	ck_assert_str_eq(cls, "NVIDIA H200");
	sw_time_file_spec("dir/b.h5", path, sizeof path, cls, sizeof cls);
	ck_assert_str_eq(path, "dir/b.h5");
	ck_assert_str_eq(cls, "");
	sw_time_file_spec("/tmp", path, sizeof path, cls, sizeof cls);
	ck_assert_str_eq(path, "/tmp");
}
END_TEST

/* A measured file of n rows: strided_read/stream_read at n = 64M, each
 * of the GPU and class given (the driver's name as /devices has it). */
static void measured(struct sw_measured *m, struct sw_measured_row *rows, int n,
		     const char *const *device, const char *const *cls)
{
	memset(m, 0, sizeof *m);
	memset(rows, 0, n * sizeof *rows);
	for (int i = 0; i < n; i++) {
		snprintf(rows[i].family, sizeof rows[i].family, "strided_read");
		snprintf(rows[i].variant, sizeof rows[i].variant, "stream_read");
		rows[i].median_ns = 1e5;
		snprintf(rows[i].device_name, sizeof rows[i].device_name, "%s", device[i]);
		snprintf(rows[i].device_class, sizeof rows[i].device_class, "%s", cls[i]);
	}
	m->rows = rows;
	m->n = (size_t)n;
}

/* spec's file m as --model-from (from) or --model-calibrate: refused,
 * the message naming the option and the spec, then want. */
static void refused(int from, const char *spec, const struct sw_measured *m, const char *want)
{
	struct sw_time_plan tp;
	struct sw_err err = { 0 };
	const char *specs[1] = { spec };
	enum sw_status st = from ? sw_time_plan_build(NULL, NULL, 0, spec, m, &tp, &err)
				 : sw_time_plan_build(specs, m, 1, NULL, NULL, &tp, &err);
	char head[256];
	snprintf(head, sizeof head, "%s %s: ", from ? "--model-from" : "--model-calibrate", spec);
	ck_assert_int_eq(st, SW_EINVAL);
	ck_assert_msg(!strncmp(err.msg, head, strlen(head)), "%s", err.msg);
	ck_assert_msg(strstr(err.msg, want), "%s", err.msg);
	ck_assert_ptr_null(tp.points);
}

/* Issue 36, cause 1: a --model-from file the time model cannot use is
 * refused as --model-calibrate's is (it crashed on the GPU it had not
 * found): no rows, a GPU the table lacks, a class it lacks, two classes. */
START_TEST(test_unusable_files)
{
	struct sw_measured m;
	struct sw_measured_row rows[2];
	const char *h100 = "NVIDIA H100 80GB HBM3", *z9 = "Tesla Z9";
	for (int from = 0; from < 2; from++) {
		measured(&m, rows, 0, NULL, NULL);
		refused(from, "model.h5", &m, "no measured ok rows: the time model takes");
		measured(&m, rows, 1, (const char *[]){ z9 }, (const char *[]){ z9 });
		refused(from, "z9.h5", &m, "its GPU 'Tesla Z9' is not in the time model's table");
		measured(&m, rows, 1, (const char *[]){ h100 }, (const char *[]){ h100 });
		refused(from, "m.h5:NVIDIA H200", &m,
			"no measured ok rows of class NVIDIA H200; it holds NVIDIA H100 80GB HBM3");
		measured(&m, rows, 2, (const char *[]){ h100, h100 }, (const char *[]){ "A", "B" });
		refused(from, "two.h5", &m,
			"it holds rows of several GPU classes (A, B): name one as two.h5:CLASS");
	}
}
END_TEST

/* strided_read with its shape or sizes replaced: a launch of no block
 * (issue 36, cause 9), nine buffers, a write past struct sw_sizes (cause 2). */
static const char *no_blocks(const struct sw_point *p, int sms, struct sw_launch_shape *s)
{
	(void)p, (void)sms;
	*s = (struct sw_launch_shape){ .blocks = 0, .threads = 256, .in_flight = 1 };
	return NULL;
}
static void nine_buffers(const struct sw_point *p, struct sw_sizes *s)
{
	(void)p;
	s->n_buffers = SW_MAX_BUFFERS + 1;
}
static void past_sizes(const struct sw_point *p, struct sw_sizes *s)
{
	(void)p;
	s->n_buffers = 1;
	memset(s + 1, 0x41, 16);
}

/* The time model's hooks: a shape of no block is no time (term none, NaN,
 * as the schema has it), a sizes() past its limits refused, never read. */
START_TEST(test_hooks_refused)
{
	struct sw_family f = *sw_family_find("strided_read");
	struct sw_point p = { .variant = sw_variant_find(&f, "stream_read"),
			      .axis = { -1, INT64_C(1) << 26, -1, -1, -1, -1 } };
	struct sw_time_inputs in;
	struct sw_time_plan tp;
	struct sw_err err = { 0 };
	struct sw_record rec;
	ck_assert_int_eq(sw_time_plan_build(NULL, NULL, 0, NULL, NULL, &tp, &err), SW_OK);
	f.shape = no_blocks;
	ck_assert_int_eq(sw_time_inputs_of(&f, &p, gpu("H200"), 4, &in, &err), SW_SKIP);
	ck_assert_msg(strstr(err.msg, "no time: family strided_read's shape() gives a launch of 0 "
				      "blocks"),
		      "%s", err.msg);
	memset(&rec, 0, sizeof rec);
	rec.model_time_ns = NAN;
	ck_assert_int_eq(sw_time_plan_predict(&tp, &f, &p, gpu("H200"), 4, &rec, &err), SW_OK);
	ck_assert(isnan(rec.model_time_ns));
	ck_assert_str_eq(rec.model_time_term, "none");
	f = *sw_family_find("strided_read");
	f.sizes = nine_buffers;
	ck_assert_int_eq(sw_time_plan_predict(&tp, &f, &p, gpu("H200"), 4, &rec, &err), SW_EINVAL);
	ck_assert_msg(strstr(err.msg, "sizes() sets n_buffers 9"), "%s", err.msg);
	f.sizes = past_sizes;
	ck_assert_int_eq(sw_time_inputs_of(&f, &p, gpu("H200"), 4, &in, &err), SW_EINVAL);
	ck_assert_msg(strstr(err.msg, "sizes() wrote past struct sw_sizes"), "%s", err.msg);
	sw_time_plan_fini(&tp);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("time_model");
	TCase *tc = tcase_create("time_model");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_table_sourced);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_dram_term);
	tcase_add_test(tc, test_shared_term);
	tcase_add_test(tc, test_l1_lines_term);
	tcase_add_test(tc, test_not_covered);
	tcase_add_test(tc, test_fit_recovers);
	tcase_add_test(tc, test_l2_capacity);
	tcase_add_test(tc, test_latency_rounds);
	tcase_add_test(tc, test_rates_used);
	tcase_add_test(tc, test_file_spec);
	tcase_add_test(tc, test_unusable_files);
	tcase_add_test(tc, test_hooks_refused);
	suite_add_tcase(s, tc);
	return sw_check_run(s);
}
