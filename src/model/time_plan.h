/*
 * What a run predicts times with: the rates of each GPU it predicts for
 * (datasheet or calibrated on a measured file of its class) and, with
 * --model-from, another class's measured times to transfer. Built once per
 * rank from data the h5 layer read (core/measured.h); pure, never prints.
 * Three levels of trust, each row labelled with its own (model_time_basis):
 * "datasheet", "calibrated", "transfer".
 */
#ifndef SW_TIME_PLAN_H
#define SW_TIME_PLAN_H

#include "core/measured.h"
#include "core/record.h"
#include "model/time_fit.h"

#define SW_TIME_MAX_FILES 8
#define SW_TIME_PATH_LEN  1024
#define SW_TIME_MAX_GPUS  40

/* A measured file the time model read: --model-calibrate's or --model-from's. */
struct sw_time_file {
	char path[SW_TIME_PATH_LEN];              /* as given, less any :CLASS */
	char device_class[SW_DURATION_CLASS_LEN]; /* the class used ("" before reading) */
	uint64_t content_hash;
	const struct sw_gpu *gpu; /* the class's GPU in the table */
	int n_points;             /* its rows the time model used */
};

/* A GPU's rates and where they come from. */
struct sw_time_gpu {
	const struct sw_gpu *gpu;
	struct sw_time_rates rates;
	int calibrated_by; /* index into files, or -1: datasheet */
	struct sw_time_fit_report fit;
	/* what each rate rests on; not needed, rather than not identifiable,
	 * until sw_time_plan_needs has seen the job */
	enum sw_rate_fit status[SW_N_RATES];
};

struct sw_time_plan {
	struct sw_time_gpu gpus[SW_TIME_MAX_GPUS];
	int n_gpus;
	struct sw_time_file files[SW_TIME_MAX_FILES];
	int n_files;
	int from;                  /* --model-from: index into files, or -1 */
	struct sw_time_gpu source; /* the transfer's GPU, its rates fitted as the target's are */
	int alone; /* --model-from without a calibration: the source fitted on its own rows */
	/* the source's measured points: base (cuda-plan) id and median, by id */
	struct sw_time_point {
		uint64_t id;
		double median_ns;
		struct sw_time_inputs in;
	} * points;
	size_t n_points;
};

/* "FILE[:CLASS]" into path and class ("" without); a ':' is the class's
 * only where FILE alone is not a file that exists. */
void sw_time_file_spec(const char *spec, char *path, size_t path_len, char *cls, size_t cls_len);

/* Builds *tp: every GPU of the table at its datasheet rates, then
 * calib[0..n_calib), the --model-calibrate files read (specs as given),
 * from the --model-from one (NULL: none). Each file's rows are taken of
 * one class (its CLASS, or the only one it holds); a class the table does
 * not know, or a file of several classes without CLASS, is SW_EINVAL. A
 * calibration fits the GPU of its class; the transfer's GPU is fitted on
 * its own file's rows of the points the target's calibration used, so
 * both sides of the ratio were fitted alike. SW_ENOMEM. */
enum sw_status sw_time_plan_build(const char *const *calib_specs, const struct sw_measured *calib,
				  int n_calib, const char *from_spec,
				  const struct sw_measured *from, struct sw_time_plan *tp,
				  struct sw_err *err);

void sw_time_plan_fini(struct sw_time_plan *tp);

/* Which rates no point of a calibration fits are needed by the job's
 * points of plan (its device targets; the transfer's source, by the points
 * it measured of them): those become SW_RATE_NOT_IDENTIFIABLE. Counts the
 * points of a GPU only while one of its rates is left to decide. */
struct sw_time_job_point {
	const struct sw_family *f;
	const struct sw_point *p;
	const struct sw_gpu *gpu; /* its device target; NULL for a CC target or a measured point */
	int measured;             /* a point a GPU measures, which a GPU of any class may run */
};
/* The job's point j into *pt, 1; 0 past its last. The model knows no plan:
 * the caller walks its own. */
typedef int (*sw_time_job_at)(const void *job, size_t j, struct sw_time_job_point *pt);
void sw_time_plan_needs(struct sw_time_plan *tp, sw_time_job_at at, const void *job);

/* What a file's fit could not fit that the job needs, for file index k:
 * into msg (a line without "sweep: "), and 1; 0 when it fitted them all. */
int sw_time_plan_unfitted(const struct sw_time_plan *tp, int k, char *msg, size_t len);

/* Per rate: the word of its enum sw_rate_fit, and the points that fit it
 * (-1 without a fit), as /model_rates's RATE_fit and RATE_points. */
#define SW_RATE_FIT_LEN 20
struct sw_time_rate_fits {
#define X(name, units, about) char name[SW_RATE_FIT_LEN];
	SW_TIME_RATES(X)
#undef X
};
struct sw_time_rate_points {
#define X(name, units, about) int32_t name;
	SW_TIME_RATES(X)
#undef X
};

/* A row of the file's /model_rates (docs/hdf5-schema.md): the rates one
 * GPU predicts with, the measured file they were fitted to, and what each
 * rate's fit rests on. */
struct sw_time_rate_row {
	char device[32];
	char role[12];  /* "target", "calibrate" or "from" (the transfer's source) */
	char basis[12]; /* "datasheet" or "calibrated" */
	char file[SW_TIME_PATH_LEN];
	uint64_t file_hash; /* FNV-1a 64 of the file's bytes; 0 without one */
	char file_class[SW_DURATION_CLASS_LEN];
	int32_t points;                   /* the file's rows the fit took */
	double error_before, error_after; /* the fit's median |predicted / measured - 1| */
	struct sw_time_rates rates;
	struct sw_time_rate_fits fit;          /* schema 9 */
	struct sw_time_rate_points fit_points; /* schema 9 */
};

/* The rows of tp for the device targets targets[0..n) and every file:
 * into rows (at most max); how many. */
int sw_time_plan_rows(const struct sw_time_plan *tp, const struct sw_gpu *const *targets, int n,
		      struct sw_time_rate_row *rows, int max);

/* Predicts point p of family f on gpu into rec's model_time_ns,
 * model_time_term, model_time_basis and model_device: transferred where
 * the source measured the point, else from gpu's rates. A point the time
 * model does not cover keeps NaN, and its term says "none" (SW_OK). A
 * family's sizes() past its limits at p (sw_family_sizes) is SW_EINVAL
 * with the reason: the caller fails the row, as the cuda backend does. */
enum sw_status sw_time_plan_predict(const struct sw_time_plan *tp, const struct sw_family *f,
				    const struct sw_point *p, const struct sw_gpu *gpu,
				    int kepler_bank_bytes, struct sw_record *rec,
				    struct sw_err *err);
/* The same from the model's figures of p on gpu's CC, computed already. */
enum sw_status sw_time_plan_predict_from(const struct sw_time_plan *tp, const struct sw_family *f,
					 const struct sw_point *p, const struct sw_gpu *gpu,
					 const struct sw_model_figures *m, struct sw_record *rec,
					 struct sw_err *err);

#endif
