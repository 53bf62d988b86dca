/*
 * Axis value lists: integers with K/M/G suffixes, comma lists, arithmetic
 * ranges "a:b:s" and geometric ranges "a:b:xk", in the order written, and
 * the names of a categorical axis's values.
 * Checks syntax, overflow, duplicates and size; the valid range of an axis
 * is the job module's business (it knows the axis definition).
 */
#include "job/axis.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/number.h"

/* How much of a bad text a message quotes. */
#define QUOTE_MAX 60
#define QUOTE_FMT "\"%.*s%s\""
#define QUOTE_ARGS(s, len)                                                                         \
	(int)((len) > QUOTE_MAX ? QUOTE_MAX : (len)), (s), ((len) > QUOTE_MAX ? "..." : "")

/* A piece of the text being parsed: not NUL-terminated. */
struct span {
	const char *s;
	size_t len;
};

static struct span trim(const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return (struct span){ s, len };
}

static enum sw_status parse_int_span(struct span t, int64_t *out, struct sw_err *err)
{
	return sw_number_parse_int(t.s, t.len, out, err);
}

enum sw_status sw_axis_parse_int(const char *text, int64_t *out, struct sw_err *err)
{
	if (!text)
		text = "";
	return parse_int_span(trim(text, strlen(text)), out, err);
}

/* A name starts with a letter; a number never does. */
static int is_name(struct span t)
{
	return t.len && isalpha((unsigned char)t.s[0]);
}

/* "a, b, c": nm's names, for messages. */
static void list_names(const struct sw_axis_names *nm, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int i = 0; nm->names[i] && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", nm->names[i]);
}

/* The value of name t among nm's names. */
static enum sw_status name_value(struct span t, const struct sw_axis_names *nm, int64_t *out,
				 struct sw_err *err)
{
	char names[256];
	for (int i = 0; nm->names[i]; i++)
		if (strlen(nm->names[i]) == t.len && !memcmp(nm->names[i], t.s, t.len)) {
			*out = nm->first + i;
			return SW_OK;
		}
	list_names(nm, names, sizeof names);
	return sw_fail(err, SW_EINVAL, "unknown value " QUOTE_FMT "; expected one of: %s",
		       QUOTE_ARGS(t.s, t.len), names);
}

static int has_names(const struct sw_axis_names *nm)
{
	return nm && nm->names && nm->names[0];
}

enum sw_status sw_axis_parse_value(const char *text, const struct sw_axis_names *nm, int64_t *out,
				   struct sw_err *err)
{
	struct span t;
	if (!text)
		text = "";
	t = trim(text, strlen(text));
	if (has_names(nm) && is_name(t))
		return name_value(t, nm, out, err);
	return parse_int_span(t, out, err);
}

/* Makes room for `need` values; `cap` is the allocated count. */
static enum sw_status reserve(struct sw_axis_values *a, size_t *cap, size_t need,
			      struct sw_err *err)
{
	size_t ncap = *cap ? *cap : 16;
	int64_t *v;

	if (need <= *cap)
		return SW_OK;
	while (ncap < need)
		ncap *= 2;
	if (ncap > SW_AXIS_MAX_VALUES)
		ncap = SW_AXIS_MAX_VALUES;
	v = realloc(a->v, ncap * sizeof *v);
	if (!v)
		return sw_fail(err, SW_ENOMEM, "out of memory for %zu axis values", ncap);
	a->v = v;
	*cap = ncap;
	return SW_OK;
}

static enum sw_status too_many(struct span whole, struct sw_err *err)
{
	return sw_fail(err, SW_EINVAL,
		       QUOTE_FMT ": more than %d values (a larger axis is a typo, not a sweep)",
		       QUOTE_ARGS(whole.s, whole.len), SW_AXIS_MAX_VALUES);
}

/* One list element as written, START[:END[:STEP or :xFACTOR]], and its values. */
struct range {
	struct span part[3];
	int n_parts;
	int64_t lo, hi, step;
	int64_t factor; /* 0: arithmetic, by step */
};

/* Splits el at its colons into r->part, refusing empty and extra parts. */
static enum sw_status split_parts(struct span el, struct range *r, struct sw_err *err)
{
	const char *p = el.s, *end = el.s + el.len;

	for (;;) {
		const char *c = memchr(p, ':', (size_t)(end - p));
		const char *pe = c ? c : end;
		if (r->n_parts == 3)
			return sw_fail(err, SW_EINVAL,
				       QUOTE_FMT
				       ": a range has at most three parts, START:END:STEP",
				       QUOTE_ARGS(el.s, el.len));
		r->part[r->n_parts] = trim(p, (size_t)(pe - p));
		if (!r->part[r->n_parts].len)
			return sw_fail(err, SW_EINVAL,
				       QUOTE_FMT ": empty range part (expected START:END, "
						 "START:END:STEP or START:END:xFACTOR)",
				       QUOTE_ARGS(el.s, el.len));
		r->n_parts++;
		if (!c)
			return SW_OK;
		p = c + 1;
	}
}

