/*
 * The file that is ours (docs/hdf5-schema.md, "The file that is ours"): a
 * descriptor of the file a sweep creates or resumes, held from then to its
 * end, so that every later open (HDF5's create and resume, the end time,
 * the summary's count) opens that file through it, not whatever its name
 * names by then; and at the end, when the name names another file or none,
 * the rows are kept where a message says. Nothing here writes to a file
 * found by its name, except a new one made with O_EXCL.
 */
#define _GNU_SOURCE /* F_DUPFD_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "core/safe_open.h"
#include "h5/h5internal.h"

enum sw_status sw_h5_own_hold(struct sw_h5 *h, int fd, struct sw_err *err)
{
	struct stat sb;

	h->held_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (h->held_fd < 0 || fstat(h->held_fd, &sb) != 0)
		return sw_fail(err, SW_EIO, "cannot hold %s open: %s", h->path, strerror(errno));
	h->held_dev = sb.st_dev;
	h->held_ino = sb.st_ino;
	return SW_OK;
}

static int is_held(const struct sw_h5 *h, const struct stat *sb)
{
	return sb->st_dev == h->held_dev && sb->st_ino == h->held_ino;
}

/* h->dir_fd: the folder of h->path, as typed (a legal path, so it opens
 * whatever its real path's length). */
