/*
 * Records made from the one column list (record_columns.h): blank rows, the
 * copies from the model and the counters, and the /measurements column
 * table. Also the mapping of family axes onto the union of axis columns, and
 * the check that the registered families fit them. Pure.
 */
#include "core/record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/figures.h"
#include "kernel.h"

const struct sw_column sw_record_columns[] = {
#define COLUMN(name, kind, units)                                                                  \
	{ #name, offsetof(struct sw_record, name), sizeof(((struct sw_record *)0)->name), kind,    \
	  units },
#define X_NUM(name, kind, units, blank) COLUMN(name, SW_COL_##kind, units)
#define X_TEXT(name, len, blank)        COLUMN(name, SW_COL_TEXT, NULL)
#define X_AXES(name)                    COLUMN(name, SW_COL_AXES, NULL)
#include "core/record_columns.h"
#undef COLUMN
};
const int sw_record_n_columns = (int)(sizeof sw_record_columns / sizeof sw_record_columns[0]);

/* Every field before the metrics and samples is a column: the struct is made
 * from the same list, and nothing may be added to it outside the list. */
struct row_only {
#define X_NUM(name, kind, units, blank) SW_CTYPE_##kind name;
#define X_TEXT(name, len, blank)        char name[len];
#define X_AXES(name)                    int64_t name[SW_MAX_AXIS_COLUMNS];
#include "core/record_columns.h"
};
_Static_assert(offsetof(struct sw_record, metrics) == sizeof(struct row_only),
	       "struct sw_record holds a field that is not in record_columns.h");

void sw_record_init(struct sw_record *r)
{
	memset(r, 0, sizeof *r);
#define X_NUM(name, kind, units, blank) r->name = blank;
#define X_TEXT(name, len, blank)        snprintf(r->name, sizeof r->name, "%s", blank);
#define X_AXES(name)                                                                               \
	for (int c = 0; c < SW_MAX_AXIS_COLUMNS; c++)                                              \
		r->name[c] = -1;
#include "core/record_columns.h"
}

void sw_record_no_counters(struct sw_record *r)
{
#define X_COUNTER(name, kind, units, blank, from) r->name = blank;
#include "core/record_columns.h"
}

void sw_record_set_model(struct sw_record *r, const struct sw_model_figures *m)
{
#define X_MODEL(name, kind, units, blank, from) r->name = m->from;
#include "core/record_columns.h"
	r->accesses.n = m->n_accesses;
	memcpy(r->accesses.a, m->access, sizeof r->accesses.a);
}

void sw_record_set_counters(struct sw_record *r, const struct sw_counter_values *cv)
{
#define X_COUNTER(name, kind, units, blank, from) r->name = cv->from;
#include "core/record_columns.h"
}

/* ---- axis columns ---------------------------------------------------- */

/* The distinct axis names of families[0..n) into columns, in order, at most
 * max of them; returns how many there are, or some number above max when
 * there are more than max. */
static int distinct_axes(const struct sw_family *const *families, int n, const char **columns,
			 int max)
{
	int count = 0;

	for (int f = 0; f < n; f++)
		for (int a = 0; a < families[f]->n_axes; a++) {
			const char *name = families[f]->axes[a].name;
			int seen = 0;

			for (int c = 0; c < count && c < max; c++)
				seen |= strcmp(columns[c], name) == 0;
			if (seen)
				continue;
			if (count < max)
				columns[count] = name;
			count++;
		}
	return count;
}

/* Recomputed on each call: a few dozen string compares, and no global state.
 * The registry passed sw_registry_check, so nothing is left out. */
static int collect_columns(const char **columns)
{
	int n = distinct_axes(sw_family_list(), sw_family_count(), columns, SW_MAX_AXIS_COLUMNS);

	return n < SW_MAX_AXIS_COLUMNS ? n : SW_MAX_AXIS_COLUMNS;
}

int sw_axis_column_count(void)
{
	const char *columns[SW_MAX_AXIS_COLUMNS];
	return collect_columns(columns);
}

const char *sw_axis_column_name(int c)
{
	const char *columns[SW_MAX_AXIS_COLUMNS];
	int n = collect_columns(columns);
	return c >= 0 && c < n ? columns[c] : NULL;
}

