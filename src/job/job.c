/*
 * Job files: YAML text to struct sw_job, checked against the kernel
 * registry. libyaml's document API turns the (small) file into a node tree
 * whose marks give every error its line and column. This module only
 * validates: it does not expand points, touch a GPU or print.
 */
#define _POSIX_C_SOURCE 200809L

#include "job/job.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "model/model.h"
#include "job/number.h"
#include "job/plugin.h"
#include "core/record.h"
#include "core/safe_open.h"
#include "core/suggest.h"

#define QUOTE_MAX 60
/* libyaml's scanner takes time quadratic in the depth of [ and { nesting:
 * 800 KB of [ holds every rank for some 18 minutes. A job needs a few levels. */
#define MAX_FLOW_DEPTH 64
#define ARRAY_SIZE(a)  ((int)(sizeof(a) / sizeof((a)[0])))

static const struct sw_measure_cfg measure_defaults = {
	.rse_target = 0.005,
	.min_samples = 10,
	.max_samples = 200,
	.warmup = 2,
	.time_cap_s = 1.0,
	.min_sample_s = 20e-6,
	.flush_l2 = SW_FLUSH_AUTO,
};

static const int cc_defaults[] = { 60, 70, 80, 90, 100, 120 };

/* What a parse needs at hand to report an error. */
struct ctx {
	const char *path;
	yaml_document_t *doc;
	struct sw_err *err;
};

/* ---- helpers shared by the YAML walk and --set ---- */

/* Appends name to a ", "-separated list in buf. */
static void add_name(char *buf, size_t len, const char *name)
{
	size_t used = strlen(buf);

	if (used + 1 >= len)
		return;
	snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
}

/* Writes v with a K, M or G suffix when that is exact, as a user writes it. */
static void fmt_int(char *buf, size_t len, int64_t v)
{
	static const char suffix[] = "GMK";
	for (int i = 0; i < 3; i++) {
		int64_t unit = INT64_C(1) << (10 * (3 - i));
		if (v != 0 && v % unit == 0) {
			snprintf(buf, len, "%lld%c", (long long)(v / unit), suffix[i]);
			return;
		}
	}
	snprintf(buf, len, "%lld", (long long)v);
}

/* Every value of a within the axis definition's [min, max]. `what` leads
 * the message ("stride " in a job file, "" for --set). */
static enum sw_status check_range(const struct sw_axis_def *d, const struct sw_axis_values *a,
				  const char *what, struct sw_err *err)
{
	for (size_t i = 0; i < a->n; i++) {
		char v[32], lo[32], hi[32];
		if (a->v[i] >= d->min && a->v[i] <= d->max)
			continue;
		fmt_int(v, sizeof v, a->v[i]);
		fmt_int(lo, sizeof lo, d->min);
		fmt_int(hi, sizeof hi, d->max);
		return sw_fail(err, SW_EINVAL, "%svalue %s is out of range %s..%s", what, v, lo,
			       hi);
	}
	return SW_OK;
}

static unsigned all_variants(const struct sw_family *f)
{
	return f->n_variants >= 32 ? ~0u : (1u << f->n_variants) - 1;
}

/* Adds variant `name` (len bytes, not NUL-terminated) to *mask. */
static enum sw_status add_variant(const struct sw_family *f, const char *name, size_t len,
				  unsigned *mask, struct sw_err *err)
{
	char buf[SW_NAME_LEN * 2], names[256] = "";
	int v = -1;

	if (!len)
		return sw_fail(err, SW_EINVAL, "empty variant name");
	if (len < sizeof buf) {
		memcpy(buf, name, len);
		buf[len] = '\0';
		v = sw_variant_find(f, buf);
	}
	if (v < 0 || v >= 32) {
		for (int i = 0; i < f->n_variants; i++)
			add_name(names, sizeof names, f->variants[i].name);
		return sw_fail(err, SW_EINVAL,
			       "unknown variant `%.*s` of family %s; expected one of: %s",
			       (int)(len > QUOTE_MAX ? QUOTE_MAX : len), name, f->name, names);
	}
	if (*mask & (1u << v))
		return sw_fail(err, SW_EINVAL, "variant %s is listed twice", buf);
	*mask |= 1u << v;
	return SW_OK;
}

/* "a, b" into a mask. */
static enum sw_status variants_from_text(const struct sw_family *f, const char *text,
					 unsigned *mask, struct sw_err *err)
{
	const char *p = text;
	unsigned m = 0;

	for (;;) {
		const char *c = strchr(p, ',');
		const char *e = c ? c : p + strlen(p);
		enum sw_status st;
		while (p < e && isspace((unsigned char)*p))
			p++;
		while (e > p && isspace((unsigned char)e[-1]))
			e--;
		st = add_variant(f, p, (size_t)(e - p), &m, err);
		if (st)
			return st;
		if (!c)
			break;
		p = c + 1;
	}
	*mask = m;
	return SW_OK;
}

static int is_name_char(int ch)
{
	return isalnum(ch) || ch == '_' || ch == '.' || ch == '-';
}

/* ---- sw_cc_parse ---- */

enum sw_status sw_cc_parse(const char *text, int *cc, struct sw_err *err)
{
	const char *p = text ? text : "";
	int major = 0, minor, digits = 0;

	while (isspace((unsigned char)*p))
		p++;
	while (isdigit((unsigned char)*p) && digits < 3) {
		major = major * 10 + (*p++ - '0');
		digits++;
	}
	if (!digits || digits > 2 || *p != '.' || !isdigit((unsigned char)p[1]))
		goto bad;
	minor = p[1] - '0';
	p += 2;
	while (isspace((unsigned char)*p))
		p++;
	if (*p || major < 1 || major > 15)
		goto bad;
	*cc = 10 * major + minor;
	return SW_OK;

bad:
	return sw_fail(err, SW_EINVAL,
		       "\"%.*s\" is not a compute capability: expected MAJOR.MINOR like 9.0, major "
		       "1..15, minor 0..9",
		       QUOTE_MAX, text ? text : "");
}

