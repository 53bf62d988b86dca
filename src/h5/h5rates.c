/*
 * /model_rates (schema 8): the rates the time model predicted with, one
 * row per GPU, and the measured files they were fitted to, with the hash
 * of each, and (schema 9) what each rate's fit rests on; a resume refuses
 * a calibration or transfer file whose bytes are not the ones recorded
 * (docs/hdf5-schema.md, "/model_rates").
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "h5/h5internal.h"

static const char rates_about[] =
	"The time model's rates, one row per GPU it predicted for: a device target "
	"(role target, the datasheet's), a GPU fitted to a measured file (calibrate) or "
	"the GPU of --model-from's file (from), with the file's path, hash and class and "
	"the fit's median error before and after, and per rate RATE_fit (fitted, not "
	"needed or not identifiable) and RATE_points, the file's points that fit it "
	"(docs/model.md).";

#define RCOL(field, kind, units)                                                                   \
	{                                                                                          \
#field, offsetof(struct sw_time_rate_row, field),                                  \
			sizeof(((struct sw_time_rate_row *)0)->field), kind, units                 \
	}
#define RATE(name, units, about)                                                                   \
	{ #name, offsetof(struct sw_time_rate_row, rates.name), sizeof(double), SW_COL_F64, units },
#define FIT(name, units, about)                                                                    \
	{ #name "_fit", offsetof(struct sw_time_rate_row, fit.name), SW_RATE_FIT_LEN, SW_COL_TEXT, \
	  NULL },
#define FIT_POINTS(name, units, about)                                                             \
	{ #name "_points", offsetof(struct sw_time_rate_row, fit_points.name), sizeof(int32_t),    \
	  SW_COL_I32, NULL },
/* each rate's value, then (schema 9) what each rests on */
#define RATE_COLUMNS SW_TIME_RATES(RATE) SW_TIME_RATES(FIT) SW_TIME_RATES(FIT_POINTS)
static const struct sw_column rate_columns[] = {
	RCOL(device, SW_COL_TEXT, NULL),     RCOL(role, SW_COL_TEXT, NULL),
	RCOL(basis, SW_COL_TEXT, NULL),      RCOL(file, SW_COL_TEXT, NULL),
	RCOL(file_hash, SW_COL_U64, NULL),   RCOL(file_class, SW_COL_TEXT, NULL),
	RCOL(points, SW_COL_I32, NULL),      RCOL(error_before, SW_COL_F64, NULL),
	RCOL(error_after, SW_COL_F64, NULL), RATE_COLUMNS
};
#undef RCOL
#undef RATE
#undef FIT
#undef FIT_POINTS
#undef RATE_COLUMNS
#define N_RATE_COLS (sizeof rate_columns / sizeof rate_columns[0])

enum sw_status sw_h5_write_rates(hid_t file, const struct sw_time_rate_row *rows, int n,
				 struct sw_err *err)
{
#define NONE(name, units, about) -1,
	static const struct sw_time_rate_row none = { .points = -1,
						      .fit_points = { SW_TIME_RATES(NONE) } };
#undef NONE
	const struct sw_h5_table t = { "model_rates",   rates_about, rate_columns, N_RATE_COLS, 16,
				       H5I_INVALID_HID, &none };
	return sw_h5_write_table(file, t, sizeof none, rows, n, err);
}

/* The role words of an option, as messages name them. */
static const char *option_of(const char *role)
{
	return !strcmp(role, "from") ? "--model-from" : "--model-calibrate";
}

/* The row of rows[0..n) for a's option and file, or NULL; with
 * same_class, of a's class too (one file may give two classes' rows, each
 * fitting a GPU of its own: m.h5:A,m.h5:B). */
static const struct sw_time_rate_row *same_file(const struct sw_time_rate_row *a,
						const struct sw_time_rate_row *rows, int n,
						int same_class)
{
	for (int k = 0; k < n; k++)
		if (!strcmp(rows[k].role, a->role) && !strcmp(rows[k].file, a->file) &&
		    (!same_class || !strcmp(rows[k].file_class, a->file_class)))
			return &rows[k];
	return NULL;
}

/* Why this run's file row now differs from the file's row then, or SW_OK:
 * its bytes, the class of its rows the run takes, or the GPU they fit. */
static enum sw_status file_changed(const char *path, const struct sw_time_rate_row *now,
				   const struct sw_time_rate_row *then, struct sw_err *err)
{
	if (then->file_hash != now->file_hash)
		return sw_fail(err, SW_EINVAL,
			       "%s was made with %s %s, whose content has changed since "
			       "(hash %016" PRIx64 " now, %016" PRIx64 " then): give the "
			       "file it was made with, or start a new output",
			       path, option_of(now->role), now->file, now->file_hash,
			       then->file_hash);
	if (strcmp(then->file_class, now->file_class) || strcmp(then->device, now->device))
		return sw_fail(err, SW_EINVAL,
			       "%s was made with %s %s:%s (its rows of class '%s', for GPU %s), "
			       "and this run takes its rows of class '%s' (for GPU %s): give "
			       "%s:%s, the class it was made with, or start a new output",
			       path, option_of(now->role), then->file, then->file_class,
			       then->file_class, then->device, now->file_class, now->device,
			       then->file, then->file_class);
	return SW_OK;
}

enum sw_status sw_h5_check_rates(hid_t file, const char *path, const struct sw_time_rate_row *now,
				 int n_now, struct sw_err *err)
{
	struct sw_time_rate_row *was;
	int n_was;
	void *rows;
	enum sw_status st = sw_h5_read_table(file, "model_rates", rate_columns, N_RATE_COLS,
					     sizeof *was, &rows, &n_was, err);
	was = rows;
	/* every file of this run must be one the file records, byte for byte,
	 * of the same class fitting the same GPU */
	for (int i = 0; st == SW_OK && i < n_now; i++) {
		if (!now[i].file[0])
			continue;
		const struct sw_time_rate_row *then = same_file(&now[i], was, n_was, 1);
		if (!then)
			then = same_file(&now[i], was, n_was, 0);
		st = then ? file_changed(path, &now[i], then, err)
			  : sw_fail(err, SW_EINVAL,
				    "%s was made without %s %s: give what it was "
				    "made with (h5dump -d /model_rates %s)",
				    path, option_of(now[i].role), now[i].file, path);
	}
	/* and every file it records, one of this run's */
	for (int i = 0; st == SW_OK && i < n_was; i++)
		if (was[i].file[0] && !same_file(&was[i], now, n_now, 1))
			st = sw_fail(err, SW_EINVAL, "%s was made with %s %s:%s: give it again",
				     path, option_of(was[i].role), was[i].file, was[i].file_class);
	free(was);
	return st;
}
