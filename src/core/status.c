/* Status names, exit codes and the message helpers of status.h. */
#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sw_status_name(enum sw_status s)
{
	switch (s) {
	case SW_OK: return "ok";
	case SW_SKIP: return "skipped";
	case SW_EVALIDATE: return "invalid";
	case SW_EINVAL: return "bad input";
	case SW_ENOMEM: return "out of memory";
	case SW_EIO: return "I/O error";
	case SW_EHDF5: return "HDF5 error";
	case SW_ECUDA: return "CUDA error";
	case SW_EMPI: return "MPI error";
	}
	return "unknown";
}

int sw_status_exit_code(enum sw_status s)
{
	switch (s) {
	case SW_OK:
	case SW_SKIP: return 0;
	case SW_EINVAL: return 2;
	case SW_EVALIDATE: return 3;
	case SW_EIO:
	case SW_EHDF5: return 4;
	case SW_ECUDA: return 5;
	case SW_EMPI: return 6;
	default: return 1;
	}
}

/* full into msg (len bytes); one too long for it loses its middle, never
 * its end, where a message says why (a long path's reason), nor its start,
 * where it says what failed: "cannot create ddd...ddd/o.h5: reason". */
static void fit(char *msg, size_t len, const char *full)
{
	size_t n = strlen(full), head = len / 4, tail;
	if (n < len) {
		memcpy(msg, full, n + 1);
		return;
	}
	tail = len - 1 - head - 3;
	memcpy(msg, full, head);
	memcpy(msg + head, "...", 3);
	memcpy(msg + head + 3, full + n - tail, tail + 1);
}

/* fmt's text into msg as fit() puts it; a copy on the heap where it is too
 * long for msg (cut at its end where there is no memory for one). */
static void format_into(char *msg, size_t len, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(msg, len, fmt, ap);
	if (n >= 0 && (size_t)n >= len) {
		char *full = malloc((size_t)n + 1);
		if (full && vsnprintf(full, (size_t)n + 1, fmt, again) == n)
			fit(msg, len, full);
		free(full);
	}
	va_end(again);
}

enum sw_status sw_fail(struct sw_err *err, enum sw_status s, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		format_into(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
		err->status = s;
	}
	return s;
}

enum sw_status sw_wrap(struct sw_err *err, const char *fmt, ...)
{
	if (!err)
		return SW_EINVAL;
	char prefix[sizeof err->msg], old[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	format_into(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	sw_fail(err, err->status, "%s: %s", prefix, old);
	return err->status;
}
