/*
 * Where a new result file goes and how it gets its name (docs/hdf5-schema.md,
 * "Creation and sweep's lock"): the checks of the target path (none of the
 * run's inputs, by device and inode, docs/bad-inputs.md), the hidden
 * temporary file made and locked before HDF5 writes a byte, --force's hold
 * on the file it replaces, and publishing with link(), so that of two sweeps
 * creating one file exactly one wins. It writes no HDF5: h5create.c does.
 */
#define _GNU_SOURCE /* renameat2, RENAME_NOREPLACE */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/faults.h"
#include "core/safe_open.h"
#include "h5/h5internal.h"

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

/* Where the file is built before it takes its name: same folder, hidden,
 * ".NAME.tmpPID", named relative to the folder held open, never by a
 * path: a legal output path, however near PATH_MAX, never makes a longer
 * one. A long legal name gives the temporary one only the start of it, so
 * that ".", ".tmp" and the pid never push it past NAME_BYTES. */
enum sw_status sw_h5_temp_init(const char *path, struct sw_h5_temp *t, struct sw_err *err)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0, base = strlen(path + dir_len);
	char pid[24], *dir = dir_of(path), brief[160];
	int room;

	memset(t, 0, sizeof *t);
	t->dir_fd = -1;
	t->base = path + dir_len;
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	room = NAME_BYTES - 5 - (int)strlen(pid);
	snprintf(t->name, sizeof t->name, ".%.*s.tmp%s", base > (size_t)room ? room : (int)base,
		 t->base, pid);
	t->shown = malloc(dir_len + sizeof t->name);
	if (!dir || !t->shown) {
		free(dir);
		return sw_fail(err, SW_ENOMEM, "out of memory");
	}
	snprintf(t->shown, dir_len + sizeof t->name, "%.*s%s", (int)dir_len, path, t->name);
	t->dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->dir_fd < 0)
		sw_fail(err, SW_EIO, "cannot create %s: %s",
			sw_safe_open_brief(path, brief, sizeof brief), strerror(errno));
	free(dir);
	return t->dir_fd < 0 ? SW_EIO : SW_OK;
}

void sw_h5_temp_fini(struct sw_h5_temp *t)
{
	if (t->dir_fd >= 0)
		close(t->dir_fd);
	t->dir_fd = -1;
	free(t->shown);
	t->shown = NULL;
}

void sw_h5_temp_remove(const struct sw_h5_temp *t)
{
	unlinkat(t->dir_fd, t->name, 0);
}

/* A path that does not exist but names a symbolic link: one to nothing.
 * Refused: creating the file would fail at its last step, and another
 * sweep's file is not what is there. */
static enum sw_status refuse_dangling_link(const char *path, const char *name, struct sw_err *err)
{
	char target[PATH_MAX], brief[160];
	struct stat sb;
	ssize_t n;

	if (lstat(path, &sb) != 0 || !S_ISLNK(sb.st_mode))
		return SW_OK;
	n = readlink(path, target, sizeof target - 1);
	target[n > 0 ? n : 0] = '\0';
	return sw_fail(err, SW_EIO,
		       "cannot create %s: it is a symbolic link to %s, which does not exist; sweep "
		       "writes a new file, not through a link: remove the link or name the "
		       "file itself",
		       name, sw_safe_open_brief(target, brief, sizeof brief));
}

/* One input against the output's identity out: SW_EINVAL naming it when
 * they are one file. */
static enum sw_status not_input(const char *path, const struct stat *out, const char *input,
				const char *what, enum sw_session_mode mode, struct sw_err *err)
{
	char name[160];
	struct stat in;

	if (!input || stat(input, &in) != 0 || in.st_dev != out->st_dev || in.st_ino != out->st_ino)
		return SW_OK;
	sw_safe_open_brief(path, name, sizeof name);
	if (mode == SW_SESSION_NEW)
		return sw_fail(err, SW_EINVAL, "%s is %s; write the results to another file", name,
			       what);
	return sw_fail(err, SW_EINVAL,
		       "%s is %s, and --%s would write into it; give the run a copy "
		       "of it to read instead",
		       name, what, mode == SW_SESSION_EXTEND ? "extend" : "resume");
}

enum sw_status sw_h5_check_inputs(const char *path, const struct sw_h5_meta *meta,
				  struct sw_err *err)
{
	enum sw_status st;
	struct stat out;

	if (!meta || stat(path, &out) != 0) /* a new file is no input */
		return SW_OK;
	st = not_input(path, &out, meta->job_path, "the job file", meta->mode, err);
	for (int i = 0; st == SW_OK && i < meta->n_inputs; i++)
		st = not_input(path, &out, meta->inputs[i].path, meta->inputs[i].what, meta->mode,
			       err);
	return st;
}

