/* Checks of the column tables that test_record and test_h5out share: that a
 * table covers its C struct, and what docs/hdf5-schema.md says of each
 * column, so a test can tell whether the doc describes every column written. */
#ifndef SW_COLUMN_CHECK_H
#define SW_COLUMN_CHECK_H

#include <stddef.h>

#include "core/record.h"

/* 1 when cols[0..n) follow one another at the offsets C gives such fields,
 * nothing between two but alignment, and end where the struct's columns end
 * (end: sizeof the struct, or the offset of its first field that is not a
 * column): no field of the struct is left out. Else 0, saying why. */
int columns_tile(const struct sw_column *cols, int n, size_t end, char *why, size_t len);

struct doc_column {
	char name[64];
	char type[32];  /* "int32", "float64", "string[32]" */
	char units[32]; /* "" when the units cell is empty */
};

/* The columns of the first table after the line `heading` (e.g. "## `/devices`")
 * in $SW_SOURCE_DIR/docs/hdf5-schema.md: one entry per backticked name in a
 * row's first cell, with the row's type and units (a units cell listing one
 * unit per name gives each its own). At most max; returns how many, or -1
 * when the file or the heading is missing. */
int doc_columns(const char *heading, struct doc_column *out, int max);

/* The entry named name, or NULL. */
const struct doc_column *doc_find(const struct doc_column *cols, int n, const char *name);

#endif
