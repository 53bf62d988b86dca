/*
 * Job files: the YAML a user writes (see docs/job-format.md), parsed with
 * libyaml and checked against the kernel registry. Every error names
 * file:line:column and what was expected. Pure: no MPI, CUDA or HDF5; never
 * prints.
 */
#ifndef SW_JOB_H
#define SW_JOB_H

#include <stddef.h>

#include "job/axis.h"
#include "job/measure_cfg.h"
#include "job/plugin.h"
#include "kernel.h"
#include "core/status.h"

#define SW_MAX_CCS       32
#define SW_MAX_DEVICES   32
#define SW_JOB_MAX_BYTES (1 << 20) /* a job file is a page of text, not data */

struct sw_src_loc {
	int line, column; /* 1-based; 0 when the value came from defaults or --set */
};

struct sw_job_axis {
	struct sw_axis_values values;
	struct sw_src_loc loc;
};

struct sw_job_family {
	const struct sw_family *family;
	int index;                            /* in the registry */
	unsigned variants;                    /* bit v: run variant v; all by default */
	struct sw_job_axis axes[SW_MAX_AXES]; /* family axis order; defaults filled in */
	struct sw_src_loc loc;
};

/* Where a point runs (docs/job-format.md, `placement`): once on any GPU,
 * once on every device class, or once on every rank's GPU. */
enum sw_placement { SW_PLACE_ONCE, SW_PLACE_PER_CLASS, SW_PLACE_EVERY_GPU };
#define SW_PLACE_N        3
#define SW_PLACE_EXPECTED "once, per_class or every_gpu"

struct sw_job {
	char *path; /* as given */
	char *text; /* the whole file, for the HDF5 root attribute */
	char name[64];
	struct sw_job_family *families; /* may be empty when calibrate is not */
	int n_families;
	/* calibrate: the same shape as families; its points run on every GPU,
	 * first, whatever the placement */
	struct sw_job_family *calibrate;
	int n_calibrate;
	enum sw_placement placement; /* the job's `placement`; --placement overrides it */
	struct sw_measure_cfg measure;
	int ccs[SW_MAX_CCS]; /* model targets, 10 * major + minor */
	int n_ccs;
	int kepler_bank_bytes; /* model.kepler_bank_bytes: 4 (default) or 8, for CC 3.x targets */
	/* model.devices and --model-devices: GPUs of the table (model/gpus.h)
	 * the model backend predicts times for, each a target beside the CCs */
	const struct sw_gpu *devices[SW_MAX_DEVICES];
	int n_devices;
	/* the plug-in file each `plugins:` entry resolved to, in order (a
	 * result file records them: docs/hdf5-schema.md, `plugin_paths`) */
	struct sw_plugin_ref *plugins;
	int n_plugins;
};

/* Reads and parses path. Refuses anything but a regular file (a FIFO or a
 * device at once, without blocking: safe_open.h), files over
 * SW_JOB_MAX_BYTES, NUL bytes and invalid UTF-8 before YAML sees them. A
 * leading UTF-8 byte order mark is allowed. On error job is left empty
 * (nothing to free). */
enum sw_status sw_job_load(const char *path, struct sw_job *job, struct sw_err *err);

/* Parses text already in memory; `path` only names it in messages. */
enum sw_status sw_job_parse(const char *path, const char *text, size_t len, struct sw_job *job,
			    struct sw_err *err);

/* Parses the job text a result file stored (its job_text), `name` naming
 * it in messages: as sw_job_parse, but its plugins: entries resolve as
 * where says (sw_plugin_where, stored set here): to the plug-ins the file
 * records, never by name in the working directory. where->failed, on
 * return, tells a plug-in that cannot be had from a text that does not
 * parse. */
enum sw_status sw_job_parse_stored(const char *name, const char *text, size_t len,
				   struct sw_plugin_where *where, struct sw_job *job,
				   struct sw_err *err);

/* What a job made by sw_job_from_families names as its file. */
#define SW_JOB_FAMILY_PATH "--family"

/* A job of the n named families with their default axes and variants
 * (--family), as a job file that lists each with nothing under it would
 * be: job->text is that file, job->path SW_JOB_FAMILY_PATH, and the name
 * the family names joined by '-' (as many as fit). SW_EINVAL for none, an
 * unknown family (naming the nearest registered ones) or one named twice. */
enum sw_status sw_job_from_families(const char *const *names, int n, struct sw_job *job,
				    struct sw_err *err);

/* Applies one --set override: "FAMILY.AXIS=VALUES" or "FAMILY.variants=a,b".
 * The family must be in the job. */
enum sw_status sw_job_set(struct sw_job *job, const char *assignment, struct sw_err *err);

/* Axis d's values written as text (a job's scalar, --set, d->defaults):
 * integers, ranges and, for a categorical axis, its values' names, each
 * within d's range. Caller owns *out (sw_axis_values_fini). SW_EINVAL,
 * SW_ENOMEM. */
enum sw_status sw_axis_def_parse(const struct sw_axis_def *d, const char *text,
				 struct sw_axis_values *out, struct sw_err *err);

/* Adds the GPU name means (model/gpus.h, sw_gpu_find) to the job's device
 * targets: --model-devices, as model.devices does. SW_EINVAL for a name
 * the table does not know or knows twice, a device listed twice, or more
 * than SW_MAX_DEVICES. */
enum sw_status sw_job_add_device(struct sw_job *job, const char *name, struct sw_err *err);

/* "once", "per_class", "every_gpu". */
const char *sw_placement_name(enum sw_placement p);
/* 0 and *p for one of those words, -1 for anything else. */
int sw_placement_parse(const char *word, enum sw_placement *p);

/* Parses "9.0" or "12.1" into 90 or 121. */
enum sw_status sw_cc_parse(const char *text, int *cc, struct sw_err *err);

void sw_job_fini(struct sw_job *job);

#endif
