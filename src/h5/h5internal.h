/*
 * Private to src/h5 and its tests: the handle and what the files of the
 * folder share, file by file, lowest first. Each file calls only those
 * above its own section (h5extend.h's only h5base.c; h5create.c and
 * h5resume.c, at the top, any), so the calls between them run one way
 * (docs/ARCHITECTURE.md, "The file"). Nothing outside src/h5 includes it.
 */
#ifndef SW_H5INTERNAL_H
#define SW_H5INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <hdf5.h>

#include "h5/h5out.h"
#include "core/status.h"

struct sw_h5 {
	char *path;
	hid_t file;
	int swmr;         /* 1.10 format, SWMR writer; 0: a 1.8-format file resumed as such */
	int swmr_pending; /* a resumed 1.10-format file: SWMR starts in sw_h5_resume_begin */
	int lock_fd;      /* holds our lock on the file (see sw_h5_take_lock); -1 when none */
	/* the file itself (h5own.c), from creation or resume to the end: every
	 * later open goes through it; -1 before */
	int held_fd;
	dev_t held_dev;
	ino_t held_ino;
	/* its folder (O_PATH, -1 until sw_h5_own_name needs it) and its name
	 * there ("": the last part of path; the temporary's while it is one) */
	int dir_fd;
	char held_name[256];
	/* the room reserved for it to grow (h5room.c): a writable descriptor
	 * (-1 before) and how far the reserve reaches, in bytes from its start */
	int room_fd;
	uint64_t room_end;
	int session;                          /* this session's number, as its rows say it */
	hid_t devices, measurements, samples; /* datasets */
	hid_t dev_mtype, meas_mtype;          /* row types in memory */
	uint64_t n_dev, n_meas, n_samples;    /* rows on disk */

	/* Buffered rows, written by the next flush. */
	struct sw_device_info *dev_buf;
	size_t dev_len, dev_cap;
	unsigned char *meas_buf; /* rows of MEAS_ROW_BYTES */
	size_t meas_len, meas_cap;
	double *samples_buf;
	size_t samples_len, samples_cap;

	/* /metrics (--metrics): H5I_INVALID_HID when the file has none */
	hid_t metrics, metric_mtype;
	uint64_t n_metric_rows;
	char (*metric_names)[SW_METRIC_NAME_LEN];
	int n_metric_names;
	struct sw_metric_row *metric_buf;
	size_t metric_len, metric_cap;

	/* /model_accesses (schema 8): H5I_INVALID_HID until made or opened */
	hid_t accesses, access_mtype;
	uint64_t n_access_rows;
	struct sw_access_row *access_buf;
	size_t access_len, access_cap;

	struct sw_h5_damage damage; /* what a resume found (h5plan.c) */
};

/* A /model_accesses row (schema 8): one named access of the variant of
 * /measurements row `row`, as the model figures it (core/figures.h). */
struct sw_access_row {
	uint64_t row; /* of /measurements; with point_id, the key */
	uint64_t point_id;
	int32_t cc;
	int32_t access; /* its index in the variant's accesses */
	char name[SW_NAME_LEN];
	char space[12]; /* "global", "shared", "constant" */
	int32_t is_store;
	double requests, transactions, wavefronts, useful_bytes, moved_bytes, costed;
	char counts[16]; /* "exact", "requests_exact", "sampled" */
};

/* An /axis_names row (schema 8): the name of one value of a categorical
 * axis of one family. */
struct sw_axis_name_row {
	char family[SW_TEXT_LEN];
	char axis[SW_NAME_LEN];
	int64_t value;
	char name[SW_NAME_LEN];
};

/* Point id of a row that was allocated but never written (the fill value). */
#define FILL_POINT_ID UINT64_MAX

/* ---- h5base.c: errors, string types, attributes ------------------------ */

/* Like sw_fail, then appends the innermost HDF5 error of the current stack;
 * the status is SW_ENOMEM, not s, where that error is HDF5 out of memory
 * (H5E_RESOURCE: no space or cannot allocate, no file's space). Call it
 * right after the failing call: any HDF5 call clears the stack. */