/* ---- the YAML walk ---- */

static yaml_node_t *node_at(struct ctx *c, int index)
{
	return yaml_document_get_node(c->doc, index);
}

/* SW_EINVAL with "path:line:column: " before the message. */
static enum sw_status fail_at(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum sw_status fail_at(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
	char body[sizeof c->err->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(body, sizeof body, fmt, ap);
	va_end(ap);
	return sw_fail(c->err, SW_EINVAL, "%s:%d:%d: %.400s", c->path, (int)n->start_mark.line + 1,
		       (int)n->start_mark.column + 1, body);
}

/* Puts "path:line:column: what" before a message a helper already wrote. */
static enum sw_status wrap_at(struct ctx *c, const yaml_node_t *n, const char *what)
{
	if (what)
		return sw_wrap(c->err, "%s:%d:%d: %s", c->path, (int)n->start_mark.line + 1,
			       (int)n->start_mark.column + 1, what);
	return sw_wrap(c->err, "%s:%d:%d", c->path, (int)n->start_mark.line + 1,
		       (int)n->start_mark.column + 1);
}

static int is_null(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	return !strcmp(s, "") || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

/* "a mapping", "nothing" or the quoted scalar, for "found ..." */
static const char *describe(const yaml_node_t *n, char *buf, size_t len)
{
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (n->type == YAML_SEQUENCE_NODE)
		return "a sequence";
	if (is_null(n))
		return "nothing";
	snprintf(buf, len, "\"%.*s%s\"", QUOTE_MAX, (const char *)n->data.scalar.value,
		 n->data.scalar.length > QUOTE_MAX ? "..." : "");
	return buf;
}

/* The text of a scalar that must hold a value (`expected` says which). */
static enum sw_status scalar_of(struct ctx *c, const yaml_node_t *n, const char *key,
				const char *expected, const char **out)
{
	char buf[QUOTE_MAX + 8];

	if (n->type != YAML_SCALAR_NODE || is_null(n))
		return fail_at(c, n, "%s: expected %s, found %s", key, expected,
			       describe(n, buf, sizeof buf));
	/* A "\0" escape in a quoted scalar would cut the C string short. */
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return fail_at(c, n, "%s: a NUL character is not allowed here", key);
	*out = (const char *)n->data.scalar.value;
	return SW_OK;
}

/* A mapping or, for an optional section left empty, nothing (*map = NULL). */
static enum sw_status mapping_of(struct ctx *c, yaml_node_t *n, const char *key,
				 const char *expected, int may_be_null, yaml_node_t **map)
{
	char buf[QUOTE_MAX + 8];

	*map = NULL;
	if (n->type == YAML_MAPPING_NODE) {
		*map = n;
		return SW_OK;
	}
	if (may_be_null && is_null(n))
		return SW_OK;
	return fail_at(c, n, "%s: expected %s, found %s", key, expected,
		       describe(n, buf, sizeof buf));
}

/* Keys of a mapping are names, unique, and (when `allowed` is given) known. */
static enum sw_status check_keys(struct ctx *c, const yaml_node_t *map, const char *const *allowed,
				 int n_allowed, const char *noun, const char *where)
{
	const yaml_node_pair_t *start = map->data.mapping.pairs.start;
	const yaml_node_pair_t *top = map->data.mapping.pairs.top;

	for (const yaml_node_pair_t *p = start; p < top; p++) {
		yaml_node_t *k = node_at(c, p->key);
		const char *name;
		char buf[QUOTE_MAX + 8];
		int known = !allowed;

		if (k->type != YAML_SCALAR_NODE)
			return fail_at(c, k, "expected a %s name in %s, found %s", noun, where,
				       describe(k, buf, sizeof buf));
		name = (const char *)k->data.scalar.value;
		for (int i = 0; allowed && i < n_allowed; i++)
			known |= !strcmp(name, allowed[i]);
		if (!known) {
			char names[256] = "";
			for (int i = 0; i < n_allowed; i++)
				add_name(names, sizeof names, allowed[i]);
			return fail_at(c, k, "unknown %s `%.*s` in %s; expected one of: %s", noun,
				       QUOTE_MAX, name, where, names);
		}
		for (const yaml_node_pair_t *q = start; q < p; q++) {
			yaml_node_t *first = node_at(c, q->key);
			if (strcmp(name, (const char *)first->data.scalar.value))
				continue;
			return fail_at(
				c, k, "duplicate %s `%.*s` in %s (first at line %d, column %d)",
				noun, QUOTE_MAX, name, where, (int)first->start_mark.line + 1,
				(int)first->start_mark.column + 1);
		}
	}
	return SW_OK;
}

/* A number in the interval from lo to hi, each end open or closed. */
static enum sw_status get_double(struct ctx *c, const yaml_node_t *n, const char *key, double lo,
				 int lo_open, double hi, int hi_open, double *out)
{
	char expected[96];
	const char *s;
	enum sw_status st;
	double v;

	snprintf(expected, sizeof expected, "a number x with %g %s x %s %g", lo,
		 lo_open ? "<" : "<=", hi_open ? "<" : "<=", hi);
	st = scalar_of(c, n, key, expected, &s);
	if (st)
		return st;
	if (sw_number_parse_real(s, strlen(s), &v, NULL))
		return fail_at(c, n, "%s: expected %s, found \"%.*s\"", key, expected, QUOTE_MAX,
			       s);
	if ((lo_open ? v <= lo : v < lo) || (hi_open ? v >= hi : v > hi))
		return fail_at(c, n, "%s: %.*s is out of range: expected %s", key, QUOTE_MAX, s,
			       expected);
	*out = v;
	return SW_OK;
}

static enum sw_status get_int(struct ctx *c, const yaml_node_t *n, const char *key, long lo,
			      long hi, int *out)
{
	const char *s;
	char expected[96];
	enum sw_status st;
	int64_t v;

	snprintf(expected, sizeof expected, "an integer %ld..%ld", lo, hi);
	st = scalar_of(c, n, key, expected, &s);
	if (st)
		return st;
	if (sw_number_parse_int(s, strlen(s), &v, NULL))
		return fail_at(c, n, "%s: expected %s, found \"%.*s\"", key, expected, QUOTE_MAX,
			       s);
	if (v < lo || v > hi)
		return fail_at(c, n, "%s: %lld is out of range: expected %s", key, (long long)v,
			       expected);
	*out = (int)v;
	return SW_OK;
}

static enum sw_status parse_name(struct ctx *c, const yaml_node_t *n, struct sw_job *job)
{
	static const char expected[] = "a name of 1 to 63 characters from A-Z a-z 0-9 _ . -";
	const char *s;
	enum sw_status st = scalar_of(c, n, "name", expected, &s);
	size_t len;
	int ok;

	if (st)
		return st;
	len = strlen(s);
	ok = len > 0 && len < sizeof job->name;
	for (size_t i = 0; ok && i < len; i++)
		ok = is_name_char((unsigned char)s[i]);
	if (!ok)
		return fail_at(c, n, "name: expected %s, found \"%.*s\"", expected, QUOTE_MAX, s);
	memcpy(job->name, s, len + 1);
	return SW_OK;
}

static enum sw_status parse_flush_method(struct ctx *c, yaml_node_t *v, struct sw_measure_cfg *m)
{
	static const char expected[] = "read or memset";
	const char *s;
	enum sw_status st = scalar_of(c, v, "measure.flush_method", expected, &s);
	if (!st && !strcmp(s, "read"))
		m->flush_method = SW_FLUSH_BY_READ;
	else if (!st && !strcmp(s, "memset"))
		m->flush_method = SW_FLUSH_BY_MEMSET;
	else if (!st)
		st = fail_at(c, v, "measure.flush_method: expected %s, found \"%.*s\"", expected,
			     QUOTE_MAX, s);
	return st;
}

static enum sw_status parse_measure(struct ctx *c, yaml_node_t *n, struct sw_measure_cfg *m)
{
	static const char *const keys[] = { "rse_target",  "time_cap_s",  "min_sample_s",
					    "min_samples", "max_samples", "warmup",
					    "flush_l2",    "flush_method" };
	const yaml_node_t *min_node = NULL, *max_node = NULL;
	yaml_node_t *map;
	enum sw_status st;

	st = mapping_of(c, n, "measure", "a mapping of measurement settings", 1, &map);
	if (st || !map)
		return st;
	st = check_keys(c, map, keys, ARRAY_SIZE(keys), "key", "measure");
	if (st)
		return st;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *k = (const char *)node_at(c, p->key)->data.scalar.value;
		yaml_node_t *v = node_at(c, p->value);

		if (!strcmp(k, "rse_target")) {
			st = get_double(c, v, "measure.rse_target", 0, 1, 1, 1, &m->rse_target);
		} else if (!strcmp(k, "time_cap_s")) {
			st = get_double(c, v, "measure.time_cap_s", 0, 1, 3600, 0, &m->time_cap_s);
		} else if (!strcmp(k, "min_sample_s")) {
			st = get_double(c, v, "measure.min_sample_s", 0, 0, 1, 0, &m->min_sample_s);
		} else if (!strcmp(k, "min_samples")) {
			st = get_int(c, v, "measure.min_samples", 1, SW_MAX_SAMPLES,
				     &m->min_samples);
			min_node = v;
		} else if (!strcmp(k, "max_samples")) {
			st = get_int(c, v, "measure.max_samples", 1, SW_MAX_SAMPLES,
				     &m->max_samples);
			max_node = v;
		} else if (!strcmp(k, "warmup")) {
			st = get_int(c, v, "measure.warmup", 0, 1000, &m->warmup);
		} else if (!strcmp(k, "flush_method")) {
			st = parse_flush_method(c, v, m);
		} else {
			static const char expected[] = "auto, always or never";
			const char *s;
			st = scalar_of(c, v, "measure.flush_l2", expected, &s);
			if (!st && !strcmp(s, "auto"))
				m->flush_l2 = SW_FLUSH_AUTO;
			else if (!st && !strcmp(s, "always"))
				m->flush_l2 = SW_FLUSH_ALWAYS;
			else if (!st && !strcmp(s, "never"))
				m->flush_l2 = SW_FLUSH_NEVER;
			else if (!st)
				st = fail_at(c, v, "measure.flush_l2: expected %s, found \"%.*s\"",
					     expected, QUOTE_MAX, s);
		}
		if (st)
			return st;
	}
	if (m->min_samples > m->max_samples) {
		if (max_node)
			return fail_at(c, max_node,
				       "measure.max_samples: %d is below min_samples %d: expected "
				       "an integer %d..%d",
				       m->max_samples, m->min_samples, m->min_samples,
				       SW_MAX_SAMPLES);
		return fail_at(c, min_node,
			       "measure.min_samples: %d is above max_samples %d (the default); set "
			       "max_samples too",
			       m->min_samples, m->max_samples);
	}
	return SW_OK;
}

static enum sw_status add_cc(struct ctx *c, const yaml_node_t *n, const char *text,
			     struct sw_job *job)
{
	int cc;

	if (sw_cc_parse(text, &cc, c->err))
		return wrap_at(c, n, "model.ccs");
	for (int i = 0; i < job->n_ccs; i++)
		if (job->ccs[i] == cc)
			return fail_at(c, n, "model.ccs: %d.%d is listed twice", cc / 10, cc % 10);
	if (job->n_ccs == SW_MAX_CCS)
		return fail_at(c, n, "model.ccs: more than %d compute capabilities", SW_MAX_CCS);
	job->ccs[job->n_ccs++] = cc;
	return SW_OK;
}

static enum sw_status parse_ccs(struct ctx *c, const yaml_node_t *n, struct sw_job *job)
{
	static const char expected[] = "compute capabilities like [6.0, 9.0] or \"6.0,9.0\"";
	enum sw_status st;

	job->n_ccs = 0;
	if (n->type == YAML_SEQUENCE_NODE) {
		if (n->data.sequence.items.start == n->data.sequence.items.top)
			return fail_at(c, n, "model.ccs: empty; expected %s", expected);
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++) {
			const yaml_node_t *item = node_at(c, *i);
			const char *s;
			st = scalar_of(c, item, "model.ccs", "a compute capability like 9.0", &s);
			if (!st)
				st = add_cc(c, item, s, job);
			if (st)
				return st;
		}
		return SW_OK;
	}
	const char *s;
	st = scalar_of(c, n, "model.ccs", expected, &s);
	if (st)
		return st;
	/* "6.0, 9.0": the pieces share the scalar's position. */
	for (;;) {
		const char *comma = strchr(s, ',');
		char piece[32];
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		snprintf(piece, sizeof piece, "%.*s",
			 (int)(len < sizeof piece ? len : sizeof piece - 1), s);
		st = add_cc(c, n, piece, job);
		if (st || !comma)
			return st;
		s = comma + 1;
	}
}

static enum sw_status parse_model(struct ctx *c, yaml_node_t *n, struct sw_job *job)
{
	static const char *const keys[] = { "ccs", "kepler_bank_bytes" };
	yaml_node_t *map;
	enum sw_status st;

	st = mapping_of(c, n, "model", "a mapping of model settings", 1, &map);
	if (st || !map)
		return st;
	st = check_keys(c, map, keys, ARRAY_SIZE(keys), "key", "model");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     !st && p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(c, p->key), *v = node_at(c, p->value);
		if (!strcmp((const char *)k->data.scalar.value, "ccs")) {
			st = parse_ccs(c, v, job);
		} else {
			st = get_int(c, v, "model.kepler_bank_bytes", 4, 8,
				     &job->kepler_bank_bytes);
			if (!st && job->kepler_bank_bytes != 4 && job->kepler_bank_bytes != 8)
				st = fail_at(c, v,
					     "model.kepler_bank_bytes: %d: Kepler's banks are "
					     "4 or 8 bytes wide",
					     job->kepler_bank_bytes);
		}
	}
	return st;
}

