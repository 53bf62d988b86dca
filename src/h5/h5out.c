/*
 * The result file of docs/hdf5-schema.md: create, append, flush and close
 * (--resume is h5resume.c's; the two are the HDF5 writer files, the only
 * code in src/ that includes hdf5.h). The file is in the HDF5 1.10 format
 * and written in SWMR mode, so h5py reads it while the sweep runs. Rows wait
 * in memory and every HDF5 write happens in sw_h5_flush, which ends in
 * H5Fflush: a process killed between flushes leaves the file as the last
 * flush wrote it. Never prints: a failure becomes a status and a message
 * that ends with HDF5's innermost error description.
 */
#define _GNU_SOURCE /* F_OFD_SETLK */
#include "h5/h5out.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "core/faults.h"
#include "h5/h5extend.h"
#include "h5/h5internal.h"
#include "kernel.h"
#include "core/safe_open.h"

#define MEAS_CHUNK_ROWS    256
#define DEV_CHUNK_ROWS     16
#define SAMPLES_CHUNK      4096
#define AUTO_FLUSH_ROWS    1024         /* sw_h5_append flushes at this many rows */
#define AUTO_FLUSH_SAMPLES (256 * 1024) /* ... or this many buffered samples (2 MiB) */

/* A /measurements row in memory: struct sw_record up to its samples. */
#define MEAS_ROW_BYTES offsetof(struct sw_record, samples_ns)
_Static_assert(MEAS_ROW_BYTES % 8 == 0, "rows of a buffer must stay aligned");

/* SWMR came with 1.10.0; H5F_LIBVER_V18 and H5Fset_libver_bounds with 1.10.2. */
#if !H5_VERSION_GE(1, 10, 2)
#error "sweep writes SWMR files: it needs HDF5 1.10.2 or newer"
#endif

/* HDF5's private file-access property that h5clear -s sets: opening a file
 * read-write with it clears the consistency flags a killed writer left. */
#define CLEAR_FLAGS_PROP "clear_status_flags"

/* The /devices columns, in the order of struct sw_device_info (device.h);
 * test_h5out checks that they cover it. /measurements has sw_record_columns. */
#define DCOL(field, kind, units)                                                                   \
	{                                                                                          \
#field, offsetof(struct sw_device_info, field),                                    \
			sizeof(((struct sw_device_info *)0)->field), kind, units                   \
	}

const struct sw_column sw_h5_device_columns[] = {
	DCOL(rank, SW_COL_I32, NULL),
	DCOL(session, SW_COL_I32, NULL),
	DCOL(host, SW_COL_TEXT, NULL),
	DCOL(local_rank, SW_COL_I32, NULL),
	DCOL(device_index, SW_COL_I32, NULL),
	DCOL(backend, SW_COL_TEXT, NULL),
	DCOL(pci_bus_id, SW_COL_TEXT, NULL),
	DCOL(uuid, SW_COL_TEXT, NULL),
	DCOL(name, SW_COL_TEXT, NULL),
	DCOL(cc, SW_COL_I32, NULL),
	DCOL(sm_count, SW_COL_I32, NULL),
	DCOL(mem_clock_khz, SW_COL_I32, "kHz"),
	DCOL(mem_bus_width_bits, SW_COL_I32, "bits"),
	DCOL(peak_gbps, SW_COL_F64, "GB/s"),
	DCOL(l2_bytes, SW_COL_I64, "bytes"),
	DCOL(mem_bytes, SW_COL_I64, "bytes"),
	DCOL(driver_version, SW_COL_I32, NULL),
	DCOL(runtime_version, SW_COL_I32, NULL),
	DCOL(visible_devices, SW_COL_TEXT, NULL),
};
const int sw_h5_n_device_columns =
	(int)(sizeof sw_h5_device_columns / sizeof sw_h5_device_columns[0]);

#define N_MEAS_COLS ((size_t)sw_record_n_columns)
#define N_DEV_COLS  ((size_t)sw_h5_n_device_columns)

/* The /metrics columns (struct sw_metric_row); units are per row. */
#define MCOL(field, kind)                                                                          \
	{                                                                                          \
#field, offsetof(struct sw_metric_row, field),                                     \
			sizeof(((struct sw_metric_row *)0)->field), kind, NULL                     \
	}
const struct sw_column sw_h5_metric_columns[] = {
	MCOL(point_id, SW_COL_U64),
	MCOL(name, SW_COL_TEXT),
	MCOL(value, SW_COL_F64),
	MCOL(unit, SW_COL_TEXT),
};
#undef MCOL
const int sw_h5_n_metric_columns =
	(int)(sizeof sw_h5_metric_columns / sizeof sw_h5_metric_columns[0]);
#define N_METRIC_COLS     ((size_t)sw_h5_n_metric_columns)
#define METRIC_CHUNK_ROWS 1024

static const char meas_about[] =
	"One row per plan point and backend. Axis columns hold -1 where the "
	"family has no such axis. Row r's raw sample times are "
	"/samples[sample_offset : sample_offset + n_samples]. status: 0 ok, "
	"1 skipped, 2 invalid, 3 failed (message says why). Units in the "
	"attributes units:<column>.";
static const char dev_about[] =
	"One row per rank and session: the GPU it measured on (device_index -1 "
	"for the model backend). Units in the attributes units:<column>.";
static const char samples_about[] =
	"Raw time of every sample of every /measurements row, in ns; a row "
	"points into it with sample_offset and n_samples.";
static const char metrics_about[] =
	"One row per --metrics value of a point: the CUPTI metric `name` of "
	"point point_id, counted in launches apart from the timed ones, and "
	"its `unit` as CUPTI gives it. Where a point has several rows of a "
	"name (a resumed run), the last one counts.";

/* ---- errors ---------------------------------------------------------- */

struct h5_innermost {
	char text[256];
	hid_t minor; /* its minor error number */
};

static herr_t keep_innermost(unsigned n, const H5E_error2_t *e, void *data)
{
	struct h5_innermost *in = data;

	if (n != 0)
		return 0;
	in->minor = e->min_num;
	if (e->desc && e->desc[0])
		snprintf(in->text, sizeof in->text, "%s", e->desc);
	else if (H5Eget_msg(e->min_num, NULL, in->text, sizeof in->text) < 0)
		in->text[0] = '\0';
	return 0;
}

enum sw_status sw_h5_fail(struct sw_err *err, enum sw_status s, const char *fmt, ...)
{
	struct h5_innermost in = { "", H5I_INVALID_HID };
	char context[sizeof err->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(context, sizeof context, fmt, ap);
	va_end(ap);
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &in);
	if (in.text[0])
		return sw_fail(err, s, "%s: %s", context, in.text);
	return sw_fail(err, s, "%s", context);
}