enum sw_status sw_h5_fail(struct sw_err *err, enum sw_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The description of the innermost error of the current stack, or "";
 * leaves the stack as it is. */
void sw_h5_innermost_text(char *text, size_t len);
/* The minor number of the innermost error of the current stack, or
 * H5I_INVALID_HID; leaves the stack as it is, for sw_h5_fail. */
hid_t sw_h5_innermost_minor(void);

/* A fixed-length (len bytes, NUL-terminated, ASCII) or variable-length
 * UTF-8 string type; the caller closes it. H5I_INVALID_HID on failure. */
hid_t sw_h5_str_type(size_t len, struct sw_err *err);
hid_t sw_h5_vstr_type(struct sw_err *err);

/* Scalar attributes: created or replaced. */
enum sw_status sw_h5_put_str(hid_t loc, const char *name, const char *value, struct sw_err *err);
enum sw_status sw_h5_put_i32(hid_t loc, const char *name, int32_t v, struct sw_err *err);
enum sw_status sw_h5_put_u64(hid_t loc, const char *name, uint64_t v, struct sw_err *err);
enum sw_status sw_h5_put_f64(hid_t loc, const char *name, double v, struct sw_err *err);
/* Both forms of a time: ISO 8601 UTC under name_time, seconds under name_unix. */
enum sw_status sw_h5_put_time(hid_t loc, const char *name_time, const char *name_unix,
			      double unix_s, struct sw_err *err);
/* n variable-length strings, a 1-D array: created or replaced. */
enum sw_status sw_h5_put_str_list(hid_t loc, const char *name, const char *const *values, size_t n,
				  struct sw_err *err);
/* n uint64 values, a 1-D array: created or replaced. */
enum sw_status sw_h5_put_u64_list(hid_t loc, const char *name, const uint64_t *values, size_t n,
				  struct sw_err *err);

/* A 1-D array of variable-length strings (sw_h5_put_str_list's) as *n
 * malloc'd copies in *values (sw_h5_str_list_fini frees them); none when
 * absent. SW_EINVAL when it is another type, SW_ENOMEM. */
enum sw_status sw_h5_get_str_list(hid_t loc, const char *name, char ***values, size_t *n,
				  struct sw_err *err);
void sw_h5_str_list_fini(char **values, size_t n);
/* A 1-D array of integers (sw_h5_put_u64_list's) as *n values in *values
 * (malloc'd; the caller frees it); none when absent. SW_EINVAL when it is
 * another type or shape, SW_ENOMEM. */
enum sw_status sw_h5_get_u64_list(hid_t loc, const char *name, uint64_t **values, size_t *n,
				  struct sw_err *err);

/* 1: present and opened (*attr, which the caller closes); 0: absent; -1:
 * present but cannot be opened. */
int sw_h5_open_attr(hid_t loc, const char *name, hid_t *attr);
/* 1: present and read; 0: absent; <0: present but unreadable as mem_type. */
int sw_h5_get_attr(hid_t loc, const char *name, hid_t mem_type, void *value);

/* A variable-length string attribute as a malloc'd copy; "" when absent or
 * of another type. NULL only when out of memory. */
char *sw_h5_get_vstr(hid_t loc, const char *name);

/* unix_s as ISO 8601 UTC to the second ("2025-11-29T15:04:05Z"), "" when
 * it is not finite; len SW_H5_ISO_LEN holds it. */
#define SW_H5_ISO_LEN 24
void sw_h5_iso_time(double unix_s, char *iso, size_t len);

/* "an integer", "a string", ... for messages; sw_h5_class_noun without the
 * article ("integer"). */
const char *sw_h5_class_name(H5T_class_t c);
const char *sw_h5_class_noun(H5T_class_t c);

/* qsort's comparison of two uint64_t. */
int sw_h5_cmp_u64(const void *a, const void *b);

/* ---- h5table.c: the tables, made and checked ---------------------------- */

/* The /devices columns (struct sw_device_info), as sw_record_columns are
 * those of /measurements, and the /metrics columns (struct sw_metric_row). */
extern const struct sw_column sw_h5_device_columns[];
extern const int sw_h5_n_device_columns;
extern const struct sw_column sw_h5_metric_columns[];
extern const int sw_h5_n_metric_columns;
/* Schema 8's /model_accesses (struct sw_access_row) and /axis_names
 * (struct sw_axis_name_row) columns. */
extern const struct sw_column sw_h5_access_columns[];
extern const int sw_h5_n_access_columns;
extern const struct sw_column sw_h5_axis_name_columns[];
extern const int sw_h5_n_axis_name_columns;
#define N_MEAS_COLS   ((size_t)sw_record_n_columns)
#define N_DEV_COLS    ((size_t)sw_h5_n_device_columns)
#define N_METRIC_COLS ((size_t)sw_h5_n_metric_columns)

/* The attribute of /measurements that names its axis columns (schema 4 on). */
#define SW_H5_AXES_ATTR "axis_columns"

/* The compound type of a table: in memory at the struct's offsets with
 * native types (row_bytes apart), or packed in table order with
 * little-endian types for the file (in_file). H5I_INVALID_HID on failure. */
hid_t sw_h5_table_type(const struct sw_column *cols, size_t n_cols, size_t row_bytes, int in_file,
		       struct sw_err *err);

/* Fixed-length strings of a row get their terminator and nothing but zeros
 * after it, so readers see "abc", never "abc\0garbage". */
void sw_h5_tidy_strings(const struct sw_column *cols, size_t n_cols, unsigned char *row);

/* A table to create: its columns (NULL: one float64 per row, /samples),
 * its chunk size and the value of a row allocated but never written. */
struct sw_h5_table {
	const char *name, *about;
	const struct sw_column *cols;
	size_t n_cols;
	size_t chunk_rows;
	hid_t fill_type; /* the memory type of *fill */
	const void *fill;
};

/* Creates t empty, 1-D, chunked and unlimited, with its `description`, a
 * `units:<column>` per column with units and, where it has axis columns,
 * SW_H5_AXES_ATTR. H5I_INVALID_HID on failure. */
hid_t sw_h5_create_table(hid_t file, const struct sw_h5_table *t, struct sw_err *err);

/* One column of the first rows of a table, into buf (rows x H5Tget_size(type)). */
enum sw_status sw_h5_read_column(hid_t dset, const char *table, const char *name, hid_t type,
				 uint64_t rows, void *buf, struct sw_err *err);

/* Creates the table t (its fill_type left out: it is the memory type
 * of its columns) and writes rows[0..n) into it, at once. */
enum sw_status sw_h5_write_table(hid_t file, struct sw_h5_table t, size_t row_bytes,
				 const void *rows, int n, struct sw_err *err);

/* Every row of the 1-D table `name` of file, read as cols describe a
 * row_bytes struct, into *rows (malloc'd, *n of them); *rows NULL and *n 0
 * where the file has no such table. */
enum sw_status sw_h5_read_table(hid_t file, const char *name, const struct sw_column *cols,
				size_t n_cols, size_t row_bytes, void **rows, int *n,
				struct sw_err *err);

/* The columns a table may lack, sw_h5_check_columns' may_lack: an axis
 * column (an --extend adds it: sw_h5_add_axis_columns), and those schema 8
 * added (a file before it stays its layout, and a row written to it has
 * no such column: docs/hdf5-schema.md, schema_version). */
enum { SW_H5_MAY_LACK_AXES = 1, SW_H5_MAY_LACK_SCHEMA_8 = 2 };

/* The checks that an existing table is one sweep can append to, each SW_OK
 * or SW_EINVAL with the reason: its layout (1-D, chunked, no maximum
 * size), and every column against what sweep writes (cols NULL: a table of
 * float64, /samples) but those may_lack (SW_H5_MAY_LACK_*) lets it lack. */
enum sw_status sw_h5_check_layout(hid_t dset, const char *path, const char *name,
				  struct sw_err *err);
enum sw_status sw_h5_check_columns(hid_t dset, const char *path, const char *name,
				   const struct sw_column *cols, size_t n_cols, int may_lack,
				   struct sw_err *err);

/* The units of an axis name from the registered families that declare it;
 * NULL when none does or they disagree. */
const char *sw_h5_axis_units(const char *name);

/* ---- h5grow.c: /measurements grown by axis columns (--extend) ------------ */

/* The axis columns of this registry (sw_axis_column_name indices) that
 * /measurements (dset) lacks, into missing (SW_MAX_AXIS_COLUMNS); their
 * count, -1 when its type cannot be read. */
int sw_h5_missing_axes(hid_t dset, int *missing);

/* Gives /measurements (*dset, replaced by the new dataset) the n axis
 * columns missing[]: a copy with them at the end of each row, -1 in every
 * existing row, with every attribute of the old table, the new columns'
 * units and axis_columns, takes the table's name. Rows, their order and
 * the other columns stay; a failure leaves the old table as it was. */
enum sw_status sw_h5_add_axis_columns(hid_t file, hid_t *dset, const int *missing, int n,
				      struct sw_err *err);

/* ---- h5open.c: formats, our lock, the read-only open --------------------- */

/* The formats a file is opened in. SWMR needs the 1.10 format (superblock
 * version 3) with no older objects; sweeps before SWMR wrote the 1.8 format,
 * which --resume keeps for such a file. */
enum sw_h5_format {
	FMT_SWMR,   /* what sweep writes */
	FMT_V18,    /* a file from an older sweep */
	FMT_EITHER, /* opening a file to see which it is */
};

extern const H5F_libver_t sw_h5_format_low[], sw_h5_format_high[]; /* by enum sw_h5_format */

/* A file access property list for fmt; H5I_INVALID_HID on failure.
 * clear_flags: the open clears the consistency flags (only with our lock
 * held). no_hdf5_lock: HDF5 takes no flock() of its own. */
hid_t sw_h5_file_access(enum sw_h5_format fmt, int clear_flags, int no_hdf5_lock,
			struct sw_err *err);

/* Our lock on a file (h5open.c says why): on path, or on the open
 * descriptor fd, which is closed unless LOCK_OURS; *out holds it. */
enum sw_h5_lock { LOCK_OURS, LOCK_BUSY, LOCK_NONE, LOCK_ERROR };
enum sw_h5_lock sw_h5_take_lock(const char *path, int write, int *out);
enum sw_h5_lock sw_h5_lock_fd(int fd, int write, int *out);

/* path is a regular file (SW_EINVAL naming what it is instead, SW_EIO when
 * it cannot be looked at) and an HDF5 one (SW_EINVAL). doing begins every
 * message: "cannot resume", "cannot read durations from". */
enum sw_status sw_h5_check_file(const char *path, const char *doing, struct sw_err *err);

/* SW_EINVAL, naming the file as shown after doing, when file's
 * schema_version is newer than SW_SCHEMA_VERSION: a reader refuses a newer
 * schema (docs/hdf5-schema.md). SW_OK for an older one, or none. */
enum sw_status sw_h5_check_schema(hid_t file, const char *shown, const char *doing,
				  struct sw_err *err);

/* The read-only open every reader of a result file makes: sw_h5_check_file,
 * then as a SWMR reader without HDF5's lock (a running sweep's file, or a
 * killed one's, reads as of its last flush), tried again while a writer is
 * between modes, else plainly; SW_EINVAL when HDF5 cannot open it, or when
 * it is of a newer schema (sw_h5_check_schema). The caller closes *file. Takes no lock of ours: a caller that needs one takes
 * it first. */
enum sw_status sw_h5_open_read(const char *path, const char *doing, hid_t *file,
			       struct sw_err *err);
/* The same, opening name (/proc/self/fd/N) where messages say shown. */
enum sw_status sw_h5_open_read_as(const char *name, const char *shown, const char *doing,
				  hid_t *file, struct sw_err *err);
/* Counts session's rows of an open file (sw_h5_count_session's count). */
enum sw_status sw_h5_count_in(hid_t file, const char *path, int session, struct sw_h5_rows *out,
			      struct sw_err *err);

/* ---- h5room.c: room for the file to grow --------------------------------- */

/* The moments at which HDF5 writes to the file, each reserving its room
 * first (SW_TEST_FAULT=full:MOMENT fills the disk at one of them). */
enum sw_h5_moment {
	SW_H5_AT_CREATE, /* "create": a new file's objects, before H5Fcreate */
	SW_H5_AT_RESUME, /* "resume": before the open that writes, and before the resume's writes */
	SW_H5_AT_SWMR,   /* "swmr": before H5Fstart_swmr_write */
	SW_H5_AT_FLUSH,  /* "flush": before the buffered rows are written */
	SW_H5_AT_CLOSE,  /* "close": before the end time is written */
};

/* Bytes HDF5 may add to a file at a step beside what a table's rows take:
 * its metadata (object headers, chunk indexes, heaps), written whole. */
#define SW_H5_ROOM_METADATA ((uint64_t)256 << 10)

/* The reserve takes a writable copy of fd (of h's file) and ignores
 * SIGXFSZ, so a write past the file-size limit fails as a full disk does. */
enum sw_status sw_h5_room_hold(struct sw_h5 *h, int fd, struct sw_err *err);
/* bytes more than the file holds (from its end, or from HDF5's end of
 * allocation where that is further) can be written at moment at: reserved
 * on the disk (fallocate, FALLOC_FL_KEEP_SIZE; a file system that cannot
 * reserve has its free space checked) and within the file-size limit.
 * SW_EIO when not, naming the disk or the limit and what the moment needs;
 * nothing of the file is written either way. SW_OK when h holds no room. */
enum sw_status sw_h5_room_reserve(struct sw_h5 *h, enum sw_h5_moment at, uint64_t bytes,
				  struct sw_err *err);
/* Bytes that add rows to a table of have rows may take: every chunk they
 * touch, whole, at the row size of the table in the file (dset's). */
uint64_t sw_h5_room_rows(hid_t dset, uint64_t have, uint64_t add);
/* Gives back what the reserve holds past the file's end, and its descriptor;
 * after the file is closed. Safe when none is held. */
void sw_h5_room_release(struct sw_h5 *h);

/* ---- h5own.c: the file that is ours ------------------------------------- */

/* h holds the file fd is open on (a descriptor of its own, and its device
 * and inode), from creation or resume to sw_h5_destroy. SW_EIO on failure. */
enum sw_status sw_h5_own_hold(struct sw_h5 *h, int fd, struct sw_err *err);
/* The name every later open of h's file uses: /proc/self/fd/N of the held
 * descriptor (that file, whatever its name names now), in buf; h->path
 * where /proc cannot give it. HDF5 resolves a name that is a symbolic link
 * (realpath) and fails where the real path is past PATH_MAX: there it is
 * /proc/self/fd/D/NAME, D the folder's descriptor (h->dir_fd), which ends
 * in no link, once checked to name the held file. buf: SW_H5_OWN_NAME_LEN
 * bytes. */
#define SW_H5_OWN_NAME_LEN 320
const char *sw_h5_own_name(struct sw_h5 *h, char *buf, size_t len);
/* The file HDF5 opened as file is the one h holds (SW_EIO, nothing written
 * yet, when not). */
enum sw_status sw_h5_own_opened(const struct sw_h5 *h, hid_t file, struct sw_err *err);
/* Right after a new file took its name: h holds it through that name (so
 * /proc shows where it is from then on) once h->path names the very file
 * h made; SW_EIO, nothing run, when it names another. */
enum sw_status sw_h5_own_retake(struct sw_h5 *h, struct sw_err *err);
/* At the end, before the end time is written: h->path still names the file
 * h holds (SW_OK, where = path); else the rows are kept, where its new path
 * is when it was moved, else in a copy beside the name that h holds from
 * then on, and the message names both files (SW_EIO, where = where they
 * are). */
enum sw_status sw_h5_own_at_end(struct sw_h5 *h, char *where, size_t len, struct sw_err *err);

/* ---- h5publish.c: where a new file goes and how it gets its name --------- */

/* path, when it exists, is none of meta's inputs (the job file, meta->inputs),
 * by device and inode: SW_EINVAL naming the input. */
enum sw_status sw_h5_check_inputs(const char *path, const struct sw_h5_meta *meta,
				  struct sw_err *err);
/* path can take a new result file: a name in a writable directory, none of
 * meta's inputs, not a directory or special file, and new unless force. */
enum sw_status sw_h5_check_target(const char *path, int force, const struct sw_h5_meta *meta,
				  struct sw_err *err);
/* With --force: our lock on the file path names, kept in *fd until it is
 * replaced; *replace: it exists. */
enum sw_status sw_h5_hold_old_file(const char *path, int *replace, int *fd, struct sw_err *err);
/* The hidden temporary file a new one is built in, beside its name:
 * ".NAME.tmpPID" in the output's folder, which it holds open, so the
 * temporary is named relative to it and never needs a longer path than
 * the output's own. */
struct sw_h5_temp {
	int dir_fd;       /* the output's folder (O_PATH); -1 when not open */
	char name[256];   /* the temporary's name in it */
	const char *base; /* the output's name in it: the end of the path given */
	char *shown;      /* folder and temporary name, for messages */
};
/* t for path: its names and its folder opened (SW_EIO naming path when the
 * folder cannot be, SW_ENOMEM); sw_h5_temp_fini closes and frees it, also
 * after a failure. */
enum sw_status sw_h5_temp_init(const char *path, struct sw_h5_temp *t, struct sw_err *err);
void sw_h5_temp_fini(struct sw_h5_temp *t);
/* Removes the temporary file (ours: made with O_EXCL). */
void sw_h5_temp_remove(const struct sw_h5_temp *t);
/* t's file made by us alone (O_EXCL), held by h (sw_h5_own_hold), its room
 * too (sw_h5_room_hold), and locked (h->lock_fd) before HDF5 writes. */
enum sw_status sw_h5_make_locked_temp(const struct sw_h5_temp *t, struct sw_h5 *h,
				      struct sw_err *err);
/* The writer's test holds (SW_TEST_FAULT's publish-wait and close-wait,
 * faults.h): waits until file exists; at once when file is NULL. */
void sw_h5_wait_for(const char *file);
/* Gives t's file its name (t->base, path in messages): linkat(), or
 * renameat() when replace. */
enum sw_status sw_h5_publish(const struct sw_h5_temp *t, const char *path, int replace,
			     struct sw_err *err);

/* ---- h5write.c: the handle, rows, closing ------------------------------- */

/* A handle with its memory row types and no file yet (SW_ENOMEM, SW_EHDF5);
 * sw_h5_destroy closes what it holds, drops our lock and frees it;
 * sw_h5_close_ids closes the datasets, the row types and the file. */
enum sw_status sw_h5_new_handle(const char *path, struct sw_h5 **out, struct sw_err *err);
void sw_h5_destroy(struct sw_h5 *h);
void sw_h5_close_ids(struct sw_h5 *h);

/* The run's --metrics names as the file's `metrics` attribute holds them,
 * joined by ','; "" for none. SW_EINVAL when they do not fit len. */
enum sw_status sw_h5_metrics_attr(const struct sw_h5_meta *meta, char *buf, size_t len,
				  struct sw_err *err);

/* Keeps meta's --metrics names in h, for the rows sw_h5_append writes. */
enum sw_status sw_h5_keep_metric_names(struct sw_h5 *h, const struct sw_h5_meta *meta,
				       struct sw_err *err);

/* Starts SWMR writing on h's file, once every object and attribute exists. */
enum sw_status sw_h5_start_swmr(struct sw_h5 *h, struct sw_err *err);

/* Extends the table dset (called name in messages) by n rows of mem_type
 * from buf and writes them; *rows counts what is on disk. */
enum sw_status sw_h5_write_rows(hid_t dset, const char *name, hid_t mem_type, const void *buf,
				size_t n, uint64_t *rows, struct sw_err *err);

/* ---- h5named.c: schema 8's /model_accesses and /axis_names ------------- */

/* Both tables made in h's new file: /model_accesses empty (h->accesses,
 * which sw_h5_append fills), /axis_names with every registered family's
 * named values. Before SWMR writing starts. */
enum sw_status sw_h5_named_create(struct sw_h5 *h, struct sw_err *err);

/* A resume's or extend's check of both, reading only: where the file has
 * them, each a table of their columns (a file before schema 8 has none). */
enum sw_status sw_h5_named_check(struct sw_h5 *h, struct sw_err *err);

/* Then, once every check passed: /model_accesses opened to append to (made
 * where the file has none), /axis_names given the named values of the
 * families it lacks (an extend's plug-in's). Before SWMR writing starts. */
enum sw_status sw_h5_named_resume(struct sw_h5 *h, struct sw_err *err);

/* ---- h5durations.c: the class of a row ------------------------------------- */

/* A /devices row: whose (rank, session) and its class label. */
struct sw_h5_dev_label {
	int32_t rank, session;
	char label[96]; /* SW_DURATION_CLASS_LEN */
};

/* /devices' rows of file, in its order, into *labels (*n, malloc'ed): the
 * label is device_class (schema 5 on), else name; none (NULL, 0) where
 * the file has no /devices this can read. */
void sw_h5_device_labels(hid_t file, struct sw_h5_dev_label **labels, size_t *n);

/* The label of rank and session among labels[0..n), or "". */
const char *sw_h5_label_of(const struct sw_h5_dev_label *labels, size_t n, int32_t rank,
			   int32_t session);

/* ---- h5rates.c: /model_rates ---------------------------------------------- */

/* Creates /model_rates in file with rows[0..n). */
enum sw_status sw_h5_write_rates(hid_t file, const struct sw_time_rate_row *rows, int n,
				 struct sw_err *err);
/* SW_EINVAL, naming the file and its option, when a measured file of
 * now[0..n_now) is not one /model_rates records with the same hash, class
 * and GPU fitted, or one it records is not among now; SW_OK for a file without /model_rates and
 * a run without such files. */
enum sw_status sw_h5_check_rates(hid_t file, const char *path, const struct sw_time_rate_row *now,
				 int n_now, struct sw_err *err);

/* ---- h5replays.c: /replays ------------------------------------------------ */

/* Creates /replays in file with rows[0..n). */
enum sw_status sw_h5_write_recordings(hid_t file, const struct sw_h5_recording *rows, int n,
				      struct sw_err *err);
/* SW_EINVAL, naming the recording and its class, when one of now[0..n_now)
 * is not one /replays records with the same hash, or one it records is not
 * among now; SW_OK for a file without /replays. */
enum sw_status sw_h5_check_recordings(hid_t file, const char *path,
				      const struct sw_h5_recording *now, int n_now,
				      struct sw_err *err);

/* ---- h5plan.c: /plan and damaged rows ---------------------------------- */

struct sw_plan;

/* The bytes /plan's rows take for n_points points (h5room.c). */
uint64_t sw_h5_plan_room(size_t n_points);

/* /plan (schema 7 on) made or rewritten to hold plan's points (a /plan of
 * another layout is replaced). Before SWMR writing starts. */
enum sw_status sw_h5_write_plan(struct sw_h5 *h, const struct sw_plan *plan, struct sw_err *err);

/* The damaged rows of h's /measurements (its first h->n_meas rows): *bad,
 * one byte per row (caller frees), set for each; *dmg what they are, and
 * on a resume whether /plan is the plan's. Reads only. */
enum sw_status sw_h5_find_damage(struct sw_h5 *h, const struct sw_h5_meta *meta, uint8_t **bad,
				 struct sw_h5_damage *dmg, struct sw_err *err);

/* sw_h5_read_placed without the rows bad sets (NULL: none), on a file a
 * dry run opened read-only, whose damaged rows are not marked. */
enum sw_status sw_h5_read_placed_kept(struct sw_h5 *h, const uint8_t *bad, struct sw_h5_placed *p,
				      struct sw_err *err);

/* Marks the rows bad sets: point_id FILL_POINT_ID, status SW_H5_DAMAGED_STATUS. */
enum sw_status sw_h5_mark_damage(struct sw_h5 *h, const uint8_t *bad, struct sw_err *err);

#endif