/* Parses the integer t, a part of element el of the text whole. */
static enum sw_status parse_part(struct span whole, struct span el, const struct range *r,
				 struct span t, int64_t *out, struct sw_err *err)
{
	enum sw_status st = parse_int_span(t, out, err);

	/* Quote the range or list the bad integer was only a part of. */
	if (st && r->n_parts > 1)
		sw_wrap(err, QUOTE_FMT, QUOTE_ARGS(el.s, el.len));
	else if (st && el.len != whole.len)
		sw_wrap(err, QUOTE_FMT, QUOTE_ARGS(whole.s, whole.len));
	return st;
}

/* The third part: a step of at least 1, or "x" and a factor of at least 2. */
static enum sw_status parse_step(struct span whole, struct span el, struct range *r,
				 struct sw_err *err)
{
	struct span s = r->part[2];
	int geometric = s.s[0] == 'x' || s.s[0] == 'X';
	enum sw_status st;

	if (geometric)
		s = trim(s.s + 1, s.len - 1);
	st = parse_part(whole, el, r, s, geometric ? &r->factor : &r->step, err);
	if (st)
		return st;
	if (geometric && r->factor < 2)
		return sw_fail(err, SW_EINVAL,
			       QUOTE_FMT ": the geometric factor must be at least 2",
			       QUOTE_ARGS(el.s, el.len));
	if (!geometric && r->step < 1)
		return sw_fail(err, SW_EINVAL, QUOTE_FMT ": the step must be at least 1",
			       QUOTE_ARGS(el.s, el.len));
	return SW_OK;
}

/* Fills r's bounds and step from its parts; a single integer is lo == hi. */
static enum sw_status parse_range(struct span whole, struct span el, struct range *r,
				  struct sw_err *err)
{
	enum sw_status st = parse_part(whole, el, r, r->part[0], &r->lo, err);

	if (st)
		return st;
	r->hi = r->lo;
	if (r->n_parts > 1 && (st = parse_part(whole, el, r, r->part[1], &r->hi, err)))
		return st;
	if (r->n_parts == 3 && (st = parse_step(whole, el, r, err)))
		return st;
	if (r->lo > r->hi)
		return sw_fail(err, SW_EINVAL, QUOTE_FMT ": the start %.*s is above the end %.*s",
			       QUOTE_ARGS(el.s, el.len), (int)r->part[0].len, r->part[0].s,
			       (int)r->part[1].len, r->part[1].s);
	if (r->factor && r->lo < 1)
		return sw_fail(err, SW_EINVAL,
			       QUOTE_FMT ": a geometric range must start at 1 or more",
			       QUOTE_ARGS(el.s, el.len));
	return SW_OK;
}

/* How many values r holds; over SW_AXIS_MAX_VALUES is too many. */
static enum sw_status range_count(struct span whole, const struct range *r, uint64_t *count,
				  struct sw_err *err)
{
	if (r->factor) {
		int64_t v = r->lo;
		/* v <= hi / factor is v * factor <= hi without overflow. */
		for (*count = 1; v <= r->hi / r->factor; ++*count)
			v *= r->factor;
		return SW_OK;
	}
	/* hi - lo in unsigned arithmetic cannot overflow when lo <= hi. */
	uint64_t q = ((uint64_t)r->hi - (uint64_t)r->lo) / (uint64_t)r->step;
	if (q >= SW_AXIS_MAX_VALUES)
		return too_many(whole, err);
	*count = q + 1;
	return SW_OK;
}

/* Appends r's count values to a, within SW_AXIS_MAX_VALUES in all. */
static enum sw_status append_range(struct span whole, const struct range *r, uint64_t count,
				   struct sw_axis_values *a, size_t *cap, struct sw_err *err)
{
	int64_t v = r->lo;
	enum sw_status st;

	if (count > SW_AXIS_MAX_VALUES - a->n)
		return too_many(whole, err);
	st = reserve(a, cap, a->n + (size_t)count, err);
	if (st)
		return st;
	for (uint64_t i = 0; i < count; i++) {
		a->v[a->n++] = v;
		/* The last value is not advanced: v + step may exceed INT64_MAX. */
		if (i + 1 < count)
			v = r->factor ? v * r->factor : v + r->step;
	}
	return SW_OK;
}

/* One comma-separated element: an integer, a range or one of nm's names.
 * Appends its values. */