static enum sw_status parse_variants(struct ctx *c, const yaml_node_t *n, struct sw_job_family *jf)
{
	const struct sw_family *f = jf->family;
	char key[SW_NAME_LEN + 16], expected[SW_NAME_LEN + 64];
	const char *s;
	enum sw_status st;

	snprintf(key, sizeof key, "%s.variants", f->name);
	snprintf(expected, sizeof expected, "variant names of %s like [a, b] or \"a,b\"", f->name);
	if (n->type == YAML_SEQUENCE_NODE) {
		unsigned m = 0;
		if (n->data.sequence.items.start == n->data.sequence.items.top)
			return fail_at(c, n, "%s: empty; expected %s", key, expected);
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++) {
			const yaml_node_t *item = node_at(c, *i);
			st = scalar_of(c, item, key, "a variant name", &s);
			if (st)
				return st;
			if (add_variant(f, s, strlen(s), &m, c->err))
				return wrap_at(c, item, key);
		}
		jf->variants = m;
		return SW_OK;
	}
	st = scalar_of(c, n, key, expected, &s);
	if (st)
		return st;
	if (variants_from_text(f, s, &jf->variants, c->err))
		return wrap_at(c, n, key);
	return SW_OK;
}

static enum sw_status parse_axis(struct ctx *c, const yaml_node_t *n, const struct sw_axis_def *d,
				 struct sw_job_axis *ax)
{
	static const char expected[] = "axis values like 1,2,4 or 1:128:x2 or [1, 2, 4]";
	char what[SW_NAME_LEN + 8];
	const char *s;
	enum sw_status st;

