/*
 * sweep --check-plugin (plugin_try.h): a plug-in's hooks called on the host
 * for every point of its families, its requests held to the buffers its
 * sizes() declares (the model's own test, sw_model_request_bounds), and
 * its host reference held to its check(). It launches no kernel and runs
 * no fill, prepare or release: those need a GPU.
 */
#define _GNU_SOURCE
#include "run/plugin_try.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"
#include "job/limits.h"
#include "job/plan.h"
#include "job/plugin.h"
#include "job/plugin_check.h"
#include "model/model.h"

/* The SM count shape() is asked about: an H100 SXM's. */
#define TRY_SMS 132

/* What the checks saw of one variant. */
struct tally {
	uint64_t points, refused, requests, walked, unnamed;
	uint64_t ref_full, ref_sampled, ref_views, ref_not;
	char ref_why[SW_MSG_LEN]; /* the first reason a reference check was not made */
};

struct ctx {
	const char *path;
	const struct sw_plugin_info *info;
	struct tally *t; /* [family - first_family][variant] */
	char label[256]; /* the point being checked */
	struct sw_err *err;
};

static const struct sw_plugin_info *loaded(const char *path)
{
	char real[4096];

	if (!realpath(path, real))
		return NULL;
	for (int i = 0; i < sw_plugin_count(); i++)
		if (!strcmp(sw_plugin_at(i)->path, real))
			return sw_plugin_at(i);
	return NULL;
}

enum sw_status sw_plugin_try_job(const char *path, struct sw_job *job, struct sw_err *err)
{
	const struct sw_plugin_info *info = loaded(path);
	const char *names[SW_PLUGIN_MAX_FAMILIES];

	if (!info || info->n_families > SW_PLUGIN_MAX_FAMILIES)
		return sw_fail(err, SW_EINVAL, "--check-plugin %s: no such plug-in loaded", path);
	for (int i = 0; i < info->n_families; i++)
		names[i] = sw_family_at(info->first_family + i)->name;
	return sw_job_from_families(names, info->n_families, job, err);
}

