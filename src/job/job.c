/*
 * Job files: YAML text to struct sw_job, checked against the kernel
 * registry. libyaml's document API turns the (small) file into a node tree
 * whose marks give every error its line and column (yaml_read.h). This file
 * reads the file, walks the top level and the `model` section, and makes
 * --family jobs; measure_cfg.c reads `measure`, job_families.c `families`.
 * It only validates: it does not expand points, touch a GPU or print.
 */
#define _POSIX_C_SOURCE 200809L

#include "job/job.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "model/gpus.h"
#include "model/model.h"
#include "job/job_families.h"
#include "job/plugin.h"
#include "job/yaml_read.h"
#include "core/safe_open.h"
#include "core/suggest.h"

#define ARRAY_SIZE(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const int cc_defaults[] = { 60, 70, 80, 90, 100, 120 };

static int is_name_char(int ch)
{
	return isalnum(ch) || ch == '_' || ch == '.' || ch == '-';
}

/* ---- sw_cc_parse ---- */

enum sw_status sw_cc_parse(const char *text, int *cc, struct sw_err *err)
{
	const char *p = text ? text : "";
	int major = 0, minor, digits = 0;

	while (isspace((unsigned char)*p))
		p++;
	while (isdigit((unsigned char)*p) && digits < 3) {
		major = major * 10 + (*p++ - '0');
		digits++;
	}
	if (!digits || digits > 2 || *p != '.' || !isdigit((unsigned char)p[1]))
		goto bad;
	minor = p[1] - '0';
	p += 2;
	while (isspace((unsigned char)*p))
		p++;
	if (*p || major < 1 || major > 15)
		goto bad;
	*cc = 10 * major + minor;
	return SW_OK;

bad:
	return sw_fail(err, SW_EINVAL,
		       "\"%.*s\" is not a compute capability: expected MAJOR.MINOR like 9.0, major "
		       "1..15, minor 0..9",
		       SW_YAML_QUOTE_MAX, text ? text : "");
}

static enum sw_status parse_name(struct sw_yaml_ctx *c, const yaml_node_t *n, struct sw_job *job)
{
	static const char expected[] = "a name of 1 to 63 characters from A-Z a-z 0-9 _ . -";
	const char *s;
	enum sw_status st = sw_yaml_scalar(c, n, "name", expected, &s);
	size_t len;
	int ok;

	if (st)
		return st;
	len = strlen(s);
	ok = len > 0 && len < sizeof job->name;
	for (size_t i = 0; ok && i < len; i++)
		ok = is_name_char((unsigned char)s[i]);
	if (!ok)
		return sw_yaml_fail_at(c, n, "name: expected %s, found \"%.*s\"", expected,
				       SW_YAML_QUOTE_MAX, s);
	memcpy(job->name, s, len + 1);
	return SW_OK;
}

static enum sw_status add_cc(struct sw_yaml_ctx *c, const yaml_node_t *n, const char *text,
			     struct sw_job *job)
{
	int cc;

	if (sw_cc_parse(text, &cc, c->err))
		return sw_yaml_wrap_at(c, n, "model.ccs");
	for (int i = 0; i < job->n_ccs; i++)
		if (job->ccs[i] == cc)
			return sw_yaml_fail_at(c, n, "model.ccs: %d.%d is listed twice", cc / 10,
					       cc % 10);
	if (job->n_ccs == SW_MAX_CCS)
		return sw_yaml_fail_at(c, n, "model.ccs: more than %d compute capabilities",
				       SW_MAX_CCS);
	job->ccs[job->n_ccs++] = cc;
	return SW_OK;
}

enum sw_status sw_job_add_device(struct sw_job *job, const char *name, struct sw_err *err)
{
	const struct sw_gpu *gpu;
	if (sw_gpu_find(name, &gpu, err))
		return SW_EINVAL;
	for (int i = 0; i < job->n_devices; i++)
		if (job->devices[i] == gpu)
			return sw_fail(err, SW_EINVAL, "device %s is listed twice", gpu->name);
	if (job->n_devices == SW_MAX_DEVICES)
		return sw_fail(err, SW_EINVAL, "more than %d devices", SW_MAX_DEVICES);
	job->devices[job->n_devices++] = gpu;
	return SW_OK;
}