	snprintf(what, sizeof what, "%s ", d->name);
	ax->loc.line = (int)n->start_mark.line + 1;
	ax->loc.column = (int)n->start_mark.column + 1;
	if (n->type == YAML_SEQUENCE_NODE) {
		if (n->data.sequence.items.start == n->data.sequence.items.top)
			return fail_at(c, n, "%s: empty; expected %s", d->name, expected);
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++) {
			const yaml_node_t *item = node_at(c, *i);
			int64_t v;
			st = scalar_of(c, item, d->name, "an integer", &s);
			if (st)
				return st;
			if (sw_axis_parse_int(s, &v, c->err))
				return wrap_at(c, item, d->name);
			if (check_range(d, &(struct sw_axis_values){ &v, 1 }, what, c->err))
				return wrap_at(c, item, NULL);
			if (sw_axis_append(&ax->values, v, c->err))
				return wrap_at(c, item, d->name);
		}
		return SW_OK;
	}
	st = scalar_of(c, n, d->name, expected, &s);
	if (st)
		return st;
	if (sw_axis_parse(s, &ax->values, c->err))
		return wrap_at(c, n, d->name);
	if (check_range(d, &ax->values, what, c->err))
		return wrap_at(c, n, NULL);
	return SW_OK;
}

/* Axes the job does not set take the family's defaults. */
static enum sw_status fill_default_axes(const struct sw_family *f, struct sw_job_family *jf,
					struct sw_err *err)
{
	for (int i = 0; i < f->n_axes; i++) {
		const struct sw_axis_def *d = &f->axes[i];
		if (jf->axes[i].values.n)
			continue;
		if (sw_axis_parse(d->defaults, &jf->axes[i].values, err) ||
		    check_range(d, &jf->axes[i].values, "", err))
			return sw_wrap(err, "family %s, axis %s: bad defaults in the registry",
				       f->name, d->name);
	}
	return SW_OK;
}

