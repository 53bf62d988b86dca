/*
 * The `families` section of a job file, for job.c's walk: each family's
 * variants and axes, checked against the registry, defaults filled in.
 * --set edits the same fields (sw_job_set in job.h, defined beside it).
 */
#ifndef SW_JOB_FAMILIES_H
#define SW_JOB_FAMILIES_H

#include "job/job.h"
#include "job/yaml_read.h"

/* Reads the node n of top-level key `key` (families or calibrate) into
 * *out and *n_out (owned by the job: on error, sw_job_fini frees what was
 * filled). */
enum sw_status sw_job_read_families(struct sw_yaml_ctx *c, yaml_node_t *n, const char *key,
				    struct sw_job_family **out, int *n_out);

#endif
