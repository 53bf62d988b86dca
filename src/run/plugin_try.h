/*
 * sweep --check-plugin FILE.so [JOB]: a plug-in's hooks run on the host,
 * before it meets a GPU. For every point of its families in the job (or at
 * their axes' defaults): sizes(), refuse(), useful_bytes(), flops() and
 * shape(), and the requests of the point's variant, each held to the
 * buffer it names; where a family gives a host reference, its output
 * through check(), as is and perturbed. Launches nothing, writes no file;
 * rank 0 only.
 */
#ifndef SW_PLUGIN_TRY_H
#define SW_PLUGIN_TRY_H

#include <stdio.h>

#include "core/status.h"
#include "job/job.h"

/* A point's requests are all walked up to this many; beyond, this many of
 * them: the first and the last quarter of it, and the half between spread
 * evenly over the rest. */
#define SW_TRY_ALL_REQUESTS (UINT64_C(1) << 18) /* as --help says */
/* The most host memory a point's buffers may take for its reference check;
 * a larger point is counted as not checked, and says so. */
#define SW_TRY_HOST_BYTES (UINT64_C(1) << 30)

/* The job of every family of the loaded plug-in at path (a --plugin or
 * --check-plugin file), with their default axes and variants
 * (sw_job_from_families). SW_EINVAL when no loaded plug-in is that file. */
enum sw_status sw_plugin_try_job(const char *path, struct sw_job *job, struct sw_err *err);

/* Runs the checks above on every point of job whose family is the loaded
 * plug-in's at path, and prints a summary per family and variant on out.
 * SW_EINVAL, naming the plug-in, point, variant and what broke (a request
 * past its buffer: access, request and lane), at the first failure;
 * SW_ENOMEM. */
enum sw_status sw_plugin_try(const char *path, const struct sw_job *job, FILE *out,
			     struct sw_err *err);

#endif
