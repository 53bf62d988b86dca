/*
 * A job's families (job_families.h): the `families` section of a job file
 * and the --set overrides that edit it, which share the checks of variant
 * names and of axis values against the registry's ranges. Only reads and
 * checks: the points are plan.c's.
 */
#include "job/job_families.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) ((int)(sizeof(a) / sizeof((a)[0])))

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

/* The names d's values may be written by (none for a plain axis). */
static struct sw_axis_names names_of(const struct sw_axis_def *d)
{
	return (struct sw_axis_names){ d->names, d->min };
}

/* "rows (0), gather (1)": a named axis's values, for messages. */
static void list_named(const struct sw_axis_def *d, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int i = 0; d->names[i] && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s (%lld)", i ? ", " : "",
				       d->names[i], (long long)(d->min + i));
}

/* Every value of a within the axis definition's [min, max]. `what` leads
 * the message ("stride " in a job file, "" for --set). */
static enum sw_status check_range(const struct sw_axis_def *d, const struct sw_axis_values *a,
				  const char *what, struct sw_err *err)
{
	for (size_t i = 0; i < a->n; i++) {
		char v[32], lo[32], hi[32], named[256];
		if (a->v[i] >= d->min && a->v[i] <= d->max)
			continue;
		if (d->names) {
			list_named(d, named, sizeof named);
			return sw_fail(err, SW_EINVAL, "%svalue %lld is none of %s", what,
				       (long long)a->v[i], named);
		}
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
			sw_yaml_add_name(names, sizeof names, f->variants[i].name);
		return sw_fail(err, SW_EINVAL,
			       "unknown variant `%.*s` of family %s; expected one of: %s",
			       (int)(len > SW_YAML_QUOTE_MAX ? SW_YAML_QUOTE_MAX : len), name,
			       f->name, names);
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

static enum sw_status parse_variants(struct sw_yaml_ctx *c, const yaml_node_t *n,
				     struct sw_job_family *jf)
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
			return sw_yaml_fail_at(c, n, "%s: empty; expected %s", key, expected);
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++) {
			const yaml_node_t *item = sw_yaml_node(c, *i);
			st = sw_yaml_scalar(c, item, key, "a variant name", &s);
			if (st)
				return st;
			if (add_variant(f, s, strlen(s), &m, c->err))
				return sw_yaml_wrap_at(c, item, key);
		}
		jf->variants = m;
		return SW_OK;
	}
	st = sw_yaml_scalar(c, n, key, expected, &s);
	if (st)
		return st;
	if (variants_from_text(f, s, &jf->variants, c->err))
		return sw_yaml_wrap_at(c, n, key);
	return SW_OK;
}

static enum sw_status parse_axis(struct sw_yaml_ctx *c, const yaml_node_t *n,
				 const struct sw_axis_def *d, struct sw_job_axis *ax)
{
	const char *expected = d->names ? "names of the axis's values like a,b or [a, b]"
					: "axis values like 1,2,4 or 1:128:x2 or [1, 2, 4]";
	struct sw_axis_names nm = names_of(d);
	char what[SW_NAME_LEN + 8];
	const char *s;
	enum sw_status st;

	snprintf(what, sizeof what, "%s ", d->name);
	ax->loc.line = (int)n->start_mark.line + 1;
	ax->loc.column = (int)n->start_mark.column + 1;
	if (n->type == YAML_SEQUENCE_NODE) {
		if (n->data.sequence.items.start == n->data.sequence.items.top)
			return sw_yaml_fail_at(c, n, "%s: empty; expected %s", d->name, expected);
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++) {
			const yaml_node_t *item = sw_yaml_node(c, *i);
			int64_t v;
			st = sw_yaml_scalar(c, item, d->name,
					    d->names ? "a name or an integer" : "an integer", &s);
			if (st)
				return st;
			if (sw_axis_parse_value(s, &nm, &v, c->err))
				return sw_yaml_wrap_at(c, item, d->name);
			if (check_range(d, &(struct sw_axis_values){ &v, 1 }, what, c->err))
				return sw_yaml_wrap_at(c, item, NULL);
			if (sw_axis_append(&ax->values, v, c->err))
				return sw_yaml_wrap_at(c, item, d->name);
		}
		return SW_OK;
	}
	st = sw_yaml_scalar(c, n, d->name, expected, &s);
	if (st)
		return st;
	if (sw_axis_parse_named(s, &nm, &ax->values, c->err))
		return sw_yaml_wrap_at(c, n, d->name);
	if (check_range(d, &ax->values, what, c->err))
		return sw_yaml_wrap_at(c, n, NULL);
	return SW_OK;
}

enum sw_status sw_axis_def_parse(const struct sw_axis_def *d, const char *text,
				 struct sw_axis_values *out, struct sw_err *err)
{
	struct sw_axis_names nm = names_of(d);
	enum sw_status st = sw_axis_parse_named(text, &nm, out, err);
	if (st == SW_OK && (st = check_range(d, out, "", err)) != SW_OK)
		sw_axis_values_fini(out);
	return st;
}

/* Axes the job does not set take the family's defaults. */
static enum sw_status fill_default_axes(const struct sw_family *f, struct sw_job_family *jf,
					struct sw_err *err)
{
	for (int i = 0; i < f->n_axes; i++) {
		const struct sw_axis_def *d = &f->axes[i];
		if (jf->axes[i].values.n)
			continue;
		if (sw_axis_def_parse(d, d->defaults, &jf->axes[i].values, err))
			return sw_wrap(err, "family %s, axis %s: bad defaults in the registry",
				       f->name, d->name);
	}
	return SW_OK;
}

