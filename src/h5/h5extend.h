/*
 * The sessions of a result file and --extend (docs/hdf5-schema.md,
 * "Sessions and --resume"). Rank 0 only, inside the writer (h5create.c creates,
 * h5resume.c resumes and extends). /sessions holds one row per session: its
 * mode, job text, plan fingerprint and sweep revision. --extend adds the new
 * points of an enlarged job: every point the file holds must be in the new
 * plan and the measure settings must be those the file was made with.
 */
#ifndef SW_H5EXTEND_H
#define SW_H5EXTEND_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "h5/h5out.h"
#include "job/job.h"
#include "job/plan.h"
#include "core/status.h"

struct sw_h5;

/* Appends session's row to /sessions (meta->mode, ->start_unix, ->job_text,
 * ->plan_fingerprint, ->plan_points, ->tool_version), creating the table in a
 * file made before it had one. Call before SWMR writing starts: the row holds
 * variable-length strings. SW_EHDF5 on failure. */
enum sw_status sw_h5extend_add_session(struct sw_h5 *h, const struct sw_h5_meta *meta, int session,
				       struct sw_err *err);

/* --extend: SW_EINVAL naming the first of the file's points (done, sorted, no
 * duplicates) that plan lacks. Pure. (Its measure and model settings are
 * checked as a resume's are, in h5resume.c.) */
enum sw_status sw_h5extend_check_points(const uint64_t *done, size_t n_done,
					const struct sw_plan *plan, const char *path,
					struct sw_err *err);

/* The plug-in record of a file's job (docs/hdf5-schema.md, schema 7 on):
 * the root attributes plugin_paths and plugin_hashes, the real path and
 * content hash of the file each `plugins:` entry of job_text resolved to,
 * in order. put writes job's (meta->job; none: the attributes go), and
 * with them the identity of every plug-in this run loaded (h5plugins.h), get
 * reads them into *refs (*n of them; the caller frees with
 * sw_h5extend_plugins_fini), *n -1 for a file that records none and is
 * older than schema 7. get: SW_EINVAL naming the attribute when the two
 * are not arrays of strings and integers of one length. */
enum sw_status sw_h5extend_put_plugins(hid_t file, const struct sw_job *job, struct sw_err *err);
enum sw_status sw_h5extend_get_plugins(hid_t file, const char *path, struct sw_plugin_ref **refs,
				       int *n, struct sw_err *err);
void sw_h5extend_plugins_fini(struct sw_plugin_ref *refs, int n);

/* --extend, once both checks pass: the root attributes job_text, job_path,
 * plan_fingerprint, plan_points and the plug-in record become the new
 * job's, so that a later --resume of the grown file takes the new job.
 * The last write of an --extend's opening (sw_h5_resume_begin), so that a
 * failure before it leaves the file's job as it was. SW_EHDF5 on failure. */
enum sw_status sw_h5extend_adopt_job(struct sw_h5 *h, const struct sw_h5_meta *meta,
				     struct sw_err *err);

/* /sessions (dset) has every column a session's row fills, in a class the
 * row converts to: SW_EINVAL naming the first that does not. */
enum sw_status sw_h5extend_check_session_type(hid_t dset, const char *path, struct sw_err *err);

/* Both checks of --extend on the open file h and its points (its measure
 * and model settings are checked as a resume's are, in h5resume.c). */
enum sw_status sw_h5extend_check(struct sw_h5 *h, const struct sw_h5_meta *meta,
				 const uint64_t *done, size_t n_done, struct sw_err *err);

#endif
