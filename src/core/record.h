/*
 * One measurement row: a point run by one backend on one rank. Fixed size so
 * it travels between ranks as bytes (every rank runs the same binary) and
 * maps one to one onto the /measurements compound type in HDF5. The raw
 * samples travel with it and land in /samples. Its fields, their blank
 * values, the copies from the model and the counters and the HDF5 column
 * table are all made from one list, record_columns.h.
 */
#ifndef SW_RECORD_H
#define SW_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "core/figures.h"
#include "core/status.h"

struct sw_family;
struct sw_model_figures;
struct sw_counter_values;

#define SW_MAX_AXIS_COLUMNS 24 /* distinct axis names over all families */
#define SW_MAX_SAMPLES      512
#define SW_TEXT_LEN         32
#define SW_MSG_LEN          160
#define SW_MAX_VARIANTS     32 /* a variant set is a 32-bit mask */
#define SW_MAX_METRICS      16 /* --metrics names */
#define SW_METRIC_NAME_LEN  96 /* bytes of a --metrics name, NUL included */
#define SW_METRIC_UNIT_LEN  16 /* bytes of its unit, NUL included */

/* Row status, as stored in the file's `status` column. */
enum sw_row_status {
	SW_ROW_OK = 0,
	SW_ROW_SKIPPED = 1, /* the family refused the point; `message` says why */
	SW_ROW_INVALID = 2, /* output did not match the CPU reference */
	SW_ROW_FAILED = 3,  /* a CUDA error; `message` holds its text */
};

/* The `message` of an ok row whose output no CPU check compared (its
 * check_mode "none"): the model backend's rows, and a measured row of a
 * family without a check hook (%s: the family). */
#define SW_NOT_CHECKED_MODEL                                                                       \
	"not checked: the model backend runs no fill, launch or check (a prediction)"
#define SW_NOT_CHECKED_NO_HOOK "not checked: family %s has no check hook"

/* The C type of each column kind of record_columns.h. */
#define SW_CTYPE_I32 int32_t
#define SW_CTYPE_U32 uint32_t
#define SW_CTYPE_I64 int64_t
#define SW_CTYPE_U64 uint64_t
#define SW_CTYPE_F64 double

/* The point's --metrics values, in the order the option names them; they
 * become /metrics rows, not /measurements columns. */
struct sw_record_metrics {
	int32_t n; /* values collected; 0: none (no --metrics, or the point was not counted) */
	int32_t pad;
	double values[SW_MAX_METRICS];
	char units[SW_MAX_METRICS][SW_METRIC_UNIT_LEN]; /* as CUPTI names them ("byte") */
};

/* The model's figures of each named access of the point's variant (core/
 * figures.h): /model_accesses rows, not /measurements columns (schema 8). */
struct sw_record_accesses {
	int32_t n; /* 0: none (no model figures, or the variant names no accesses) */
	int32_t pad;
	struct sw_access_figures a[SW_MAX_ACCESSES];
};

/* A /measurements row: one field per entry of record_columns.h, in its
 * order, then the metrics, the per-access figures and the raw samples. */
struct sw_record {
#define X_NUM(name, kind, units, blank) SW_CTYPE_##kind name;
#define X_TEXT(name, len, blank)        char name[len];
#define X_AXES(name)                    int64_t name[SW_MAX_AXIS_COLUMNS];
#include "core/record_columns.h"
	/* not in the compound type: */
	struct sw_record_metrics metrics;
	struct sw_record_accesses accesses;
	double samples_ns[SW_MAX_SAMPLES];
};

/* One column of an HDF5 table: where it sits in the C struct, and its units.
 * SW_COL_AXES stands for one int64 column per axis name. */
enum sw_column_kind {
	SW_COL_I32,
	SW_COL_U32,
	SW_COL_I64,
	SW_COL_U64,
	SW_COL_F64,
	SW_COL_TEXT,
	SW_COL_AXES
};

struct sw_column {
	const char *name;
	size_t offset;
	size_t size;
	enum sw_column_kind kind;
	const char *units; /* NULL: an id, a count, a flag or a ratio */
};

/* The /measurements columns of record_columns.h, in file order. */
extern const struct sw_column sw_record_columns[];
extern const int sw_record_n_columns;

/* Blank record for a point: the blank value of every column (NaN
 * statistics and figures, -1 axis columns, check_mode "none"), samples 0. */
void sw_record_init(struct sw_record *r);

/* The counter columns blank: NaN counts, no passes (counter_note untouched). */
void sw_record_no_counters(struct sw_record *r);

/* The model's figures into the X_MODEL columns; the others untouched. */
void sw_record_set_model(struct sw_record *r, const struct sw_model_figures *m);

/* The counted values into the X_COUNTER columns; counter_note untouched. */
void sw_record_set_counters(struct sw_record *r, const struct sw_counter_values *cv);

/* The distinct axis names of all registered families, in registry order;
 * column c of sw_record.axis holds sw_axis_column_name(c). */
int sw_axis_column_count(void);
const char *sw_axis_column_name(int c);
/* Column of axis `axis` of registered family `family`, never -1: main runs
 * sw_registry_check first, and a registry that fails it aborts here. */
int sw_axis_column_of(int family, int axis);

/* Whether n families fit the harness and the file: SW_EINVAL, naming the
 * family and the limit, when a family or variant name is empty or does not
 * fit SW_NAME_LEN and SW_TEXT_LEN, family names repeat, a family has more
 * than SW_MAX_AXES axes or SW_MAX_VARIANTS variants, or none, an axis name
 * is empty, too long, repeated within its family or the name of another
 * column, a categorical axis does not name each value of its range (at most
 * SW_MAX_AXIS_NAMES), a variant names more than SW_MAX_ACCESSES accesses,
 * or the families bring more than SW_MAX_AXIS_COLUMNS distinct axis
 * names. Pure: run it once where families register, before any record. */
enum sw_status sw_registry_check(const struct sw_family *const *families, int n,
				 struct sw_err *err);

#endif
