/* The column tables of docs/hdf5-schema.md, read as a test sees them, so a
 * test can tell whether the doc describes every column the code writes. */
#ifndef SW_DOC_TABLE_H
#define SW_DOC_TABLE_H

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