void sw_h5_innermost_text(char *text, size_t len)
{
	struct h5_innermost in = { "", H5I_INVALID_HID };

	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &in);
	snprintf(text, len, "%s", in.text);
}

/* The minor number of the innermost error of the current stack, or
 * H5I_INVALID_HID; leaves the stack as it is, for sw_h5_fail. */
hid_t sw_h5_innermost_minor(void)
{
	struct h5_innermost in = { "", H5I_INVALID_HID };

	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &in);
	return in.minor;
}

/* ---- types ----------------------------------------------------------- */

static hid_t str_type(size_t len, struct sw_err *err)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	if (t < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot copy the string type");
		return t;
	}
	if (H5Tset_size(t, len) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
	    H5Tset_cset(t, H5T_CSET_ASCII) < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot make a %zu-byte string type", len);
		H5Tclose(t);
		return H5I_INVALID_HID;
	}
	return t;
}

/* Variable-length UTF-8: what h5py returns as str for an attribute. */
static hid_t vstr_type(struct sw_err *err)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	if (t < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot copy the string type");
		return t;
	}
	if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot make a variable-length string type");
		H5Tclose(t);
		return H5I_INVALID_HID;
	}
	return t;
}

static hid_t num_type(enum sw_column_kind kind, int in_file)
{
	switch (kind) {
	case SW_COL_I32: return in_file ? H5T_STD_I32LE : H5T_NATIVE_INT32;
	case SW_COL_U32: return in_file ? H5T_STD_U32LE : H5T_NATIVE_UINT32;
	case SW_COL_AXES:
	case SW_COL_I64: return in_file ? H5T_STD_I64LE : H5T_NATIVE_INT64;
	case SW_COL_U64: return in_file ? H5T_STD_U64LE : H5T_NATIVE_UINT64;
	case SW_COL_F64: return in_file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
	case SW_COL_TEXT: break;
	}
	return H5I_INVALID_HID;
}

static size_t type_bytes(const struct sw_column *cols, size_t n_cols)
{
	size_t bytes = 0;

	for (size_t i = 0; i < n_cols; i++)
		bytes += cols[i].kind == SW_COL_AXES
				 ? (size_t)sw_axis_column_count() * sizeof(int64_t)
				 : cols[i].size;
	return bytes;
}

static herr_t insert(hid_t ctype, const char *name, size_t offset, const struct sw_column *c,
		     int in_file, struct sw_err *err)
{
	hid_t mt = c->kind == SW_COL_TEXT ? str_type(c->size, err) : num_type(c->kind, in_file);
	herr_t rc;

	if (mt < 0)
		return -1;
	rc = H5Tinsert(ctype, name, offset, mt);
	if (rc < 0)
		sw_h5_fail(err, SW_EHDF5, "cannot add column '%s'", name);
	if (c->kind == SW_COL_TEXT)
		H5Tclose(mt);
	return rc;
}

/* The compound type of a table: in memory at the struct's offsets with
 * native types (row_bytes apart), or packed in table order with
 * little-endian types for the file. */
hid_t sw_h5_table_type(const struct sw_column *cols, size_t n_cols, size_t row_bytes, int in_file,
		       struct sw_err *err)
{
	size_t at = 0;
	hid_t t = H5Tcreate(H5T_COMPOUND, in_file ? type_bytes(cols, n_cols) : row_bytes);

	if (t < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot create a compound type");
		return t;
	}
	for (size_t i = 0; i < n_cols; i++) {
		const struct sw_column *c = &cols[i];

		if (c->kind != SW_COL_AXES) {
			if (insert(t, c->name, in_file ? at : c->offset, c, in_file, err) < 0)
				goto close_type;
			at += c->size;
			continue;
		}
		for (int a = 0; a < sw_axis_column_count(); a++) {
			size_t off = in_file ? at : c->offset + (size_t)a * sizeof(int64_t);

			if (insert(t, sw_axis_column_name(a), off, c, in_file, err) < 0) {
				sw_wrap(err, "axis column %d", a);
				goto close_type;
			}
			at += sizeof(int64_t);
		}
	}
	return t;

close_type:
	H5Tclose(t);
	return H5I_INVALID_HID;
}

/* Units of an axis from the families that declare it; NULL when they disagree. */
static const char *axis_units(const char *name)
{
	const char *units = NULL;

	for (int f = 0; f < sw_family_count(); f++)
		for (int a = 0; a < sw_family_at(f)->n_axes; a++) {
			const struct sw_axis_def *d = &sw_family_at(f)->axes[a];

			if (strcmp(d->name, name) != 0 || !d->units)
				continue;
			if (units && strcmp(units, d->units) != 0)
				return NULL;
			units = d->units;
		}
	return units;
}

/* Fixed-length strings get their terminator and nothing but zeros after it,
 * so readers see "abc", never "abc\0garbage". */
static void tidy_strings(const struct sw_column *cols, size_t n_cols, unsigned char *row)
{
	for (size_t i = 0; i < n_cols; i++) {
		char *s = (char *)row + cols[i].offset;
		size_t len;

		if (cols[i].kind != SW_COL_TEXT)
			continue;
		len = strnlen(s, cols[i].size);
		if (len == cols[i].size)
			len--;
		memset(s + len, 0, cols[i].size - len);
	}
}

/* ---- attributes ------------------------------------------------------ */

