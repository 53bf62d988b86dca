/*
 * Axis value lists, the syntax shared by job files and --set: "1,2,4"
 * (a list), "1:128" (every integer), "0:32:4" (step 4), "1:128:x2"
 * (geometric, factor 2). Integers take a K, M or G suffix (powers of 1024).
 * A categorical axis also takes its values' names ("banded,random").
 * Pure: no I/O.
 */
#ifndef SW_AXIS_H
#define SW_AXIS_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#define SW_AXIS_MAX_VALUES 100000 /* a larger axis is a typo, not a sweep */

struct sw_axis_values {
	int64_t *v; /* owned */
	size_t n;
};

/* The names a categorical axis's values may be written by: names[i]
 * (NULL-ended) is the value first + i. NULL or no names: integers only. */
struct sw_axis_names {
	const char *const *names;
	int64_t first;
};

/* Parses one integer with an optional K/M/G suffix. SW_EINVAL on junk,
 * trailing characters or overflow of int64. */
enum sw_status sw_axis_parse_int(const char *text, int64_t *out, struct sw_err *err);

/* The same, or one of nm's names (a text starting with a letter): its
 * value. SW_EINVAL names the expected names for an unknown one. */
enum sw_status sw_axis_parse_value(const char *text, const struct sw_axis_names *nm, int64_t *out,
				   struct sw_err *err);

/* Parses text into a new list (caller owns, sw_axis_values_fini frees).
 * Empty lists, duplicates, reversed ranges, zero steps, factors below 2 and
 * lists over SW_AXIS_MAX_VALUES are SW_EINVAL. */
enum sw_status sw_axis_parse(const char *text, struct sw_axis_values *out, struct sw_err *err);
/* The same, where an element may also be one of nm's names (not a range
 * of them): "banded, 1". nm NULL: sw_axis_parse. */
enum sw_status sw_axis_parse_named(const char *text, const struct sw_axis_names *nm,
				   struct sw_axis_values *out, struct sw_err *err);

/* Appends one value (used by the YAML sequence form); SW_EINVAL on a duplicate. */
enum sw_status sw_axis_append(struct sw_axis_values *a, int64_t v, struct sw_err *err);

void sw_axis_values_fini(struct sw_axis_values *a);

#endif
