/*
 * Room for the file to grow (docs/ARCHITECTURE.md, "A full disk"): before
 * each step that makes HDF5 write, the bytes the step may add are reserved
 * on the disk beyond the file's end (fallocate, FALLOC_FL_KEEP_SIZE) and
 * checked against the file-size limit (ulimit -f), so that a full disk or
 * the limit refuses the step before HDF5 begins it: HDF5 1.10 leaves a file
 * it could not finish writing damaged, and a close that fails crashes the
 * process at exit. What the reserve holds past the end is given back at
 * the end. It writes no byte of the file.
 */
#define _GNU_SOURCE /* fallocate, FALLOC_FL_* */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <hdf5.h>

#include "core/faults.h"
#include "core/safe_open.h"
#include "h5/h5internal.h"

/* What each moment is called by SW_TEST_FAULT=full:MOMENT, and in messages. */
static const struct {
	const char *token, *doing;
} moments[] = {
	[SW_H5_AT_CREATE] = { "create", "to create it" },
	[SW_H5_AT_RESUME] = { "resume", "to resume it" },
	[SW_H5_AT_SWMR] = { "swmr", "to start writing it in SWMR mode" },
	[SW_H5_AT_FLUSH] = { "flush", "to write the rows it holds in memory" },
	[SW_H5_AT_CLOSE] = { "close", "to close it and write its end time" },
};

enum sw_status sw_h5_room_hold(struct sw_h5 *h, int fd, struct sw_err *err)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	if (copy < 0)
		return sw_fail(err, SW_EIO, "cannot hold %s open: %s", h->path, strerror(errno));
	/* A write past the limit then fails with EFBIG, which the writer
	 * reports, instead of ending the process where it stands. */
	signal(SIGXFSZ, SIG_IGN);
	sw_h5_room_release(h);
	h->room_fd = copy;
	return SW_OK;
}

uint64_t sw_h5_room_rows(hid_t dset, uint64_t have, uint64_t add)
{
	hid_t dcpl = H5Dget_create_plist(dset), type = H5Dget_type(dset);
	hsize_t chunk = 1;
	size_t row = type >= 0 ? H5Tget_size(type) : 0;

	if (dcpl >= 0 && H5Pget_chunk(dcpl, 1, &chunk) != 1)
		chunk = 1;
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (type >= 0)
		H5Tclose(type);
	if (!add)
		return 0;
	if (!row) /* unreadable: a generous row, rather than none */
		row = 4096;
	/* the chunks rows have..have+add touch, each written whole */
	uint64_t first = have / chunk, last = (have + add - 1) / chunk;
	return (last - first + 1) * chunk * row;
}

/* n bytes as "12.0 KiB", "1.50 MiB", "300 GiB": three figures, so that a
 * limit and a size just past it read apart. */
