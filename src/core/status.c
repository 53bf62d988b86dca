/* Status names, exit codes and the message helpers of status.h. */
#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
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

enum sw_status sw_fail(struct sw_err *err, enum sw_status s, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
		err->status = s;
	}
	return s;
}

enum sw_status sw_wrap(struct sw_err *err, const char *fmt, ...)
{
	if (!err)
		return SW_EINVAL;
	char prefix[256], old[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
	return err->status;
}