/* The `axes:` mapping of one family: each axis named at most once. */
static enum sw_status parse_axes(struct sw_yaml_ctx *c, yaml_node_t *n, struct sw_job_family *jf)
{
	const struct sw_family *f = jf->family;
	const char *names[SW_MAX_AXES];
	char where[SW_NAME_LEN + 16];
	yaml_node_t *map;
	enum sw_status st;

	snprintf(where, sizeof where, "%s.axes", f->name);
	for (int i = 0; i < f->n_axes; i++)
		names[i] = f->axes[i].name;
	st = sw_yaml_mapping(c, n, where, "a mapping of axis names to values", 1, &map);
	if (st || !map)
		return st;
	st = sw_yaml_check_keys(c, map, names, f->n_axes, "axis", where);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     !st && p < map->data.mapping.pairs.top; p++) {
		int i = sw_axis_find(f, (const char *)sw_yaml_node(c, p->key)->data.scalar.value);
		st = parse_axis(c, sw_yaml_node(c, p->value), &f->axes[i], &jf->axes[i]);
	}
	return st;
}

static enum sw_status parse_family(struct sw_yaml_ctx *c, const yaml_node_t *key, yaml_node_t *n,
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
			sw_yaml_add_name(names, sizeof names, sw_family_at(i)->name);
		return sw_yaml_fail_at(c, key, "unknown family `%.*s`; registered families: %s",
				       SW_YAML_QUOTE_MAX, name, names);
	}
	if (f->n_axes > SW_MAX_AXES)
		return sw_yaml_fail_at(c, key, "family %s declares %d axes, more than %d", f->name,
				       f->n_axes, SW_MAX_AXES);
	jf->family = f;
	jf->index = sw_family_index(f);
	jf->variants = all_variants(f);
	jf->loc.line = (int)key->start_mark.line + 1;
	jf->loc.column = (int)key->start_mark.column + 1;

	st = sw_yaml_mapping(c, n, f->name,
			     "a mapping with variants and axes (or nothing, for defaults)", 1,
			     &map);
	if (st)
		return st;
	if (map) {
		st = sw_yaml_check_keys(c, map, keys, ARRAY_SIZE(keys), "key", f->name);
		for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
		     !st && p < map->data.mapping.pairs.top; p++) {
			const char *k = (const char *)sw_yaml_node(c, p->key)->data.scalar.value;
			yaml_node_t *v = sw_yaml_node(c, p->value);
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
		return sw_yaml_wrap_at(c, key, NULL);
	return SW_OK;
}

enum sw_status sw_job_read_families(struct sw_yaml_ctx *c, yaml_node_t *n, const char *key,
				    struct sw_job_family **out, int *n_out)
{
	yaml_node_t *map, head;
	size_t count;
	enum sw_status st;

	st = sw_yaml_mapping(c, n, key, "a mapping of kernel family names to their settings", 0,
			     &map);
	if (st)
		return st;
	count = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
	if (!count)
		return sw_yaml_fail_at(c, n, "%s: empty; expected at least one kernel family", key);
	/* Each key names a registered family, once: a longer mapping breaks that
	 * within its first sw_family_count() + 1 keys. Checking only those spares a
	 * huge file a duplicate scan quadratic in its keys (a minute for 1 MB). */
	head = *map;
	if (count > (size_t)sw_family_count() + 1) {
		count = (size_t)sw_family_count() + 1;
		head.data.mapping.pairs.top = head.data.mapping.pairs.start + count;
	}
	st = sw_yaml_check_keys(c, &head, NULL, 0, "family", key);
	if (st)
		return st;
	*out = calloc(count, sizeof **out);
	if (!*out)
		return sw_fail(c->err, SW_ENOMEM, "%s: out of memory for %zu families", c->path,
			       count);
	for (yaml_node_pair_t *p = head.data.mapping.pairs.start; p < head.data.mapping.pairs.top;
	     p++) {
		/* Counted as it goes, so that fini frees exactly what was filled. */
		struct sw_job_family *jf = &(*out)[(*n_out)++];
		st = parse_family(c, sw_yaml_node(c, p->key), sw_yaml_node(c, p->value), jf);
		if (st)
			return st;
	}
	if (head.data.mapping.pairs.top != map->data.mapping.pairs.top)
		return sw_yaml_fail_at(c, n, "%s: more than the %d registered", key,
				       sw_family_count());
	return SW_OK;
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
	int q = SW_YAML_QUOTE_MAX * 2, ai;

	if (!eq || !dot)
		return sw_fail(err, SW_EINVAL,
			       "--set %.*s: expected FAMILY.AXIS=VALUES or FAMILY.variants=NAMES",
			       q, assignment);
	snprintf(fam, sizeof fam, "%.*s", (int)(dot - assignment), assignment);
	snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
	f = sw_family_find(fam);
	if (!f) {
		for (int i = 0; i < sw_family_count(); i++)
			sw_yaml_add_name(names, sizeof names, sw_family_at(i)->name);
		return sw_fail(err, SW_EINVAL,
			       "--set %.*s: unknown family `%s`; registered families: %s", q,
			       assignment, fam, names);
	}
	for (int i = 0; i < job->n_families; i++) {
		if (job->families[i].family == f)
			jf = &job->families[i];
		else
			sw_yaml_add_name(names, sizeof names, job->families[i].family->name);
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
			sw_yaml_add_name(names, sizeof names, f->axes[i].name);
		return sw_fail(
			err, SW_EINVAL,
			"--set %.*s: family %s has no axis `%s`; expected one of: %s, variants", q,
			assignment, f->name, key, names);
	}
	if (sw_axis_def_parse(&f->axes[ai], eq + 1, &vals, err))
		return sw_wrap(err, "--set %.*s", q, assignment);
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
