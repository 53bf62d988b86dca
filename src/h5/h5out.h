/*
 * The result file, written by the HDF5 writer files (h5out.c, h5resume.c
 * for --resume), the only code in src/ that includes hdf5.h. Rank 0 alone
 * calls these. Creates or resumes one file (docs/hdf5-schema.md) in the
 * HDF5 1.10 format, written in SWMR mode so that h5py reads it while the
 * sweep runs; appends device rows and measurement rows with their raw
 * samples, and flushes so that a run killed at any moment leaves a file a
 * SWMR reader reads and --resume completes. The writer holds a lock of its
 * own on the file from create or resume to close: a second sweep is refused.
 */
#ifndef SW_H5OUT_H
#define SW_H5OUT_H

#include <stddef.h>
#include <stdint.h>

#include "core/device_info.h"
#include "core/record.h"
#include "core/status.h"
#include "model/time_plan.h"

/* 2: end_unix, measure_method; 3: /sessions, and /metrics with the metrics
 * attribute under --metrics; 4: the axis_columns attribute of /measurements;
 * 5: the placement attribute, /measurements' calibration and /devices'
 * device_class; 6: the phase times of /measurements (alloc_s ... check_cpu_s);
 * 7: plugin_paths and plugin_hashes, where the job's plug-ins were found;
 *    /plan (the plan's points, by which a reader tells damaged rows);
 * 8: the time model's columns of /measurements (model_device, model_time_ns,
 *    model_time_term, model_time_basis) and /model_rates; plugin_loaded_paths
 *    ... plugin_library_owners, every plug-in the run loaded and the
 *    libraries they brought in (h5plugins.h); /model_accesses (the model's
 *    figures per named access) and /axis_names (the names of categorical
 *    axes' values); /devices' emulates and /replays, the replay backend's
 *    recordings;
 * 9: /model_rates' RATE_fit and RATE_points, what each rate's fit rests on */
#define SW_SCHEMA_VERSION 9

struct sw_h5;
struct sw_job;
struct sw_plan;

/* A file the run reads (--backend replay=F, --costs, a plug-in): the output
 * may not be it, compared by device and inode, so a hard link, a symbolic
 * link, `./x` and a bind mount of it are the file itself. */
struct sw_h5_input {
	const char *path;
	char what[256]; /* what a message calls it: "the costs file of --costs F" */
};

/* A recording the replay backend replays, a row of /replays (schema 8): a
 * class's own (--replay-devices CLASS:COUNT=FILE) or the shared one
 * (--backend replay=FILE, class ""); a resume or extend must give the same
 * recordings, byte for byte. */
struct sw_h5_recording {
	char device_class[33]; /* the SPEC's class; "": --backend replay=FILE's */
	char file[1024];       /* as given */
	uint64_t file_hash;    /* FNV-1a 64 of its bytes when read; 0: unreadable */
	char emulates[64];     /* the GPU it recorded ("" for a .csv) */
	int32_t devices;       /* ranks that replay it */
};

/* What a session does to the file, as /sessions records it. */
enum sw_session_mode { SW_SESSION_NEW, SW_SESSION_RESUME, SW_SESSION_EXTEND };

/* Root attributes written at creation. */
struct sw_h5_meta {
	const char *tool_version; /* "0.1.0 (git abc1234)" */
	const char *job_text;
	const char *job_path; /* an input too: the output may not be the job file */
	const char *command_line;
	const char *backend;   /* "cuda" or "model" */
	const char *placement; /* "once", "per_class" or "every_gpu"; a resume must match */
	int mpi_size;
	uint64_t plan_fingerprint;
	uint64_t plan_points;
	double start_unix;
	int measure_method;         /* SW_MEASURE_METHOD of a measuring backend, a resume must
			     * match it; 0 for rows that are not measurements */
	enum sw_session_mode mode;  /* new (sw_h5_create), resume or extend (sw_h5_resume) */
	const struct sw_job *job;   /* extend: its measure settings must be the file's */
	const struct sw_plan *plan; /* extend: must hold every point the file holds */
	/* --metrics names (at most SW_MAX_METRICS, each shorter than
	 * SW_METRIC_NAME_LEN): the file gets a /metrics table for them and a
	 * resume must name the same; none (n_metrics 0): no /metrics */
	const char *const *metric_names;
	int n_metrics;
	/* the run's other inputs: no create, resume or extend writes into one */
	const struct sw_h5_input *inputs;
	int n_inputs;
	/* the time model's rates and files (/model_rates); a resume or extend
	 * must give the same files, byte for byte */
	const struct sw_time_rate_row *rates;
	int n_rates;
	/* the replay backend's recordings (/replays); none for other backends */
	const struct sw_h5_recording *recordings;
	int n_recordings;
};