/* model.devices: a sequence of GPU names, or one string "A,B". */
static enum sw_status parse_devices(struct sw_yaml_ctx *c, const yaml_node_t *n, struct sw_job *job)
{
	static const char expected[] = "GPU names like [H100-SXM, H200] or \"H100-SXM,H200\"";
	const char *s;
	char piece[128];
	job->n_devices = 0;
	if (n->type == YAML_SEQUENCE_NODE) {
		if (n->data.sequence.items.start == n->data.sequence.items.top)
			return sw_yaml_fail_at(c, n, "model.devices: empty; expected %s", expected);
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++) {
			const yaml_node_t *item = sw_yaml_node(c, *i);
			enum sw_status st = sw_yaml_scalar(c, item, "model.devices",
							   "a GPU name like H100-SXM", &s);
			if (st)
				return st;
			if (sw_job_add_device(job, s, c->err))
				return sw_yaml_wrap_at(c, item, "model.devices");
		}
		return SW_OK;
	}
	enum sw_status st = sw_yaml_scalar(c, n, "model.devices", expected, &s);
	if (st)
		return st;
	for (;;) {
		size_t len = strcspn(s, ",");
		snprintf(piece, sizeof piece, "%.*s",
			 (int)(len < sizeof piece ? len : sizeof piece - 1), s);
		if (sw_job_add_device(job, piece, c->err))
			return sw_yaml_wrap_at(c, n, "model.devices");
		if (!s[len])
			return SW_OK;
		s += len + 1;
	}
}

static enum sw_status parse_ccs(struct sw_yaml_ctx *c, const yaml_node_t *n, struct sw_job *job)
{
	static const char expected[] = "compute capabilities like [6.0, 9.0] or \"6.0,9.0\"";
	enum sw_status st;

	job->n_ccs = 0;
	if (n->type == YAML_SEQUENCE_NODE) {
		if (n->data.sequence.items.start == n->data.sequence.items.top)
			return sw_yaml_fail_at(c, n, "model.ccs: empty; expected %s", expected);
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++) {
			const yaml_node_t *item = sw_yaml_node(c, *i);
			const char *s;
			st = sw_yaml_scalar(c, item, "model.ccs", "a compute capability like 9.0",
					    &s);
			if (!st)
				st = add_cc(c, item, s, job);
			if (st)
				return st;
		}
		return SW_OK;
	}
	const char *s;
	st = sw_yaml_scalar(c, n, "model.ccs", expected, &s);
	if (st)
		return st;
	/* "6.0, 9.0": the pieces share the scalar's position. */
	for (;;) {
		const char *comma = strchr(s, ',');
		char piece[32];
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		snprintf(piece, sizeof piece, "%.*s",
			 (int)(len < sizeof piece ? len : sizeof piece - 1), s);
		st = add_cc(c, n, piece, job);
		if (st || !comma)
			return st;
		s = comma + 1;
	}
}

static enum sw_status parse_model(struct sw_yaml_ctx *c, yaml_node_t *n, struct sw_job *job)
{
	static const char *const keys[] = { "ccs", "devices", "kepler_bank_bytes" };
	yaml_node_t *map;
	enum sw_status st;

	st = sw_yaml_mapping(c, n, "model", "a mapping of model settings", 1, &map);
	if (st || !map)
		return st;
	st = sw_yaml_check_keys(c, map, keys, ARRAY_SIZE(keys), "key", "model");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     !st && p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = sw_yaml_node(c, p->key), *v = sw_yaml_node(c, p->value);
		if (!strcmp((const char *)k->data.scalar.value, "ccs")) {
			st = parse_ccs(c, v, job);
		} else if (!strcmp((const char *)k->data.scalar.value, "devices")) {
			st = parse_devices(c, v, job);
		} else {
			st = sw_yaml_int(c, v, "model.kepler_bank_bytes", 4, 8,
					 &job->kepler_bank_bytes);
			if (!st && job->kepler_bank_bytes != 4 && job->kepler_bank_bytes != 8)
				st = sw_yaml_fail_at(
					c, v,
					"model.kepler_bank_bytes: %d: Kepler's banks are "
					"4 or 8 bytes wide",
					job->kepler_bank_bytes);
		}
	}
	return st;
}

