/* The cost model of cost.h: known durations by id, learned rates by variant,
 * the nominal rate for the rest. */
#include "run/cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

/* ---- known durations ------------------------------------------------- */

struct by_id {
	uint64_t id;
	size_t row; /* file order: the later row of an id wins */
	double wall_s;
};

static int cmp_by_id(const void *pa, const void *pb)
{
	const struct by_id *a = pa, *b = pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->row > b->row) - (a->row < b->row);
}

static enum sw_status build_known(struct sw_cost_model *m, const struct sw_duration *rows, size_t n,
				  struct sw_err *err)
{
	struct by_id *tmp = malloc((n ? n : 1) * sizeof *tmp);
	size_t k = 0;

	if (!tmp)
		return sw_fail(err, SW_ENOMEM, "out of memory for %zu known durations", n);
	for (size_t i = 0; i < n; i++)
		if (isfinite(rows[i].wall_s) && rows[i].wall_s >= 0)
			tmp[k++] = (struct by_id){ rows[i].point_id, i, rows[i].wall_s };
	qsort(tmp, k, sizeof *tmp, cmp_by_id);
	m->known = malloc((k ? k : 1) * sizeof *m->known);
	if (!m->known) {
		free(tmp);
		return sw_fail(err, SW_ENOMEM, "out of memory for %zu known durations", k);
	}
	for (size_t i = 0; i < k; i++) {
		if (i + 1 < k && tmp[i + 1].id == tmp[i].id)
			continue; /* the last row of an id is the latest */
		m->known[m->n_known++] = (struct sw_cost_known){ tmp[i].id, tmp[i].wall_s };
	}
	free(tmp);
	return SW_OK;
}

static int cmp_known(const void *key, const void *elem)
{
	uint64_t id = *(const uint64_t *)key,
		 other = ((const struct sw_cost_known *)elem)->point_id;

	return (id > other) - (id < other);
}

/* ---- known durations by class ---------------------------------------- */

struct by_class {
	uint32_t cls;
	uint64_t id;
	size_t row; /* file order: the later row of a pair wins */
	double wall_s;
};

static int cmp_by_class(const void *pa, const void *pb)
{
	const struct by_class *a = pa, *b = pb;

	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->row > b->row) - (a->row < b->row);
}

/* The index of label among m's classes, or -1. */
static long find_class(const struct sw_cost_model *m, const char *label)
{
	for (size_t c = 0; c < m->n_classes; c++)
		if (!strncmp(m->classes[c], label, SW_DURATION_CLASS_LEN))
			return (long)c;
	return -1;
}

/* The index of label, added when new; -1 without memory. */
static long class_index(struct sw_cost_model *m, const char *label, size_t *cap)
{
	long c = find_class(m, label);

	if (c >= 0)
		return c;
	if (m->n_classes == *cap) {
		size_t n = *cap ? 2 * *cap : 4;
		char(*more)[SW_DURATION_CLASS_LEN] = realloc(m->classes, n * sizeof *more);
		if (!more)
			return -1;
		m->classes = more;
		*cap = n;
	}
	snprintf(m->classes[m->n_classes], SW_DURATION_CLASS_LEN, "%s", label);
	return (long)m->n_classes++;
}

/* The rows' (class, id) pairs of known duration, classes[] and
 * class_known[] of m. */
static enum sw_status build_class_known(struct sw_cost_model *m, const struct sw_duration *rows,
					size_t n, struct sw_err *err)
{
	struct by_class *tmp = malloc((n ? n : 1) * sizeof *tmp);
	size_t k = 0, cap = 0;
	int oom = !tmp;

	for (size_t i = 0; !oom && i < n; i++) {
		long c;
		if (!rows[i].device_class[0] || !isfinite(rows[i].wall_s) || rows[i].wall_s < 0)
			continue;
		c = class_index(m, rows[i].device_class, &cap);
		oom = c < 0;
		if (!oom)
			tmp[k++] = (struct by_class){ (uint32_t)c, rows[i].point_id, i,
						      rows[i].wall_s };
	}
	if (!oom)
		m->class_known = malloc((k ? k : 1) * sizeof *m->class_known);
	if (oom || !m->class_known) {
		free(tmp);
		return sw_fail(err, SW_ENOMEM, "out of memory for %zu durations by class", n);
	}
	qsort(tmp, k, sizeof *tmp, cmp_by_class);
	for (size_t i = 0; i < k; i++)
		if (i + 1 == k || tmp[i + 1].cls != tmp[i].cls || tmp[i + 1].id != tmp[i].id)
			m->class_known[m->n_class_known++] =
				(struct sw_cost_class_known){ tmp[i].cls, tmp[i].id,
							      tmp[i].wall_s };
	free(tmp);
	return SW_OK;
}

static int cmp_class_known(const void *key, const void *elem)
{
	const struct sw_cost_class_known *a = key, *b = elem;

	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	return (a->point_id > b->point_id) - (a->point_id < b->point_id);
}