/* Creates or replaces a scalar attribute. */
static enum sw_status put_attr(hid_t loc, const char *name, hid_t file_type, hid_t mem_type,
			       const void *value, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	htri_t exists = H5Aexists(loc, name);
	hid_t space, attr;

	if (exists < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot look up attribute %s", name);
	if (exists && H5Adelete(loc, name) < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot replace attribute %s", name);
	space = H5Screate(H5S_SCALAR);
	if (space < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot create a scalar dataspace");
	attr = H5Acreate2(loc, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
	if (attr < 0) {
		st = sw_h5_fail(err, SW_EHDF5, "cannot create attribute %s", name);
		goto close_space;
	}
	if (H5Awrite(attr, mem_type, value) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "cannot write attribute %s", name);
	H5Aclose(attr);
close_space:
	H5Sclose(space);
	return st;
}

enum sw_status sw_h5_put_str(hid_t loc, const char *name, const char *value, struct sw_err *err)
{
	enum sw_status st;
	hid_t t = vstr_type(err);

	if (t < 0)
		return err ? err->status : SW_EHDF5;
	if (!value)
		value = "";
	st = put_attr(loc, name, t, t, &value, err);
	H5Tclose(t);
	return st;
}

enum sw_status sw_h5_put_i32(hid_t loc, const char *name, int32_t v, struct sw_err *err)
{
	return put_attr(loc, name, H5T_STD_I32LE, H5T_NATIVE_INT32, &v, err);
}

static enum sw_status put_u64(hid_t loc, const char *name, uint64_t v, struct sw_err *err)
{
	return put_attr(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &v, err);
}

static enum sw_status put_f64(hid_t loc, const char *name, double v, struct sw_err *err)
{
	return put_attr(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v, err);
}

/* Both forms of a time: ISO 8601 UTC under name_time, seconds under name_unix. */
static enum sw_status put_time(hid_t loc, const char *name_time, const char *name_unix,
			       double unix_s, struct sw_err *err)
{
	char iso[32] = "";
	time_t t = (time_t)floor(unix_s);
	struct tm tm;
	enum sw_status st;

	if (isfinite(unix_s) && gmtime_r(&t, &tm))
		strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
	st = sw_h5_put_str(loc, name_time, iso, err);
	if (st == SW_OK)
		st = put_f64(loc, name_unix, unix_s, err);
	return st;
}

/* 1: present and read; 0: absent; <0: present but unreadable as mem_type. */
int sw_h5_get_attr(hid_t loc, const char *name, hid_t mem_type, void *value)
{
	htri_t exists = H5Aexists(loc, name);
	hid_t attr;
	herr_t rc;

	if (exists <= 0)
		return exists < 0 ? -1 : 0;
	attr = H5Aopen(loc, name, H5P_DEFAULT);
	if (attr < 0)
		return -1;
	rc = H5Aread(attr, mem_type, value);
	H5Aclose(attr);
	return rc < 0 ? -1 : 1;
}

/* A variable-length string attribute as a malloc'd copy; "" when absent or
 * of another type. NULL only when out of memory. */
char *sw_h5_get_vstr(hid_t loc, const char *name)
{
	hid_t t = vstr_type(NULL);
	char *s = NULL, *copy;

	if (t >= 0 && sw_h5_get_attr(loc, name, t, &s) != 1)
		s = NULL;
	copy = strdup(s ? s : "");
	if (s)
		H5free_memory(s);
	if (t >= 0)
		H5Tclose(t);
	return copy;
}

/* ---- the handle ------------------------------------------------------ */

static void close_ids(struct sw_h5 *h)
{
	hid_t *datasets[] = { &h->devices, &h->measurements, &h->samples, &h->metrics };
	hid_t *types[] = { &h->dev_mtype, &h->meas_mtype, &h->metric_mtype };

	for (size_t i = 0; i < sizeof datasets / sizeof datasets[0]; i++)
		if (*datasets[i] >= 0) {
			H5Dclose(*datasets[i]);
			*datasets[i] = H5I_INVALID_HID;
		}
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (*types[i] >= 0) {
			H5Tclose(*types[i]);
			*types[i] = H5I_INVALID_HID;
		}
	if (h->file >= 0) {
		H5Fclose(h->file);
		h->file = H5I_INVALID_HID;
	}
}

void sw_h5_destroy(struct sw_h5 *h)
{
	if (!h)
		return;
	close_ids(h);
	if (h->lock_fd >= 0) /* after the file: no other sweep may open it before */
		close(h->lock_fd);
	free(h->dev_buf);
	free(h->meas_buf);
	free(h->samples_buf);
	free(h->metric_buf);
	free(h->metric_names);
	free(h->path);
	free(h);
}

/* A handle with its memory row types and no file yet. */
enum sw_status sw_h5_new_handle(const char *path, struct sw_h5 **out, struct sw_err *err)
{
	struct sw_h5 *h = calloc(1, sizeof *h);

	*out = NULL;
	if (!h)
		return sw_fail(err, SW_ENOMEM, "out of memory for the result file handle");
	h->file = h->devices = h->measurements = h->samples = H5I_INVALID_HID;
	h->dev_mtype = h->meas_mtype = H5I_INVALID_HID;
	h->metrics = h->metric_mtype = H5I_INVALID_HID;
	h->lock_fd = -1;
	h->path = strdup(path);
	if (!h->path) {
		sw_h5_destroy(h);
		return sw_fail(err, SW_ENOMEM, "out of memory for the result file handle");
	}
	h->meas_mtype = sw_h5_table_type(sw_record_columns, N_MEAS_COLS, MEAS_ROW_BYTES, 0, err);
	if (h->meas_mtype < 0)
		goto destroy_h;
	h->dev_mtype = sw_h5_table_type(sw_h5_device_columns, N_DEV_COLS,
					sizeof(struct sw_device_info), 0, err);
	if (h->dev_mtype < 0)
		goto destroy_h;
	*out = h;
	return SW_OK;

destroy_h:
	sw_h5_destroy(h);
	return sw_wrap(err, "cannot build the row types");
}

/* The libver bounds of each enum sw_h5_format. */
const H5F_libver_t sw_h5_format_low[] = { H5F_LIBVER_LATEST, H5F_LIBVER_EARLIEST,
					  H5F_LIBVER_EARLIEST };
const H5F_libver_t sw_h5_format_high[] = { H5F_LIBVER_LATEST, H5F_LIBVER_V18, H5F_LIBVER_LATEST };

/* A file access property list for fmt. clear_flags: the open clears the
 * consistency flags (only with our lock held: they may be a live writer's).
 * no_hdf5_lock: HDF5 takes no flock() of its own, which SWMR readers' shared
 * locks would refuse; our lock keeps other sweeps away. (HDF5 before 1.10.7
 * cannot be told: there a SWMR reader makes writing the end time fail.) */
hid_t sw_h5_file_access(enum sw_h5_format fmt, int clear_flags, int no_hdf5_lock,
			struct sw_err *err)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	hbool_t yes = 1;

	if (fapl < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot create a file access property list");
		return fapl;
	}
	if (H5Pset_libver_bounds(fapl, sw_h5_format_low[fmt], sw_h5_format_high[fmt]) < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot select the HDF5 file format");
		goto close_fapl;
	}
	if (clear_flags && H5Pset(fapl, CLEAR_FLAGS_PROP, &yes) < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot ask HDF5 to clear a killed writer's flags");
		goto close_fapl;
	}
#if H5_VERSION_GE(1, 10, 7)
	if (no_hdf5_lock && H5Pset_file_locking(fapl, 0, 1) < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot turn HDF5's file lock off");
		goto close_fapl;
	}
#endif
	return fapl;

close_fapl:
	H5Pclose(fapl);
	return H5I_INVALID_HID;
}

/* ---- our lock -------------------------------------------------------- */

/* An OFD lock on the whole of path (a write lock, or a read lock when
 * !write), kept in *fd. A sweep holds the write lock on its file from
 * creation or resume to the end of sw_h5_close, because HDF5's own lock
 * cannot tell that a sweep writes the file: a SWMR writer drops it. OFD
 * locks and HDF5's flock() do not see each other (Linux; NFS emulates
 * flock() with byte-range locks, and there they collide), and closing
 * another descriptor of the file, as HDF5 does, keeps an OFD lock where it
 * drops a POSIX process lock. LOCK_BUSY: another process holds it.
 * LOCK_NONE: the file system takes no locks (*fd is -1, errno says why).
 * LOCK_ERROR: path cannot be opened, or fcntl fails otherwise (errno). */
/* Our lock on the open descriptor fd (see sw_h5_take_lock); closes fd
 * unless LOCK_OURS. */
static enum sw_h5_lock lock_open_fd(int fd, int write, int *out)
{
	struct flock fl = { .l_type = write ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET };
	int e;

	*out = fd;
	if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
		return LOCK_OURS;
	e = errno;
	close(fd);
	*out = -1;
	errno = e;
	if (e == EAGAIN || e == EACCES)
		return LOCK_BUSY;
	if (e == EINVAL || e == ENOLCK || e == ENOSYS || e == EOPNOTSUPP)
		return LOCK_NONE;
	return LOCK_ERROR;
}

enum sw_h5_lock sw_h5_take_lock(const char *path, int write, int *fd)
{
	int f = open(path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);

	*fd = -1;
	if (f < 0)
		return LOCK_ERROR;
	return lock_open_fd(f, write, fd);
}

/* ---- create ---------------------------------------------------------- */

/* The directory part of path ("." when it has none), malloc'd. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t len;
	char *dir;

	if (!slash)
		return strdup(".");
	len = slash == path ? 1 : (size_t)(slash - path);
	dir = malloc(len + 1);
	if (dir) {
		memcpy(dir, path, len);
		dir[len] = '\0';
	}
	return dir;
}

/* A name the file system takes: 255 bytes (NAME_MAX on Linux file systems). */
#define NAME_BYTES 255

/* Where the file is built before it takes its name: same directory, hidden.
 * A long legal name gives the temporary one only the start of it, so that
 * ".", ".tmp" and the pid never push it past NAME_BYTES. */
static char *temp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	size_t len = strlen(path) + 48, base = strlen(path + dir_len);
	char pid[24], *tmp = malloc(len);
	int room;

	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	room = NAME_BYTES - 5 - (int)strlen(pid);
	if (tmp)
		snprintf(tmp, len, "%.*s.%.*s.tmp%s", (int)dir_len, path,
			 base > (size_t)room ? room : (int)base, path + dir_len, pid);
	return tmp;
}

static enum sw_status check_target(const char *path, int force, const char *job_path,
				   struct sw_err *err)
{
	enum sw_status st = SW_OK;
	struct stat sb, job;
	char *dir;

	/* names quoted short, so that a long one leaves room for the reason */
	char name[160], dname[160];
	int gone;

	if (!path || !path[0] || path[strlen(path) - 1] == '/')
		return sw_fail(err, SW_EINVAL, "'%s' is not a file name for the results",
			       path ? sw_safe_open_brief(path, name, sizeof name) : "(null)");
	sw_safe_open_brief(path, name, sizeof name);
	dir = dir_of(path);
	if (!dir)
		return sw_fail(err, SW_ENOMEM, "out of memory");
	sw_safe_open_brief(dir, dname, sizeof dname);
	if (stat(dir, &sb) != 0) {
		if (errno == ENOENT)
			st = sw_fail(err, SW_EIO, "cannot create %s: directory %s does not exist",
				     name, dname);
		else
			st = sw_fail(err, SW_EIO, "cannot create %s: directory %s: %s", name, dname,
				     strerror(errno));
		goto free_dir;
	}
	if (!S_ISDIR(sb.st_mode)) {
		st = sw_fail(err, SW_EIO, "cannot create %s: %s is not a directory", name, dname);
		goto free_dir;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		st = sw_fail(err, SW_EIO, "cannot create %s: directory %s is not writable: %s",
			     name, dname, strerror(errno));
		goto free_dir;
	}
	gone = stat(path, &sb) != 0;
	if (gone && errno != ENOENT) {
		/* too long a name, say: refused here, not by HDF5 in a cut message */
		st = sw_fail(err, SW_EIO, "cannot create %s: %s", name, strerror(errno));
		goto free_dir;
	}
	if (!gone) {
		/* --force replaces a results file, never the job or a device or FIFO */
		if (S_ISDIR(sb.st_mode))
			st = sw_fail(err, SW_EIO, "cannot create %s: it is a directory", name);
		else if (!S_ISREG(sb.st_mode))
			st = sw_fail(err, SW_EIO,
				     "cannot create %s: it exists and is not a regular file", name);
		else if (job_path && stat(job_path, &job) == 0 && job.st_dev == sb.st_dev &&
			 job.st_ino == sb.st_ino)
			st = sw_fail(err, SW_EINVAL,
				     "%s is the job file; write the results to another file", name);
		else if (!force)
			st = sw_fail(err, SW_EIO,
				     "%s already exists; use --force to overwrite it or --resume "
				     "to continue it",
				     name);
	}
free_dir:
	free(dir);
	return st;
}

static enum sw_status write_root(hid_t file, const struct sw_h5_meta *m, struct sw_err *err)
{
	enum sw_status st;

	if ((st = sw_h5_put_i32(file, "schema_version", SW_SCHEMA_VERSION, err)) ||
	    (st = sw_h5_put_str(file, "tool_version", m->tool_version, err)) ||
	    (st = sw_h5_put_str(file, "job_path", m->job_path, err)) ||
	    (st = sw_h5_put_str(file, "job_text", m->job_text, err)) ||
	    (st = sw_h5_put_str(file, "command_line", m->command_line, err)) ||
	    (st = sw_h5_put_str(file, "command_line_history", m->command_line, err)) ||
	    (st = sw_h5_put_str(file, "backend", m->backend, err)) ||
	    (st = sw_h5_put_i32(file, "mpi_size", m->mpi_size, err)) ||
	    (st = put_u64(file, "plan_fingerprint", m->plan_fingerprint, err)) ||
	    (st = put_u64(file, "plan_points", m->plan_points, err)) ||
	    (st = put_time(file, "start_time", "start_unix", m->start_unix, err)) ||
	    (st = sw_h5_put_i32(file, "sessions", 1, err)) ||
	    (st = sw_h5_put_i32(file, "measure_method", m->measure_method, err)))
		return sw_wrap(err, "cannot write the root attributes");
	return SW_OK;
}

enum sw_status sw_h5_metrics_attr(const struct sw_h5_meta *meta, char *buf, size_t len,
				  struct sw_err *err)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < meta->n_metrics; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? "," : "",
				 meta->metric_names[i]);

		if (w < 0 || (size_t)w >= len - used)
			return sw_fail(err, SW_EINVAL, "too many --metrics names for one file");
		used += (size_t)w;
	}
	return SW_OK;
}

