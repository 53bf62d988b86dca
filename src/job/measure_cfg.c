/*
 * The measure settings made from measure_settings.h (measure_cfg.h): one
 * table row per setting, and the reading, range errors and comparison that
 * loop over it, so that a setting is added in the list alone. Relations
 * between settings (min_samples <= max_samples) are checked here by hand.
 */
#include "job/measure_cfg.h"

#include <stdio.h>
#include <string.h>

#include "job/yaml_read.h"

const struct sw_measure_cfg sw_measure_defaults = {
#define X_REAL(name, units, dflt, ...) .name = dflt,
#define X_INT(name, dflt, ...)         .name = dflt,
#define X_WORD(name, type, dflt, ...)  .name = dflt,
#include "job/measure_settings.h"
};

/* A WORD setting is read and written through an int. */
#define X_WORD(name, type, ...) _Static_assert(sizeof(type) == sizeof(int), #name " is an int");
#include "job/measure_settings.h"

/* clang-format off */
const struct sw_measure_setting sw_measure_settings[] = {
#define X_REAL(key, units_, dflt, lo_, lo_open_, hi_, hi_open_, help_)                           \
	{ .name = #key, .kind = SW_MEASURE_REAL, .offset = offsetof(struct sw_measure_cfg, key), \
	  .lo = lo_, .lo_open = lo_open_, .hi = hi_, .hi_open = hi_open_, .units = units_,         \
	  .help = help_ },
#define X_INT(key, dflt, lo_, hi_, help_)                                                        \
	{ .name = #key, .kind = SW_MEASURE_INT, .offset = offsetof(struct sw_measure_cfg, key),  \
	  .lo = lo_, .hi = hi_, .help = help_ },
#define X_WORD(key, type, dflt, words_, help_)                                                   \
	{ .name = #key, .kind = SW_MEASURE_WORD, .offset = offsetof(struct sw_measure_cfg, key), \
	  .words = words_, .help = help_ },
#include "job/measure_settings.h"
};
/* clang-format on */
const int sw_measure_n_settings = sizeof sw_measure_settings / sizeof sw_measure_settings[0];

/* A field's name as its key, for messages about two settings: a field that
 * is gone fails to compile. */
#define KEY(field) ((void)sizeof(((struct sw_measure_cfg *)0)->field), #field)

static double value_of(const struct sw_measure_setting *s, const struct sw_measure_cfg *m)
{
	const char *p = (const char *)m + s->offset;

	if (s->kind == SW_MEASURE_REAL)
		return *(const double *)p;
	return *(const int *)p;
}

/* Word i of the space-separated words, into buf; "" past the last. */
static void word_at(const char *words, int i, char *buf, size_t len)
{
	const char *p = words;

	for (; i > 0 && p; i--) {
		p = strchr(p, ' ');
		p = p ? p + 1 : NULL;
	}
	snprintf(buf, len, "%.*s", p ? (int)strcspn(p, " ") : 0, p ? p : "");
}

/* The index of text among the words; -1 when it is none of them. */
static int word_index(const char *words, const char *text)
{
	char w[64];

	for (int i = 0;; i++) {
		word_at(words, i, w, sizeof w);
		if (!w[0])
			return -1;
		if (!strcmp(w, text))
			return i;
	}
}

/* "auto, always or never" */
static void words_text(const char *words, char *buf, size_t len)
{
	char w[64], next[64];
	size_t used = 0;

	buf[0] = '\0';
	word_at(words, 0, w, sizeof w);
	for (int i = 1; w[0] && used < len; i++) {
		word_at(words, i, next, sizeof next);
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i == 1    ? ""
					 : next[0] ? ", "
						   : " or ",
					 w);
		memcpy(w, next, sizeof w);
	}
}

void sw_measure_range_text(const struct sw_measure_setting *s, char *buf, size_t len)
{
	if (s->kind == SW_MEASURE_REAL)
		sw_yaml_interval_text(s->lo, s->lo_open, s->hi, s->hi_open, buf, len);
	else if (s->kind == SW_MEASURE_INT)
		snprintf(buf, len, "%.0f..%.0f", s->lo, s->hi);
	else
		snprintf(buf, len, "%s", "");
}

void sw_measure_value_text(const struct sw_measure_setting *s, const struct sw_measure_cfg *m,
			   char *buf, size_t len)
{
	if (s->kind == SW_MEASURE_WORD)
		word_at(s->words, (int)value_of(s, m), buf, len);
	else
		snprintf(buf, len, "%g", value_of(s, m));
}