/* ---- learned rates --------------------------------------------------- */

enum rate_kind { PER_BYTE, PER_FLOP };

struct sample {
	const struct sw_duration *row;
	enum rate_kind kind;
	double rate;
};

static int cmp_names(const char *fa, const char *va, const char *fb, const char *vb)
{
	int c = strncmp(fa, fb, SW_TEXT_LEN);

	return c ? c : strncmp(va, vb, SW_TEXT_LEN);
}

static int cmp_sample(const void *pa, const void *pb)
{
	const struct sample *a = pa, *b = pb;
	int c = cmp_names(a->row->family, a->row->variant, b->row->family, b->row->variant);

	if (c)
		return c;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return (a->rate > b->rate) - (a->rate < b->rate);
}

/* The rate a row teaches, if any: ok rows of positive duration only. */
static int sample_of(const struct sw_duration *r, struct sample *s)
{
	if (r->status != SW_ROW_OK || !isfinite(r->wall_s) || r->wall_s <= 0)
		return 0;
	s->row = r;
	if (isfinite(r->useful_bytes) && r->useful_bytes > 0) {
		s->kind = PER_BYTE;
		s->rate = r->wall_s / r->useful_bytes;
		return 1;
	}
	if ((r->useful_bytes == 0 || !isfinite(r->useful_bytes)) && isfinite(r->flops) &&
	    r->flops > 0) {
		s->kind = PER_FLOP;
		s->rate = r->wall_s / r->flops;
		return 1;
	}
	return 0;
}

/* Median of the sorted rates s[0..n). */
static double median(const struct sample *s, size_t n)
{
	return n % 2 ? s[n / 2].rate : 0.5 * (s[n / 2 - 1].rate + s[n / 2].rate);
}

static int same_group(const struct sample *a, const struct sample *b)
{
	return a->kind == b->kind &&
	       !cmp_names(a->row->family, a->row->variant, b->row->family, b->row->variant);
}

/* One rate entry per variant, from samples sorted by name, kind and rate:
 * a variant's byte and flop rates land in the same entry. */
static void fold_rates(struct sw_cost_model *m, const struct sample *s, size_t k)
{
	for (size_t i = 0, j; i < k; i = j) {
		const struct sw_duration *row = s[i].row;
		struct sw_cost_rate *r = m->n_rates ? &m->rates[m->n_rates - 1] : NULL;

		for (j = i; j < k && same_group(&s[j], &s[i]); j++)
			;
		if (!r || cmp_names(r->family, r->variant, row->family, row->variant)) {
			r = &m->rates[m->n_rates++];
			memcpy(r->family, row->family, SW_TEXT_LEN);
			memcpy(r->variant, row->variant, SW_TEXT_LEN);
			r->family[SW_TEXT_LEN - 1] = r->variant[SW_TEXT_LEN - 1] = '\0';
			r->s_per_byte = r->s_per_flop = NAN;
		}
		if (s[i].kind == PER_BYTE)
			r->s_per_byte = median(s + i, j - i);
		else
			r->s_per_flop = median(s + i, j - i);
	}
}

static enum sw_status build_rates(struct sw_cost_model *m, const struct sw_duration *rows, size_t n,
				  struct sw_err *err)
{
	struct sample *s = malloc((n ? n : 1) * sizeof *s);
	size_t k = 0;

	if (!s)
		return sw_fail(err, SW_ENOMEM, "out of memory for %zu rates", n);
	for (size_t i = 0; i < n; i++)
		k += sample_of(&rows[i], &s[k]);
	qsort(s, k, sizeof *s, cmp_sample);
	m->rates = malloc((k ? k : 1) * sizeof *m->rates);
	if (!m->rates) {
		free(s);
		return sw_fail(err, SW_ENOMEM, "out of memory for %zu rates", k);
	}
	fold_rates(m, s, k);
	free(s);
	return SW_OK;
}

struct name_key {
	const char *family, *variant;
};

static int cmp_rate(const void *key, const void *elem)
{
	const struct name_key *k = key;
	const struct sw_cost_rate *r = elem;

	return cmp_names(k->family, k->variant, r->family, r->variant);
}

/* ---- the model ------------------------------------------------------- */

enum sw_status sw_cost_init(struct sw_cost_model *m, const struct sw_duration *rows, size_t n,
			    struct sw_err *err)
{
	enum sw_status st;

	memset(m, 0, sizeof *m);
	st = build_known(m, rows, n, err);
	if (st == SW_OK)
		st = build_class_known(m, rows, n, err);
	if (st == SW_OK)
		st = build_rates(m, rows, n, err);
	if (st)
		sw_cost_fini(m);
	return st;
}

enum sw_status sw_cost_init_rates(struct sw_cost_model *m, const struct sw_duration *rows, size_t n,
				  struct sw_err *err)
{
	memset(m, 0, sizeof *m);
	enum sw_status st = build_rates(m, rows, n, err);
	if (st)
		sw_cost_fini(m);
	return st;
}