int sw_axis_column_of(int family, int axis)
{
	const char *columns[SW_MAX_AXIS_COLUMNS];
	int n = collect_columns(columns);
	const char *name = sw_family_at(family)->axes[axis].name;

	for (int c = 0; c < n; c++)
		if (strcmp(columns[c], name) == 0)
			return c;
	/* Only a registry that sw_registry_check refuses gets here: stop rather
	 * than let the caller write outside the record's axis columns. */
	abort();
}

/* ---- the registry check ---------------------------------------------- */

/* Nonzero when name is NULL, empty or does not fit len bytes with its NUL. */
static int bad_name(const char *name, size_t len)
{
	return !name || !name[0] || strlen(name) >= len;
}

/* An axis of that name would make a second HDF5 column of the name. */
static int is_record_column(const char *name)
{
	for (int i = 0; i < sw_record_n_columns; i++)
		if (sw_record_columns[i].kind != SW_COL_AXES &&
		    strcmp(sw_record_columns[i].name, name) == 0)
			return 1;
	return 0;
}

/* What a family's name is called in messages: its name, or its position. */
static const char *label(const struct sw_family *f, int i, char *buf, size_t len)
{
	if (f->name && f->name[0])
		snprintf(buf, len, "family '%.*s'", SW_NAME_LEN, f->name);
	else
		snprintf(buf, len, "family %d of the registry", i);
	return buf;
}

/* A NULL-ended list of at most max names, each 1 to SW_NAME_LEN - 1
 * bytes; -1 when it breaks that, else the count. */
static int name_list_count(const char *const *list, int max)
{
	int n = 0;
	for (; list && list[n]; n++)
		if (n == max || bad_name(list[n], SW_NAME_LEN))
			return -1;
	return n;
}

/* A categorical axis names each value of its range, and no more than fit. */
static enum sw_status check_value_names(const struct sw_axis_def *d, const char *who,
					struct sw_err *err)
{
	int n = name_list_count(d->names, SW_MAX_AXIS_NAMES);
	if (!d->names)
		return SW_OK;
	if (n < 0 || (uint64_t)d->max - (uint64_t)d->min + 1 != (uint64_t)n)
		return sw_fail(err, SW_EINVAL,
			       "%s: axis '%s' must name each value of %lld..%lld, at most %d "
			       "(SW_MAX_AXIS_NAMES), each 1 to %d characters",
			       who, d->name, (long long)d->min, (long long)d->max,
			       SW_MAX_AXIS_NAMES, SW_NAME_LEN - 1);
	return SW_OK;
}

static enum sw_status check_axes(const struct sw_family *f, const char *who, struct sw_err *err)
{
	if (f->n_axes < 0 || f->n_axes > SW_MAX_AXES)
		return sw_fail(err, SW_EINVAL, "%s has %d axes; a family has 0 to %d (SW_MAX_AXES)",
			       who, f->n_axes, SW_MAX_AXES);
	for (int a = 0; a < f->n_axes; a++) {
		const char *name = f->axes[a].name;

		if (bad_name(name, SW_NAME_LEN))
			return sw_fail(err, SW_EINVAL,
				       "%s: axis %d has an empty name or one of %d characters or "
				       "more (SW_NAME_LEN)",
				       who, a, SW_NAME_LEN);
		if (is_record_column(name))
			return sw_fail(err, SW_EINVAL,
				       "%s: axis '%s' has the name of a /measurements column", who,
				       name);
		for (int b = 0; b < a; b++)
			if (strcmp(f->axes[b].name, name) == 0)
				return sw_fail(err, SW_EINVAL, "%s declares axis '%s' twice", who,
					       name);
		/* -1 would read as unused: ids shared, the value's name lost */
		if (f->axes[a].min <= SW_AXIS_UNUSED && f->axes[a].max >= SW_AXIS_UNUSED)
			return sw_fail(err, SW_EINVAL,
				       "%s: axis '%s' has the range %lld..%lld, which holds -1, "
				       "SW_AXIS_UNUSED; give it a range without -1",
				       who, name, (long long)f->axes[a].min,
				       (long long)f->axes[a].max);
		enum sw_status st = check_value_names(&f->axes[a], who, err);
		if (st != SW_OK)
			return st;
	}
	return SW_OK;
}

