/*
 * The measure settings of a job (its `measure:` section), made from the one
 * list measure_settings.h: the struct, its defaults, a table describing
 * each setting (for the reader, the docs check and messages), reading the
 * section from YAML, and the comparison --resume and --extend make. Pure:
 * never prints.
 */
#ifndef SW_MEASURE_CFG_H
#define SW_MEASURE_CFG_H

#include <stddef.h>

#include "core/record.h" /* SW_MAX_SAMPLES */
#include "core/status.h"

enum sw_flush_l2 { SW_FLUSH_AUTO, SW_FLUSH_ALWAYS, SW_FLUSH_NEVER };
/* How L2 is emptied before a sample: by reading a buffer twice its size,
 * which leaves only clean lines, or (to measure the bias it brings) by a
 * memset, whose dirty lines drain to DRAM inside the timed launch. */
enum sw_flush_method { SW_FLUSH_BY_READ, SW_FLUSH_BY_MEMSET };

/* Measurement settings; measure_settings.h says what each is. */
struct sw_measure_cfg {
#define X_REAL(name, ...)       double name;
#define X_INT(name, ...)        int name;
#define X_WORD(name, type, ...) type name;
#include "job/measure_settings.h"
};

extern const struct sw_measure_cfg sw_measure_defaults;

enum sw_measure_kind { SW_MEASURE_REAL, SW_MEASURE_INT, SW_MEASURE_WORD };

/* One line of measure_settings.h. */
struct sw_measure_setting {
	const char *name; /* the key, as the job file writes it */
	enum sw_measure_kind kind;
	size_t offset;        /* of its field in struct sw_measure_cfg */
	double lo, hi;        /* REAL, INT: the range */
	int lo_open, hi_open; /* REAL: 1 when that end is left out */
	const char *units;    /* REAL: NULL or "seconds" */
	const char *words;    /* WORD: its values, space-separated, in the enum's order */
	const char *help;
};

/* In the list's order. */
extern const struct sw_measure_setting sw_measure_settings[];
extern const int sw_measure_n_settings;

/* The range as messages write it: "0 < x <= 3600", "1..512"; "" for WORD. */
void sw_measure_range_text(const struct sw_measure_setting *s, char *buf, size_t len);

/* s's value in m as a job file writes it: "0.005", "10", "auto". */
void sw_measure_value_text(const struct sw_measure_setting *s, const struct sw_measure_cfg *m,
			   char *buf, size_t len);

/* Reads a `measure:` node (a mapping, or nothing for the defaults) into m,
 * which holds the defaults: SW_EINVAL at the place of an unknown or
 * repeated key, a value of the wrong type or out of range, or
 * min_samples above max_samples. */
struct sw_yaml_ctx; /* yaml_read.h: only job/ reads YAML */
struct yaml_node_s;
enum sw_status sw_measure_read(struct sw_yaml_ctx *c, struct yaml_node_s *n,
			       struct sw_measure_cfg *m);

/* 0 when a and b hold the same settings; else 1, and msg says the first
 * that differs, a being a result file's and b this job's:
 * "measure.warmup is 2 in the file, 5 in this job". */
int sw_measure_diff(const struct sw_measure_cfg *a, const struct sw_measure_cfg *b, char *msg,
		    size_t size);

#endif