/* The `axes:` mapping of one family: each axis named at most once. */
static enum sw_status parse_axes(struct ctx *c, yaml_node_t *n, struct sw_job_family *jf)
{
	const struct sw_family *f = jf->family;
	const char *names[SW_MAX_AXES];
	char where[SW_NAME_LEN + 16];
	yaml_node_t *map;
	enum sw_status st;

	snprintf(where, sizeof where, "%s.axes", f->name);
	for (int i = 0; i < f->n_axes; i++)
		names[i] = f->axes[i].name;
	st = mapping_of(c, n, where, "a mapping of axis names to values", 1, &map);
	if (st || !map)
		return st;
	st = check_keys(c, map, names, f->n_axes, "axis", where);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     !st && p < map->data.mapping.pairs.top; p++) {
		int i = sw_axis_find(f, (const char *)node_at(c, p->key)->data.scalar.value);
		st = parse_axis(c, node_at(c, p->value), &f->axes[i], &jf->axes[i]);
	}
	return st;
}

static enum sw_status parse_family(struct ctx *c, const yaml_node_t *key, yaml_node_t *n,
				   struct sw_job_family *jf)
{
	static const char *const keys[] = { "variants", "axes" };
	const char *name = (const char *)key->data.scalar.value;
	const struct sw_family *f = sw_family_find(name);
	yaml_node_t *map, *axes = NULL;
	enum sw_status st;

	if (!f) {
		char names[256] = "";
		for (int i = 0; i < sw_family_count(); i++)
			add_name(names, sizeof names, sw_family_at(i)->name);
		return fail_at(c, key, "unknown family `%.*s`; registered families: %s", QUOTE_MAX,
			       name, names);
	}
	if (f->n_axes > SW_MAX_AXES)
		return fail_at(c, key, "family %s declares %d axes, more than %d", f->name,
			       f->n_axes, SW_MAX_AXES);
	jf->family = f;
	jf->index = sw_family_index(f);
	jf->variants = all_variants(f);
	jf->loc.line = (int)key->start_mark.line + 1;
	jf->loc.column = (int)key->start_mark.column + 1;

	st = mapping_of(c, n, f->name,
			"a mapping with variants and axes (or nothing, for defaults)", 1, &map);
	if (st)
		return st;
	if (map) {
		st = check_keys(c, map, keys, ARRAY_SIZE(keys), "key", f->name);
		for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
		     !st && p < map->data.mapping.pairs.top; p++) {
			const char *k = (const char *)node_at(c, p->key)->data.scalar.value;
			yaml_node_t *v = node_at(c, p->value);
			if (!strcmp(k, "variants"))
				st = parse_variants(c, v, jf);
			else
				axes = v;
		}
		if (st)
			return st;
	}
	if (axes) {
		st = parse_axes(c, axes, jf);
		if (st)
			return st;
	}
	if (fill_default_axes(f, jf, c->err))
		return wrap_at(c, key, NULL);
	return SW_OK;
}

static enum sw_status parse_families(struct ctx *c, yaml_node_t *n, struct sw_job *job)
{
	yaml_node_t *map, head;
	size_t count;
	enum sw_status st;

	st = mapping_of(c, n, "families", "a mapping of kernel family names to their settings", 0,
			&map);
	if (st)
		return st;
	count = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
	if (!count)
		return fail_at(c, n, "families: empty; expected at least one kernel family");
	/* Each key names a registered family, once: a longer mapping breaks that
	 * within its first sw_family_count() + 1 keys. Checking only those spares a
	 * huge file a duplicate scan quadratic in its keys (a minute for 1 MB). */
	head = *map;
	if (count > (size_t)sw_family_count() + 1) {
		count = (size_t)sw_family_count() + 1;
		head.data.mapping.pairs.top = head.data.mapping.pairs.start + count;
	}
	st = check_keys(c, &head, NULL, 0, "family", "families");
	if (st)
		return st;
	job->families = calloc(count, sizeof *job->families);
	if (!job->families)
		return sw_fail(c->err, SW_ENOMEM, "%s: out of memory for %zu families", c->path,
			       count);
	for (yaml_node_pair_t *p = head.data.mapping.pairs.start; p < head.data.mapping.pairs.top;
	     p++) {
		/* Counted as it goes, so that fini frees exactly what was filled. */
		struct sw_job_family *jf = &job->families[job->n_families++];
		st = parse_family(c, node_at(c, p->key), node_at(c, p->value), jf);
		if (st)
			return st;
	}
	if (head.data.mapping.pairs.top != map->data.mapping.pairs.top)
		return fail_at(c, n, "families: more than the %d registered", sw_family_count());
	return SW_OK;
}

/* plugins: [a.so, ...]: loaded before `families` is read, whatever the key
 * order, so their families are there to be named; paths are the job's. */
static enum sw_status parse_plugins(struct ctx *c, yaml_node_t *root)
{
	char buf[QUOTE_MAX + 8];
	yaml_node_t *n = NULL;
	enum sw_status st;

	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++)
		if (!strcmp((const char *)node_at(c, p->key)->data.scalar.value, "plugins"))
			n = node_at(c, p->value);
	if (!n || is_null(n))
		return SW_OK;
	if (n->type != YAML_SEQUENCE_NODE)
		return fail_at(c, n,
			       "plugins: expected a list of plug-in files like [my.so], found %s",
			       describe(n, buf, sizeof buf));
	for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
	     i++) {
		const yaml_node_t *item = node_at(c, *i);
		const char *path;
		st = scalar_of(c, item, "plugins", "a plug-in file like my.so", &path);
		if (!st && sw_plugin_load_from(c->path, path, c->err))
			st = wrap_at(c, item, NULL);
		if (st)
			return st;
	}
	return SW_OK;
}

