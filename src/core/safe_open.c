/*
 * One way to open a file sweep reads (safe_open.h): non-blocking open, then
 * fstat of that same descriptor, so the type checked is the file read. It
 * does not read the file or judge its contents.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

int sw_safe_open_read(const char *path, const char **kind)
{
	struct stat sb;
	int fd, flags, e;

	if (kind)
		*kind = NULL;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return SW_SAFE_OPEN_FAILED;
	if (fstat(fd, &sb) != 0)
		goto failed;
	if (!S_ISREG(sb.st_mode)) {
		if (kind)
			*kind = kind_of(sb.st_mode);
		close(fd);
		return SW_SAFE_OPEN_NOT_REG;
	}
	/* a regular file never blocks, but callers expect ordinary reads */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
		goto failed;
	return fd;
failed:
	e = errno;
	close(fd);
	errno = e;
	return SW_SAFE_OPEN_FAILED;
}

int sw_safe_open_check(const char *path, const char **kind)
{
	int fd = sw_safe_open_read(path, kind);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

const char *sw_safe_open_brief(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path), head, tail;

	if (n < len) {
		memcpy(buf, path, n + 1);
		return buf;
	}
	/* the end names the file, so it keeps the larger part */
	head = (len - 4) / 3;
	tail = len - 4 - head;
	memcpy(buf, path, head);
	memcpy(buf + head, "...", 3);
	memcpy(buf + head + 3, path + n - tail, tail + 1);
	return buf;
}