enum sw_status sw_h5_keep_metric_names(struct sw_h5 *h, const struct sw_h5_meta *meta,
				       struct sw_err *err)
{
	if (!meta || meta->n_metrics <= 0)
		return SW_OK;
	if (meta->n_metrics > SW_MAX_METRICS)
		return sw_fail(err, SW_EINVAL, "%d --metrics names, more than %d", meta->n_metrics,
			       SW_MAX_METRICS);
	h->metric_names = calloc((size_t)meta->n_metrics, sizeof *h->metric_names);
	if (!h->metric_names)
		return sw_fail(err, SW_ENOMEM, "out of memory for the --metrics names");
	for (int i = 0; i < meta->n_metrics; i++) {
		if (strlen(meta->metric_names[i]) >= SW_METRIC_NAME_LEN)
			return sw_fail(err, SW_EINVAL, "--metrics name %s is too long",
				       meta->metric_names[i]);
		snprintf(h->metric_names[i], SW_METRIC_NAME_LEN, "%s", meta->metric_names[i]);
	}
	h->n_metric_names = meta->n_metrics;
	h->metric_mtype = sw_h5_table_type(sw_h5_metric_columns, N_METRIC_COLS,
					   sizeof(struct sw_metric_row), 0, err);
	return h->metric_mtype < 0 ? sw_wrap(err, "cannot build the /metrics row type") : SW_OK;
}