/* One setting's value node into m. */
static enum sw_status read_one(struct sw_yaml_ctx *c, const struct sw_measure_setting *s,
			       yaml_node_t *v, struct sw_measure_cfg *m)
{
	char key[64], expected[128];
	char *field = (char *)m + s->offset;
	const char *text;
	enum sw_status st;
	int i;

	snprintf(key, sizeof key, "measure.%s", s->name);
	if (s->kind == SW_MEASURE_REAL)
		return sw_yaml_real(c, v, key, s->lo, s->lo_open, s->hi, s->hi_open,
				    (double *)field);
	if (s->kind == SW_MEASURE_INT)
		return sw_yaml_int(c, v, key, (long)s->lo, (long)s->hi, (int *)field);
	words_text(s->words, expected, sizeof expected);
	st = sw_yaml_scalar(c, v, key, expected, &text);
	if (st)
		return st;
	i = word_index(s->words, text);
	if (i < 0)
		return sw_yaml_fail_at(c, v, "%s: expected %s, found \"%.*s\"", key, expected,
				       SW_YAML_QUOTE_MAX, text);
	*(int *)field = i;
	return SW_OK;
}

static const struct sw_measure_setting *find(const char *name)
{
	for (int i = 0; i < sw_measure_n_settings; i++)
		if (!strcmp(sw_measure_settings[i].name, name))
			return &sw_measure_settings[i];
	return NULL;
}

/* min_samples <= max_samples, at the node of the one the job set (both:
 * max_samples). */
static enum sw_status check_samples(struct sw_yaml_ctx *c, const struct sw_measure_cfg *m,
				    const yaml_node_t *min_node, const yaml_node_t *max_node)
{
	if (m->min_samples <= m->max_samples)
		return SW_OK;
	if (max_node)
		return sw_yaml_fail_at(c, max_node,
				       "measure.%s: %d is below %s %d: expected an integer %d..%d",
				       KEY(max_samples), m->max_samples, KEY(min_samples),
				       m->min_samples, m->min_samples, SW_MAX_SAMPLES);
	return sw_yaml_fail_at(c, min_node,
			       "measure.%s: %d is above %s %d (the default); set %s too",
			       KEY(min_samples), m->min_samples, KEY(max_samples), m->max_samples,
			       KEY(max_samples));
}

enum sw_status sw_measure_read(struct sw_yaml_ctx *c, yaml_node_t *n, struct sw_measure_cfg *m)
{
	const char *names[sizeof sw_measure_settings / sizeof sw_measure_settings[0]];
	const yaml_node_t *min_node = NULL, *max_node = NULL;
	yaml_node_t *map;
	enum sw_status st;

	st = sw_yaml_mapping(c, n, "measure", "a mapping of measurement settings", 1, &map);
	if (st || !map)
		return st;
	for (int i = 0; i < sw_measure_n_settings; i++)
		names[i] = sw_measure_settings[i].name;
	st = sw_yaml_check_keys(c, map, names, sw_measure_n_settings, "key", "measure");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     !st && p < map->data.mapping.pairs.top; p++) {
		const struct sw_measure_setting *s =
			find((const char *)sw_yaml_node(c, p->key)->data.scalar.value);
		yaml_node_t *v = sw_yaml_node(c, p->value);

		st = read_one(c, s, v, m);
		if (s->offset == offsetof(struct sw_measure_cfg, min_samples))
			min_node = v;
		if (s->offset == offsetof(struct sw_measure_cfg, max_samples))
			max_node = v;
	}
	return st ? st : check_samples(c, m, min_node, max_node);
}

int sw_measure_diff(const struct sw_measure_cfg *a, const struct sw_measure_cfg *b, char *msg,
		    size_t size)
{
	for (int i = 0; i < sw_measure_n_settings; i++) {
		const struct sw_measure_setting *s = &sw_measure_settings[i];
		char x[64], y[64];

		if (value_of(s, a) == value_of(s, b))
			continue;
		sw_measure_value_text(s, a, x, sizeof x);
		sw_measure_value_text(s, b, y, sizeof y);
		snprintf(msg, size, "measure.%s is %s in the file, %s in this job", s->name, x, y);
		return 1;
	}
	return 0;
}