/* A /metrics row (schema 3 on): one --metrics value of one point. */
struct sw_metric_row {
	uint64_t point_id;
	char name[SW_METRIC_NAME_LEN];
	double value;
	char unit[SW_METRIC_UNIT_LEN];
};

/* Creates path, with every object and attribute, under a temporary name,
 * starts SWMR writing and publishes it with link(), so that of two creators
 * one wins and the other gets SW_EIO. An existing file is an error (SW_EIO)
 * unless force; an input of the run (the job file meta->job_path or one of
 * meta->inputs) is SW_EINVAL, with or without force, checked before
 * anything is made or removed; force never replaces a directory, a
 * non-regular file or a file another sweep is writing (SW_EIO). The handle
 * holds the file it made (a descriptor) to the end: every later open goes
 * through it, never through the name (sw_h5_finish). */
enum sw_status sw_h5_create(const char *path, int force, const struct sw_h5_meta *meta,
			    struct sw_h5 **out, struct sw_err *err);

/* Opens an existing sweep file for appending (refusing, SW_EINVAL, one that
 * is an input of the run, as sw_h5_create does, and holding the file it
 * opened to the end, as sw_h5_create does), clearing the consistency
 * flags a killed writer left (no h5clear needed); a 1.10-format file is
 * written in SWMR mode again, a 1.8-format one (older sweeps) as before.
 * Refuses (SW_EINVAL) a file that is not a sweep file, HDF5 cannot open
 * (cut short, damaged, a newer format), has a newer schema or another plan
 * fingerprint, or whose /metrics names differ from meta's (a file without
 * /metrics resumes only without --metrics); SW_EIO when it is missing, another sweep is writing it (our
 * lock), another program has it open (HDF5's lock) or it cannot be opened
 * for writing. Returns the ids already recorded (caller frees *done_ids)
 * and the session number for this run (previous maximum + 1). With
 * meta->mode SW_SESSION_EXTEND the plan may differ (src/h5extend.h says what
 * must match instead). Either way the session gets its row in /sessions.
 * Every check comes before the first write; the file is not yet in SWMR
 * mode and an extend's job not yet adopted: sw_h5_resume_begin does both. */
enum sw_status sw_h5_resume(const char *path, const struct sw_h5_meta *meta, struct sw_h5 **out,
			    uint64_t **done_ids, size_t *n_done, int *session, struct sw_err *err);

/* The end of a resume's (or extend's) opening, once this session's
 * /devices rows are appended: flushes them, then, for --extend, makes the
 * new job the file's (sw_h5extend_adopt_job: the last write of the
 * opening, so a failure before it leaves the file's job as it was) and
 * starts SWMR writing (a 1.10-format file). Rows are appended after it. */
enum sw_status sw_h5_resume_begin(struct sw_h5 *h, const struct sw_h5_meta *meta,
				  struct sw_err *err);

/* A --resume (or, extend set, --extend) of path whose job could not be
 * read or planned (status st, its message in err): when the file records
 * a plug-in that this run did not load (h5plugins.h), err says so first,
 * naming the plug-in's path and content, and keeps its message after it;
 * else err is left as it is. Reads the file only, loads nothing. Returns st. */
enum sw_status sw_h5_explain_plugins(const char *path, int extend, enum sw_status st,
				     struct sw_err *err);

/* Damaged rows of /measurements (docs/hdf5-schema.md, "Damaged rows"):
 * what a resume found, judged by meta->plan (the job's; on --extend the
 * file's /plan where it has one that is not damaged itself). A resume leaves them out of what the file
 * holds, so their points run again, and marks them (point_id the fill
 * value, status SW_H5_DAMAGED_STATUS); --dry-run --resume only says so. */
struct sw_h5_damage {
	uint64_t rows;        /* damaged rows; 0: none */
	uint64_t first_row;   /* the first of them */
	int plan_wrong;       /* /plan (schema 7 on) is not the plan's (damaged, or an --extend's
			     * new plan): the resume writes it */
	char plan_damage[96]; /* why /plan is damaged in itself ("point 5bafef483ffec276 is
			       * in it twice"), so no row was judged by it; "" if it is not */
	char note[448];       /* "16 rows of /measurements are damaged (rows 16 to 31; row 16:
			     * its family is empty)", or "" */
};
#define SW_H5_DAMAGED_STATUS (-2)

/* What sw_h5_resume found and did about damaged rows; zeroed for a new file. */
const struct sw_h5_damage *sw_h5_damage_found(const struct sw_h5 *h);

/* What --dry-run --resume and --dry-run --extend say: every check
 * sw_h5_resume makes, the extend's included, on a read-only open that
 * changes nothing (no flags cleared, no session started, no row marked). *n_done: the distinct point ids already
 * recorded, damaged rows aside (*dmg says what they are). Statuses as
 * sw_h5_resume's. */