enum sw_status sw_h5_check_target(const char *path, int force, const struct sw_h5_meta *meta,
				  struct sw_err *err)
{
	enum sw_status st = SW_OK;
	struct stat sb;
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
	if (gone && errno == ENOENT) {
		st = refuse_dangling_link(path, name, err);
	} else if (gone) {
		/* too long a name, say: refused here, not by HDF5 in a cut message */
		st = sw_fail(err, SW_EIO, "cannot create %s: %s", name, strerror(errno));
	} else {
		/* --force replaces a results file, never an input or a device or FIFO */
		if (S_ISDIR(sb.st_mode))
			st = sw_fail(err, SW_EIO, "cannot create %s: it is a directory", name);
		else if (!S_ISREG(sb.st_mode))
			st = sw_fail(err, SW_EIO,
				     "cannot create %s: it exists and is not a regular file", name);
		else if ((st = sw_h5_check_inputs(path, meta, err)) == SW_OK && !force)
			st = sw_fail(err, SW_EIO,
				     "%s already exists; use --force to overwrite it or --resume "
				     "to continue it",
				     name);
	}
free_dir:
	free(dir);
	return st;
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
enum sw_status sw_h5_hold_old_file(const char *path, int *replace, int *fd, struct sw_err *err)
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

/* The temporary file, made by us alone (O_EXCL), held (h5own.c) and locked
 * before HDF5 writes a byte: from its first moment no other sweep can take
 * it, and once published the lock covers the name too (one inode). */
enum sw_status sw_h5_make_locked_temp(const struct sw_h5_temp *t, struct sw_h5 *h,
				      struct sw_err *err)
{
	int fd = openat(t->dir_fd, t->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	char brief[160]; /* a long name quoted short, the reason whole */
	enum sw_h5_lock lock;

	sw_safe_open_brief(t->shown, brief, sizeof brief);
	if (fd < 0)
		return sw_fail(err, SW_EIO, "cannot create %s: %s", brief, strerror(errno));
	snprintf(h->held_name, sizeof h->held_name, "%s", t->name);
	if (sw_h5_own_hold(h, fd, err) != SW_OK || sw_h5_room_hold(h, fd, err) != SW_OK) {
		close(fd);
		sw_h5_temp_remove(t);
		return SW_EIO;
	}
	lock = sw_h5_lock_fd(fd, 1, &h->lock_fd);
	if (lock == LOCK_OURS || lock == LOCK_NONE) /* no locks here: the name alone decides */
		return SW_OK;
	sw_fail(err, SW_EIO, "cannot lock %s: %s", brief, strerror(errno));
	sw_h5_temp_remove(t);
	return SW_EIO;
}

void sw_h5_wait_for(const char *file)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	while (file && access(file, F_OK) != 0)
		nanosleep(&tick, NULL);
}

/* SW_TEST_FAULT=publish-wait:FILE holds a finished, locked temporary file
 * back from its name until FILE exists, so a test can let another sweep
 * publish first, every time. */
static void fault_publish_wait(void)
{
	struct sw_faults f;

	sw_faults_parse(getenv("SW_TEST_FAULT"), &f);
	sw_h5_wait_for(f.publish_wait);
}

/* Gives the temporary file its name, both in the folder held (t). A new
 * name with link(), which fails when the name exists (or, where hard links
 * are not supported, renameat2 with RENAME_NOREPLACE): of two sweeps
 * creating one new file, exactly one wins, and the other has run nothing
 * yet. Only --force over a file that existed when it started renames,
 * holding that file's lock (hold_old_file): a --force that found no file
 * creates with link() like any other. */
enum sw_status sw_h5_publish(const struct sw_h5_temp *t, const char *path, int replace,
			     struct sw_err *err)
{
	char tname[120], pname[160]; /* long names quoted short, the reason whole */
	int e, dir = t->dir_fd;

	sw_safe_open_brief(t->shown, tname, sizeof tname);
	sw_safe_open_brief(path, pname, sizeof pname);
	fault_publish_wait();
	if (replace) {
		if (renameat(dir, t->name, dir, t->base) != 0)
			return sw_fail(err, SW_EIO, "cannot rename %s to %s: %s", tname, pname,
				       strerror(errno));
		return SW_OK;
	}
	if (linkat(dir, t->name, dir, t->base, 0) == 0) {
		if (unlinkat(dir, t->name, 0) == 0)
			return SW_OK;
		e = errno;
		unlinkat(dir, t->base, 0); /* ours alone still: a failed creation leaves nothing */
		return sw_fail(err, SW_EIO, "cannot remove %s: %s", tname, strerror(e));
	}
	e = errno;
	/* A file system without hard links may still rename without replacing. */
	if (e == EPERM || e == EOPNOTSUPP) {
		if (renameat2(dir, t->name, dir, t->base, RENAME_NOREPLACE) == 0)
			return SW_OK;
		if (errno == EEXIST)
			e = EEXIST;
	}
	if (e == EEXIST)
		return sw_fail(err, SW_EIO,
			       "%s already exists: another sweep created it while this one "
			       "was starting; nothing was run",
			       pname);
	return sw_fail(err, SW_EIO, "cannot give %s its name %s: %s", tname, pname, strerror(e));
}