/* A stored job's plugins: must name as many files as its result file
 * records for it (w->n_recorded, -1 when it records none). */
static enum sw_status check_recorded_count(struct sw_yaml_ctx *c, const yaml_node_t *n,
					   const struct sw_plugin_where *w, int count)
{
	if (!w->stored || w->n_recorded < 0 || count == w->n_recorded)
		return SW_OK;
	return sw_yaml_fail_at(c, n,
			       "plugins: %d entries, but the file records %d plug-in paths for "
			       "them; the file is damaged",
			       count, w->n_recorded);
}

/* plugins: [a.so, ...]: loaded before `families` is read, whatever the key
 * order, so their families are there to be named; paths are the job's, or
 * for a stored job those its file records (w). Each entry's file goes to
 * job->plugins. */
static enum sw_status parse_plugins(struct sw_yaml_ctx *c, yaml_node_t *root,
				    struct sw_plugin_where *w, struct sw_job *job)
{
	char buf[SW_YAML_QUOTE_MAX + 8];
	yaml_node_t *n = NULL;
	enum sw_status st;

	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++)
		if (!strcmp((const char *)sw_yaml_node(c, p->key)->data.scalar.value, "plugins"))
			n = sw_yaml_node(c, p->value);
	if (!n || sw_yaml_is_null(n))
		return check_recorded_count(c, root, w, 0);
	if (n->type != YAML_SEQUENCE_NODE)
		return sw_yaml_fail_at(
			c, n, "plugins: expected a list of plug-in files like [my.so], found %s",
			sw_yaml_describe(n, buf, sizeof buf));
	int count = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
	if ((st = check_recorded_count(c, n, w, count)))
		return st;
	job->plugins = calloc(count ? (size_t)count : 1, sizeof *job->plugins);
	if (!job->plugins)
		return sw_fail(c->err, SW_ENOMEM, "%s: out of memory for the plug-ins", c->path);
	for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
	     i++) {
		const yaml_node_t *item = sw_yaml_node(c, *i);
		const char *path;
		st = sw_yaml_scalar(c, item, "plugins", "a plug-in file like my.so", &path);
		if (!st && sw_plugin_load_entry(w, job->n_plugins, path,
						&job->plugins[job->n_plugins], c->err))
			/* a stored job's message names the recorded file, not a place */
			st = w->stored ? c->err->status : sw_yaml_wrap_at(c, item, NULL);
		if (st)
			return st;
		job->n_plugins++;
	}
	return SW_OK;
}

static const char *const placement_names[SW_PLACE_N] = {
	[SW_PLACE_ONCE] = "once",
	[SW_PLACE_PER_CLASS] = "per_class",
	[SW_PLACE_EVERY_GPU] = "every_gpu",
};

const char *sw_placement_name(enum sw_placement p)
{
	return p >= 0 && p < SW_PLACE_N ? placement_names[p] : "?";
}

int sw_placement_parse(const char *word, enum sw_placement *p)
{
	for (int i = 0; word && i < SW_PLACE_N; i++)
		if (!strcmp(word, placement_names[i])) {
			*p = (enum sw_placement)i;
			return 0;
		}
	return -1;
}

static enum sw_status parse_placement(struct sw_yaml_ctx *c, const yaml_node_t *n,
				      struct sw_job *job)
{
	const char *s;
	enum sw_status st = sw_yaml_scalar(c, n, "placement", SW_PLACE_EXPECTED, &s);

