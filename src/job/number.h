/*
 * Numbers, read one way wherever sweep reads them: job keys, axis values and
 * options. Decimal only: no hexadecimal, octal, "inf" or "nan", no leading
 * '+'. Integers take a K, M or G suffix (powers of 1024). Pure: no I/O.
 */
#ifndef SW_NUMBER_H
#define SW_NUMBER_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* The len bytes at s (spaces around them ignored) as an integer: an optional
 * '-', decimal digits and an optional K, M or G. SW_EINVAL on anything else
 * or on overflow of int64, with a message quoting the text. */
enum sw_status sw_number_parse_int(const char *s, size_t len, int64_t *out, struct sw_err *err);

/* The len bytes at s (spaces around them ignored) as a finite real: an
 * optional '-', decimal digits with an optional '.' and an optional
 * exponent (1e-3). SW_EINVAL on anything else or out of double's range. */
enum sw_status sw_number_parse_real(const char *s, size_t len, double *out, struct sw_err *err);

#endif
