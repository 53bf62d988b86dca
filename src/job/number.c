/*
 * The one number parser (number.h). Hexadecimal is refused everywhere, not
 * read in some keys: strtod and strtoll would take "0x10" in one key and
 * not in another. The range a key allows is its caller's business.
 */
#include "job/number.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How much of a bad text a message quotes. */
#define QUOTE_MAX 60
#define QUOTE_FMT "\"%.*s%s\""
#define QUOTE_ARGS(s, len)                                                                         \
	(int)((len) > QUOTE_MAX ? QUOTE_MAX : (len)), (s), ((len) > QUOTE_MAX ? "..." : "")
#define INT_SYNTAX "expected digits and an optional K, M or G suffix"

static void trim(const char **s, size_t *len)
{
	while (*len && isspace((unsigned char)**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && isspace((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

/* The multiplier of suffix c; 0 when c is none. */
static uint64_t suffix_mult(char c)
{
	switch (c) {
	case 'K':
	case 'k': return UINT64_C(1) << 10;
	case 'M':
	case 'm': return UINT64_C(1) << 20;
	case 'G':
	case 'g': return UINT64_C(1) << 30;
	}
	return 0;
}

enum sw_status sw_number_parse_int(const char *s, size_t len, int64_t *out, struct sw_err *err)
{
	const char *p, *end;
	/* The magnitude of INT64_MIN fits in a uint64_t; INT64_MAX's is one less. */
	uint64_t limit = (uint64_t)INT64_MAX, mag = 0, mult = 1;
	int neg = 0;

	trim(&s, &len);
	p = s, end = s + len;
	if (!len)
		return sw_fail(err, SW_EINVAL, "empty value where an integer was expected");
	if (*p == '-') {
		neg = 1;
		limit++;
		p++;
	}
	if (p == end || !isdigit((unsigned char)*p))
		return sw_fail(err, SW_EINVAL, QUOTE_FMT " is not an integer (" INT_SYNTAX ")",
			       QUOTE_ARGS(s, len));
	for (; p < end && isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (mag > (limit - d) / 10)
			return sw_fail(err, SW_EINVAL,
				       QUOTE_FMT " does not fit in a 64-bit integer",
				       QUOTE_ARGS(s, len));
		mag = mag * 10 + d;
	}
	if (p < end && suffix_mult(*p))
		mult = suffix_mult(*p++);
	if (p < end)
		return sw_fail(err, SW_EINVAL,
			       QUOTE_FMT " is not an integer: unexpected " QUOTE_FMT " (" INT_SYNTAX
					 ")",
			       QUOTE_ARGS(s, len), QUOTE_ARGS(p, (size_t)(end - p)));
	if (mag > limit / mult)
		return sw_fail(err, SW_EINVAL, QUOTE_FMT " does not fit in a 64-bit integer",
			       QUOTE_ARGS(s, len));
	mag *= mult;
	if (!neg)
		*out = (int64_t)mag;
	else if (mag == (uint64_t)INT64_MAX + 1)
		*out = INT64_MIN;
	else
		*out = -(int64_t)mag;
	return SW_OK;
}

/* Past the digits at p (before end); how many there were in *n. */
static const char *digits(const char *p, const char *end, size_t *n)
{
	const char *q = p;

	while (q < end && isdigit((unsigned char)*q))
		q++;
	*n = (size_t)(q - p);
	return q;
}

/* -?(D+(.D*)?|.D+)([eE][-+]?D+)? over the whole span: what strtod may see. */
static int real_syntax(const char *p, const char *end)
{
	size_t whole, frac = 0, exp;

	if (p < end && *p == '-')
		p++;
	p = digits(p, end, &whole);
	if (p < end && *p == '.')
		p = digits(p + 1, end, &frac);
	if (!whole && !frac)
		return 0;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '-' || *p == '+'))
			p++;
		p = digits(p, end, &exp);
		if (!exp)
			return 0;
	}
	return p == end;
}

enum sw_status sw_number_parse_real(const char *s, size_t len, double *out, struct sw_err *err)
{
	char buf[128], *end;
	double v;

	trim(&s, &len);
	if (!len)
		return sw_fail(err, SW_EINVAL, "empty value where a number was expected");
	if (!real_syntax(s, s + len) || len >= sizeof buf)
		return sw_fail(err, SW_EINVAL,
			       QUOTE_FMT " is not a number (expected decimal digits, an optional "
					 "'.' and an optional exponent, as in 1.5e-3)",
			       QUOTE_ARGS(s, len));
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (errno == ERANGE || !isfinite(v))
		return sw_fail(err, SW_EINVAL, QUOTE_FMT " is out of the range of a number",
			       QUOTE_ARGS(s, len));
	*out = v;
	return SW_OK;
}
