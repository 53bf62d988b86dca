/*
 * The plan: the cartesian product of each job family's variants and the axes
 * each variant uses, in job order (last axis fastest), each point with a
 * stable id: a hash of family, variant, axis values and model target, so the
 * same job gives the same ids on any machine and any number of ranks, and a
 * new version gives the points of an old one the ids they had. Pure.
 */
#ifndef SW_PLAN_H
#define SW_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "job/job.h"
#include "model/gpus.h"
#include "kernel.h"
#include "core/status.h"

#define SW_PLAN_MAX_POINTS 10000000

struct sw_plan_point {
	uint64_t id;
	int family;               /* registry index */
	int cc;                   /* model target (10 * major + minor), 0 for a measured point */
	const struct sw_gpu *gpu; /* a device target's GPU (its cc is the GPU's); NULL otherwise */
	int calibration;          /* 1: in the job's calibrate (too): runs on every GPU, first */
	struct sw_point p;
};

struct sw_plan {
	struct sw_plan_point *points; /* owned */
	size_t n;
	uint64_t fingerprint; /* hash of every id in order: "the same job" */
};

/* Expands job: its families' points, then the calibrate points that are not
 * among them (a point in both is one point, marked calibration). With
 * model_targets, every point is repeated for each of the job's CCs and
 * then each of its devices (the model backend); otherwise cc is 0. Calibration changes no id; it enters
 * the fingerprint only where a job has calibrate points, so a job without
 * them keeps the fingerprint it had. */
enum sw_status sw_plan_build(const struct sw_job *job, int model_targets, struct sw_plan *plan,
			     struct sw_err *err);

void sw_plan_fini(struct sw_plan *plan);

/* FNV-1a 64 of "family/variant;axis=value...[;cc=90]", by names. Unused axes
 * and axes at their baseline (kernel.h) are left out: adding an axis with a
 * baseline to a family keeps the ids of the points it had, and a point off the
 * baseline gets a new one. Axes without a baseline always enter, as they did
 * before baselines existed. */
uint64_t sw_point_id(const struct sw_family *f, const struct sw_point *p, int cc);

/* The id of a device target: the text ends ";dev=NAME" (the table's name)
 * instead of ";cc=NN", so two devices of one CC are two targets. */
uint64_t sw_point_id_dev(const struct sw_family *f, const struct sw_point *p, const char *device);

/* "strided_read/course stride=4 n=64M" (cc=9.0 appended for a model point,
 * dev=H100-SXM for a device target); a categorical axis's value by its
 * name: "pattern=gather". */
void sw_point_label(const struct sw_plan_point *pt, char *buf, size_t len);

#endif
