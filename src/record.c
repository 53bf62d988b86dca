/*
 * Records made from the one column list (record_columns.h): blank rows, the
 * copies from the model and the counters, and the /measurements column
 * table. Also the mapping of family axes onto the union of axis columns. Pure.
 */
#include "record.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "kernel.h"
#include "model.h"

const struct sw_column sw_record_columns[] = {
#define COLUMN(name, kind, units)                                                                  \
	{ #name, offsetof(struct sw_record, name), sizeof(((struct sw_record *)0)->name), kind,    \
	  units },
#define X_NUM(name, kind, units, blank) COLUMN(name, SW_COL_##kind, units)
#define X_TEXT(name, len, blank)        COLUMN(name, SW_COL_TEXT, NULL)
#define X_AXES(name)                    COLUMN(name, SW_COL_AXES, NULL)
#include "record_columns.h"
#undef COLUMN
};
const int sw_record_n_columns = (int)(sizeof sw_record_columns / sizeof sw_record_columns[0]);

/* Every field but the samples is a column: the struct is made from the same
 * list, and nothing may be added to it outside the list. */
struct row_only {
#define X_NUM(name, kind, units, blank) SW_CTYPE_##kind name;
#define X_TEXT(name, len, blank)        char name[len];
#define X_AXES(name)                    int64_t name[SW_MAX_AXIS_COLUMNS];
#include "record_columns.h"
};
_Static_assert(offsetof(struct sw_record, samples_ns) == sizeof(struct row_only),
	       "struct sw_record holds a field that is not in record_columns.h");

void sw_record_init(struct sw_record *r)
{
	memset(r, 0, sizeof *r);
#define X_NUM(name, kind, units, blank) r->name = blank;
#define X_TEXT(name, len, blank)        snprintf(r->name, sizeof r->name, "%s", blank);
#define X_AXES(name)                                                                               \
	for (int c = 0; c < SW_MAX_AXIS_COLUMNS; c++)                                              \
		r->name[c] = -1;
#include "record_columns.h"
}

void sw_record_no_counters(struct sw_record *r)
{
#define X_COUNTER(name, kind, units, blank, from) r->name = blank;
#include "record_columns.h"
}

void sw_record_set_model(struct sw_record *r, const struct sw_model_figures *m)
{
#define X_MODEL(name, kind, units, blank, from) r->name = m->from;
#include "record_columns.h"
}

void sw_record_set_counters(struct sw_record *r, const struct sw_counter_values *cv)
{
#define X_COUNTER(name, kind, units, blank, from) r->name = cv->from;
#include "record_columns.h"
}

/* ---- axis columns ---------------------------------------------------- */

/* Recomputed on each call: a few dozen string compares, and no global state. */
static int collect_columns(const char **columns)
{
	int n = 0;
	for (int f = 0; f < sw_n_families; f++)
		for (int a = 0; a < sw_families[f]->n_axes; a++) {
			const char *name = sw_families[f]->axes[a].name;
			int seen = 0;
			for (int c = 0; c < n; c++)
				seen |= strcmp(columns[c], name) == 0;
			if (!seen && n < SW_MAX_AXIS_COLUMNS)
				columns[n++] = name;
		}
	return n;
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
	const char *name = sw_families[family]->axes[axis].name;
	for (int c = 0; c < n; c++)
		if (strcmp(columns[c], name) == 0)
			return c;
	return -1;
}
