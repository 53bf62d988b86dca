/*
 * Status codes shared by every module, ordered by severity so that an
 * MPI_MAX reduction over ranks finds the worst outcome. Pure: no I/O.
 * Modules return a status and fill a struct sw_err the caller shows.
 */
#ifndef SW_STATUS_H
#define SW_STATUS_H

#include <stddef.h>

enum sw_status {
	SW_OK = 0,
	SW_SKIP,      /* a point that cannot run here; recorded with a reason */
	SW_EVALIDATE, /* output differs from the CPU reference */
	SW_EINVAL,    /* bad input: job file, option, argument */
	SW_ENOMEM,
	SW_EIO, /* file system: missing directory, unwritable output */
	SW_EHDF5,
	SW_ECUDA,
	SW_EMPI,
};

/* A message for the user; the module that fails fills it, the caller prints. */
struct sw_err {
	enum sw_status status;
	char msg[512];
};

const char *sw_status_name(enum sw_status s);

/* Exit code for the worst status of a run: 0 ok, 2 bad input, 3 validation,
 * 4 I/O or HDF5, 5 CUDA, 6 MPI, 1 anything else. */
int sw_status_exit_code(enum sw_status s);

/* Formats into err (printf style) and returns s, so that a failing path
 * reads `return sw_fail(err, SW_EINVAL, "...", ...);`. err may be NULL. A
 * text longer than err->msg loses its middle ("..."), keeping its start
 * and its end, where the reason is. */
enum sw_status sw_fail(struct sw_err *err, enum sw_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like sw_fail, but prefixes the existing message: adds context on the way up. */
enum sw_status sw_wrap(struct sw_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
