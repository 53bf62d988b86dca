/*
 * Opening a result file: the file-access property list of each format,
 * sweep's own lock on a file (an OFD lock: HDF5's cannot tell that a sweep
 * writes it), the one read-only open every reader makes (--dry-run
 * --resume and --extend, the durations, the summary count), and the
 * summary count itself. Opening to write is h5create.c's and h5resume.c's.
 */
#define _GNU_SOURCE /* F_OFD_SETLK */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "h5/h5internal.h"
#include "core/safe_open.h"

/* SWMR came with 1.10.0; H5F_LIBVER_V18 and H5Fset_libver_bounds with 1.10.2. */
#if !H5_VERSION_GE(1, 10, 2)
#error "sweep writes SWMR files: it needs HDF5 1.10.2 or newer"
#endif

/* A writer leaves SWMR mode for a moment to resume a file or to write its
 * end time; a SWMR reader opening the file then is refused and tries again,
 * as sweep_analysis does. */
#define OPEN_TRIES   10
#define OPEN_WAIT_NS 200000000L

/* HDF5's private file-access property that h5clear -s sets: opening a file
 * read-write with it clears the consistency flags a killed writer left. */
#define CLEAR_FLAGS_PROP "clear_status_flags"

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
enum sw_h5_lock sw_h5_lock_fd(int fd, int write, int *out)
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
	return sw_h5_lock_fd(f, write, fd);
}

/* ---- the read-only open ------------------------------------------------ */

/* sw_h5_check_file of name, whose messages say shown. */
static enum sw_status check_file_as(const char *name, const char *shown, const char *doing,
				    struct sw_err *err)
{
	const char *kind;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	/* HDF5 opens by name: the type is checked first, without blocking */
	int ok = name ? sw_safe_open_check(name, &kind) : SW_SAFE_OPEN_FAILED;
	if (ok == SW_SAFE_OPEN_NOT_REG)
		return sw_fail(err, SW_EINVAL, "%s %s: not a regular file: it is %s", doing, shown,
			       kind);
	if (ok != 0)
		return sw_fail(err, SW_EIO, "%s %s: %s", doing, shown ? shown : "(null)",
			       name ? strerror(errno) : "no file name");
	if (H5Fis_hdf5(name) <= 0)
		return sw_fail(err, SW_EINVAL, "%s %s: not an HDF5 file", doing, shown);
	return SW_OK;
}

enum sw_status sw_h5_check_file(const char *path, const char *doing, struct sw_err *err)
{
	return check_file_as(path, path, doing, err);
}

/* As a SWMR reader, tried again while a writer is between modes. */
static hid_t open_swmr(const char *path, hid_t fapl)
{
	struct timespec wait = { 0, OPEN_WAIT_NS };
	char why[256];
	hid_t f = H5I_INVALID_HID;

	for (int i = 0; f < 0 && i < OPEN_TRIES; i++) {
		if (i)
			nanosleep(&wait, NULL);
		f = H5Fopen(path, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl);
		sw_h5_innermost_text(why, sizeof why);
		if (f < 0 && !strstr(why, "SWMR"))
			break;
	}
	return f;
}

enum sw_status sw_h5_check_schema(hid_t file, const char *shown, const char *doing,
				  struct sw_err *err)
{
	int schema = 0;
	/* a file without it is judged by what it holds, as before schema 1 */
	if (sw_h5_get_attr(file, "schema_version", H5T_NATIVE_INT, &schema) != 1 ||
	    schema <= SW_SCHEMA_VERSION)
		return SW_OK;
	return sw_fail(err, SW_EINVAL,
		       "%s %s: it has schema version %d, newer than the %d this sweep writes and "
		       "reads, so its layout may mean what this sweep cannot tell: use a newer "
		       "sweep",
		       doing, shown, schema, SW_SCHEMA_VERSION);
}

enum sw_status sw_h5_open_read_as(const char *name, const char *shown, const char *doing,
				  hid_t *file, struct sw_err *err)
{
	enum sw_status st = check_file_as(name, shown, doing, err);
	/* Without HDF5's shared lock: it would make a sweep that resumes the
	 * file meanwhile fail; our lock, where a caller takes it, is enough. */
	hid_t fapl = st ? H5I_INVALID_HID : sw_h5_file_access(FMT_EITHER, 0, 1, err);

	*file = H5I_INVALID_HID;
	if (st || fapl < 0)
		return st ? st : (err ? err->status : SW_EHDF5);
	/* A SWMR reader reads a running sweep's file and a killed one's (flags
	 * set); a file a plain writer left closed opens plainly too. */
	*file = open_swmr(name, fapl);
	if (*file < 0)
		*file = H5Fopen(name, H5F_ACC_RDONLY, fapl);
	H5Pclose(fapl);
	if (*file >= 0) {
		st = sw_h5_check_schema(*file, shown, doing, err);
		if (st) {
			H5Fclose(*file);
			*file = H5I_INVALID_HID;
		}
		return st;
	}
	return sw_h5_fail(err, SW_EINVAL,
			  "%s %s: HDF5 cannot open it as a sweep file (cut short, damaged, or in a "
			  "format newer than sweep writes)",
			  doing, shown);
}

enum sw_status sw_h5_open_read(const char *path, const char *doing, hid_t *file, struct sw_err *err)
{
	return sw_h5_open_read_as(path, path, doing, file, err);
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

enum sw_status sw_h5_count_in(hid_t file, const char *path, int session, struct sw_h5_rows *out,
			      struct sw_err *err)
{
	struct row_head *rows = NULL;
	hsize_t n = 0;
	enum sw_status st = read_heads(file, path, &rows, &n, err);

	memset(out, 0, sizeof *out);
	for (hsize_t i = 0; st == SW_OK && i < n; i++) {
		if (rows[i].point_id == FILL_POINT_ID || rows[i].session != session)
			continue;
		out->rows++;
		if (rows[i].status >= 0 && rows[i].status < 4)
			out->by_status[rows[i].status]++;
	}
	free(rows);
	return st;
}

enum sw_status sw_h5_count_session(const char *path, int session, struct sw_h5_rows *out,
				   struct sw_err *err)
{
	hid_t file;
	enum sw_status st = sw_h5_open_read(path, "cannot read back", &file, err);

	memset(out, 0, sizeof *out);
	if (st)
		return st;
	st = sw_h5_count_in(file, path, session, out, err);
	H5Fclose(file);
	return st;
}
