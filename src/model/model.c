/*
 * The model backend (model.h). Each rule cites its source in docs/model.md:
 * the course notes (NOTES.md claims) and the CUDA C Programming Guide's
 * compute-capability appendix. The requests looked at are spread evenly
 * over the point, then refined where the kind of request changes; each
 * stands for the requests around it (sw_model_eval_banked).
 */
#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sw_model_supports(int cc)
{
	switch (cc / 10) {
	case 1: return cc == 10 || cc == 11 || cc == 12 || cc == 13;
	case 2:
	case 3:
	case 5:
	case 6:
	case 7:
	case 8:
	case 9:
	case 10:
	case 11:
	case 12: return 1;
	default: return 0;
	}
}

/* Sorts v[0..n) and returns the number of distinct values, compacted in
 * front. An insertion sort: a warp's lanes give a few dozen values, most
 * often in order already, which it passes over once, where qsort's calls
 * through a pointer took most of a replayed row's model (issue 31). */
static int distinct(uint64_t *v, int n)
{
	for (int i = 1; i < n; i++) {
		uint64_t x = v[i];
		int j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	int k = 0;
	for (int i = 0; i < n; i++)
		if (k == 0 || v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

/* Units of `unit` bytes the lanes in [first, last) touch: distinct, in units. */
static int units_touched(const struct sw_request *r, int first, int last, uint64_t unit,
			 uint64_t *out)
{
	int n = 0;
	for (int l = first; l < last; l++) {
		if (!(r->active & (1u << l)))
			continue;
		for (uint64_t u = r->addr[l] / unit; u <= (r->addr[l] + r->word_bytes - 1) / unit;
		     u++)
			out[n++] = u;
	}
	return distinct(out, n);
}

static int lanes_active(const struct sw_request *r, int first, int last)
{
	int n = 0;
	for (int l = first; l < last; l++)
		n += (r->active >> l) & 1;
	return n;
}

/* CC 1.0/1.1, per half-warp (C1-C3, C15): one transaction when lane k reads
 * word k of a region of 16 words aligned to its size, with 4-, 8- or 16-byte
 * words; otherwise one 32-byte transaction per active lane. */
static void half_warp_strict(const struct sw_request *r, int first, struct sw_model_cost *c)
{
	int active = lanes_active(r, first, first + 16);
	if (!active)
		return;
	int w = r->word_bytes;
	uint64_t region = 16 * (uint64_t)w, base = UINT64_MAX;
	int ok = w == 4 || w == 8 || w == 16;
	for (int l = first; l < first + 16 && ok; l++) {
		if (!(r->active & (1u << l)))
			continue;
		uint64_t b = r->addr[l] - (uint64_t)(l - first) * w;
		if (base == UINT64_MAX)
			base = b;
		ok = b == base && r->addr[l] >= (uint64_t)(l - first) * w;
	}
	if (ok && base % region == 0) {
		/* 16-byte words: the 256-byte region goes as two 128-byte transactions */
		c->transactions += w == 16 ? 2 : 1;
		c->moved_bytes += (int)region;
	} else {
		c->transactions += active;
		c->moved_bytes += active * (w > 32 ? w : 32);
	}
}

/* CC 1.2/1.3, per half-warp (C4): one transaction per segment touched (32 B
 * for 1-byte words, 64 B for 2-byte, 128 B otherwise), each shrunk to the half
 * (then the quarter) that holds all its used bytes. */
static void half_warp_segments(const struct sw_request *r, int first, struct sw_model_cost *c)
{
	uint64_t seg = r->word_bytes == 1 ? 32 : r->word_bytes == 2 ? 64 : 128;
	uint64_t segs[64];
	int n = units_touched(r, first, first + 16, seg, segs);
	for (int s = 0; s < n; s++) {
		uint64_t lo = UINT64_MAX, hi = 0, start = segs[s] * seg;
		for (int l = first; l < first + 16; l++) {
			if (!(r->active & (1u << l)))
				continue;
			uint64_t a = r->addr[l], e = a + r->word_bytes - 1;
			if (e < start || a >= start + seg)
				continue;
			lo = a > start ? (a < lo ? a : lo) : start;
			hi = e < start + seg - 1 ? (e > hi ? e : hi) : start + seg - 1;
		}
		uint64_t size = seg;
		while (size > 32 && lo / (size / 2) == hi / (size / 2))
			size /= 2;
		c->transactions++;
		c->moved_bytes += (int)size;
	}
}

/* Distinct values of sorted[0..n) shifted right by k: the 64-, 128- and
 * 256-byte units a request's distinct 32-byte sectors fall in. */
static int coarser(const uint64_t *sorted, int n, int k)
{
	int count = 0;
	for (int i = 0; i < n; i++)
		count += i == 0 || sorted[i] >> k != sorted[i - 1] >> k;
	return count;
}

static void global_cost(const struct sw_request *r, int cc, struct sw_model_cost *c)
{
	uint64_t sectors[64];
	/* one sort: every coarser unit is counted from the sorted sectors */
	int n = units_touched(r, 0, 32, 32, sectors);
	if (cc <= 11) {
		half_warp_strict(r, 0, c);
		half_warp_strict(r, 16, c);
	} else if (cc <= 13) {
		half_warp_segments(r, 0, c);
		half_warp_segments(r, 16, c);
	} else if (cc < 30) { /* Fermi: loads cached in L1, 128-byte lines per warp */
		c->transactions = coarser(sectors, n, 2);
		c->moved_bytes = c->transactions * 128;
	} else { /* 32-byte segments (3.x-5.x, through L2) and sectors (6.0 on) */
		c->transactions = n;
		c->moved_bytes = n * 32;
	}
	_Static_assert(SW_MODEL_GRANULE_BYTES == 64 && SW_MODEL_CHUNK_BYTES == 256,
		       "the shifts below count 64- and 256-byte units of 32-byte sectors");
	c->lines = coarser(sectors, n, 2);
	c->chunks = coarser(sectors, n, 3);
	c->granules = cc >= 60 ? coarser(sectors, n, 1) : c->transactions;
}

/* Passes a shared request takes: the most distinct words any bank must serve
 * (several lanes on one word are served at once: broadcast, multicast). 1.x
 * serves each half-warp with 16 banks (C16); later GPUs serve the warp with 32,
 * 4-byte banks, in phases of 128 bytes for wider words. The degree is the
 * worst phase; wavefronts add up the phases, as hardware counters count them. */
static void shared_cost(const struct sw_request *r, int cc, int kepler_bank_bytes,
			struct sw_model_cost *c)
{
	/* Kepler's 8-byte mode: banks of 8-byte words, 256 bytes per pass */
	int unit = cc / 10 == 3 && kepler_bank_bytes == 8 ? 8 : 4;
	int banks = cc < 20 ? 16 : 32;
	int group = cc < 20 ? 16 : 32;
	if (cc >= 20 && r->word_bytes > unit)
		group = 32 * unit / r->word_bytes; /* 4-byte banks: half-warps of 8-byte words... */
	for (int first = 0; first < 32; first += group) {
		uint64_t words[32 * 4];
		int n = 0, worst = 0;
		for (int l = first; l < first + group; l++)
			if (r->active & (1u << l))
				for (uint64_t w = r->addr[l] / unit;
				     w <= (r->addr[l] + r->word_bytes - 1) / unit; w++)
					words[n++] = w;
		n = distinct(words, n);
		int per_bank[32] = { 0 };
		for (int i = 0; i < n; i++) {
			int b = (int)(words[i] % (uint64_t)banks);
			if (++per_bank[b] > worst)
				worst = per_bank[b];
		}
		if (worst > c->conflict_degree)
			c->conflict_degree = worst;
		c->wavefronts += worst;
		c->ideal_wavefronts += n > 0;
	}
}

/* Constant memory serialises distinct addresses (per half-warp on 1.x, C17). */
static int constant_degree(const struct sw_request *r, int cc)
{
	int group = cc < 20 ? 16 : 32, worst = 0;
	for (int first = 0; first < 32; first += group) {
		uint64_t a[32];
		int n = 0;
		for (int l = first; l < first + group; l++)
			if (r->active & (1u << l))
				a[n++] = r->addr[l];
		n = distinct(a, n);
		worst = n > worst ? n : worst;
	}
	return worst;
}

enum sw_status sw_model_request(const struct sw_request *req, int cc, struct sw_model_cost *cost,
				struct sw_err *err)
{
	return sw_model_request_banked(req, cc, SW_KEPLER_BANK_BYTES_DEFAULT, cost, err);
}

enum sw_status sw_model_request_banked(const struct sw_request *req, int cc, int kepler_bank_bytes,
				       struct sw_model_cost *cost, struct sw_err *err)
{
	memset(cost, 0, sizeof *cost);
	if (!sw_model_supports(cc))
		return sw_fail(err, SW_EINVAL, "no model rules for CC %d.%d", cc / 10, cc % 10);
	if (kepler_bank_bytes != 4 && kepler_bank_bytes != 8)
		return sw_fail(err, SW_EINVAL, "banks of %d bytes: Kepler has 4 or 8",
			       kepler_bank_bytes);
	if (req->word_bytes < 1 || req->word_bytes > 32)
		return sw_fail(err, SW_EINVAL, "word of %d bytes", req->word_bytes);
	/* Useful bytes are the distinct words asked for: lanes sharing a word
	 * (a broadcast) need it moved once. */
	uint64_t a[32];
	int n = 0;
	for (int l = 0; l < 32; l++)
		if (req->active & (1u << l))
			a[n++] = req->addr[l];
	cost->useful_bytes = distinct(a, n) * req->word_bytes;
	switch (req->space) {
	case SW_SPACE_GLOBAL: global_cost(req, cc, cost); break;
	case SW_SPACE_SHARED: shared_cost(req, cc, kepler_bank_bytes, cost); break;
	case SW_SPACE_CONSTANT: cost->conflict_degree = constant_degree(req, cc); break;
	}
	return SW_OK;
}

enum sw_status sw_model_eval(const struct sw_variant *v, const struct sw_point *p, int cc,
			     struct sw_model_figures *out, struct sw_err *err)
{
	return sw_model_eval_banked(v, p, cc, SW_KEPLER_BANK_BYTES_DEFAULT, out, err);
}

/* One evaluated request: where it is in the point, what kind it is, what
 * it costs. */
struct sample {
	uint64_t r;
	int lanes; /* active lanes; 0: a warp with no lane left issues nothing */
	enum sw_space space;
	int is_store;
	int access;        /* of the variant's named accesses; 0 when it names none */
	int buffer;        /* its slot in the per-buffer figures (SW_MODEL_NO_BUFFER: none) */
	double span_bytes; /* global: highest lane address less the lowest, plus a word */
	struct sw_model_cost c;
};

enum sw_status sw_model_request_bounds(const struct sw_request *req, const struct sw_sizes *sz,
				       struct sw_err *err)
{
	if (req->space != SW_SPACE_GLOBAL || req->buffer == SW_BUFFER_NONE)
		return SW_OK;
	if (req->buffer < 0 || req->buffer >= sz->n_buffers)
		return sw_fail(err, SW_EINVAL,
			       "names buffer %d, but the point has %d (sw_request.buffer indexes "
			       "sw_sizes.bytes)",
			       req->buffer, sz->n_buffers);
	uint64_t size = sz->bytes[req->buffer];
	for (int l = 0; l < 32; l++) {
		uint64_t a = req->addr[l];
		if (!(req->active & (1u << l)) ||
		    (a <= size && (uint64_t)req->word_bytes <= size - a))
			continue;
		return sw_fail(err, SW_EINVAL,
			       "lane %d %s bytes %llu to %llu of buffer %d, past its %llu bytes "
			       "(sizes())",
			       l, req->is_store ? "writes" : "reads", (unsigned long long)a,
			       (unsigned long long)(a + (uint64_t)req->word_bytes - 1), req->buffer,
			       (unsigned long long)size);
	}
	return SW_OK;
}

void sw_model_request_name(const struct sw_variant *v, uint64_t r, int access, char *buf,
			   size_t len)
{
	int n = sw_variant_access_count(v);
	if (n && access >= 0 && access < n)
		snprintf(buf, len, "%s request %llu (access %s)", v->name, (unsigned long long)r,
			 v->accesses[access]);
	else
		snprintf(buf, len, "%s request %llu", v->name, (unsigned long long)r);
}

/* The requests one evaluation looks at, in the order of r. */
struct walk {
	const struct sw_variant *v;
	const struct sw_point *p;
	const struct sw_sizes *sz; /* NULL: lanes unchecked */
	int cc, kepler_bank_bytes;
	struct sample *s;
	int n;          /* held in s */
	int left;       /* looks the bisection may still take */
	int n_accesses; /* the variant's named accesses */
};

/* The bytes between a request's lowest and highest active lane, a word
 * included: how widely it scatters over its buffer. */
static double lane_span(const struct sw_request *req)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	for (unsigned l = 0; l < 32; l++)
		if (req->active & (1u << l)) {
			lo = req->addr[l] < lo ? req->addr[l] : lo;
			hi = req->addr[l] > hi ? req->addr[l] : hi;
		}
	return (double)(hi - lo) + req->word_bytes;
}

static enum sw_status look(struct walk *w, uint64_t r, struct sample *s, struct sw_err *err)
{
	struct sw_request req;
	req.access = 0;              /* a family that names no accesses may leave it */
	req.buffer = SW_BUFFER_NONE; /* nor does an API 2 plug-in know the field */
	w->v->requests(w->p, r, &req);
	memset(s, 0, sizeof *s);
	s->r = r;
	s->lanes = __builtin_popcount(req.active);
	s->space = req.space;
	s->is_store = req.is_store;
	s->access = w->n_accesses ? req.access : 0;
	if (s->access < 0 || s->access >= (w->n_accesses ? w->n_accesses : 1))
		return sw_fail(err, SW_EINVAL,
			       "%s request %llu belongs to access %d, but the variant names %d "
			       "(sw_request.access indexes sw_variant.accesses)",
			       w->v->name, (unsigned long long)r, req.access, w->n_accesses);
	s->buffer =
		req.buffer >= 0 && req.buffer < SW_MAX_BUFFERS ? req.buffer : SW_MODEL_NO_BUFFER;
	if (!s->lanes)
		return SW_OK;
	s->span_bytes = lane_span(&req);
	if (w->sz && sw_model_request_bounds(&req, w->sz, err) != SW_OK) {
		char who[128];
		sw_model_request_name(w->v, r, s->access, who, sizeof who);
		return sw_wrap(err, "%s", who);
	}
	if (sw_model_request_banked(&req, w->cc, w->kepler_bank_bytes, &s->c, err) != SW_OK)
		return sw_wrap(err, "%s request %llu", w->v->name, (unsigned long long)r);
	return SW_OK;
}

static int same_kind(const struct sample *a, const struct sample *b)
{
	return a->lanes == b->lanes && a->space == b->space && a->is_store == b->is_store &&
	       a->access == b->access;
}

/* Finds by bisection where the kind of request changes between a (the last
 * held) and b (held next), holding each request it looks at in order: a
 * partial warp at the end of a grid-stride loop then counts once, not for
 * the gap of the even spread. Stops when its looks run out. */
static enum sw_status refine(struct walk *w, const struct sample *a, const struct sample *b,
			     struct sw_err *err)
{
	struct sample m;
	enum sw_status st;
	if (same_kind(a, b) || b->r - a->r < 2 || w->left == 0)
		return SW_OK;
	w->left--;
	if ((st = look(w, a->r + (b->r - a->r) / 2, &m, err)) != SW_OK ||
	    (st = refine(w, a, &m, err)) != SW_OK)
		return st;
	w->s[w->n++] = m;
	return refine(w, &w->s[w->n - 1], b, err);
}

/* Whole-point sums: each held request stands for itself and half the
 * requests between it and each neighbour held. */
struct tally {
	double issued, global, trans, useful, moved, ld, ld_trans, st, st_trans;
	double other, degree, sh_ld, sh_waves, sh_ideal;
	double ld_lines, st_lines, ld_gran, st_gran, ld_chunks, st_chunks, sh_st, sh_st_waves, con,
		con_passes;
	double buf_ld[SW_MAX_BUFFERS + 1], buf_sectors[SW_MAX_BUFFERS + 1],
		buf_span[SW_MAX_BUFFERS + 1];
};

static void tally_add(struct tally *t, const struct sample *s, double wt)
{
	if (!s->lanes)
		return;
	t->issued += wt;
	if (s->space == SW_SPACE_GLOBAL) {
		t->global += wt;
		t->trans += wt * s->c.transactions;
		t->useful += wt * s->c.useful_bytes;
		t->moved += wt * s->c.moved_bytes;
		if (s->is_store)
			t->st += wt, t->st_trans += wt * s->c.transactions,
				t->st_lines += wt * s->c.lines, t->st_gran += wt * s->c.granules,
				t->st_chunks += wt * s->c.chunks;
		else
			t->ld += wt, t->ld_trans += wt * s->c.transactions,
				t->ld_lines += wt * s->c.lines, t->ld_gran += wt * s->c.granules,
				t->ld_chunks += wt * s->c.chunks, t->buf_ld[s->buffer] += wt,
				t->buf_sectors[s->buffer] += wt * s->c.transactions,
				t->buf_span[s->buffer] += wt * s->span_bytes;
		return;
	}
	t->other += wt;
	t->degree += wt * s->c.conflict_degree;
	if (s->space == SW_SPACE_CONSTANT)
		t->con += wt, t->con_passes += wt * s->c.conflict_degree;
	else if (!s->is_store)
		t->sh_ld += wt, t->sh_waves += wt * s->c.wavefronts,
			t->sh_ideal += wt * s->c.ideal_wavefronts;
	else
		t->sh_st += wt, t->sh_st_waves += wt * s->c.wavefronts;
}

/* Access a's sums, and whether its counts are exact: each held request
 * of it stands for wt requests, wt - 1 of them not looked at; an end of
 * one of its stretches is found when the request beside it, of another
 * kind, was looked at too. */
static void access_add(struct sw_access_figures *f, const struct sample *s, double wt, int *first)
{
	if (*first) {
		f->space = s->space;
		f->is_store = s->is_store;
		*first = 0;
	}
	f->requests += wt;
	f->costed += 1;
	if (s->space == SW_SPACE_GLOBAL) {
		f->transactions += wt * s->c.transactions;
		f->useful_bytes += wt * s->c.useful_bytes;
		f->moved_bytes += wt * s->c.moved_bytes;
	} else if (s->space == SW_SPACE_SHARED) {
		f->wavefronts += wt * s->c.wavefronts;
	}
}

/* Per-access figures of the n held requests s[] (weights as in the tally). */
static void accesses_of(const struct sample *s, int n, int n_accesses, struct sw_model_figures *out)
{
	int first[SW_MAX_ACCESSES], unseen[SW_MAX_ACCESSES] = { 0 }, lost[SW_MAX_ACCESSES] = { 0 };
	int global[SW_MAX_ACCESSES] = { 0 }, shared[SW_MAX_ACCESSES] = { 0 };
	out->n_accesses = n_accesses;
	for (int a = 0; a < n_accesses; a++)
		first[a] = 1;
	for (int i = 0; i < n; i++) {
		uint64_t before = i ? s[i].r - s[i - 1].r - 1 : 0;
		uint64_t after = i + 1 < n ? s[i + 1].r - s[i].r - 1 : 0;
		int a = s[i].access;
		/* an end of a stretch not found: a gap to a request of another kind */
		if ((i && before && !same_kind(&s[i - 1], &s[i])) ||
		    (i + 1 < n && after && !same_kind(&s[i], &s[i + 1])))
			lost[a] = 1;
		if (!s[i].lanes)
			continue;
		unseen[a] |= before || after;
		global[a] |= s[i].space == SW_SPACE_GLOBAL;
		shared[a] |= s[i].space == SW_SPACE_SHARED;
		access_add(&out->access[a], &s[i], 1 + (double)before / 2 + (double)after / 2,
			   &first[a]);
	}
	for (int a = 0; a < n_accesses; a++) {
		struct sw_access_figures *f = &out->access[a];
		f->counts = !unseen[a] ? SW_COUNTS_EXACT
			    : !lost[a] ? SW_COUNTS_REQUESTS
				       : SW_COUNTS_SAMPLED;
		if (!global[a])
			f->transactions = f->useful_bytes = f->moved_bytes = NAN;
		if (!shared[a])
			f->wavefronts = NAN;
	}
}

static void figures_of(const struct tally *t, int cc, struct sw_model_figures *out)
{
	out->requests = t->issued;
	out->global_requests = t->global;
	out->ld_requests = t->ld;
	out->ld_transactions = t->ld_trans;
	out->st_requests = t->st;
	out->st_transactions = t->st_trans;
	out->shared_ld_requests = t->sh_ld;
	out->shared_ld_wavefronts = t->sh_waves;
	out->shared_ld_conflicts = t->sh_waves - t->sh_ideal;
	out->shared_st_requests = t->sh_st;
	out->shared_st_wavefronts = t->sh_st_waves;
	out->constant_requests = t->con;
	out->constant_passes = t->con_passes;
	out->ld_lines = t->ld_lines;
	out->st_lines = t->st_lines;
	out->ld_granules = t->ld_gran;
	out->st_granules = t->st_gran;
	out->ld_chunks = t->ld_chunks;
	out->st_chunks = t->st_chunks;
	for (int b = 0; b <= SW_MAX_BUFFERS; b++) {
		out->buf_ld_sectors[b] = t->buf_sectors[b];
		out->buf_ld_span_bytes[b] = t->buf_ld[b] > 0 ? t->buf_span[b] / t->buf_ld[b] : 0;
	}
	if (t->global > 0) {
		out->transactions_per_request = t->trans / t->global;
		out->sectors_per_request = cc >= 60 ? out->transactions_per_request : NAN;
		out->useful_bytes = t->useful;
		out->moved_bytes = t->moved;
		out->efficiency = t->useful / t->moved;
	}
	if (t->other > 0)
		out->conflict_degree = t->degree / t->other;
}

/* Looks at up to SW_MODEL_MAX_SAMPLED requests spread evenly over [0,
 * total), the first and last included, then where the kind changes between
 * two of them (refine). */
static enum sw_status walk_point(struct walk *w, uint64_t total, struct sw_err *err)
{
	uint64_t even = total < SW_MODEL_MAX_SAMPLED ? total : SW_MODEL_MAX_SAMPLED;
	struct sample e;
	enum sw_status st;
	for (uint64_t k = 0; k < even; k++) {
		uint64_t r =
			even == 1
				? 0
				: (uint64_t)((double)k * (double)(total - 1) / (double)(even - 1));
		if ((st = look(w, r, &e, err)) != SW_OK ||
		    (w->n && (st = refine(w, &w->s[w->n - 1], &e, err)) != SW_OK))
			return st;
		w->s[w->n++] = e;
	}
	return SW_OK;
}

static int by_request(const void *a, const void *b)
{
	uint64_t x = ((const struct sample *)a)->r, y = ((const struct sample *)b)->r;
	return x < y ? -1 : x > y;
}

/* More looks at each named access held fewer than SW_MODEL_PER_ACCESS
 * times: evenly between its first and last held request; then the held
 * requests back in order of r, each once. */
static enum sw_status widen_accesses(struct walk *w, struct sw_err *err)
{
	for (int a = 0; a < w->n_accesses; a++) {
		int held = 0, n = w->n;
		uint64_t lo = UINT64_MAX, hi = 0;
		for (int i = 0; i < n; i++)
			if (w->s[i].access == a && w->s[i].lanes) {
				held++;
				lo = w->s[i].r < lo ? w->s[i].r : lo;
				hi = w->s[i].r > hi ? w->s[i].r : hi;
			}
		if (!held || held >= SW_MODEL_PER_ACCESS || hi - lo + 1 <= (uint64_t)held)
			continue;
		for (int k = 0; k < SW_MODEL_PER_ACCESS; k++) {
			uint64_t r = lo + (uint64_t)((double)k * (double)(hi - lo) /
						     (SW_MODEL_PER_ACCESS - 1));
			enum sw_status st = look(w, r, &w->s[w->n], err);
			if (st != SW_OK)
				return st;
			w->n++;
		}
	}
	qsort(w->s, (size_t)w->n, sizeof *w->s, by_request);
	int kept = 0;
	for (int i = 0; i < w->n; i++)
		if (!kept || w->s[i].r != w->s[kept - 1].r)
			w->s[kept++] = w->s[i];
	w->n = kept;
	return SW_OK;
}

enum sw_status sw_model_eval_banked(const struct sw_variant *v, const struct sw_point *p, int cc,
				    int kepler_bank_bytes, struct sw_model_figures *out,
				    struct sw_err *err)
{
	return sw_model_eval_sized(v, p, NULL, cc, kepler_bank_bytes, out, err);
}

enum sw_status sw_model_eval_sized(const struct sw_variant *v, const struct sw_point *p,
				   const struct sw_sizes *sz, int cc, int kepler_bank_bytes,
				   struct sw_model_figures *out, struct sw_err *err)
{
	memset(out, 0, sizeof *out);
	out->transactions_per_request = out->sectors_per_request = NAN;
	out->efficiency = out->conflict_degree = NAN;
	if (!v->requests)
		return sw_fail(err, SW_SKIP, "variant %s has no access pattern to model", v->name);
	if (!sw_model_supports(cc))
		return sw_fail(err, SW_SKIP, "no model rules for CC %d.%d", cc / 10, cc % 10);

	int n_accesses = sw_variant_access_count(v);
	uint64_t total = v->requests(p, 0, NULL);
	if (total == 0)
		return SW_OK;
	struct walk w = {
		v, p, sz, cc, kepler_bank_bytes, NULL, 0, SW_MODEL_MAX_REFINED, n_accesses
	};
	int most =
		SW_MODEL_MAX_SAMPLED + SW_MODEL_MAX_REFINED + SW_MAX_ACCESSES * SW_MODEL_PER_ACCESS;
	w.s = malloc((size_t)most * sizeof *w.s);
	if (!w.s)
		return sw_fail(err, SW_ENOMEM, "model: no memory for %d requests", most);
	enum sw_status st = walk_point(&w, total, err);
	if (st == SW_OK)
		st = widen_accesses(&w, err);
	struct tally t = { 0 };
	for (int i = 0; st == SW_OK && i < w.n; i++) {
		double before = i ? (double)(w.s[i].r - w.s[i - 1].r - 1) : 0;
		double after = i + 1 < w.n ? (double)(w.s[i + 1].r - w.s[i].r - 1) : 0;
		tally_add(&t, &w.s[i], 1 + before / 2 + after / 2);
	}
	if (st == SW_OK)
		figures_of(&t, cc, out);
	if (st == SW_OK)
		accesses_of(w.s, w.n, n_accesses, out);
	free(w.s);
	return st;
}

/* ---- a family's sizes(), called where a write past it shows ----------
 * A plug-in's sizes() is its own code: sweep cannot stop it writing, but
 * it can call it where a write lands in guard bytes, and refuse what it
 * says before any fixed array of the harness is sized by it. */

/* Bytes after the scratch struct a write past it lands in: bytes[] or
 * sampled_elem[] indices up to about SW_MAX_BUFFERS + 32. */
#define GUARD_BYTES 256
#define GUARD_BYTE  0xA5

struct guarded_sizes {
	struct sw_sizes s;
	unsigned char guard[GUARD_BYTES];
};

static int guard_intact(const struct guarded_sizes *g)
{
	for (size_t i = 0; i < sizeof g->guard; i++)
		if (g->guard[i] != GUARD_BYTE)
			return 0;
	return 1;
}

/* The limit s breaks, as a message tail; NULL when it keeps them all. */
static const char *broken(const struct sw_sizes *s, char *buf, size_t len)
{
	if (s->n_buffers < 0 || s->n_buffers > SW_MAX_BUFFERS)
		snprintf(buf, len,
			 "sets n_buffers %d; a point has 0 to %d buffers (SW_MAX_BUFFERS of "
			 "<sweep/family.h>)",
			 s->n_buffers, SW_MAX_BUFFERS);
	else if (s->n_inputs < 0 || s->n_inputs > s->n_buffers)
		snprintf(buf, len,
			 "sets n_inputs %d with n_buffers %d; the inputs are the first 0 to "
			 "n_buffers buffers",
			 s->n_inputs, s->n_buffers);
	else
		return NULL;
	return buf;
}

enum sw_status sw_family_sizes(const struct sw_family *f, const struct sw_point *p,
			       struct sw_sizes *sz, struct sw_err *err)
{
	struct guarded_sizes g;
	char why[160];
	const char *limit;

	memset(&g.s, 0, sizeof g.s);
	memset(g.guard, GUARD_BYTE, sizeof g.guard);
	f->sizes(p, &g.s);
	if (!guard_intact(&g)) {
		memset(sz, 0, sizeof *sz);
		return sw_fail(err, SW_EINVAL,
			       "sizes() wrote past struct sw_sizes (%zu bytes; its arrays hold "
			       "SW_MAX_BUFFERS, %d, buffers)",
			       sizeof g.s, SW_MAX_BUFFERS);
	}
	if ((limit = broken(&g.s, why, sizeof why))) {
		memset(sz, 0, sizeof *sz);
		return sw_fail(err, SW_EINVAL, "sizes() %s", limit);
	}
	*sz = g.s;
	return SW_OK;
}
