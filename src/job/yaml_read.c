/*
 * Positioned reads of a libyaml document (yaml_read.h): every message
 * starts "path:line:column:". The raw text is checked here before libyaml
 * sees it, since libyaml would stop at a NUL or take minutes over deep
 * nesting.
 */
#include "job/yaml_read.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "job/number.h"

/* libyaml's scanner takes time quadratic in the depth of [ and { nesting:
 * 800 KB of [ holds every rank for some 18 minutes. A job needs a few levels. */
#define MAX_FLOW_DEPTH 64

void sw_yaml_add_name(char *buf, size_t len, const char *name)
{
	size_t used = strlen(buf);

	if (used + 1 >= len)
		return;
	snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
}

yaml_node_t *sw_yaml_node(struct sw_yaml_ctx *c, int index)
{
	return yaml_document_get_node(c->doc, index);
}

enum sw_status sw_yaml_fail_at(struct sw_yaml_ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
	char body[sizeof c->err->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(body, sizeof body, fmt, ap);
	va_end(ap);
	return sw_fail(c->err, SW_EINVAL, "%s:%d:%d: %.400s", c->path, (int)n->start_mark.line + 1,
		       (int)n->start_mark.column + 1, body);
}

/* Puts "path:line:column: what" before a message a helper already wrote. */
enum sw_status sw_yaml_wrap_at(struct sw_yaml_ctx *c, const yaml_node_t *n, const char *what)
{
	if (what)
		return sw_wrap(c->err, "%s:%d:%d: %s", c->path, (int)n->start_mark.line + 1,
			       (int)n->start_mark.column + 1, what);
	return sw_wrap(c->err, "%s:%d:%d", c->path, (int)n->start_mark.line + 1,
		       (int)n->start_mark.column + 1);
}

int sw_yaml_is_null(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	return !strcmp(s, "") || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

/* "a mapping", "nothing" or the quoted scalar, for "found ..." */
const char *sw_yaml_describe(const yaml_node_t *n, char *buf, size_t len)
{
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (n->type == YAML_SEQUENCE_NODE)
		return "a sequence";
	if (sw_yaml_is_null(n))
		return "nothing";
	snprintf(buf, len, "\"%.*s%s\"", SW_YAML_QUOTE_MAX, (const char *)n->data.scalar.value,
		 n->data.scalar.length > SW_YAML_QUOTE_MAX ? "..." : "");
	return buf;
}

/* The text of a scalar that must hold a value (`expected` says which). */
enum sw_status sw_yaml_scalar(struct sw_yaml_ctx *c, const yaml_node_t *n, const char *key,
			      const char *expected, const char **out)
{
	char buf[SW_YAML_QUOTE_MAX + 8];

	*out = NULL;
	if (n->type != YAML_SCALAR_NODE || sw_yaml_is_null(n))
		return sw_yaml_fail_at(c, n, "%s: expected %s, found %s", key, expected,
				       sw_yaml_describe(n, buf, sizeof buf));
	/* A "\0" escape in a quoted scalar would cut the C string short. */
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return sw_yaml_fail_at(c, n, "%s: a NUL character is not allowed here", key);
	*out = (const char *)n->data.scalar.value;
	return SW_OK;
}

/* A mapping or, for an optional section left empty, nothing (*map = NULL). */
enum sw_status sw_yaml_mapping(struct sw_yaml_ctx *c, yaml_node_t *n, const char *key,
			       const char *expected, int may_be_null, yaml_node_t **map)
{
	char buf[SW_YAML_QUOTE_MAX + 8];

	*map = NULL;
	if (n->type == YAML_MAPPING_NODE) {
		*map = n;
		return SW_OK;
	}
	if (may_be_null && sw_yaml_is_null(n))
		return SW_OK;
	return sw_yaml_fail_at(c, n, "%s: expected %s, found %s", key, expected,
			       sw_yaml_describe(n, buf, sizeof buf));
}

/* Keys of a mapping are names, unique, and (when `allowed` is given) known. */
enum sw_status sw_yaml_check_keys(struct sw_yaml_ctx *c, const yaml_node_t *map,
				  const char *const *allowed, int n_allowed, const char *noun,
				  const char *where)
{
	const yaml_node_pair_t *start = map->data.mapping.pairs.start;
	const yaml_node_pair_t *top = map->data.mapping.pairs.top;

	for (const yaml_node_pair_t *p = start; p < top; p++) {
		yaml_node_t *k = sw_yaml_node(c, p->key);
		const char *name;
		char buf[SW_YAML_QUOTE_MAX + 8];
		int known = !allowed;

		if (k->type != YAML_SCALAR_NODE)
			return sw_yaml_fail_at(c, k, "expected a %s name in %s, found %s", noun,
					       where, sw_yaml_describe(k, buf, sizeof buf));
		name = (const char *)k->data.scalar.value;
		for (int i = 0; allowed && i < n_allowed; i++)
			known |= !strcmp(name, allowed[i]);
		if (!known) {
			char names[256] = "";
			for (int i = 0; i < n_allowed; i++)
				sw_yaml_add_name(names, sizeof names, allowed[i]);
			return sw_yaml_fail_at(c, k, "unknown %s `%.*s` in %s; expected one of: %s",
					       noun, SW_YAML_QUOTE_MAX, name, where, names);
		}
		for (const yaml_node_pair_t *q = start; q < p; q++) {
			yaml_node_t *first = sw_yaml_node(c, q->key);
			if (strcmp(name, (const char *)first->data.scalar.value))
				continue;
			return sw_yaml_fail_at(
				c, k, "duplicate %s `%.*s` in %s (first at line %d, column %d)",
				noun, SW_YAML_QUOTE_MAX, name, where,
				(int)first->start_mark.line + 1, (int)first->start_mark.column + 1);
		}
	}
	return SW_OK;
}

void sw_yaml_interval_text(double lo, int lo_open, double hi, int hi_open, char *buf, size_t len)
{
	snprintf(buf, len, "%g %s x %s %g", lo, lo_open ? "<" : "<=", hi_open ? "<" : "<=", hi);
}

/* A number in the interval from lo to hi, each end open or closed. */
enum sw_status sw_yaml_real(struct sw_yaml_ctx *c, const yaml_node_t *n, const char *key, double lo,
			    int lo_open, double hi, int hi_open, double *out)
{
	char expected[96];
	const char *s;
	enum sw_status st;
	double v;
	size_t used = (size_t)snprintf(expected, sizeof expected, "a number x with ");

	sw_yaml_interval_text(lo, lo_open, hi, hi_open, expected + used, sizeof expected - used);
	st = sw_yaml_scalar(c, n, key, expected, &s);
	if (st)
		return st;
	if (sw_number_parse_real(s, strlen(s), &v, NULL))
		return sw_yaml_fail_at(c, n, "%s: expected %s, found \"%.*s\"", key, expected,
				       SW_YAML_QUOTE_MAX, s);
	if ((lo_open ? v <= lo : v < lo) || (hi_open ? v >= hi : v > hi))
		return sw_yaml_fail_at(c, n, "%s: %.*s is out of range: expected %s", key,
				       SW_YAML_QUOTE_MAX, s, expected);
	*out = v;
	return SW_OK;
}

enum sw_status sw_yaml_int(struct sw_yaml_ctx *c, const yaml_node_t *n, const char *key, long lo,
			   long hi, int *out)
{
	const char *s;
	char expected[96];
	enum sw_status st;
	int64_t v;

	snprintf(expected, sizeof expected, "an integer %ld..%ld", lo, hi);
	st = sw_yaml_scalar(c, n, key, expected, &s);
	if (st)
		return st;
	if (sw_number_parse_int(s, strlen(s), &v, NULL))
		return sw_yaml_fail_at(c, n, "%s: expected %s, found \"%.*s\"", key, expected,
				       SW_YAML_QUOTE_MAX, s);
	if (v < lo || v > hi)
		return sw_yaml_fail_at(c, n, "%s: %lld is out of range: expected %s", key,
				       (long long)v, expected);
	*out = (int)v;
	return SW_OK;
}

/* Length of the valid UTF-8 sequence at s (n bytes left); 0 when invalid:
 * truncated, overlong, a surrogate or above U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp, min;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		len = 2, cp = s[0] & 0x1F, min = 0x80;
	} else if ((s[0] & 0xF0) == 0xE0) {
		len = 3, cp = s[0] & 0x0F, min = 0x800;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

/* Line and column (1-based) of byte offset `off`, counted as libyaml
 * does: in characters, after a byte order mark, with CR LF, CR, NEL, LS and
 * PS as line breaks. Invalid bytes count as one character each. */
static void position(const char *text, size_t len, size_t off, int *line, int *col)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;

	*line = 1;
	*col = 1;
	if (len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF)
		i = 3;
	while (i < off && i < len) {
		size_t w = utf8_len(s + i, len - i);
		int brk = s[i] == '\n' || (s[i] == '\r' && (i + 1 >= len || s[i + 1] != '\n')) ||
			  (w == 2 && s[i] == 0xC2 && s[i + 1] == 0x85) ||
			  (w == 3 && s[i] == 0xE2 && s[i + 1] == 0x80 && (s[i + 2] & 0xFE) == 0xA8);
		if (brk) {
			(*line)++;
			*col = 1;
		} else if (s[i] != '\r') {
			(*col)++;
		}
		i += w ? w : 1;
	}
}

/* NUL bytes, invalid UTF-8 and deep [ { nesting are refused before libyaml
 * sees the text. Brackets in quotes and comments count too: an upper bound. */
enum sw_status sw_yaml_check_text(const char *path, const char *text, size_t len,
				  struct sw_err *err)
{
	const unsigned char *s = (const unsigned char *)text;
	int line, col, depth = 0;

	for (size_t i = 0; i < len;) {
		size_t w = utf8_len(s + i, len - i);
		if (s[i] == '[' || s[i] == '{')
			depth++;
		else if ((s[i] == ']' || s[i] == '}') && depth > 0)
			depth--;
		if (depth > MAX_FLOW_DEPTH) {
			position(text, len, i, &line, &col);
			return sw_fail(err, SW_EINVAL,
				       "%s:%d:%d: [ and { nested more than %d deep; a job file "
				       "needs a few",
				       path, line, col, MAX_FLOW_DEPTH);
		}
		if (s[i] && w) {
			i += w;
			continue;
		}
		position(text, len, i, &line, &col);
		if (!s[i])
			return sw_fail(err, SW_EINVAL,
				       "%s:%d:%d: NUL byte: a job file is YAML text, this looks "
				       "like a binary file",
				       path, line, col);
		return sw_fail(
			err, SW_EINVAL,
			"%s:%d:%d: invalid UTF-8 (byte 0x%02X): a job file must be UTF-8 text",
			path, line, col, s[i]);
	}
	return SW_OK;
}

enum sw_status sw_yaml_failure(const char *path, const char *text, size_t len,
			       const yaml_parser_t *parser, struct sw_err *err)
{
	int line = (int)parser->problem_mark.line + 1, col = (int)parser->problem_mark.column + 1;
	const char *problem = parser->problem ? parser->problem : "unknown problem";

	switch (parser->error) {
	case YAML_MEMORY_ERROR:
		return sw_fail(err, SW_ENOMEM, "%s: out of memory parsing YAML", path);
	case YAML_READER_ERROR:
		position(text, len, parser->problem_offset, &line, &col);
		return sw_fail(err, SW_EINVAL, "%s:%d:%d: YAML cannot read the text: %s", path,
			       line, col, problem);
	default:
		if (parser->context)
			return sw_fail(err, SW_EINVAL,
				       "%s:%d:%d: YAML syntax error: %s (%s at line %d, column %d)",
				       path, line, col, problem, parser->context,
				       (int)parser->context_mark.line + 1,
				       (int)parser->context_mark.column + 1);
		return sw_fail(err, SW_EINVAL, "%s:%d:%d: YAML syntax error: %s", path, line, col,
			       problem);
	}
}