static const char *say_bytes(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu bytes", (unsigned long long)n);
	else
		snprintf(buf, len, "%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v, unit[u]);
	return buf;
}

/* The mount point of the file system that holds the folder of path, into
 * buf: the highest folder above it on the same device; the folder itself
 * where it cannot be found. */
static void mount_point(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	char *real = dir ? realpath(dir, NULL) : NULL;
	struct stat here, up;

	snprintf(buf, len, "%s", dir ? dir : ".");
	if (real && stat(real, &here) == 0) {
		char *cut;

		while ((cut = strrchr(real, '/')) && cut != real) {
			*cut = '\0';
			if (stat(real, &up) != 0 || up.st_dev != here.st_dev) {
				*cut = '/';
				break;
			}
		}
		if (cut == real && stat("/", &up) == 0 && up.st_dev == here.st_dev)
			real[1] = '\0';
		snprintf(buf, len, "%s", real);
	}
	free(real);
	free(dir);
}

/* Bytes of the file system under fd a write may still take. */
static uint64_t free_bytes(int fd)
{
	struct statvfs vs;

	if (fstatvfs(fd, &vs) != 0)
		return 0;
	/* root may write into the blocks kept back from others */
	return (uint64_t)(geteuid() == 0 ? vs.f_bfree : vs.f_bavail) * vs.f_frsize;
}

/* SW_TEST_FAULT=full:MOMENT: the disk is full at that moment. */
static int fault_full(enum sw_h5_moment at)
{
	struct sw_faults f;

	sw_faults_parse(getenv("SW_TEST_FAULT"), &f);
	return f.full_at && strcmp(f.full_at, moments[at].token) == 0;
}

/* The refusal: why (ENOSPC, EDQUOT, EFBIG or another errno), the disk or
 * the limit, and what the step needed. */
static enum sw_status no_room(const struct sw_h5 *h, enum sw_h5_moment at, int why, uint64_t end,
			      uint64_t need, uint64_t limit, struct sw_err *err)
{
	char disk[PATH_MAX], shown[160], name[160], a[32], b[32];

	sw_safe_open_brief(h->path, name, sizeof name);
	if (why == EFBIG && limit)
		return sw_fail(err, SW_EIO,
			       "%s: the file-size limit (ulimit -f) is %s, and sweep needs %s to "
			       "grow to %s %s",
			       strerror(why), say_bytes(limit, a, sizeof a), name,
			       say_bytes(end + need, b, sizeof b), moments[at].doing);
	mount_point(h->path, disk, sizeof disk);
	sw_safe_open_brief(disk, shown, sizeof shown);
	if (why == ENOSPC || why == EDQUOT)
		return sw_fail(err, SW_EIO,
			       "%s: the disk that holds %s (the file system at %s) has %s free, "
			       "and sweep needs %s %s%s",
			       strerror(why), name, shown,
			       say_bytes(h->room_fd >= 0 ? free_bytes(h->room_fd) : 0, a, sizeof a),
			       say_bytes(need, b, sizeof b), moments[at].doing,
			       fault_full(at) ? " (SW_TEST_FAULT)" : "");
	return sw_fail(err, SW_EIO, "cannot reserve %s on the disk that holds %s (%s) %s: %s",
		       say_bytes(need, b, sizeof b), name, shown, moments[at].doing, strerror(why));
}

enum sw_status sw_h5_room_reserve(struct sw_h5 *h, enum sw_h5_moment at, uint64_t bytes,
				  struct sw_err *err)
{
	struct stat sb;
	struct rlimit lim;
	haddr_t eoa = 0;
	uint64_t end;

	if (h->room_fd < 0)
		return SW_OK;
	if (fstat(h->room_fd, &sb) != 0)
		return sw_fail(err, SW_EIO, "cannot look at %s: %s", h->path, strerror(errno));
	end = (uint64_t)sb.st_size;
	/* HDF5 writes from where it has allocated to, which may be past the end */
	if (h->file >= 0 && H5Fget_eoa(h->file, &eoa) >= 0 && eoa != HADDR_UNDEF && eoa > end)
		bytes += eoa - end;
	if (fault_full(at))
		return no_room(h, at, ENOSPC, end, bytes, 0, err);
	if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
	    end + bytes > (uint64_t)lim.rlim_cur)
		return no_room(h, at, EFBIG, end, bytes, (uint64_t)lim.rlim_cur, err);
	if (bytes == 0)
		return SW_OK;
	if (end + bytes > h->room_end)
		h->room_end = end + bytes; /* a part reserved before a failure is given back too */
	int rc;
	while ((rc = fallocate(h->room_fd, FALLOC_FL_KEEP_SIZE, (off_t)end, (off_t)bytes)) != 0 &&
	       errno == EINTR)
		;
	if (rc == 0)
		return SW_OK;
	int e = errno;
	/* a file system that cannot reserve: its free space, checked now */
	if (e == EOPNOTSUPP || e == ENOSYS)
		return free_bytes(h->room_fd) >= bytes ? SW_OK
						       : no_room(h, at, ENOSPC, end, bytes, 0, err);
	return no_room(h, at, e, end, bytes, 0, err);
}

void sw_h5_room_release(struct sw_h5 *h)
{
	struct stat sb;

	if (h->room_fd < 0)
		return;
	if (h->room_end && fstat(h->room_fd, &sb) == 0 && (uint64_t)sb.st_size < h->room_end) {
		/* past the end: a hole punched where the file system allows it,
		 * and a truncation to the same size, which drops what a
		 * KEEP_SIZE reserve left beyond it (ext4, XFS, tmpfs) */
		fallocate(h->room_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, sb.st_size,
			  (off_t)(h->room_end - (uint64_t)sb.st_size));
		int failed = ftruncate(h->room_fd, sb.st_size); /* then they stay: no harm */
		(void)failed;
	}
	close(h->room_fd);
	h->room_fd = -1;
	h->room_end = 0;
}
