/*
 * The time model (time_model.h). Every term is a count over a rate: the
 * counts come from the model's walk over the point's requests
 * (model.c), the family's buffers and launch; the rates from the GPU's
 * table row and struct sw_time_rates. docs/model.md, "Time", gives the
 * reasoning behind each line.
 */
#include "model/time_model.h"

#include <math.h>
#include <string.h>

#include "model/model.h"

/* The terms' smooth maximum: (sum t^p)^(1/p). 4 makes a term twice another
 * add 3% to it, and two equal terms 19%: where two resources both run
 * near their limit, neither hides the other wholly. */
#define SMOOTH_P 4.0
/* The CUDA C Programming Guide's global-memory latency, "about 200 to 400
 * clock cycles for devices of compute capability 3.x" (its later editions
 * give no figure): the middle, for the datasheet rates. */
#define DATASHEET_LATENCY_CYCLES 300.0
/* The L1 looks up one 128-byte line a cycle: a request that touches four
 * lines takes four cycles however few sectors it asks for (Nsight
 * Compute's L1 "wavefronts"). A fixed rate, not a fitted one: no fleet
 * point tells it apart from the request rate. */
#define L1_LINES_PER_CLK 1.0

const char *sw_time_term_word(enum sw_time_term t)
{
	static const char *const words[] = {
#define X(id, word) word,
		SW_TIME_TERMS(X)
#undef X
	};
	return t >= 0 && t < SW_N_TERMS ? words[t] : "launch";
}

void sw_time_rates_datasheet(const struct sw_gpu *gpu, struct sw_time_rates *r)
{
	memset(r, 0, sizeof *r);
	r->dram_efficiency = 1.0;
	r->dram_chunk_bytes = 2 * SW_MODEL_GRANULE_BYTES;
	r->miss_sector_bytes = SW_MODEL_GRANULE_BYTES; /* a sector fetched alone: its granule */
	r->latency_ns = DATASHEET_LATENCY_CYCLES / (gpu->boost_mhz * 1e-3);
	r->barrier_factor = 1.0;
	/* the same README's cachebench: about 14.8 32-bit loads a clock an SM
	 * from data its L1 holds, 0.46 warp requests (the fleets fit 0.44 on
	 * the H100 and the H200; that is no source: it is the calibration's) */
	r->l1_requests_per_clk = 0.46;
	r->l1_sectors_per_clk = 4.0; /* 128 bytes: 32 banks of 4 bytes */
	r->shared_wavefronts_per_clk = 1.0;
	/* gpumembench's constbench (Konstantinidis and Cotronis, PDP 2016; its
	 * README's GTX 480 run): 14.98 uniform 32-bit constant loads a clock an
	 * SM, every lane on one address: 14.98 / 32 = 0.47 passes a cycle */
	r->constant_passes_per_clk = 0.47;
}

enum sw_status sw_time_inputs_from(const struct sw_family *f, const struct sw_point *p,
				   const struct sw_gpu *gpu, const struct sw_model_figures *m,
				   struct sw_time_inputs *in, struct sw_err *err)
{
	struct sw_sizes sz;
	memset(in, 0, sizeof *in);
	if (!f->shape)
		return sw_fail(err, SW_SKIP, "%s", SW_NO_TIME_NO_SHAPE);
	const char *why = f->shape(p, gpu->sms, &in->shape);
	if (why)
		return sw_fail(err, SW_SKIP, "no time: %s", why);
	/* no block or no thread is no launch: every rate a grid's SMs give
	 * would be 0, and the time NaN beside a term */
	if (!in->shape.blocks || !in->shape.threads)
		return sw_fail(err, SW_SKIP,
			       "no time: family %s's shape() gives a launch of %llu blocks of %u "
			       "threads, which runs nothing",
			       f->name, (unsigned long long)in->shape.blocks, in->shape.threads);
	if (!f->variants[p->variant].requests)
		return sw_fail(err, SW_SKIP, "no time: variant %s has no access pattern to model",
			       f->variants[p->variant].name);
	/* guarded: a plug-in's sizes() that kept its limits while the plan was
	 * checked may break them now */
	enum sw_status st = sw_family_sizes(f, p, &sz, err);
	if (st != SW_OK)
		return st;
	for (int b = 0; b < sz.n_buffers; b++) {
		*(b < sz.n_inputs ? &in->in_bytes : &in->out_bytes) += (double)sz.bytes[b];
		in->buf_bytes[b] = (double)sz.bytes[b];
	}
	in->buf_bytes[SW_MODEL_NO_BUFFER] = in->in_bytes;
	for (int b = 0; b <= SW_MAX_BUFFERS; b++) {
		in->buf_ld_sectors[b] = m->buf_ld_sectors[b];
		in->buf_ld_span_bytes[b] = m->buf_ld_span_bytes[b];
	}
	in->ld_requests = m->ld_requests;
	in->st_requests = m->st_requests;
	in->ld_sectors = m->ld_transactions;
	in->st_sectors = m->st_transactions;
	in->ld_lines = m->ld_lines;
	in->st_lines = m->st_lines;
	in->ld_granules = m->ld_granules;
	in->st_granules = m->st_granules;
	in->ld_chunks = m->ld_chunks;
	in->st_chunks = m->st_chunks;
	in->shared_wavefronts = m->shared_ld_wavefronts + m->shared_st_wavefronts;
	in->constant_passes = m->constant_passes;
	in->flops = f->flops ? f->flops(p) : 0;
	return SW_OK;
}