/* A failure of the point being checked, naming the plug-in and point. */
static enum sw_status bad(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static enum sw_status bad(struct ctx *c, const char *fmt, ...)
{
	char what[SW_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return sw_fail(c->err, SW_EINVAL, "plug-in %s: point %s: %s", c->path, c->label, what);
}

/* useful_bytes(), flops() and shape() of p: numbers a row can hold. */
static enum sw_status try_numbers(struct ctx *c, const struct sw_family *f,
				  const struct sw_point *p)
{
	double ub = f->useful_bytes(p), fl = f->flops(p);
	struct sw_launch_shape s = { 0 };

	if (!(ub >= 0) || isinf(ub))
		return bad(c,
			   "useful_bytes() gives %g; a point's useful bytes are finite and not "
			   "negative",
			   ub);
	if (!(fl >= 0) || isinf(fl))
		return bad(c, "flops() gives %g; a point's flops are finite and not negative", fl);
	if (f->shape && !f->shape(p, TRY_SMS, &s) &&
	    (s.blocks < 1 || s.threads < 1 || s.threads > 1024))
		return bad(c,
			   "shape() on %d SMs gives %llu blocks of %u threads; a launch has 1 or "
			   "more blocks of 1 to 1024 threads",
			   TRY_SMS, (unsigned long long)s.blocks, s.threads);
	return SW_OK;
}

/* Request r of variant v at p: its access one of v's, its word and space
 * ones the model knows, every active lane inside the buffer it names. */
static enum sw_status try_request(struct ctx *c, const struct sw_variant *v,
				  const struct sw_point *p, const struct sw_sizes *sz, uint64_t r,
				  struct tally *t)
{
	struct sw_request req;
	int n_acc = sw_variant_access_count(v);
	char who[160];

	memset(&req, 0, sizeof req);
	req.buffer = SW_BUFFER_NONE; /* an API 2 plug-in does not know the field */
	v->requests(p, r, &req);
	t->walked++;
	if (req.access < 0 || req.access >= (n_acc ? n_acc : 1))
		return bad(c,
			   "%s request %llu belongs to access %d, but the variant names %d "
			   "(sw_request.access indexes sw_variant.accesses)",
			   v->name, (unsigned long long)r, req.access, n_acc);
	if (!req.active)
		return SW_OK;
	sw_model_request_name(v, r, req.access, who, sizeof who);
	if (req.space != SW_SPACE_GLOBAL && req.space != SW_SPACE_SHARED &&
	    req.space != SW_SPACE_CONSTANT)
		return bad(c, "%s: space %d is none of enum sw_space", who, (int)req.space);
	if (req.word_bytes < 1 || req.word_bytes > 32)
		return bad(c, "%s: a word of %d bytes; a lane moves 1 to 32", who, req.word_bytes);
	t->unnamed += req.space == SW_SPACE_GLOBAL && req.buffer == SW_BUFFER_NONE;
	if (sw_model_request_bounds(&req, sz, c->err) != SW_OK)
		return sw_wrap(c->err, "plug-in %s: point %s: %s", c->path, c->label, who);
	return SW_OK;
}

/* Every request of p up to SW_TRY_ALL_REQUESTS; beyond, the first and last
 * quarter of that many and half of it spread evenly between. */
static enum sw_status try_requests(struct ctx *c, const struct sw_variant *v,
				   const struct sw_point *p, const struct sw_sizes *sz,
				   struct tally *t)
{
	const uint64_t all = SW_TRY_ALL_REQUESTS, q = all / 4, mid = all / 2;
	uint64_t total;
	enum sw_status st = SW_OK;

	if (!v->requests)
		return SW_OK;
	total = v->requests(p, 0, NULL);
	t->requests += total;
	if (total <= all) {
		for (uint64_t r = 0; st == SW_OK && r < total; r++)
			st = try_request(c, v, p, sz, r, t);
		return st;
	}
	for (uint64_t k = 0; st == SW_OK && k < q; k++)
		st = try_request(c, v, p, sz, k, t);
	for (uint64_t k = 0; st == SW_OK && k < mid; k++)
		st = try_request(c, v, p, sz,
				 q + (uint64_t)((double)k * (double)(total - 2 * q) / mid), t);
	for (uint64_t k = 0; st == SW_OK && k < q; k++)
		st = try_request(c, v, p, sz, total - q + k, t);
	return st;
}

/* Whether output i comes back as its sampled elements only (measure.c's rule). */
static int sampled(const struct sw_sizes *sz, int i)
{
	return sz->sampled_elem[i] && sz->bytes[i] >= sz->sampled_elem[i];
}

/* check() of p on the outputs at out[] (seeds as o's). */
static struct sw_check run_check(const struct sw_family *f, const struct sw_point *p,
				 const struct sw_sizes *sz, const struct sw_host_out *o,
				 void *const *out)
{
	struct sw_host_out view = *o;
	struct sw_check chk = { 0 };

	for (int i = sz->n_inputs; i < sz->n_buffers; i++)
		view.out[i] = out[i];
	f->check(p, &view, &chk);
	return chk;
}

/* What the harness copies back of a sampled output: the elements of eb
 * bytes sw_sample_index picks, from the n of from into to. */
static void copy_picks(const void *from, size_t eb, uint64_t n, uint64_t sample_seed, void *to)
{
	for (uint32_t k = 0; k < SW_CHECK_SAMPLES; k++) {
		size_t at = (size_t)sw_sample_index(sample_seed, k, n) * eb;
		memcpy((unsigned char *)to + at, (const unsigned char *)from + at, eb);
	}
}

static const char *mode_name(const struct sw_check *chk)
{
	return chk->mode == SW_CHECK_FULL ? "full" : "sampled";
}

/* The reference's outputs hb through check(): as they are (must pass),
 * every byte inverted (must fail), and where an output comes back as its
 * samples, those alone in an inverted view (must pass). inv: a scratch
 * copy of each output's size. */
static enum sw_status hold_check(struct ctx *c, const struct sw_family *f, const struct sw_point *p,
				 const struct sw_sizes *sz, const struct sw_host_buffers *hb,
				 void **inv, struct tally *t)
{
	struct sw_host_out o = { .seed = hb->seed, .sample_seed = sw_mix64(hb->seed ^ 0x5eed) };
	struct sw_check chk;
	int views = 0;

	for (int i = sz->n_inputs; i < sz->n_buffers; i++)
		o.bytes[i] = sz->bytes[i];
	chk = run_check(f, p, sz, &o, hb->buf);
	if (!chk.ok)
		return bad(c, "check() fails the reference's own output (%s, %llu elements): %s",
			   mode_name(&chk), (unsigned long long)chk.checked, chk.msg);
	*(chk.mode == SW_CHECK_FULL ? &t->ref_full : &t->ref_sampled) += 1;
	for (int i = sz->n_inputs; i < sz->n_buffers; i++)
		for (size_t k = 0; k < sz->bytes[i]; k++)
			((unsigned char *)inv[i])[k] =
				(unsigned char)~((unsigned char *)hb->buf[i])[k];
	chk = run_check(f, p, sz, &o, inv);
	if (chk.ok)
		return bad(c,
			   "check() passes the reference's output with every byte inverted (%s, "
			   "%llu elements): it compares nothing the output holds",
			   mode_name(&chk), (unsigned long long)chk.checked);
	for (int i = sz->n_inputs; i < sz->n_buffers; i++)
		if (sampled(sz, i) && ++views)
			copy_picks(hb->buf[i], sz->sampled_elem[i],
				   sz->bytes[i] / sz->sampled_elem[i], o.sample_seed, inv[i]);
	if (!views)
		return SW_OK;
	chk = run_check(f, p, sz, &o, inv);
	if (!chk.ok)
		return bad(c,
			   "check() fails the reference's output when only the elements a sampled "
			   "check picks come back (sampled_elem set; %s, %llu elements): %s; a "
			   "point that sets sampled_elem gets only sw_check_pick's elements back",
			   mode_name(&chk), (unsigned long long)chk.checked, chk.msg);
	t->ref_views++;
	return SW_OK;
}

static void not_checked(struct tally *t, const char *why)
{
	if (!t->ref_not++)
		snprintf(t->ref_why, sizeof t->ref_why, "%s", why);
}

/* The host reference of pt, where f has one: inputs filled as sweep's
 * default fill would (its own fill is the reference's to redo), outputs
 * zeroed, then hold_check. */
static enum sw_status try_reference(struct ctx *c, const struct sw_family *f,
				    const struct sw_plan_point *pt, const struct sw_sizes *sz,
				    struct tally *t)
{
	struct sw_host_buffers hb = { .seed = sw_mix64(pt->id) };
	void *inv[SW_MAX_BUFFERS] = { 0 };
	uint64_t total = 0;
	enum sw_status st = SW_OK;
	char why[SW_MSG_LEN];
	const char *said;

	if (!f->reference)
		return SW_OK;
	if (!f->check) {
		not_checked(t, "the family has no check() to hold its reference to");
		return SW_OK;
	}
	for (int i = 0; i < sz->n_buffers; i++)
		total += sz->bytes[i] + (i >= sz->n_inputs ? sz->bytes[i] : 0);
	if (total > SW_TRY_HOST_BYTES) {
		snprintf(why, sizeof why, "a point's buffers of %llu bytes, more than %llu",
			 (unsigned long long)total, (unsigned long long)SW_TRY_HOST_BYTES);
		not_checked(t, why);
		return SW_OK;
	}
	for (int i = 0; i < sz->n_buffers && st == SW_OK; i++) {
		hb.bytes[i] = sz->bytes[i];
		hb.buf[i] = calloc(1, sz->bytes[i] ? sz->bytes[i] : 1);
		if (i >= sz->n_inputs && hb.buf[i])
			inv[i] = malloc(sz->bytes[i] ? sz->bytes[i] : 1);
		if (!hb.buf[i] || (i >= sz->n_inputs && !inv[i]))
			st = sw_fail(c->err, SW_ENOMEM, "no memory for point %s's %llu bytes",
				     c->label, (unsigned long long)total);
		else if (i < sz->n_inputs)
			sw_input_fill(hb.buf[i], sz->bytes[i] / sizeof(float),
				      hb.seed + (uint64_t)i);
	}
	if (st == SW_OK && (said = f->reference(&pt->p, &hb)))
		not_checked(t, said);
	else if (st == SW_OK)
		st = hold_check(c, f, &pt->p, sz, &hb, inv, t);
	for (int i = 0; i < sz->n_buffers; i++)
		free(hb.buf[i]), free(inv[i]);
	return st;
}

/* One point of the plug-in's: its hooks, its requests, its reference. */
static enum sw_status try_point(struct ctx *c, const struct sw_plan_point *pt)
{
	const struct sw_family *f = sw_family_at(pt->family);
	const struct sw_variant *v = &f->variants[pt->p.variant];
	struct tally *t =
		&c->t[(pt->family - c->info->first_family) * SW_MAX_VARIANTS + pt->p.variant];
	struct sw_sizes sz;
	char why[SW_MSG_LEN];
	enum sw_status st;

	sw_point_label(pt, c->label, sizeof c->label);
	t->points++;
	if (f->refuse(&pt->p, why, sizeof why)) {
		t->refused++;
		return SW_OK;
	}
	if (sw_family_sizes(f, &pt->p, &sz, c->err) != SW_OK)
		return sw_wrap(c->err, "plug-in %s: point %s", c->path, c->label);
	if ((st = try_numbers(c, f, &pt->p)) || (st = try_requests(c, v, &pt->p, &sz, t)))
		return st;
	return try_reference(c, f, pt, &sz, t);
}

/* "4.2M" for a count. */
static const char *count(uint64_t n, char *buf, size_t len)
{
	if (n >= 10000000)
		snprintf(buf, len, "%.1fM", (double)n / 1e6);
	else
		snprintf(buf, len, "%llu", (unsigned long long)n);
	return buf;
}

static void print_variant(FILE *out, const struct sw_variant *v, const struct tally *t)
{
	char a[32], b[32], ref[96] = "no reference hook";

	if (t->ref_full + t->ref_sampled + t->ref_not || t->ref_views)
		snprintf(ref, sizeof ref, "%llu full, %llu sampled, %llu sampled views, %llu not",
			 (unsigned long long)t->ref_full, (unsigned long long)t->ref_sampled,
			 (unsigned long long)t->ref_views, (unsigned long long)t->ref_not);
	fprintf(out, "  %-14s %6llu %7llu %9s %9s %9llu  %s\n", v->name,
		(unsigned long long)t->points, (unsigned long long)t->refused,
		count(t->requests, a, sizeof a), count(t->walked, b, sizeof b),
		(unsigned long long)t->unnamed, v->requests ? ref : "(not modelled)");
	if (t->ref_not)
		fprintf(out, "  %-14s reference not checked at %llu points: %s\n", "",
			(unsigned long long)t->ref_not, t->ref_why);
}

static void print_summary(FILE *out, const struct ctx *c, const struct sw_job *job)
{
	uint64_t unnamed = 0;

	int defaults = !strcmp(job->path, SW_JOB_FAMILY_PATH);

	fprintf(out,
		"plug-in %s, %s%s: every request of a point walked up to %llu, else %llu of "
		"them (the first and last %llu, the rest spread between); each lane held to "
		"the buffer its request names\n",
		c->path, defaults ? "its families at their default axes" : "the points of ",
		defaults ? "" : job->path, (unsigned long long)SW_TRY_ALL_REQUESTS,
		(unsigned long long)SW_TRY_ALL_REQUESTS,
		(unsigned long long)SW_TRY_ALL_REQUESTS / 4);
	for (int i = 0; i < c->info->n_families; i++) {
		const struct sw_family *f = sw_family_at(c->info->first_family + i);
		fprintf(out, "\nfamily %s\n  %-14s %6s %7s %9s %9s %9s  %s\n", f->name, "variant",
			"points", "refused", "requests", "walked", "no buffer",
			"reference checks (outputs through check())");
		for (int v = 0; v < f->n_variants; v++) {
			const struct tally *t = &c->t[i * SW_MAX_VARIANTS + v];
			print_variant(out, &f->variants[v], t);
			unnamed += t->unnamed;
		}
	}
	if (unnamed)
		fprintf(out,
			"\n%llu global requests walked name no buffer (sw_request_buffer): their "
			"lanes were not held to one\n",
			(unsigned long long)unnamed);
	fprintf(out, "\nplug-in %s passes\n", c->path);
}

enum sw_status sw_plugin_try(const char *path, const struct sw_job *job, FILE *out,
			     struct sw_err *err)
{
	struct ctx c = { .path = path, .info = loaded(path), .err = err };
	struct sw_plan plan = { 0 };
	enum sw_status st;

	if (!c.info)
		return sw_fail(err, SW_EINVAL, "--check-plugin %s: no such plug-in loaded", path);
	c.t = calloc((size_t)c.info->n_families * SW_MAX_VARIANTS, sizeof *c.t);
	if (!c.t)
		return sw_fail(err, SW_ENOMEM, "no memory to check plug-in %s", path);
	st = sw_plan_build(job, 0, &plan, err);
	for (size_t i = 0; st == SW_OK && i < plan.n; i++)
		if (plan.points[i].family >= c.info->first_family &&
		    plan.points[i].family < c.info->first_family + c.info->n_families)
			st = try_point(&c, &plan.points[i]);
	uint64_t points = 0;
	for (int i = 0; i < c.info->n_families * SW_MAX_VARIANTS; i++)
		points += c.t[i].points;
	if (st == SW_OK && !points)
		st = sw_fail(
			err, SW_EINVAL,
			"--check-plugin %s: the job %s has no point of the plug-in's families; "
			"name one of them in it, or leave the job out to check them at their "
			"default axes",
			path, job->path);
	if (st == SW_OK)
		print_summary(out, &c, job);
	sw_plan_fini(&plan);
	free(c.t);
	return st;
}
