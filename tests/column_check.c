/* Column checks for test_record and test_h5out: a table against its struct,
 * and the column tables of docs/hdf5-schema.md. */
#define _GNU_SOURCE /* getline */
#include "column_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cell i (0-based) of a table row "| a | b | c |" into buf, trimmed. */
static int cell(const char *row, int i, char *buf, size_t len)
{
	const char *p = row, *end;
	size_t n;

	for (int k = 0; k <= i; k++) {
		p = strchr(p, '|');
		if (!p)
			return 0;
		p++;
	}
	end = strchr(p, '|');
	if (!end)
		return 0;
	while (p < end && *p == ' ')
		p++;
	while (end > p && end[-1] == ' ')
		end--;
	n = (size_t)(end - p) < len - 1 ? (size_t)(end - p) : len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 1;
}

/* Part k of a list "a, b, c" into buf; 0 when there is no such part. */
static int part(const char *list, int k, char *buf, size_t len)
{
	const char *p = list, *end;

	for (int i = 0; i < k; i++) {
		p = strstr(p, ", ");
		if (!p)
			return 0;
		p += 2;
	}
	end = strstr(p, ", ");
	if (!end)
		end = p + strlen(p);
	snprintf(buf, len, "%.*s", (int)(end - p), p);
	return 1;
}

static int parts(const char *list)
{
	int k = list[0] != '\0';

	for (const char *p = list; (p = strstr(p, ", ")); p += 2)
		k++;
	return k;
}

/* Adds the columns one table row names. */
static int add_row(const char *row, struct doc_column *out, int n, int max)
{
	char first[512], type[32], units[128];
	const char *p = first;
	int first_new = n, k = 0;

	if (!cell(row, 0, first, sizeof first) || !cell(row, 1, type, sizeof type) ||
	    !cell(row, 2, units, sizeof units))
		return n;
	while (n < max && (p = strchr(p, '`'))) {
		const char *end = strchr(p + 1, '`');

		if (!end)
			break;
		snprintf(out[n].name, sizeof out[n].name, "%.*s", (int)(end - p - 1), p + 1);
		snprintf(out[n].type, sizeof out[n].type, "%s", type);
		n++;
		p = end + 1;
	}
	/* "requests, transactions": one unit per name; otherwise one for all */
	int per_name = n - first_new > 1 && parts(units) == n - first_new;
	for (int i = first_new; i < n; i++, k++)
		if (per_name)
			part(units, k, out[i].units, sizeof out[i].units);
		else
			snprintf(out[i].units, sizeof out[i].units, "%s", units);
	return n;
}

int doc_columns(const char *heading, struct doc_column *out, int max)
{
	const char *top = getenv("SW_SOURCE_DIR");
	char path[1024];
	char *line = NULL;
	size_t cap = 0;
	int n = 0, found = 0, in_table = 0;
	FILE *f;

	snprintf(path, sizeof path, "%s/docs/hdf5-schema.md", top ? top : ".");
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!found) {
			found = strcmp(line, heading) == 0;
			continue;
		}
		if (line[0] != '|') {
			if (in_table)
				break;
			continue;
		}
		if (in_table++ < 2) /* the header and the |---| line */
			continue;
		n = add_row(line, out, n, max);
	}
	free(line);
	fclose(f);
	return found ? n : -1;
}

const struct doc_column *doc_find(const struct doc_column *cols, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(cols[i].name, name) == 0)
			return &cols[i];
	return NULL;
}

static size_t kind_align(enum sw_column_kind k)
{
	switch (k) {
	case SW_COL_I32:
	case SW_COL_U32: return 4;
	case SW_COL_TEXT: return 1;
	default: return 8;
	}
}

static size_t kind_size(const struct sw_column *c)
{
	switch (c->kind) {
	case SW_COL_I32:
	case SW_COL_U32: return 4;
	case SW_COL_TEXT: return c->size;
	case SW_COL_AXES: return SW_MAX_AXIS_COLUMNS * sizeof(int64_t);
	default: return 8;
	}
}

int columns_tile(const struct sw_column *cols, int n, size_t end, char *why, size_t len)
{
	size_t at = 0;

	for (int i = 0; i < n; i++) {
		const struct sw_column *c = &cols[i];
		size_t align = kind_align(c->kind);

		at = (at + align - 1) / align * align;
		if (c->offset != at) {
			snprintf(why, len,
				 "column %s at byte %zu, not %zu: a field before it is "
				 "not a column",
				 c->name, c->offset, at);
			return 0;
		}
		if (c->size != kind_size(c)) {
			snprintf(why, len, "column %s has %zu bytes, not %zu", c->name, c->size,
				 kind_size(c));
			return 0;
		}
		for (int j = 0; j < i; j++)
			if (strcmp(cols[j].name, c->name) == 0) {
				snprintf(why, len, "column %s is there twice", c->name);
				return 0;
			}
		at += c->size;
	}
	if ((at + 7) / 8 * 8 != end) {
		snprintf(why, len,
			 "the columns end at byte %zu, the struct's at %zu: a field "
			 "after the last column is not a column",
			 at, end);
		return 0;
	}
	return 1;
}