enum sw_status sw_time_inputs_of(const struct sw_family *f, const struct sw_point *p,
				 const struct sw_gpu *gpu, int kepler_bank_bytes,
				 struct sw_time_inputs *in, struct sw_err *err)
{
	struct sw_model_figures m;
	struct sw_launch_shape sh;
	memset(in, 0, sizeof *in);
	/* the cheap refusals first: a point the time model skips needs no walk */
	const char *why = f->shape ? f->shape(p, gpu->sms, &sh) : "";
	if (why)
		return sw_time_inputs_from(f, p, gpu, NULL, in, err);
	enum sw_status st = sw_model_eval_banked(&f->variants[p->variant], p, gpu->cc,
						 kepler_bank_bytes, &m, err);
	if (st != SW_OK)
		return st == SW_SKIP ? sw_wrap(err, "no time") : st;
	return sw_time_inputs_from(f, p, gpu, &m, in, err);
}

/* Warps resident on the whole GPU at once: blocks an SM holds by its
 * threads, blocks and shared memory, times the SMs, at most the grid. */
static double resident_warps(const struct sw_gpu *gpu, const struct sw_cc_limits *lim,
			     const struct sw_launch_shape *sh)
{
	double warps = ceil(sh->threads / 32.0), per_sm = lim->blocks;
	if (warps < 1)
		warps = 1;
	if (floor(lim->threads / (32 * warps)) < per_sm)
		per_sm = floor(lim->threads / (32 * warps));
	if (sh->shared_bytes && floor((double)lim->shared_bytes / sh->shared_bytes) < per_sm)
		per_sm = floor((double)lim->shared_bytes / sh->shared_bytes);
	if (per_sm < 1)
		per_sm = 1;
	double blocks = per_sm * gpu->sms;
	return (sh->blocks < blocks ? (double)sh->blocks : blocks) * warps;
}

/* Where a point's loads find their data. Each buffer's first touches
 * (its footprint: its load sectors' bytes, at most the buffer) come from
 * DRAM; a re-read of one comes back from the L2 while the data that went
 * by since it was last read fit in it. That reuse distance is taken as the
 * span one request covers in the buffer, scaled by the bytes of every
 * buffer that pass for each byte of this one: a gather within a window of
 * W bytes, beside two streams of the same length, re-reads within 3 W.
 * Past the L2, a fraction of the re-reads miss (an LRU cache of C bytes
 * over a reuse distance D > C keeps C / D of them). */
struct reuse {
	double first_bytes;  /* the buffers' footprints, summed */
	double read_bytes;   /* the bytes of the buffers loads read */
	double miss_sectors; /* re-read sectors that come from DRAM */
};

static struct reuse reuse_of(const struct sw_time_inputs *in, double l2_bytes)
{
	struct reuse u = { 0, 0, 0 };
	double foot[SW_MAX_BUFFERS + 1], all = in->out_bytes;
	for (int b = 0; b <= SW_MAX_BUFFERS; b++) {
		double read = 32 * in->buf_ld_sectors[b];
		foot[b] = fmin(read, in->buf_bytes[b] > 0 ? in->buf_bytes[b] : read);
		u.first_bytes += foot[b];
		u.read_bytes += read > 0 ? in->buf_bytes[b] : 0;
		all += foot[b];
	}
	for (int b = 0; b <= SW_MAX_BUFFERS && l2_bytes > 0; b++) {
		double again = 32 * in->buf_ld_sectors[b] - foot[b];
		if (again <= 0 || foot[b] <= 0)
			continue;
		double dist = fmin(all, in->buf_ld_span_bytes[b] * all / foot[b]);
		if (dist > l2_bytes)
			u.miss_sectors += again / 32 * (1 - l2_bytes / dist);
	}
	return u;
}