/* An empty extendable 1-D dataset with its description and units. */
static hid_t create_table(hid_t file, const char *name, hid_t file_type, hsize_t chunk_rows,
			  hid_t fill_type, const void *fill, const char *about,
			  const struct sw_column *cols, size_t n_cols, struct sw_err *err)
{
	hsize_t dims = 0, maxdims = H5S_UNLIMITED;
	hid_t space, dcpl, dset = H5I_INVALID_HID;

	space = H5Screate_simple(1, &dims, &maxdims);
	if (space < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot create the dataspace of %s", name);
		return space;
	}
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (dcpl < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot create the properties of %s", name);
		goto close_space;
	}
	if (H5Pset_chunk(dcpl, 1, &chunk_rows) < 0 ||
	    H5Pset_fill_value(dcpl, fill_type, fill) < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot set chunks and fill value of %s", name);
		goto close_dcpl;
	}
	dset = H5Dcreate2(file, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (dset < 0) {
		sw_h5_fail(err, SW_EHDF5, "cannot create %s", name);
		goto close_dcpl;
	}
	if (sw_h5_put_str(dset, "description", about, err))
		goto close_dset;
	for (size_t i = 0; i < n_cols; i++) {
		char attr[80];

		if (cols[i].kind == SW_COL_AXES) {
			for (int a = 0; a < sw_axis_column_count(); a++) {
				const char *units = axis_units(sw_axis_column_name(a));

				snprintf(attr, sizeof attr, "units:%s", sw_axis_column_name(a));
				if (units && sw_h5_put_str(dset, attr, units, err))
					goto close_dset;
			}
			continue;
		}
		if (!cols[i].units)
			continue;
		snprintf(attr, sizeof attr, "units:%s", cols[i].name);
		if (sw_h5_put_str(dset, attr, cols[i].units, err))
			goto close_dset;
	}
	goto close_dcpl;

close_dset:
	H5Dclose(dset);
	dset = H5I_INVALID_HID;
close_dcpl:
	H5Pclose(dcpl);
close_space:
	H5Sclose(space);
	return dset;
}

static enum sw_status create_tables(struct sw_h5 *h, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	struct sw_record blank;
	struct sw_device_info no_device;
	double no_sample = NAN;
	hid_t ftype;

	/* What a row allocated but never written reads as: see FILL_POINT_ID. */
	sw_record_init(&blank);
	blank.point_id = FILL_POINT_ID;
	blank.status = -1;
	blank.check_mode[0] = '\0';
	memset(&no_device, 0, sizeof no_device);
	no_device.rank = no_device.session = no_device.device_index = -1;

	ftype = sw_h5_table_type(sw_h5_device_columns, N_DEV_COLS, 0, 1, err);
	if (ftype < 0)
		return sw_wrap(err, "cannot build the /devices type");
	h->devices = create_table(h->file, "devices", ftype, DEV_CHUNK_ROWS, h->dev_mtype,
				  &no_device, dev_about, sw_h5_device_columns, N_DEV_COLS, err);
	H5Tclose(ftype);
	if (h->devices < 0)
		return err ? err->status : SW_EHDF5;

	ftype = sw_h5_table_type(sw_record_columns, N_MEAS_COLS, 0, 1, err);
	if (ftype < 0)
		return sw_wrap(err, "cannot build the /measurements type");
	h->measurements =
		create_table(h->file, "measurements", ftype, MEAS_CHUNK_ROWS, h->meas_mtype, &blank,
			     meas_about, sw_record_columns, N_MEAS_COLS, err);
	H5Tclose(ftype);
	if (h->measurements < 0)
		return err ? err->status : SW_EHDF5;

	h->samples = create_table(h->file, "samples", H5T_IEEE_F64LE, SAMPLES_CHUNK,
				  H5T_NATIVE_DOUBLE, &no_sample, samples_about, NULL, 0, err);
	if (h->samples < 0)
		return err ? err->status : SW_EHDF5;
	st = sw_h5_put_str(h->samples, "units", "ns", err);
	return st;
}

/* With --metrics: the /metrics table and the names in the root attribute
 * `metrics`, which a resume compares. Without: neither, as in schema 2. */
static enum sw_status create_metrics_table(struct sw_h5 *h, const struct sw_h5_meta *meta,
					   struct sw_err *err)
{
	struct sw_metric_row none = { .point_id = FILL_POINT_ID, .value = NAN };
	char names[SW_MAX_METRICS * SW_METRIC_NAME_LEN];
	enum sw_status st;
	hid_t ftype;

	if (!meta || meta->n_metrics <= 0)
		return SW_OK;
	if ((st = sw_h5_keep_metric_names(h, meta, err)) ||
	    (st = sw_h5_metrics_attr(meta, names, sizeof names, err)) ||
	    (st = sw_h5_put_str(h->file, "metrics", names, err)))
		return st;
	ftype = sw_h5_table_type(sw_h5_metric_columns, N_METRIC_COLS, 0, 1, err);
	if (ftype < 0)
		return sw_wrap(err, "cannot build the /metrics type");
	h->metrics = create_table(h->file, "metrics", ftype, METRIC_CHUNK_ROWS, h->metric_mtype,
				  &none, metrics_about, sw_h5_metric_columns, N_METRIC_COLS, err);
	H5Tclose(ftype);
	return h->metrics < 0 ? (err ? err->status : SW_EHDF5) : SW_OK;
}

/* Objects first, then SWMR: a SWMR writer may append to datasets but not
 * create objects or attributes, and writes no variable-length data (the
 * tables hold fixed-length strings only). */
enum sw_status sw_h5_start_swmr(struct sw_h5 *h, struct sw_err *err)
{
	if (H5Fstart_swmr_write(h->file) < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot start writing in SWMR mode", h->path);
	h->swmr = 1;
	return SW_OK;
}

/* With --force over an existing file: our write lock on it until it is
 * replaced, so that while a sweep writes it, or another --force replaces
 * it, this one is refused, and no --resume starts on it meanwhile. The
 * lock holds the inode the name had when we opened it; if the name has
 * moved on since (another --force published between our open and our
 * lock), replacing it would drop that sweep's file, so we refuse. *replace:
 * path exists and is to be replaced. *fd: the lock, -1 where none can be
 * taken (a file system without locks; a file we may not open for writing
 * gets a read lock, which still keeps writers off). */
static enum sw_status hold_old_file(const char *path, int *replace, int *fd, struct sw_err *err)
{
	struct stat named, held;
	enum sw_h5_lock lock;

	*fd = -1;
	*replace = lstat(path, &named) == 0;
	if (!*replace)
		return SW_OK;
	lock = sw_h5_take_lock(path, 1, fd);
	if (lock == LOCK_ERROR && errno == EACCES)
		lock = sw_h5_take_lock(path, 0, fd);
	if (lock == LOCK_ERROR && errno == ENOENT) /* gone meanwhile: a new file after all */
		*replace = 0;
	if (lock == LOCK_BUSY)
		return sw_fail(err, SW_EIO,
			       "cannot replace %s: another sweep is writing or replacing it (it "
			       "holds the file's lock)",
			       path);
	if (*fd >= 0 && (fstat(*fd, &held) != 0 || stat(path, &named) != 0 ||
			 held.st_dev != named.st_dev || held.st_ino != named.st_ino)) {
		close(*fd);
		*fd = -1;
		return sw_fail(err, SW_EIO,
			       "cannot replace %s: another sweep replaced it while this one was "
			       "starting; nothing was run",
			       path);
	}
	return SW_OK;
}

/* The temporary file, made by us alone (O_EXCL) and locked before HDF5
 * writes a byte: from its first moment no other sweep can take it, and
 * once published the lock covers the name too (one inode). */
static enum sw_status make_locked_temp(struct sw_h5 *h, const char *tmp, struct sw_err *err)
{
	int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	enum sw_h5_lock lock;

	if (fd < 0)
		return sw_fail(err, SW_EIO, "cannot create %s: %s", tmp, strerror(errno));
	lock = lock_open_fd(fd, 1, &h->lock_fd);
	if (lock == LOCK_OURS || lock == LOCK_NONE) /* no locks here: the name alone decides */
		return SW_OK;
	sw_fail(err, SW_EIO, "cannot lock %s: %s", tmp, strerror(errno));
	unlink(tmp);
	return SW_EIO;
}

/* SW_TEST_FAULT=publish-wait:FILE holds a finished, locked temporary file
 * back from its name until FILE exists, so a test can let another sweep
 * publish first, every time. */
static void fault_publish_wait(void)
{
	struct sw_faults f;
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	sw_faults_parse(getenv("SW_TEST_FAULT"), &f);
	while (f.publish_wait && access(f.publish_wait, F_OK) != 0)
		nanosleep(&tick, NULL);
}

/* Gives tmp the name path. A new name with link(), which fails when path
 * exists (or, where hard links are not supported, renameat2 with
 * RENAME_NOREPLACE): of two sweeps creating one new file, exactly one
 * wins, and the other has run nothing yet. Only --force over a file that
 * existed when it started renames, holding that file's lock (hold_old_file):
 * a --force that found no file creates with link() like any other. */
static enum sw_status publish(const char *tmp, const char *path, int replace, struct sw_err *err)
{
	int e;

	fault_publish_wait();
	if (replace) {
		if (rename(tmp, path) != 0)
			return sw_fail(err, SW_EIO, "cannot rename %s to %s: %s", tmp, path,
				       strerror(errno));
		return SW_OK;
	}
	if (link(tmp, path) == 0) {
		if (unlink(tmp) == 0)
			return SW_OK;
		e = errno;
		unlink(path); /* ours alone still: a failed creation leaves nothing */
		return sw_fail(err, SW_EIO, "cannot remove %s: %s", tmp, strerror(e));
	}
	e = errno;
	/* A file system without hard links may still rename without replacing. */
	if (e == EPERM || e == EOPNOTSUPP) {
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
			return SW_OK;
		if (errno == EEXIST)
			e = EEXIST;
	}
	if (e == EEXIST)
		return sw_fail(err, SW_EIO,
			       "%s already exists: another sweep created it while this one "
			       "was starting; nothing was run",
			       path);
	return sw_fail(err, SW_EIO, "cannot give %s its name %s: %s", tmp, path, strerror(e));
}

/* Every object and attribute of a new file, in h->file, then SWMR. */
static enum sw_status build_file(struct sw_h5 *h, const char *tmp, const struct sw_h5_meta *meta,
				 struct sw_err *err)
{
	enum sw_status st;
	/* Without HDF5's flock(): our OFD lock is taken already, and on NFS,
	 * which emulates flock() with byte-range locks, the two would collide. */
	hid_t fapl = sw_h5_file_access(FMT_SWMR, 0, 1, err);

	if (fapl < 0)
		return err ? err->status : SW_EHDF5;
	h->file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	H5Pclose(fapl);
	if (h->file < 0)
		return sw_h5_fail(err, SW_EIO, "cannot create %s", h->path);
	if ((st = write_root(h->file, meta, err)) || (st = create_tables(h, err)) ||
	    (st = create_metrics_table(h, meta, err)) ||
	    (st = sw_h5extend_add_session(h, meta, 0, err)) || (st = sw_h5_start_swmr(h, err)))
		return st;
	if (H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0)
		return sw_h5_fail(err, SW_EIO, "cannot write %s", h->path);
	return SW_OK;
}

enum sw_status sw_h5_create(const char *path, int force, const struct sw_h5_meta *meta,
			    struct sw_h5 **out, struct sw_err *err)
{
	enum sw_status st;
	struct sw_h5 *h;
	char *tmp;
	int old_fd = -1, replace = 0, made = 0;

	*out = NULL;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	st = check_target(path, force, meta ? meta->job_path : NULL, err);
	if (st)
		return st;
	if (force && (st = hold_old_file(path, &replace, &old_fd, err)))
		return st;
	st = sw_h5_new_handle(path, &h, err);
	if (st)
		goto release_old;
	tmp = temp_name(path);
	if (!tmp) {
		st = sw_fail(err, SW_ENOMEM, "out of memory");
		goto destroy_h;
	}
	/* Built under a temporary name, so that path never names a half-made
	 * file and --force keeps the old file until the new one is complete. */
	if ((st = make_locked_temp(h, tmp, err)))
		goto free_tmp;
	made = 1;
	if ((st = build_file(h, tmp, meta, err)) || (st = publish(tmp, path, replace, err)))
		goto remove_tmp;
	free(tmp);
	if (old_fd >= 0)
		close(old_fd);
	*out = h;
	return SW_OK;

remove_tmp:
	close_ids(h);
	if (made)
		unlink(tmp);
free_tmp:
	free(tmp);
destroy_h:
	sw_h5_destroy(h);
release_old:
	if (old_fd >= 0)
		close(old_fd);
	return st;
}

/* ---- append, flush, close -------------------------------------------- */

/* p with room for len + need items of size bytes (*cap of them), or NULL
 * when out of memory, p still valid then. */
static void *grow(void *p, size_t *cap, size_t len, size_t need, size_t size)
{
	size_t want = *cap ? *cap : 64;

	if (p && len + need <= *cap)
		return p;
	while (want < len + need)
		want *= 2;
	p = realloc(p, want * size);
	if (p)
		*cap = want;
	return p;
}

/* rec's --metrics values as /metrics rows, named in the order the file's
 * names are; nothing when the file has no /metrics or rec was not counted. */
static enum sw_status buffer_metrics(struct sw_h5 *h, const struct sw_record *rec,
				     struct sw_err *err)
{
	int n = rec->metrics.n < h->n_metric_names ? rec->metrics.n : h->n_metric_names;

	if (h->metrics < 0 || n <= 0)
		return SW_OK;
	void *buf = grow(h->metric_buf, &h->metric_cap, h->metric_len, (size_t)n,
			 sizeof *h->metric_buf);
	if (!buf)
		return sw_fail(err, SW_ENOMEM, "out of memory for buffered /metrics rows");
	h->metric_buf = buf;
	for (int i = 0; i < n; i++) {
		struct sw_metric_row *row = &h->metric_buf[h->metric_len++];

		memset(row, 0, sizeof *row);
		row->point_id = rec->point_id;
		snprintf(row->name, sizeof row->name, "%s", h->metric_names[i]);
		row->value = rec->metrics.values[i];
		snprintf(row->unit, sizeof row->unit, "%.*s", (int)sizeof rec->metrics.units[i],
			 rec->metrics.units[i]);
	}
	return SW_OK;
}

enum sw_status sw_h5_append_devices(struct sw_h5 *h, const struct sw_device_info *rows, size_t n,
				    struct sw_err *err)
{
	void *buf = grow(h->dev_buf, &h->dev_cap, h->dev_len, n, sizeof *rows);

	if (!buf)
		return sw_fail(err, SW_ENOMEM, "out of memory for %zu device rows", n);
	h->dev_buf = buf;
	for (size_t i = 0; i < n; i++) {
		struct sw_device_info *d = &h->dev_buf[h->dev_len++];

		*d = rows[i];
		tidy_strings(sw_h5_device_columns, N_DEV_COLS, (unsigned char *)d);
	}
	return SW_OK;
}

enum sw_status sw_h5_append(struct sw_h5 *h, struct sw_record *rec, struct sw_err *err)
{
	unsigned char *row;
	void *buf;

	if (rec->n_samples > SW_MAX_SAMPLES)
		return sw_fail(err, SW_EINVAL, "point %llu has %u samples, more than %d",
			       (unsigned long long)rec->point_id, rec->n_samples, SW_MAX_SAMPLES);
	enum sw_status st = buffer_metrics(h, rec, err);
	if (st)
		return st;
	buf = grow(h->meas_buf, &h->meas_cap, h->meas_len, 1, MEAS_ROW_BYTES);
	if (!buf)
		return sw_fail(err, SW_ENOMEM, "out of memory for buffered rows");
	h->meas_buf = buf;
	buf = grow(h->samples_buf, &h->samples_cap, h->samples_len, rec->n_samples, sizeof(double));
	if (!buf)
		return sw_fail(err, SW_ENOMEM, "out of memory for buffered samples");
	h->samples_buf = buf;

	rec->sample_offset = h->n_samples + h->samples_len;
	memcpy(h->samples_buf + h->samples_len, rec->samples_ns, rec->n_samples * sizeof(double));
	h->samples_len += rec->n_samples;
	row = h->meas_buf + h->meas_len++ * MEAS_ROW_BYTES;
	memcpy(row, rec, MEAS_ROW_BYTES);
	tidy_strings(sw_record_columns, N_MEAS_COLS, row);

	if (h->meas_len >= AUTO_FLUSH_ROWS || h->samples_len >= AUTO_FLUSH_SAMPLES)
		return sw_h5_flush(h, err);
	return SW_OK;
}

/* Extends a table by n rows and writes them; *rows counts what is on disk. */
static enum sw_status write_rows(hid_t dset, const char *name, hid_t mem_type, const void *buf,
				 size_t n, uint64_t *rows, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	hsize_t start = *rows, count = n, size = *rows + n;
	hid_t fspace, mspace;

	if (n == 0)
		return SW_OK;
	if (H5Dset_extent(dset, &size) < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot extend %s", name);
	fspace = H5Dget_space(dset);
	if (fspace < 0)
		return sw_h5_fail(err, SW_EHDF5, "cannot get the extent of %s", name);
	if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0) {
		st = sw_h5_fail(err, SW_EHDF5, "cannot select rows of %s", name);
		goto close_fspace;
	}
	mspace = H5Screate_simple(1, &count, NULL);
	if (mspace < 0) {
		st = sw_h5_fail(err, SW_EHDF5, "cannot create a dataspace for %s", name);
		goto close_fspace;
	}
	if (H5Dwrite(dset, mem_type, mspace, fspace, H5P_DEFAULT, buf) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "cannot write %zu rows to %s", n, name);
	else
		*rows = size;
	H5Sclose(mspace);
close_fspace:
	H5Sclose(fspace);
	return st;
}

enum sw_status sw_h5_flush(struct sw_h5 *h, struct sw_err *err)
{
	enum sw_status st;
	struct sw_faults f;

	sw_faults_parse(getenv("SW_TEST_FAULT"), &f);
	if (f.enospc_rows >= 0 && h->n_meas + h->meas_len > (uint64_t)f.enospc_rows)
		return sw_fail(err, SW_EIO,
			       "cannot write %zu rows to /measurements: No space left on device "
			       "(SW_TEST_FAULT)",
			       h->meas_len);
	/* Samples before the rows that point into them. */
	st = write_rows(h->samples, "/samples", H5T_NATIVE_DOUBLE, h->samples_buf, h->samples_len,
			&h->n_samples, err);
	if (st)
		return st;
	h->samples_len = 0;
	/* before the rows they belong to, as samples are: a cut between them
	 * leaves metrics of a point without its row, which its rerun writes again */
	st = write_rows(h->metrics, "/metrics", h->metric_mtype, h->metric_buf, h->metric_len,
			&h->n_metric_rows, err);
	if (st)
		return st;
	h->metric_len = 0;
	st = write_rows(h->measurements, "/measurements", h->meas_mtype, h->meas_buf, h->meas_len,
			&h->n_meas, err);
	if (st)
		return st;
	h->meas_len = 0;
	st = write_rows(h->devices, "/devices", h->dev_mtype, h->dev_buf, h->dev_len, &h->n_dev,
			err);
	if (st)
		return st;
	h->dev_len = 0;
	if (H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0)
		return sw_h5_fail(err, SW_EIO, "cannot flush %s", h->path);
	return SW_OK;
}

/* A SWMR writer may not add attributes, so the end time goes in once the
 * file is closed (which clears its consistency flags), through a plain
 * writer that opens it for a moment. Without HDF5's lock: a SWMR reader
 * holds a shared one, and our lock still keeps other sweeps away. */
static enum sw_status write_end_time(struct sw_h5 *h, double end_unix, struct sw_err *err)
{
	enum sw_status st;
	hid_t fapl = sw_h5_file_access(FMT_SWMR, 0, 1, err), file;

	if (fapl < 0)
		return err ? err->status : SW_EHDF5;
	file = H5Fopen(h->path, H5F_ACC_RDWR, fapl);
	if (file < 0) {
		st = sw_h5_fail(err, SW_EIO, "cannot reopen it to write the end time");
		H5Pclose(fapl);
		return st;
	}
	H5Pclose(fapl);
	st = put_time(file, "end_time", "end_unix", end_unix, err);
	if (H5Fclose(file) < 0 && st == SW_OK)
		st = sw_h5_fail(err, SW_EIO, "cannot close %s", h->path);
	return st;
}

enum sw_status sw_h5_close(struct sw_h5 **hp, double end_unix, struct sw_err *err)
{
	enum sw_status st;
	struct sw_h5 *h;
	hid_t file;

	if (!hp || !*hp)
		return SW_OK;
	h = *hp;
	*hp = NULL;
	st = sw_h5_flush(h, err);
	if (st == SW_OK && !h->swmr)
		st = put_time(h->file, "end_time", "end_unix", end_unix, err);
	/* The file last, and checked: H5Fclose writes what is still cached. */
	file = h->file;
	h->file = H5I_INVALID_HID;
	close_ids(h);
	if (H5Fclose(file) < 0 && st == SW_OK)
		st = sw_h5_fail(err, SW_EIO, "cannot close %s", h->path);
	if (st == SW_OK && h->swmr)
		st = write_end_time(h, end_unix, err);
	if (st)
		sw_wrap(err, "%s", h->path);
	sw_h5_destroy(h); /* and with it our lock */
	return st;
}

/* ---- reading the summary back ----------------------------------------- */

struct row_head {
	uint64_t point_id;
	int32_t session, status;
};

/* /measurements' point_id, session and status, as a reader sees the file. */
static enum sw_status read_heads(hid_t file, const char *path, struct row_head **rows, hsize_t *n,
				 struct sw_err *err)
{
	enum sw_status st = SW_OK;
	hid_t d = H5Dopen2(file, "measurements", H5P_DEFAULT), sp, t = H5I_INVALID_HID;

	*rows = NULL;
	if (d < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot open /measurements", path);
	sp = H5Dget_space(d);
	if (sp < 0 || H5Sget_simple_extent_dims(sp, n, NULL) != 1) {
		st = sw_h5_fail(err, SW_EHDF5, "%s: cannot get the extent of /measurements", path);
		goto close;
	}
	t = H5Tcreate(H5T_COMPOUND, sizeof **rows);
	*rows = malloc((*n ? *n : 1) * sizeof **rows);
	if (t < 0 || !*rows ||
	    H5Tinsert(t, "point_id", offsetof(struct row_head, point_id), H5T_NATIVE_UINT64) < 0 ||
	    H5Tinsert(t, "session", offsetof(struct row_head, session), H5T_NATIVE_INT32) < 0 ||
	    H5Tinsert(t, "status", offsetof(struct row_head, status), H5T_NATIVE_INT32) < 0 ||
	    (*n && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, *rows) < 0))
		st = sw_h5_fail(err, SW_EHDF5, "%s: cannot read /measurements back", path);
close:
	if (st) {
		free(*rows);
		*rows = NULL;
	}
	if (t >= 0)
		H5Tclose(t);
	if (sp >= 0)
		H5Sclose(sp);
	H5Dclose(d);
	return st;
}

enum sw_status sw_h5_count_session(const char *path, int session, struct sw_h5_rows *out,
				   struct sw_err *err)
{
	enum sw_status st;
	struct row_head *rows;
	hsize_t n = 0;
	hid_t fapl = sw_h5_file_access(FMT_EITHER, 0, 1, err), file;

	memset(out, 0, sizeof *out);
	if (fapl < 0)
		return err ? err->status : SW_EHDF5;
	/* A SWMR reader reads a file whose close failed (flags set), as the
	 * user's tools will; a 1.8-format file opens plainly. */
	file = H5Fopen(path, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl);
	if (file < 0)
		file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
	H5Pclose(fapl);
	if (file < 0)
		return sw_h5_fail(err, SW_EIO, "cannot read %s back", path);
	st = read_heads(file, path, &rows, &n, err);
	for (hsize_t i = 0; st == SW_OK && i < n; i++) {
		if (rows[i].point_id == FILL_POINT_ID || rows[i].session != session)
			continue;
		out->rows++;
		if (rows[i].status >= 0 && rows[i].status < 4)
			out->by_status[rows[i].status]++;
	}
	free(rows);
	H5Fclose(file);
	return st;
}