	if (st)
		return st;
	if (sw_placement_parse(s, &job->placement))
		return sw_yaml_fail_at(c, n, "placement: expected %s, found \"%.*s\"",
				       SW_PLACE_EXPECTED, SW_YAML_QUOTE_MAX, s);
	return SW_OK;
}

static enum sw_status parse_root(struct sw_yaml_ctx *c, yaml_node_t *root,
				 struct sw_plugin_where *w, struct sw_job *job)
{
	static const char *const keys[] = { "name",     "measure",   "model",    "plugins",
					    "families", "calibrate", "placement" };
	yaml_node_t *families = NULL, *calibrate = NULL;
	char buf[SW_YAML_QUOTE_MAX + 8];
	enum sw_status st;

	if (root->type != YAML_MAPPING_NODE)
		return sw_yaml_fail_at(
			c, root,
			"expected a mapping with keys name, measure, model and families, found %s",
			sw_yaml_describe(root, buf, sizeof buf));
	st = sw_yaml_check_keys(c, root, keys, ARRAY_SIZE(keys), "key", "the job");
	if (!st)
		st = parse_plugins(c, root, w, job);
	if (st)
		return st;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		const char *k = (const char *)sw_yaml_node(c, p->key)->data.scalar.value;
		yaml_node_t *v = sw_yaml_node(c, p->value);
		if (!strcmp(k, "name"))
			st = parse_name(c, v, job);
		else if (!strcmp(k, "measure"))
			st = sw_measure_read(c, v, &job->measure);
		else if (!strcmp(k, "model"))
			st = parse_model(c, v, job);
		else if (!strcmp(k, "placement"))
			st = parse_placement(c, v, job);
		else if (!strcmp(k, "families"))
			families = v;
		else if (!strcmp(k, "calibrate"))
			calibrate = v;
		if (st)
			return st;
	}
	if (!families && !calibrate)
		return sw_yaml_fail_at(c, root,
				       "missing the required key `families` (the kernel families "
				       "to run), or `calibrate` (the points every GPU runs)");
	if (families &&
	    (st = sw_job_read_families(c, families, "families", &job->families, &job->n_families)))
		return st;
	if (calibrate)
		st = sw_job_read_families(c, calibrate, "calibrate", &job->calibrate,
					  &job->n_calibrate);
	return st;
}

/* The default name: the file's stem, made a valid name. */
static void default_name(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	const char *dot;
	size_t len;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	if (len >= size)
		len = size - 1;
	for (size_t i = 0; i < len; i++)
		name[i] = is_name_char((unsigned char)base[i]) ? base[i] : '_';
	name[len] = '\0';
	if (!len)
		snprintf(name, size, "job");
}