static enum sw_status parse_root(struct ctx *c, yaml_node_t *root, struct sw_job *job)
{
	static const char *const keys[] = { "name", "measure", "model", "plugins", "families" };
	yaml_node_t *families = NULL;
	char buf[QUOTE_MAX + 8];
	enum sw_status st;

	if (root->type != YAML_MAPPING_NODE)
		return fail_at(
			c, root,
			"expected a mapping with keys name, measure, model and families, found %s",
			describe(root, buf, sizeof buf));
	st = check_keys(c, root, keys, ARRAY_SIZE(keys), "key", "the job");
	if (!st)
		st = parse_plugins(c, root);
	if (st)
		return st;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		const char *k = (const char *)node_at(c, p->key)->data.scalar.value;
		yaml_node_t *v = node_at(c, p->value);
		if (!strcmp(k, "name"))
			st = parse_name(c, v, job);
		else if (!strcmp(k, "measure"))
			st = parse_measure(c, v, &job->measure);
		else if (!strcmp(k, "model"))
			st = parse_model(c, v, job);
		else if (!strcmp(k, "families"))
			families = v;
		if (st)
			return st;
	}
	if (!families)
		return fail_at(c, root,
			       "missing the required key `families` (the kernel families to run)");
	return parse_families(c, families, job);
}

/* ---- text checks, positions and the libyaml driver ---- */

/* Length of the valid UTF-8 sequence at s (n bytes left); 0 when invalid:
 * truncated, overlong, a surrogate or above U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp, min;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		len = 2, cp = s[0] & 0x1F, min = 0x80;
	} else if ((s[0] & 0xF0) == 0xE0) {
		len = 3, cp = s[0] & 0x0F, min = 0x800;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

/* Line and column (1-based) of byte offset `off`, counted as libyaml
 * does: in characters, after a byte order mark, with CR LF, CR, NEL, LS and
 * PS as line breaks. Invalid bytes count as one character each. */
static void position(const char *text, size_t len, size_t off, int *line, int *col)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;

	*line = 1;
	*col = 1;
	if (len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF)
		i = 3;
	while (i < off && i < len) {
		size_t w = utf8_len(s + i, len - i);
		int brk = s[i] == '\n' || (s[i] == '\r' && (i + 1 >= len || s[i + 1] != '\n')) ||
			  (w == 2 && s[i] == 0xC2 && s[i + 1] == 0x85) ||
			  (w == 3 && s[i] == 0xE2 && s[i + 1] == 0x80 && (s[i + 2] & 0xFE) == 0xA8);
		if (brk) {
			(*line)++;
			*col = 1;
		} else if (s[i] != '\r') {
			(*col)++;
		}
		i += w ? w : 1;
	}
}

/* NUL bytes, invalid UTF-8 and deep [ { nesting are refused before libyaml
 * sees the text. Brackets in quotes and comments count too: an upper bound. */
static enum sw_status check_text(const char *path, const char *text, size_t len, struct sw_err *err)
{
	const unsigned char *s = (const unsigned char *)text;
	int line, col, depth = 0;

	for (size_t i = 0; i < len;) {
		size_t w = utf8_len(s + i, len - i);
		if (s[i] == '[' || s[i] == '{')
			depth++;
		else if ((s[i] == ']' || s[i] == '}') && depth > 0)
			depth--;
		if (depth > MAX_FLOW_DEPTH) {
			position(text, len, i, &line, &col);
			return sw_fail(err, SW_EINVAL,
				       "%s:%d:%d: [ and { nested more than %d deep; a job file "
				       "needs a few",
				       path, line, col, MAX_FLOW_DEPTH);
		}
		if (s[i] && w) {
			i += w;
			continue;
		}
		position(text, len, i, &line, &col);
		if (!s[i])
			return sw_fail(err, SW_EINVAL,
				       "%s:%d:%d: NUL byte: a job file is YAML text, this looks "
				       "like a binary file",
				       path, line, col);
		return sw_fail(
			err, SW_EINVAL,
			"%s:%d:%d: invalid UTF-8 (byte 0x%02X): a job file must be UTF-8 text",
			path, line, col, s[i]);
	}
	return SW_OK;
}

static enum sw_status yaml_failure(const char *path, const char *text, size_t len,
				   const yaml_parser_t *parser, struct sw_err *err)
{
	int line = (int)parser->problem_mark.line + 1, col = (int)parser->problem_mark.column + 1;
	const char *problem = parser->problem ? parser->problem : "unknown problem";

	switch (parser->error) {
	case YAML_MEMORY_ERROR:
		return sw_fail(err, SW_ENOMEM, "%s: out of memory parsing YAML", path);
	case YAML_READER_ERROR:
		position(text, len, parser->problem_offset, &line, &col);
		return sw_fail(err, SW_EINVAL, "%s:%d:%d: YAML cannot read the text: %s", path,
			       line, col, problem);
	default:
		if (parser->context)
			return sw_fail(err, SW_EINVAL,
				       "%s:%d:%d: YAML syntax error: %s (%s at line %d, column %d)",
				       path, line, col, problem, parser->context,
				       (int)parser->context_mark.line + 1,
				       (int)parser->context_mark.column + 1);
		return sw_fail(err, SW_EINVAL, "%s:%d:%d: YAML syntax error: %s", path, line, col,
			       problem);
	}
}

/* The default name: the file's stem, made a valid name. */
static void default_name(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	const char *dot;
	size_t len;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	if (len >= size)
		len = size - 1;
	for (size_t i = 0; i < len; i++)
		name[i] = is_name_char((unsigned char)base[i]) ? base[i] : '_';
	name[len] = '\0';
	if (!len)
		snprintf(name, size, "job");
}