static int folder_fd(struct sw_h5 *h)
{
	const char *slash = strrchr(h->path, '/');
	if (h->dir_fd >= 0)
		return h->dir_fd;
	if (!slash) {
		h->dir_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else {
		char *dir = strndup(h->path, slash == h->path ? 1 : (size_t)(slash - h->path));
		h->dir_fd = dir ? open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
		free(dir);
	}
	return h->dir_fd;
}

const char *sw_h5_own_name(struct sw_h5 *h, char *buf, size_t len)
{
	char real[PATH_MAX];
	struct stat sb;
	if (h->held_fd < 0)
		return h->path;
	snprintf(buf, len, "/proc/self/fd/%d", h->held_fd);
	if (access(buf, F_OK) != 0)
		return h->path;
	/* as HDF5 resolves it (H5F__build_actual_name) */
	if (realpath(buf, real) || errno != ENAMETOOLONG)
		return buf;
	const char *slash = strrchr(h->path, '/');
	const char *name = h->held_name[0] ? h->held_name : slash ? slash + 1 : h->path;
	int dir = folder_fd(h);
	if (dir >= 0 && fstatat(dir, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && is_held(h, &sb) &&
	    (size_t)snprintf(buf, len, "/proc/self/fd/%d/%s", dir, name) < len)
		return buf;
	snprintf(buf, len, "/proc/self/fd/%d", h->held_fd); /* HDF5 says why not */
	return buf;
}

enum sw_status sw_h5_own_opened(const struct sw_h5 *h, hid_t file, struct sw_err *err)
{
	void *handle = NULL;
	struct stat sb;

	if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle)
		return sw_h5_fail(err, SW_EIO, "%s: cannot tell which file HDF5 opened", h->path);
	if (fstat(*(int *)handle, &sb) != 0 || !is_held(h, &sb))
		return sw_fail(err, SW_EIO,
			       "%s names another file than the one this sweep made or resumed; "
			       "nothing was written to it",
			       h->path);
	return SW_OK;
}

enum sw_status sw_h5_own_retake(struct sw_h5 *h, struct sw_err *err)
{
	/* O_NONBLOCK: a FIFO put at the name must not hold the run */
	int fd = open(h->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char brief[160];
	struct stat sb;

	if (fd >= 0 && fstat(fd, &sb) == 0 && is_held(h, &sb)) {
		close(h->held_fd);
		h->held_fd = fd;
		return SW_OK;
	}
	if (fd >= 0)
		close(fd);
	return sw_fail(err, SW_EIO,
		       "%s is not the file this sweep made: its hidden temporary file was "
		       "replaced by another before it took its name, and the name now names "
		       "that one, left as it is; nothing was run",
		       sw_safe_open_brief(h->path, brief, sizeof brief));
}

/* A new file beside path for a copy: NAME.kept<pid>.h5 for NAME.h5, else
 * PATH.kept<pid>, -2, -3, ... when taken; made with O_EXCL, so nothing is
 * overwritten. The descriptor, or -1 (errno). */
static int make_kept(const char *path, char *name, size_t len)
{
	size_t all = strlen(path), stem = all;
	int fd = -1;

	if (all > 3 && strcmp(path + all - 3, ".h5") == 0)
		stem -= 3;
	for (int k = 1; k < 100 && fd < 0; k++) {
		char more[16] = "";

		if (k > 1)
			snprintf(more, sizeof more, "-%d", k);
		if (snprintf(name, len, "%.*s.kept%ld%s%s", (int)stem, path, (long)getpid(), more,
			     path + stem) >= (int)len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	return fd;
}

/* Every byte of the held file into to. 0, or -1 (errno). */
static int copy_held(int from, int to)
{
	size_t size = 1 << 20;
	char *buf = malloc(size);
	off_t at = 0;
	ssize_t n = 0, done = 0;

	if (!buf)
		return -1;
	while (n >= 0 && (n = pread(from, buf, size, at)) > 0) {
		for (done = 0; done < n;) {
			ssize_t w = write(to, buf + done, (size_t)(n - done));

			if (w < 0 && errno != EINTR)
				break;
			done += w > 0 ? w : 0;
		}
		at += n;
		if (done < n)
			n = -1;
	}
	free(buf);
	return n < 0 ? -1 : 0;
}

/* Where the held file's rows are now, into where, and how that reads in a
 * message, into say: its own path when it still has one (moved, or its
 * folder renamed), else a copy made beside h->path (in the working folder
 * when that folder is gone too), which h then holds instead (the end time
 * goes there). */
static void keep_rows(struct sw_h5 *h, char *where, size_t len, char *say, size_t say_len)
{
	char link[64], now[PATH_MAX], brief[160];
	struct stat sb;
	ssize_t n;
	int fd;

	snprintf(link, sizeof link, "/proc/self/fd/%d", h->held_fd);
	n = readlink(link, now, sizeof now - 1);
	now[n > 0 ? n : 0] = '\0';
	if (n > 0 && now[0] == '/' && stat(now, &sb) == 0 && is_held(h, &sb)) {
		snprintf(where, len, "%s", now);
		snprintf(say, say_len, "this run's rows are in %s, where the file was moved",
			 sw_safe_open_brief(now, brief, sizeof brief));
		return;
	}
	fd = make_kept(h->path, where, len);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR) && strchr(h->path, '/'))
		fd = make_kept(strrchr(h->path, '/') + 1, where, len); /* its folder is gone */
	if (fd >= 0 && copy_held(h->held_fd, fd) == 0 && fstat(fd, &sb) == 0) {
		close(h->held_fd);
		h->held_fd = fd;
		h->held_dev = sb.st_dev;
		h->held_ino = sb.st_ino;
		sw_h5_room_hold(h, fd, NULL); /* the end time goes there: its room too */
		snprintf(say, say_len,
			 "this run's rows are kept in %s, a copy of the file it wrote, which was "
			 "deleted",
			 sw_safe_open_brief(where, brief, sizeof brief));
		return;
	}
	int e = errno;
	if (fd >= 0) {
		close(fd);
		unlink(where); /* ours, made with O_EXCL: a part of a copy is no use */
	}
	snprintf(where, len, "%s", h->path);
	snprintf(say, say_len,
		 "this run's rows could not be kept: the file it wrote was deleted, "
		 "and a copy of it beside that name failed: %s",
		 strerror(e));
}

enum sw_status sw_h5_own_at_end(struct sw_h5 *h, char *where, size_t len, struct sw_err *err)
{
	char name[160], say[400];
	struct stat sb;
	int named = stat(h->path, &sb) == 0;

	snprintf(where, len, "%s", h->path);
	if (h->held_fd < 0 || (named && is_held(h, &sb)))
		return SW_OK;
	keep_rows(h, where, len, say, sizeof say);
	sw_safe_open_brief(h->path, name, sizeof name);
	return sw_fail(err, SW_EIO, "%s is no longer this sweep's file: %s; %s", name,
		       named ? "another file was put at that name while it ran (left as it is)"
			     : "that name was removed while it ran",
		       say);
}