static enum sw_status parse_element(struct span whole, struct span el,
				    const struct sw_axis_names *nm, struct sw_axis_values *a,
				    size_t *cap, struct sw_err *err)
{
	struct range r = { .step = 1 };
	uint64_t count = 0;
	enum sw_status st;

	if (!el.len)
		return sw_fail(err, SW_EINVAL, QUOTE_FMT ": empty list element",
			       QUOTE_ARGS(whole.s, whole.len));
	if (has_names(nm) && is_name(el)) {
		if (memchr(el.s, ':', el.len))
			return sw_fail(err, SW_EINVAL,
				       QUOTE_FMT ": names make no range; list them, as a,b,c",
				       QUOTE_ARGS(el.s, el.len));
		if (a->n >= SW_AXIS_MAX_VALUES)
			return too_many(whole, err);
		if ((st = name_value(el, nm, &r.lo, err)) != SW_OK ||
		    (st = reserve(a, cap, a->n + 1, err)) != SW_OK)
			return st;
		a->v[a->n++] = r.lo;
		return SW_OK;
	}
	st = split_parts(el, &r, err);
	if (st)
		return st;
	st = parse_range(whole, el, &r, err);
	if (st)
		return st;
	st = range_count(whole, &r, &count, err);
	if (st)
		return st;
	return append_range(whole, &r, count, a, cap, err);
}

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return (a > b) - (a < b);
}

/* Sorting a copy finds a duplicate in n log n: a range axis can be long.
 * Values already rising, as one range or a list written in order, need no
 * sort: one pass tells. */
static enum sw_status check_duplicates(struct span whole, const struct sw_axis_values *a,
				       struct sw_err *err)
{
	int64_t *s;
	enum sw_status st = SW_OK;
	size_t rising = 1;

	while (rising < a->n && a->v[rising - 1] < a->v[rising])
		rising++;
	if (rising >= a->n)
		return SW_OK;
	s = malloc(a->n * sizeof *s);
	if (!s)
		return sw_fail(err, SW_ENOMEM, "out of memory checking %zu axis values", a->n);
	memcpy(s, a->v, a->n * sizeof *s);
	qsort(s, a->n, sizeof *s, cmp_i64);
	for (size_t i = 1; i < a->n; i++) {
		if (s[i] == s[i - 1]) {
			st = sw_fail(err, SW_EINVAL, QUOTE_FMT ": the value %lld appears twice",
				     QUOTE_ARGS(whole.s, whole.len), (long long)s[i]);
			break;
		}
	}
	free(s);
	return st;
}

enum sw_status sw_axis_parse(const char *text, struct sw_axis_values *out, struct sw_err *err)
{
	return sw_axis_parse_named(text, NULL, out, err);
}

enum sw_status sw_axis_parse_named(const char *text, const struct sw_axis_names *nm,
				   struct sw_axis_values *out, struct sw_err *err)
{
	struct sw_axis_values a = { 0 };
	struct span whole;
	size_t cap = 0;
	const char *p;
	enum sw_status st;

	out->v = NULL;
	out->n = 0;
	if (!text)
		text = "";
	whole = trim(text, strlen(text));
	if (!whole.len)
		return sw_fail(
			err, SW_EINVAL,
			"empty axis: expected values like 1,2,4 or 1:128 or 0:32:4 or 1:128:x2");
	p = whole.s;
	for (;;) {
		const char *end = whole.s + whole.len;
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *pe = c ? c : end;
		st = parse_element(whole, trim(p, (size_t)(pe - p)), nm, &a, &cap, err);
		if (st)
			goto fail;
		if (!c)
			break;
		p = c + 1;
	}
	st = check_duplicates(whole, &a, err);
	if (st)
		goto fail;
	*out = a;
	return SW_OK;

fail:
	free(a.v);
	return st;
}

enum sw_status sw_axis_append(struct sw_axis_values *a, int64_t v, struct sw_err *err)
{
	int64_t *nv;

	for (size_t i = 0; i < a->n; i++)
		if (a->v[i] == v)
			return sw_fail(err, SW_EINVAL, "the value %lld appears twice",
				       (long long)v);
	if (a->n >= SW_AXIS_MAX_VALUES)
		return sw_fail(err, SW_EINVAL,
			       "more than %d values (a larger axis is a typo, not a sweep)",
			       SW_AXIS_MAX_VALUES);
	/* One at a time: the sequence form is written by hand and short. */
	nv = realloc(a->v, (a->n + 1) * sizeof *nv);
	if (!nv)
		return sw_fail(err, SW_ENOMEM, "out of memory for %zu axis values", a->n + 1);
	nv[a->n++] = v;
	a->v = nv;
	return SW_OK;
}

void sw_axis_values_fini(struct sw_axis_values *a)
{
	if (!a)
		return;
	free(a->v);
	a->v = NULL;
	a->n = 0;
}