static enum sw_status check_variants(const struct sw_family *f, const char *who, struct sw_err *err)
{
	if (f->n_variants < 1 || f->n_variants > SW_MAX_VARIANTS)
		return sw_fail(err, SW_EINVAL,
			       "%s has %d variants; a family has 1 to %d (SW_MAX_VARIANTS: "
			       "variant sets are bit masks)",
			       who, f->n_variants, SW_MAX_VARIANTS);
	for (int v = 0; v < f->n_variants; v++) {
		const char *name = f->variants[v].name;

		if (bad_name(name, SW_TEXT_LEN))
			return sw_fail(err, SW_EINVAL,
				       "%s: variant %d has an empty name or one of %d characters "
				       "or more (SW_TEXT_LEN)",
				       who, v, SW_TEXT_LEN);
		for (int w = 0; w < v; w++)
			if (strcmp(f->variants[w].name, name) == 0)
				return sw_fail(err, SW_EINVAL, "%s declares variant '%s' twice",
					       who, name);
		if (name_list_count(f->variants[v].accesses, SW_MAX_ACCESSES) < 0)
			return sw_fail(err, SW_EINVAL,
				       "%s: variant '%s' names more than %d accesses "
				       "(SW_MAX_ACCESSES), or one of no or %d characters or more",
				       who, name, SW_MAX_ACCESSES, SW_NAME_LEN);
	}
	return SW_OK;
}

/* The family's name fits the record's family column and the job parser's
 * names, and no earlier family has it. */
static enum sw_status check_name(const struct sw_family *const *families, int i, const char *who,
				 struct sw_err *err)
{
	const char *name = families[i]->name;
	size_t len = SW_NAME_LEN < SW_TEXT_LEN ? SW_NAME_LEN : SW_TEXT_LEN;

	if (bad_name(name, len))
		return sw_fail(err, SW_EINVAL,
			       "%s: a family name must have 1 to %zu characters (SW_NAME_LEN, "
			       "SW_TEXT_LEN)",
			       who, len - 1);
	for (int j = 0; j < i; j++)
		if (strcmp(families[j]->name, name) == 0)
			return sw_fail(err, SW_EINVAL, "%s is registered twice", who);
	return SW_OK;
}

/* f brought the axis name one past the SW_MAX_AXIS_COLUMNS in columns. */
static enum sw_status too_many_axes(const struct sw_family *f, const char **columns,
				    const char *who, struct sw_err *err)
{
	const char *extra = NULL;

	for (int a = 0; a < f->n_axes && !extra; a++) {
		int seen = 0;

		for (int c = 0; c < SW_MAX_AXIS_COLUMNS; c++)
			seen |= strcmp(columns[c], f->axes[a].name) == 0;
		if (!seen)
			extra = f->axes[a].name;
	}
	return sw_fail(err, SW_EINVAL,
		       "%s brings axis '%s', distinct axis name %d over all families; a record "
		       "has %d axis columns (SW_MAX_AXIS_COLUMNS)",
		       who, extra ? extra : "?", SW_MAX_AXIS_COLUMNS + 1, SW_MAX_AXIS_COLUMNS);
}

enum sw_status sw_registry_check(const struct sw_family *const *families, int n, struct sw_err *err)
{
	const char *columns[SW_MAX_AXIS_COLUMNS];
	enum sw_status st;
	char who[SW_NAME_LEN + 32];

	for (int i = 0; i < n; i++) {
		const struct sw_family *f = families[i];

		label(f, i, who, sizeof who);
		if ((st = check_name(families, i, who, err)) || (st = check_axes(f, who, err)) ||
		    (st = check_variants(f, who, err)))
			return st;
		if (distinct_axes(families, i + 1, columns, SW_MAX_AXIS_COLUMNS) >
		    SW_MAX_AXIS_COLUMNS)
			return too_many_axes(f, columns, who, err);
	}
	return SW_OK;
}