/* DRAM: loads move granules, and each chunk they touch at least
 * chunk_bytes, never more than the buffers they read hold (re-reads are
 * the L2's),
 * and re-reads the L2 lost at miss_sector_bytes each; stores write the
 * outputs, or their granules where scattered stores touch more. */
static double dram_bytes(const struct sw_time_inputs *in, const struct sw_time_rates *r,
			 const struct reuse *u)
{
	double g = SW_MODEL_GRANULE_BYTES;
	double rd = fmax(g * in->ld_granules, r->dram_chunk_bytes * in->ld_chunks);
	double wr = fmax(in->out_bytes, g * in->st_granules);
	return fmin(rd, u->read_bytes) + u->miss_sectors * r->miss_sector_bytes + wr;
}

void sw_time_eval(const struct sw_gpu *gpu, const struct sw_time_rates *r,
		  const struct sw_time_inputs *in, struct sw_time *out)
{
	const struct sw_cc_limits *lim = sw_cc_limits_of(gpu->cc);
	double *t = out->term_ns;
	memset(out, 0, sizeof *out);
	out->term = SW_TERM_LAUNCH;
	if (!lim) {
		out->ns = NAN;
		return;
	}
	/* SM cycles a ns, on the SMs the grid fills: a grid of 32 blocks
	 * leaves the rest idle */
	double busy = (double)in->shape.blocks < gpu->sms ? (double)in->shape.blocks : gpu->sms;
	double clk = gpu->boost_mhz * 1e-3 * busy;
	double requests = in->ld_requests + in->st_requests;
	struct reuse u = reuse_of(in, gpu->l2_bytes);
	/* loads of sectors the L2 still holds hit a cache; the others go to DRAM */
	double fresh =
		in->ld_sectors > 0
			? fmin(1.0, (u.first_bytes + 32 * u.miss_sectors) / (32 * in->ld_sectors))
			: 1.0;
	/* a warp waits on its loads (in_flight at a time), not its stores, and
	 * its start and end take a round trip more: a grid of short warps pays
	 * it on each, a long loop once */
	double warps = (double)in->shape.blocks * ceil(in->shape.threads / 32.0);
	double rounds = (in->ld_requests * fresh / fmax(1, in->shape.in_flight) + warps) /
			resident_warps(gpu, lim, &in->shape);

	t[SW_TERM_DRAM] = dram_bytes(in, r, &u) / (gpu->dram_gbps * r->dram_efficiency);
	if (r->l2_gbps > 0)
		t[SW_TERM_L2] = 32 * (in->ld_sectors * fresh + in->st_sectors) / r->l2_gbps;
	double l1_cycles = fmax(requests / r->l1_requests_per_clk,
				(in->ld_sectors + in->st_sectors) / r->l1_sectors_per_clk);
	t[SW_TERM_L1] = fmax(l1_cycles, (in->ld_lines + in->st_lines) / L1_LINES_PER_CLK) / clk;
	t[SW_TERM_SHARED] = in->shared_wavefronts / (clk * r->shared_wavefronts_per_clk);
	t[SW_TERM_CONSTANT] = in->constant_passes / (clk * r->constant_passes_per_clk);
	/* a block staged through shared memory meets at a barrier, where each
	 * round waits for its slowest warp, not its mean one */
	double wait = r->latency_ns * (in->shape.shared_bytes ? r->barrier_factor : 1.0);
	t[SW_TERM_LATENCY] = requests > 0 ? ceil(rounds) * wait : 0;
	if (r->blocks_per_us_sm > 0)
		t[SW_TERM_BLOCKS] = in->shape.blocks / (gpu->sms * r->blocks_per_us_sm * 1e-3);
	if (gpu->fp32_gflops > 0)
		t[SW_TERM_FP32] = in->flops / (gpu->fp32_gflops * busy / gpu->sms);

	double sum = 0, most = 0;
	for (int k = 0; k < SW_N_TERMS; k++) {
		sum += pow(t[k], SMOOTH_P);
		if (t[k] > most)
			most = t[k], out->term = (enum sw_time_term)k;
	}
	out->ns = r->launch_ns + pow(sum, 1 / SMOOTH_P);
	if (most < r->launch_ns)
		out->term = SW_TERM_LAUNCH;
}