static char *copy_text(const char *s, size_t len)
{
	char *d = malloc(len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

static enum sw_status parse_text(struct sw_yaml_ctx *c, const char *text, size_t len,
				 struct sw_plugin_where *w, struct sw_job *job)
{
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	yaml_node_t *root;
	enum sw_status st;

	if (!yaml_parser_initialize(&parser))
		return sw_fail(c->err, SW_ENOMEM, "%s: out of memory starting the YAML parser",
			       c->path);
	/* YAML allows a byte order mark; with the encoding given, libyaml would
	 * read it as text. Positions skip it too (position()). */
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
		text += 3;
		len -= 3;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	if (!yaml_parser_load(&parser, &doc)) {
		st = sw_yaml_failure(c->path, text, len, &parser, c->err);
		goto out_parser;
	}
	c->doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root || sw_yaml_is_null(root)) {
		int line = root ? (int)root->start_mark.line + 1 : 1;
		int col = root ? (int)root->start_mark.column + 1 : 1;
		st = sw_fail(
			c->err, SW_EINVAL,
			"%s:%d:%d: the job file is empty; expected a mapping with a `families` key",
			c->path, line, col);
		goto out_doc;
	}
	/* A second document would be silently ignored: refuse it. */
	if (!yaml_parser_load(&parser, &extra)) {
		st = sw_yaml_failure(c->path, text, len, &parser, c->err);
		goto out_doc;
	}
	if (yaml_document_get_root_node(&extra)) {
		st = sw_fail(c->err, SW_EINVAL,
			     "%s:%d:%d: a second YAML document; a job file holds exactly one",
			     c->path, (int)extra.start_mark.line + 1,
			     (int)extra.start_mark.column + 1);
		yaml_document_delete(&extra);
		goto out_doc;
	}
	yaml_document_delete(&extra);
	st = parse_root(c, root, w, job);
out_doc:
	yaml_document_delete(&doc);
out_parser:
	yaml_parser_delete(&parser);
	return st;
}

static enum sw_status parse_job(const char *path, const char *text, size_t len,
				struct sw_plugin_where *w, struct sw_job *job, struct sw_err *err)
{
	struct sw_err e = { 0 };
	struct sw_yaml_ctx c = { .path = path ? path : "<job>", .err = &e };
	enum sw_status st;

	memset(job, 0, sizeof *job);
	if (len > SW_JOB_MAX_BYTES) {
		st = sw_fail(&e, SW_EINVAL, "%s: %zu bytes, more than a job file may hold (%d)",
			     c.path, len, SW_JOB_MAX_BYTES);
		goto fail;
	}
	st = sw_yaml_check_text(c.path, text, len, &e);
	if (st)
		goto fail;
	job->path = copy_text(c.path, strlen(c.path));
	job->text = copy_text(text, len);
	if (!job->path || !job->text) {
		st = sw_fail(&e, SW_ENOMEM, "%s: out of memory for the job text", c.path);
		goto fail;
	}
	default_name(c.path, job->name, sizeof job->name);
	job->measure = sw_measure_defaults;
	memcpy(job->ccs, cc_defaults, sizeof cc_defaults);
	job->n_ccs = (int)(sizeof cc_defaults / sizeof cc_defaults[0]);
	job->kepler_bank_bytes = SW_KEPLER_BANK_BYTES_DEFAULT;
	st = parse_text(&c, job->text, len, w, job);
	if (st)
		goto fail;
	return SW_OK;

fail:
	sw_job_fini(job);
	if (err)
		*err = e;
	return st;
}

enum sw_status sw_job_parse(const char *path, const char *text, size_t len, struct sw_job *job,
			    struct sw_err *err)
{
	struct sw_plugin_where w = { .job_path = path };

	return parse_job(path, text, len, &w, job, err);
}

enum sw_status sw_job_parse_stored(const char *name, const char *text, size_t len,
				   struct sw_plugin_where *where, struct sw_job *job,
				   struct sw_err *err)
{
	where->stored = 1;
	where->failed = 0;
	return parse_job(name, text, len, where, job, err);
}

enum sw_status sw_job_load(const char *path, struct sw_job *job, struct sw_err *err)
{
	struct stat sb;
	const char *kind;
	char *buf = NULL;
	size_t len = 0;
	enum sw_status st;
	int fd;

	memset(job, 0, sizeof *job);
	/* a FIFO or device would block or stream: refused before any read */
	fd = sw_safe_open_read(path, &kind);
	if (fd == SW_SAFE_OPEN_NOT_REG)
		return sw_fail(err, SW_EINVAL, "%s: is %s, expected a job file (YAML)", path, kind);
	if (fd < 0)
		return sw_fail(err, SW_EIO, "%s: cannot open the job file: %s", path,
			       strerror(errno));
	if (fstat(fd, &sb)) {
		st = sw_fail(err, SW_EIO, "%s: cannot stat the job file: %s", path,
			     strerror(errno));
		goto out_fd;
	}
	if (sb.st_size > SW_JOB_MAX_BYTES) {
		st = sw_fail(err, SW_EINVAL, "%s: %lld bytes, more than a job file may hold (%d)",
			     path, (long long)sb.st_size, SW_JOB_MAX_BYTES);
		goto out_fd;
	}
	/* One byte more than allowed tells a file that grew since fstat. */
	buf = malloc(SW_JOB_MAX_BYTES + 1);
	if (!buf) {
		st = sw_fail(err, SW_ENOMEM, "%s: out of memory reading the job file", path);
		goto out_fd;
	}
	while (len < SW_JOB_MAX_BYTES + 1) {
		ssize_t r = read(fd, buf + len, SW_JOB_MAX_BYTES + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			st = sw_fail(err, SW_EIO, "%s: cannot read the job file: %s", path,
				     strerror(errno));
			goto out_buf;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	if (len > SW_JOB_MAX_BYTES) {
		st = sw_fail(err, SW_EINVAL,
			     "%s: more than %d bytes, more than a job file may hold", path,
			     SW_JOB_MAX_BYTES);
		goto out_buf;
	}
	st = sw_job_parse(path, buf, len, job, err);
out_buf:
	free(buf);
out_fd:
	close(fd);
	return st;
}

/* ---- --family ---- */

/* SW_EINVAL unless name is a registered family, not among the first i names. */
static enum sw_status check_family_name(const char *const *names, int i, struct sw_err *err)
{
	const char *reg[64], *name = names[i];
	int n_reg = sw_family_count() < 64 ? sw_family_count() : 64;
	char near[256], all[256] = "";

	for (int k = 0; k < i; k++)
		if (!strcmp(names[k], name))
			return sw_fail(err, SW_EINVAL, "--family %.*s: named twice",
				       SW_YAML_QUOTE_MAX, name);
	if (sw_family_find(name))
		return SW_OK;
	for (int k = 0; k < n_reg; k++) {
		reg[k] = sw_family_at(k)->name;
		sw_yaml_add_name(all, sizeof all, reg[k]);
	}
	sw_suggest_text(name, reg, n_reg, near, sizeof near);
	if (near[0])
		return sw_fail(err, SW_EINVAL, "--family %.*s: unknown family; did you mean %s?",
			       SW_YAML_QUOTE_MAX, name, near);
	return sw_fail(err, SW_EINVAL, "--family %.*s: unknown family; registered families: %s",
		       SW_YAML_QUOTE_MAX, name, all);
}

enum sw_status sw_job_from_families(const char *const *names, int n, struct sw_job *job,
				    struct sw_err *err)
{
	char text[4096], name[sizeof job->name] = "";
	size_t used;
	int full = 0;
	enum sw_status st;

	memset(job, 0, sizeof *job);
	if (n < 1)
		return sw_fail(err, SW_EINVAL, "--family: no family named");
	for (int i = 0; i < n; i++) {
		if ((st = check_family_name(names, i, err)))
			return st;
		/* a name holds whole family names only: stop at the first that does not fit */
		size_t len = strlen(name);
		full = full || len + (i > 0) + strlen(names[i]) >= sizeof name;
		if (!full)
			snprintf(name + len, sizeof name - len, "%s%s", i ? "-" : "", names[i]);
	}
	used = (size_t)snprintf(text, sizeof text, "name: %s\nfamilies:\n", name);
	/* registered names fit: SW_MAX_FAMILIES of at most SW_NAME_LEN each */
	for (int i = 0; i < n && used < sizeof text; i++)
		used += (size_t)snprintf(text + used, sizeof text - used, "  %s:\n", names[i]);
	if (used >= sizeof text)
		return sw_fail(err, SW_EINVAL, "--family: too many families for one job");
	return sw_job_parse(SW_JOB_FAMILY_PATH, text, used, job, err);
}

static void families_fini(struct sw_job_family *f, int n)
{
	for (int i = 0; i < n; i++)
		for (int a = 0; a < SW_MAX_AXES; a++)
			sw_axis_values_fini(&f[i].axes[a].values);
	free(f);
}

void sw_job_fini(struct sw_job *job)
{
	if (!job)
		return;
	families_fini(job->families, job->n_families);
	families_fini(job->calibrate, job->n_calibrate);
	for (int i = 0; job->plugins && i < job->n_plugins; i++)
		free(job->plugins[i].path);
	free(job->plugins);
	free(job->path);
	free(job->text);
	memset(job, 0, sizeof *job);
}
