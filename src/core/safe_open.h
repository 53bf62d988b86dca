/*
 * Opening a file that sweep reads, whatever the path names: a FIFO with no
 * writer or a device must not block or stream forever, and a directory is
 * no input. Pure: no messages, no exits; callers say what the file was for.
 */
#ifndef SW_SAFE_OPEN_H
#define SW_SAFE_OPEN_H

#include <stddef.h>

/* What sw_safe_open_read and sw_safe_open_check return when they fail. */
#define SW_SAFE_OPEN_FAILED  (-1) /* open(2) or fstat(2) failed: errno says why */
#define SW_SAFE_OPEN_NOT_REG (-2) /* not a regular file: *kind names what it is */

/* Opens path read-only without waiting (O_NONBLOCK, so a FIFO with no writer
 * does not hang), fstat()s that descriptor and keeps it only when it is a
 * regular file. Returns the descriptor, blocking again and close-on-exec
 * (the caller closes it), or one of the codes above; *kind, when kind is not
 * NULL, is "a directory", "a FIFO", "a character device" and so on. */
int sw_safe_open_read(const char *path, const char **kind);

/* The same check for a file another library opens by name (HDF5): 0 for a
 * regular file, else a code as above. */
int sw_safe_open_check(const char *path, const char **kind);

/* path as a message quotes it: whole when it has at most len - 1 bytes,
 * else its start and end around "...", so the reason after it still fits
 * in a message. Returns buf. */
const char *sw_safe_open_brief(const char *path, char *buf, size_t len);

#endif