static char *copy_text(const char *s, size_t len)
{
	char *d = malloc(len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

static enum sw_status parse_text(struct ctx *c, const char *text, size_t len, struct sw_job *job)
{
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	yaml_node_t *root;
	enum sw_status st;

	if (!yaml_parser_initialize(&parser))
		return sw_fail(c->err, SW_ENOMEM, "%s: out of memory starting the YAML parser",
			       c->path);
	/* YAML allows a byte order mark; with the encoding given, libyaml would
	 * read it as text. Positions skip it too (position()). */
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
		text += 3;
		len -= 3;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	if (!yaml_parser_load(&parser, &doc)) {
		st = yaml_failure(c->path, text, len, &parser, c->err);
		goto out_parser;
	}
	c->doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root || is_null(root)) {
		int line = root ? (int)root->start_mark.line + 1 : 1;
		int col = root ? (int)root->start_mark.column + 1 : 1;
		st = sw_fail(
			c->err, SW_EINVAL,
			"%s:%d:%d: the job file is empty; expected a mapping with a `families` key",
			c->path, line, col);
		goto out_doc;
	}
	/* A second document would be silently ignored: refuse it. */
	if (!yaml_parser_load(&parser, &extra)) {
		st = yaml_failure(c->path, text, len, &parser, c->err);
		goto out_doc;
	}
	if (yaml_document_get_root_node(&extra)) {
		st = sw_fail(c->err, SW_EINVAL,
			     "%s:%d:%d: a second YAML document; a job file holds exactly one",
			     c->path, (int)extra.start_mark.line + 1,
			     (int)extra.start_mark.column + 1);
		yaml_document_delete(&extra);
		goto out_doc;
	}
	yaml_document_delete(&extra);
	st = parse_root(c, root, job);
out_doc:
	yaml_document_delete(&doc);
out_parser:
	yaml_parser_delete(&parser);
	return st;
}

enum sw_status sw_job_parse(const char *path, const char *text, size_t len, struct sw_job *job,
			    struct sw_err *err)
{
	struct sw_err e = { 0 };
	struct ctx c = { .path = path ? path : "<job>", .err = &e };
	enum sw_status st;

	memset(job, 0, sizeof *job);
	if (len > SW_JOB_MAX_BYTES) {
		st = sw_fail(&e, SW_EINVAL, "%s: %zu bytes, more than a job file may hold (%d)",
			     c.path, len, SW_JOB_MAX_BYTES);
		goto fail;
	}
	st = check_text(c.path, text, len, &e);
	if (st)
		goto fail;
	job->path = copy_text(c.path, strlen(c.path));
	job->text = copy_text(text, len);
	if (!job->path || !job->text) {
		st = sw_fail(&e, SW_ENOMEM, "%s: out of memory for the job text", c.path);
		goto fail;
	}
	default_name(c.path, job->name, sizeof job->name);
	job->measure = measure_defaults;
	memcpy(job->ccs, cc_defaults, sizeof cc_defaults);
	job->n_ccs = (int)(sizeof cc_defaults / sizeof cc_defaults[0]);
	job->kepler_bank_bytes = SW_KEPLER_BANK_BYTES_DEFAULT;
	st = parse_text(&c, job->text, len, job);
	if (st)
		goto fail;
	return SW_OK;

fail:
	sw_job_fini(job);
	if (err)
		*err = e;
	return st;
}

enum sw_status sw_job_load(const char *path, struct sw_job *job, struct sw_err *err)
{
	struct stat sb;
	const char *kind;
	char *buf = NULL;
	size_t len = 0;
	enum sw_status st;
	int fd;

	memset(job, 0, sizeof *job);
	/* a FIFO or device would block or stream: refused before any read */
	fd = sw_safe_open_read(path, &kind);
	if (fd == SW_SAFE_OPEN_NOT_REG)
		return sw_fail(err, SW_EINVAL, "%s: is %s, expected a job file (YAML)", path, kind);
	if (fd < 0)
		return sw_fail(err, SW_EIO, "%s: cannot open the job file: %s", path,
			       strerror(errno));
	if (fstat(fd, &sb)) {
		st = sw_fail(err, SW_EIO, "%s: cannot stat the job file: %s", path,
			     strerror(errno));
		goto out_fd;
	}
	if (sb.st_size > SW_JOB_MAX_BYTES) {
		st = sw_fail(err, SW_EINVAL, "%s: %lld bytes, more than a job file may hold (%d)",
			     path, (long long)sb.st_size, SW_JOB_MAX_BYTES);
		goto out_fd;
	}
	/* One byte more than allowed tells a file that grew since fstat. */
	buf = malloc(SW_JOB_MAX_BYTES + 1);
	if (!buf) {
		st = sw_fail(err, SW_ENOMEM, "%s: out of memory reading the job file", path);
		goto out_fd;
	}
	while (len < SW_JOB_MAX_BYTES + 1) {
		ssize_t r = read(fd, buf + len, SW_JOB_MAX_BYTES + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			st = sw_fail(err, SW_EIO, "%s: cannot read the job file: %s", path,
				     strerror(errno));
			goto out_buf;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	if (len > SW_JOB_MAX_BYTES) {
		st = sw_fail(err, SW_EINVAL,
			     "%s: more than %d bytes, more than a job file may hold", path,
			     SW_JOB_MAX_BYTES);
		goto out_buf;
	}
	st = sw_job_parse(path, buf, len, job, err);
out_buf:
	free(buf);
out_fd:
	close(fd);
	return st;
}

/* ---- --family ---- */

/* SW_EINVAL unless name is a registered family, not among the first i names. */
static enum sw_status check_family_name(const char *const *names, int i, struct sw_err *err)
{
	const char *reg[64], *name = names[i];
	int n_reg = sw_family_count() < 64 ? sw_family_count() : 64;
	char near[256], all[256] = "";

	for (int k = 0; k < i; k++)
		if (!strcmp(names[k], name))
			return sw_fail(err, SW_EINVAL, "--family %.*s: named twice", QUOTE_MAX,
				       name);
	if (sw_family_find(name))
		return SW_OK;
	for (int k = 0; k < n_reg; k++) {
		reg[k] = sw_family_at(k)->name;
		add_name(all, sizeof all, reg[k]);
	}
	sw_suggest_text(name, reg, n_reg, near, sizeof near);
	if (near[0])
		return sw_fail(err, SW_EINVAL, "--family %.*s: unknown family; did you mean %s?",
			       QUOTE_MAX, name, near);
	return sw_fail(err, SW_EINVAL, "--family %.*s: unknown family; registered families: %s",
		       QUOTE_MAX, name, all);
}

enum sw_status sw_job_from_families(const char *const *names, int n, struct sw_job *job,
				    struct sw_err *err)
{
	char text[4096], name[sizeof job->name] = "";
	size_t used;
	int full = 0;
	enum sw_status st;

	memset(job, 0, sizeof *job);
	if (n < 1)
		return sw_fail(err, SW_EINVAL, "--family: no family named");
	for (int i = 0; i < n; i++) {
		if ((st = check_family_name(names, i, err)))
			return st;
		/* a name holds whole family names only: stop at the first that does not fit */
		size_t len = strlen(name);
		full = full || len + (i > 0) + strlen(names[i]) >= sizeof name;
		if (!full)
			snprintf(name + len, sizeof name - len, "%s%s", i ? "-" : "", names[i]);
	}
	used = (size_t)snprintf(text, sizeof text, "name: %s\nfamilies:\n", name);
	/* registered names fit: SW_MAX_FAMILIES of at most SW_NAME_LEN each */
	for (int i = 0; i < n && used < sizeof text; i++)
		used += (size_t)snprintf(text + used, sizeof text - used, "  %s:\n", names[i]);
	if (used >= sizeof text)
		return sw_fail(err, SW_EINVAL, "--family: too many families for one job");
	return sw_job_parse(SW_JOB_FAMILY_PATH, text, used, job, err);
}

/* ---- --set ---- */

static enum sw_status set_one(struct sw_job *job, const char *assignment, struct sw_err *err)
{
	const char *eq = strchr(assignment, '=');
	const char *dot = eq ? memchr(assignment, '.', (size_t)(eq - assignment)) : NULL;
	char fam[SW_NAME_LEN * 2], key[SW_NAME_LEN * 2], names[256] = "";
	struct sw_job_family *jf = NULL;
	const struct sw_family *f;
	struct sw_axis_values vals;
	int q = QUOTE_MAX * 2, ai;

	if (!eq || !dot)
		return sw_fail(err, SW_EINVAL,
			       "--set %.*s: expected FAMILY.AXIS=VALUES or FAMILY.variants=NAMES",
			       q, assignment);
	snprintf(fam, sizeof fam, "%.*s", (int)(dot - assignment), assignment);
	snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
	f = sw_family_find(fam);
	if (!f) {
		for (int i = 0; i < sw_family_count(); i++)
			add_name(names, sizeof names, sw_family_at(i)->name);
		return sw_fail(err, SW_EINVAL,
			       "--set %.*s: unknown family `%s`; registered families: %s", q,
			       assignment, fam, names);
	}
	for (int i = 0; i < job->n_families; i++) {
		if (job->families[i].family == f)
			jf = &job->families[i];
		else
			add_name(names, sizeof names, job->families[i].family->name);
	}
	if (!jf)
		return sw_fail(err, SW_EINVAL,
			       "--set %.*s: family %s is not in this job (it runs: %s)", q,
			       assignment, f->name, names);
	if (!strcmp(key, "variants")) {
		unsigned m;
		if (variants_from_text(f, eq + 1, &m, err))
			return sw_wrap(err, "--set %.*s", q, assignment);
		jf->variants = m;
		return SW_OK;
	}
	ai = sw_axis_find(f, key);
	if (ai < 0) {
		names[0] = '\0'; /* it holds the job's other families */
		for (int i = 0; i < f->n_axes; i++)
			add_name(names, sizeof names, f->axes[i].name);
		return sw_fail(
			err, SW_EINVAL,
			"--set %.*s: family %s has no axis `%s`; expected one of: %s, variants", q,
			assignment, f->name, key, names);
	}
	if (sw_axis_parse(eq + 1, &vals, err))
		return sw_wrap(err, "--set %.*s", q, assignment);
	if (check_range(&f->axes[ai], &vals, "", err)) {
		sw_axis_values_fini(&vals);
		return sw_wrap(err, "--set %.*s", q, assignment);
	}
	sw_axis_values_fini(&jf->axes[ai].values);
	jf->axes[ai].values = vals;
	jf->axes[ai].loc = (struct sw_src_loc){ 0, 0 };
	return SW_OK;
}

enum sw_status sw_job_set(struct sw_job *job, const char *assignment, struct sw_err *err)
{
	/* A local err: sw_wrap needs one to keep the status of a failure. */
	struct sw_err e = { 0 };
	enum sw_status st = set_one(job, assignment ? assignment : "", &e);

	if (st && err)
		*err = e;
	return st;
}

void sw_job_fini(struct sw_job *job)
{
	if (!job)
		return;
	for (int i = 0; i < job->n_families; i++)
		for (int a = 0; a < SW_MAX_AXES; a++)
			sw_axis_values_fini(&job->families[i].axes[a].values);
	free(job->families);
	free(job->path);
	free(job->text);
	memset(job, 0, sizeof *job);
}
