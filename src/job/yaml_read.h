/*
 * Reading a YAML document with every error at its place: the checks of the
 * raw text libyaml is not given (NUL bytes, bad UTF-8, deep nesting), its
 * own errors as "path:line:column: ...", and typed reads of nodes (a
 * scalar, a mapping of known keys, a number in a range). Knows nothing of
 * jobs: job.c, job_families.c and measure_cfg.c say what the keys mean.
 */
#ifndef SW_YAML_READ_H
#define SW_YAML_READ_H

#include <stddef.h>

#include <yaml.h>

#include "core/status.h"

#define SW_YAML_QUOTE_MAX 60 /* the most of a user's text a message quotes */

/* What a read needs at hand to report an error. */
struct sw_yaml_ctx {
	const char *path; /* names the text in messages */
	yaml_document_t *doc;
	struct sw_err *err;
};

/* Appends name to a ", "-separated list in buf (an "expected one of:"). */
void sw_yaml_add_name(char *buf, size_t len, const char *name);

yaml_node_t *sw_yaml_node(struct sw_yaml_ctx *c, int index);

/* SW_EINVAL with "path:line:column: " before the message. */
enum sw_status sw_yaml_fail_at(struct sw_yaml_ctx *c, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Puts "path:line:column: what" (what may be NULL) before a message a
 * helper already wrote in c->err. */
enum sw_status sw_yaml_wrap_at(struct sw_yaml_ctx *c, const yaml_node_t *n, const char *what);

/* A plain scalar that YAML reads as null: "", ~, null, Null, NULL. */
int sw_yaml_is_null(const yaml_node_t *n);

/* "a mapping", "a sequence", "nothing" or the quoted scalar (in buf), for
 * a message's "found ...". */
const char *sw_yaml_describe(const yaml_node_t *n, char *buf, size_t len);

/* The text of a scalar that must hold a value (`expected` says which);
 * `key` leads the message. *out is NULL on failure. */
enum sw_status sw_yaml_scalar(struct sw_yaml_ctx *c, const yaml_node_t *n, const char *key,
			      const char *expected, const char **out);

/* A mapping or, for an optional section left empty, nothing (*map = NULL). */
enum sw_status sw_yaml_mapping(struct sw_yaml_ctx *c, yaml_node_t *n, const char *key,
			       const char *expected, int may_be_null, yaml_node_t **map);

/* Keys of a mapping are scalars, unique, and (when `allowed` is given) one
 * of allowed[0..n_allowed). noun and where name them in messages. */
enum sw_status sw_yaml_check_keys(struct sw_yaml_ctx *c, const yaml_node_t *map,
				  const char *const *allowed, int n_allowed, const char *noun,
				  const char *where);

/* "0 < x <= 3600": the interval from lo to hi, an end left out when open. */
void sw_yaml_interval_text(double lo, int lo_open, double hi, int hi_open, char *buf, size_t len);

/* A number in the interval from lo to hi, each end open or closed. */
enum sw_status sw_yaml_real(struct sw_yaml_ctx *c, const yaml_node_t *n, const char *key, double lo,
			    int lo_open, double hi, int hi_open, double *out);

/* An integer in lo..hi (number.h's syntax: K, M and G suffixes). */
enum sw_status sw_yaml_int(struct sw_yaml_ctx *c, const yaml_node_t *n, const char *key, long lo,
			   long hi, int *out);

/* NUL bytes, invalid UTF-8 and [ { nested deeper than a job needs are
 * refused before libyaml sees the text, at their line and column. */
enum sw_status sw_yaml_check_text(const char *path, const char *text, size_t len,
				  struct sw_err *err);

/* The failure of yaml_parser_load, as SW_EINVAL (or SW_ENOMEM) at its place. */
enum sw_status sw_yaml_failure(const char *path, const char *text, size_t len,
			       const yaml_parser_t *parser, struct sw_err *err);

#endif