void sw_cost_fini(struct sw_cost_model *m)
{
	free(m->known);
	free(m->classes);
	free(m->class_known);
	free(m->rates);
	memset(m, 0, sizeof *m);
}

static double count_or_zero(double x)
{
	return isfinite(x) && x > 0 ? x : 0.0;
}

struct sw_cost sw_cost_estimate(const struct sw_cost_model *m, uint64_t point_id,
				const char *family, const char *variant, double useful_bytes,
				double flops)
{
	struct name_key key = { family, variant };
	const struct sw_cost_known *known = NULL;
	const struct sw_cost_rate *rate = NULL;
	double bytes = count_or_zero(useful_bytes), fl = count_or_zero(flops);

	if (m->n_known)
		known = bsearch(&point_id, m->known, m->n_known, sizeof *known, cmp_known);
	if (known)
		return (struct sw_cost){ known->wall_s, SW_COST_MEASURED };
	if (m->n_rates)
		rate = bsearch(&key, m->rates, m->n_rates, sizeof *rate, cmp_rate);
	if (rate && bytes > 0 && !isnan(rate->s_per_byte))
		return (struct sw_cost){ rate->s_per_byte * bytes, SW_COST_LEARNED };
	if (rate && fl > 0 && !isnan(rate->s_per_flop))
		return (struct sw_cost){ rate->s_per_flop * fl, SW_COST_LEARNED };
	return (struct sw_cost){ SW_COST_NOMINAL_POINT_S + bytes / SW_COST_NOMINAL_BYTES_PER_S +
					 fl / SW_COST_NOMINAL_FLOPS_PER_S,
				 SW_COST_NOMINAL };
}

static const struct sw_cost_class_known *class_hit(const struct sw_cost_model *m, const char *cls,
						   uint64_t point_id)
{
	long c = cls && cls[0] && m->n_class_known ? find_class(m, cls) : -1;
	struct sw_cost_class_known key = { (uint32_t)c, point_id, 0 };

	return c >= 0 ? bsearch(&key, m->class_known, m->n_class_known, sizeof key, cmp_class_known)
		      : NULL;
}

int sw_cost_knows_point_on(const struct sw_cost_model *m, const char *cls, uint64_t point_id)
{
	return class_hit(m, cls, point_id) != NULL;
}

struct sw_cost sw_cost_estimate_on(const struct sw_cost_model *m, const char *cls,
				   uint64_t point_id, const char *family, const char *variant,
				   double useful_bytes, double flops)
{
	const struct sw_cost_class_known *hit = class_hit(m, cls, point_id);

	if (hit)
		return (struct sw_cost){ hit->wall_s, SW_COST_MEASURED };
	return sw_cost_estimate(m, point_id, family, variant, useful_bytes, flops);
}

int sw_cost_knows_class(const struct sw_cost_model *m, const char *cls)
{
	return cls && cls[0] && find_class(m, cls) >= 0;
}

struct sw_cost sw_cost_point_on(const struct sw_cost_model *m, const char *cls,
				const struct sw_plan_point *pt)
{
	const struct sw_family *f = sw_family_at(pt->family);
	double bytes = f->useful_bytes ? f->useful_bytes(&pt->p) : 0.0;
	double flops = f->flops ? f->flops(&pt->p) : 0.0;

	return sw_cost_estimate_on(m, cls, pt->id, f->name, f->variants[pt->p.variant].name, bytes,
				   flops);
}

struct sw_cost sw_cost_point(const struct sw_cost_model *m, const struct sw_plan_point *pt)
{
	return sw_cost_point_on(m, NULL, pt);
}

void sw_cost_todo(const struct sw_cost_model *m, const struct sw_plan *plan, const uint32_t *todo,
		  size_t n, double *expected_s, size_t *n_by_source)
{
	sw_cost_todo_on(m, NULL, plan, todo, n, expected_s, n_by_source);
}

void sw_cost_todo_on(const struct sw_cost_model *m, const char *cls, const struct sw_plan *plan,
		     const uint32_t *todo, size_t n, double *expected_s, size_t *n_by_source)
{
	if (!todo)
		n = plan->n;
	if (n_by_source)
		memset(n_by_source, 0, SW_COST_N_SOURCES * sizeof *n_by_source);
	for (size_t i = 0; i < n; i++) {
		struct sw_cost c = sw_cost_point_on(m, cls, &plan->points[todo ? todo[i] : i]);

		expected_s[i] = c.expected_s;
		if (n_by_source)
			n_by_source[c.source]++;
	}
}

const char *sw_cost_source_name(enum sw_cost_source s)
{
	switch (s) {
	case SW_COST_NOMINAL: return "bytes and flops";
	case SW_COST_LEARNED: return "learned rates";
	case SW_COST_MEASURED: return "from --costs";
	}
	return "unknown";
}