enum sw_status sw_h5_check_resume(const char *path, const struct sw_h5_meta *meta, size_t *n_done,
				  struct sw_h5_damage *dmg, struct sw_err *err);
struct sw_h5_placed;
/* The same, and where its rows ran (*placed, as sw_h5_read_placed gives it,
 * damaged rows left out; the caller's, sw_h5_placed_fini), so a dry run
 * under a placement counts the pairs a resume would run. placed NULL:
 * sw_h5_check_resume. */
enum sw_status sw_h5_check_resume_placed(const char *path, const struct sw_h5_meta *meta,
					 size_t *n_done, struct sw_h5_damage *dmg,
					 struct sw_h5_placed *placed, struct sw_err *err);

/* --dry-run of a new file: every check sw_h5_create makes of the output
 * before it writes (the path and its directory, an existing file without
 * force, an input of the run under any of its names, the temporary's
 * room), changing nothing. Statuses as sw_h5_create's. */
enum sw_status sw_h5_check_create(const char *path, int force, const struct sw_h5_meta *meta,
				  struct sw_err *err);

/* Where the rows of an open file ran: row i is point point_id[i], measured
 * by rank rank[i] in session session[i]; devices[] are the file's /devices
 * rows (the GPU and class of each rank of each session). Arrays owned by
 * the caller (sw_h5_placed_fini). */
struct sw_h5_placed {
	size_t n_rows;
	uint64_t *point_id;
	int32_t *rank, *session;
	size_t n_devices;
	struct sw_device_info *devices;
};

/* Rank 0, on a file sw_h5_resume opened, before this session's device rows
 * are appended. SW_ENOMEM or SW_EHDF5 on failure (p is then empty). */
enum sw_status sw_h5_read_placed(struct sw_h5 *h, struct sw_h5_placed *p, struct sw_err *err);
void sw_h5_placed_fini(struct sw_h5_placed *p);

enum sw_status sw_h5_append_devices(struct sw_h5 *h, const struct sw_device_info *rows, size_t n,
				    struct sw_err *err);

/* Appends rec and its samples (sets rec->sample_offset), and a /metrics row
 * for each of its rec->metrics values when the file has /metrics. Buffered:
 * rows reach the disk at the next sw_h5_flush. */
enum sw_status sw_h5_append(struct sw_h5 *h, struct sw_record *rec, struct sw_err *err);

enum sw_status sw_h5_flush(struct sw_h5 *h, struct sw_err *err);

/* Rows of one session as the file holds them, read back from it. */
struct sw_h5_rows {
	uint64_t rows;         /* written rows (fill rows aside) */
	uint64_t by_status[4]; /* of those, by enum sw_row_status */
};

/* What the end of a session found (sw_h5_finish). */
struct sw_h5_end {
	struct sw_h5_rows rows;  /* the session's rows, counted in the file it wrote */
	enum sw_status count_st; /* SW_OK, or why they could not be counted (count_err) */
	struct sw_err count_err;
	char where[4096]; /* where those rows are: the output's path, or where they were kept */
};

/* Flushes and closes, which clears the consistency flags, then writes the
 * end time (a SWMR writer may not add attributes: the file is reopened for
 * it for a moment, through the descriptor held since it was created or
 * resumed, never by name), checks that the output's name still names that
 * file and drops our lock; *h becomes NULL. Safe on NULL. A name that now
 * names another file, or none, is SW_EIO: the message names both, and
 * where the session's rows are kept (the file's new path when it was moved,
 * else a copy made beside the name, .kept<pid>, which overwrites nothing).
 * With end (may be NULL), the session's rows are counted in the file the
 * session wrote, whatever the result, as a summary says them. */
enum sw_status sw_h5_finish(struct sw_h5 **h, double end_unix, struct sw_h5_end *end,
			    struct sw_err *err);
/* sw_h5_finish without the count. */
enum sw_status sw_h5_close(struct sw_h5 **h, double end_unix, struct sw_err *err);

/* Closes a file whose opening failed after sw_h5_create or sw_h5_resume
 * returned it (its first flush, SWMR writing, an extend's job on a full
 * disk): what was flushed stays, no end time is written (the session did
 * not end), the reserve and our lock are given back; *h becomes NULL. Safe
 * on NULL. Every step before it leaves HDF5 nothing unwritten, so the close
 * writes nothing new. */
void sw_h5_abandon(struct sw_h5 **h);

/* Opens path read-only (as a SWMR reader where it can) and counts session's
 * rows, so that a summary says what the file holds, not what was handed to
 * the writer (a run counts through sw_h5_finish, which does it on the file
 * it wrote). SW_EIO when the file cannot be opened, SW_EHDF5 when it
 * cannot be read. */
enum sw_status sw_h5_count_session(const char *path, int session, struct sw_h5_rows *out,
				   struct sw_err *err);

#endif
