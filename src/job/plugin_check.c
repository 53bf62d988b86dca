/*
 * A plug-in's descriptor, checked before sweep reads through it: a count
 * before its array, a pointer before it is followed (tables and texts in a
 * loaded object's memory, hooks in its code: dl_iterate_phdr's segments),
 * then the names the command line and the file can address and one unit per
 * axis name. It does not load, register or compare plug-ins (plugin.c).
 */
#define _GNU_SOURCE
#include "job/plugin_check.h"

#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"
#include "job/limits.h"

#define ABOUT_BYTES 4096 /* the longest text but a name: about, units, defaults */

/* One readable segment of a loaded object: [lo, hi), code or not. */
struct seg {
	uintptr_t lo, hi;
	int exec;
};

struct ctx {
	struct seg *segs;
	int n, cap, oom;
	const char *path;
	int api;          /* the plug-in's API version: 3 adds the reference hook */
	int family_bytes; /* its struct sw_family's size, which memory must hold */
	char who[96];     /* "family 'x'" or "family 3", for messages */
	struct sw_err *err;
};

static int add_segments(struct dl_phdr_info *info, size_t size, void *data)
{
	struct ctx *c = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum && !c->oom; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R))
			continue;
		if (c->n == c->cap) {
			int cap = c->cap ? 2 * c->cap : 256;
			struct seg *s = realloc(c->segs, (size_t)cap * sizeof *s);

			if (!s) {
				c->oom = 1;
				return 1;
			}
			c->segs = s;
			c->cap = cap;
		}
		c->segs[c->n++] = (struct seg){ lo, lo + ph->p_memsz, (ph->p_flags & PF_X) != 0 };
	}
	return 0;
}

static const struct seg *segment_of(const struct ctx *c, uintptr_t a)
{
	for (int i = 0; i < c->n; i++)
		if (a >= c->segs[i].lo && a < c->segs[i].hi)
			return &c->segs[i];
	return NULL;
}

/* n entries of size bytes at p lie in one segment of a loaded object. */
static int holds(const struct ctx *c, const void *p, size_t n, size_t size)
{
	const struct seg *s = segment_of(c, (uintptr_t)p);

	return s && (size == 0 || n <= (s->hi - (uintptr_t)p) / size);
}

/* fn is code: an address in an executable segment. */
static int is_code(const struct ctx *c, uintptr_t fn)
{
	const struct seg *s = segment_of(c, fn);

	return s && s->exec;
}

/* The length of the text at s, when it ends in a NUL within max bytes and
 * its segment; -1 when s is NULL, elsewhere, or longer. */
static long text_len(const struct ctx *c, const char *s, size_t max)
{
	const struct seg *g = s ? segment_of(c, (uintptr_t)s) : NULL;
	size_t room;
	const char *end;

	if (!g)
		return -1;
	room = g->hi - (uintptr_t)s;
	end = memchr(s, '\0', room < max ? room : max);
	return end ? end - s : -1;
}

static enum sw_status bad(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static enum sw_status bad(struct ctx *c, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return sw_fail(c->err, SW_EINVAL, "plug-in %s: %s%s", c->path, c->who, what);
}

/* Letters, digits and '_', starting with a letter: a YAML key, the FAMILY
 * and AXIS of --set FAMILY.AXIS=VALUES, a name in --set's lists, an HDF5
 * column or value, part of a report's file names. */
static int is_identifier(const char *s)
{
	int alpha = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z');

	if (!alpha)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

#define NAME_RULE                                                                                  \
	"a name is letters, digits and '_', starting with a letter, so that the job file, "        \
	"--set and the result file can name it"

/* A name: set, a text of 1 to len - 1 bytes, an identifier. what: "axis 2". */
static enum sw_status check_name(struct ctx *c, const char *name, size_t len, const char *what,
				 const char *count_hint)
{
	long n = text_len(c, name, len);

	if (!name)
		return bad(c, "%s has no name%s", what, count_hint);
	if (n < 1)
		return bad(c,
			   "%s: its name is not a text of 1 to %zu bytes in the plug-in's memory%s",
			   what, len - 1, count_hint);
	if (!is_identifier(name))
		return bad(c, "%s is named '%s'; %s", what, name, NAME_RULE);
	return SW_OK;
}

/* A text field: set, and NUL-ended within ABOUT_BYTES in loaded memory. */
static enum sw_status check_text(struct ctx *c, const char *s, const char *what)
{
	if (text_len(c, s, ABOUT_BYTES) < 0)
		return bad(c, "%s is %s", what,
			   s ? "not a text (NUL-ended, under 4096 bytes) in the plug-in's memory"
			     : "NULL; every text of a descriptor is set");
	return SW_OK;
}

/* A hook: NULL where optional, else code. */
static enum sw_status check_hook(struct ctx *c, uintptr_t fn, const char *what, int required)
{
	if (!fn)
		return required ? bad(c, " has no %s", what) : SW_OK;
	if (!is_code(c, fn))
		return bad(c, ": its %s at %#lx is not code of a loaded object", what,
			   (unsigned long)fn);
	return SW_OK;
}

#define HOOK(f, name, required) check_hook(c, (uintptr_t)(f)->name, #name " hook", required)

static enum sw_status check_hooks(struct ctx *c, const struct sw_family *f)
{
	enum sw_status st;

	if ((st = HOOK(f, sizes, 1)) || (st = HOOK(f, refuse, 1)) ||
	    (st = HOOK(f, useful_bytes, 1)) || (st = HOOK(f, flops, 1)) ||
	    (st = HOOK(f, check, 0)) || (st = HOOK(f, fill, 0)) || (st = HOOK(f, prepare, 0)) ||
	    (st = HOOK(f, release, 0)) || (st = HOOK(f, shape, 0)))
		return st;
	/* API 2's descriptor ends before the reference hook: nothing to read */
	if (c->api >= 3 && (st = HOOK(f, reference, 0)))
		return st;
	return SW_OK;
}

/* Which family, by name once its name is known good. */
static void name_who(struct ctx *c, const struct sw_family *f, int i)
{
	if (f)
		snprintf(c->who, sizeof c->who, "family '%s'", f->name);
	else
		snprintf(c->who, sizeof c->who, "family %d", i);
}

/* A NULL-ended list of names (a categorical axis's values, a variant's
 * accesses): the list and each name in the plug-in's memory, at most max
 * names, each an identifier, none twice. *n: how many. what: "axis 'x'
 * value names", for messages. */
static enum sw_status check_name_list(struct ctx *c, const char *const *list, int max,
				      const char *what, const char *limit, int *n)
{
	char item[96];
	enum sw_status st;

	for (*n = 0;; ++*n) {
		if (!holds(c, &list[*n], 1, sizeof *list))
			return bad(c,
				   ": %s: the list is not a NULL-ended table in the plug-in's "
				   "memory",
				   what);
		if (!list[*n])
			return SW_OK;
		if (*n == max)
			return bad(c, ": %s: more than %d; %s", what, max, limit);
		snprintf(item, sizeof item, ": %s: name %d", what, *n);
		if ((st = check_name(c, list[*n], SW_NAME_LEN, item, "")))
			return st;
		for (int k = 0; k < *n; k++)
			if (!strcmp(list[k], list[*n]))
				return bad(c, ": %s: '%s' twice", what, list[*n]);
	}
}

/* A categorical axis: one name per value of its range. */
static enum sw_status check_axis_names(struct ctx *c, const struct sw_axis_def *ax)
{
	char what[64];
	int n;
	enum sw_status st;

	if (!ax->names)
		return SW_OK;
	snprintf(what, sizeof what, "axis '%s' value names", ax->name);
	if ((st = check_name_list(c, ax->names, SW_MAX_AXIS_NAMES, what,
				  "an axis names at most SW_MAX_AXIS_NAMES values", &n)))
		return st;
	if ((uint64_t)ax->max - (uint64_t)ax->min + 1 != (uint64_t)n)
		return bad(c,
			   ": axis '%s' names %d values, but its range %lld..%lld holds %llu; a "
			   "categorical axis names each value of its range, min first",
			   ax->name, n, (long long)ax->min, (long long)ax->max,
			   (unsigned long long)((uint64_t)ax->max - (uint64_t)ax->min + 1));
	return SW_OK;
}

/* -1 is SW_AXIS_UNUSED, the value of an axis a variant does not use: a point
 * with it would share the id of the point without the axis, and a reader
 * would show "unused" for it, not its name. Checked after the names, which
 * it may quote. */
static enum sw_status check_unused(struct ctx *c, const struct sw_axis_def *ax)
{
	char named[64] = "";

	if (ax->min > SW_AXIS_UNUSED || ax->max < SW_AXIS_UNUSED)
		return SW_OK;
	if (ax->names)
		snprintf(named, sizeof named, " (it names -1 '%s')",
			 ax->names[SW_AXIS_UNUSED - ax->min]);
	return bad(c,
		   ": axis '%s' has the range %lld..%lld%s, which holds -1, SW_AXIS_UNUSED of "
		   "<sweep/family.h>, the value of an axis a variant does not use; give it a "
		   "range without -1",
		   ax->name, (long long)ax->min, (long long)ax->max, named);
}

static enum sw_status check_axis(struct ctx *c, const struct sw_family *f, int a)
{
	const struct sw_axis_def *ax = &f->axes[a];
	char what[64], hint[64];
	enum sw_status st;

	snprintf(what, sizeof what, ": axis %d", a);
	snprintf(hint, sizeof hint, " (is n_axes, %d, more than its table holds?)", f->n_axes);
	if ((st = check_name(c, ax->name, SW_NAME_LEN, what, hint)))
		return st;
	if (!strcmp(ax->name, "variants"))
		return bad(c, ": an axis is named 'variants', the word of the job file and of "
			      "--set FAMILY.variants=NAMES that picks variants; name it otherwise");
	snprintf(what, sizeof what, ": axis '%s': units", ax->name);
	if ((st = check_text(c, ax->units, what)))
		return st;
	snprintf(what, sizeof what, ": axis '%s': defaults", ax->name);
	if ((st = check_text(c, ax->defaults, what)))
		return st;
	snprintf(what, sizeof what, ": axis '%s': about", ax->name);
	if ((st = check_text(c, ax->about, what)))
		return st;
	if (ax->min > ax->max)
		return bad(c, ": axis '%s' has the empty range %lld..%lld", ax->name,
			   (long long)ax->min, (long long)ax->max);
	if ((st = check_axis_names(c, ax)))
		return st;
	return check_unused(c, ax);
}

static enum sw_status check_axes(struct ctx *c, const struct sw_family *f)
{
	enum sw_status st;

	if (f->n_axes < 0 || f->n_axes > SW_MAX_AXES)
		return bad(c, " has %d axes; a family has 0 to %d (SW_MAX_AXES)", f->n_axes,
			   SW_MAX_AXES);
	if (f->n_axes && !f->axes)
		return bad(c, " has no axes");
	if (f->n_axes && !holds(c, f->axes, (size_t)f->n_axes, sizeof *f->axes))
		return bad(c, ": its %d axes are not a table in the plug-in's memory", f->n_axes);
	for (int a = 0; a < f->n_axes; a++)
		if ((st = check_axis(c, f, a)))
			return st;
	return SW_OK;
}

static enum sw_status check_variant(struct ctx *c, const struct sw_family *f, int v)
{
	const struct sw_variant *var = &f->variants[v];
	char what[64], hint[64];
	enum sw_status st;

	snprintf(what, sizeof what, ": variant %d", v);
	snprintf(hint, sizeof hint, " (is n_variants, %d, more than its table holds?)",
		 f->n_variants);
	if ((st = check_name(c, var->name, SW_TEXT_LEN, what, hint)))
		return st;
	snprintf(what, sizeof what, ": variant '%s': about", var->name);
	if ((st = check_text(c, var->about, what)))
		return st;
	snprintf(what, sizeof what, "launch hook of variant '%s'", var->name);
	if ((st = check_hook(c, (uintptr_t)var->launch, what, 1)))
		return st;
	snprintf(what, sizeof what, "requests hook of variant '%s'", var->name);
	if ((st = check_hook(c, (uintptr_t)var->requests, what, 0)))
		return st;
	if (!var->accesses)
		return SW_OK;
	snprintf(what, sizeof what, "variant '%s' access names", var->name);
	int n;
	return check_name_list(c, var->accesses, SW_MAX_ACCESSES, what,
			       "a variant names at most SW_MAX_ACCESSES accesses", &n);
}

static enum sw_status check_variants(struct ctx *c, const struct sw_family *f)
{
	enum sw_status st;

	if (f->n_variants < 1 || f->n_variants > SW_MAX_VARIANTS)
		return bad(c, " has %d variants; a family has 1 to %d (SW_MAX_VARIANTS)",
			   f->n_variants, SW_MAX_VARIANTS);
	if (!f->variants)
		return bad(c, " has no variants");
	if (!holds(c, f->variants, (size_t)f->n_variants, sizeof *f->variants))
		return bad(c, ": its %d variants are not a table in the plug-in's memory",
			   f->n_variants);
	for (int v = 0; v < f->n_variants; v++)
		if ((st = check_variant(c, f, v)))
			return st;
	return SW_OK;
}

/* The units g gives the axis name, or NULL when g has no such axis. */
static const char *units_in(const struct sw_family *g, const char *name)
{
	for (int a = 0; a < g->n_axes; a++)
		if (!strcmp(g->axes[a].name, name))
			return g->axes[a].units;
	return NULL;
}

/* An axis name is one column of the file with one `units` attribute: f may
 * not give a name another family has in other units, used or not. */
static enum sw_status check_units(struct ctx *c, const struct sw_plugin *p, int i)
{
	const struct sw_family *f = p->families[i];
	int n = sw_family_count();

	for (int a = 0; a < f->n_axes; a++)
		for (int k = 0; k < n + i; k++) {
			const struct sw_family *g = k < n ? sw_family_at(k) : p->families[k - n];
			const char *u = units_in(g, f->axes[a].name);

			if (u && strcmp(u, f->axes[a].units))
				return bad(c,
					   ": axis '%s' is in '%s', but family '%s' has it %s%s%s; "
					   "an axis name is one column of the result file, in one "
					   "unit: give it %s%s%s or name this axis otherwise",
					   f->axes[a].name, f->axes[a].units, g->name,
					   u[0] ? "in '" : "without units", u, u[0] ? "'" : "",
					   u[0] ? "the units '" : "no units (\"\")", u,
					   u[0] ? "'" : "");
		}
	return SW_OK;
}

static enum sw_status check_family(struct ctx *c, const struct sw_plugin *p, int i)
{
	const struct sw_family *f = p->families[i];
	enum sw_status st;

	name_who(c, NULL, i);
	if (!f)
		return bad(c, " has no name");
	if (!holds(c, f, 1, (size_t)c->family_bytes))
		return bad(c, ": its descriptor is not in the plug-in's memory");
	if ((st = check_name(c, f->name, SW_NAME_LEN < SW_TEXT_LEN ? SW_NAME_LEN : SW_TEXT_LEN, "",
			     "")))
		return st;
	name_who(c, f, i);
	if ((st = check_text(c, f->about, ": about")) || (st = check_hooks(c, f)) ||
	    (st = check_axes(c, f)) || (st = check_variants(c, f)) || (st = check_units(c, p, i)))
		return st;
	/* its hooks' limits where loading can see them, --list included */
	if ((st = sw_family_check_defaults(f, c->err)))
		return sw_wrap(c->err, "plug-in %s", c->path);
	return SW_OK;
}

enum sw_status sw_plugin_check(const struct sw_plugin *p, const char *path, struct sw_err *err)
{
	struct ctx c = {
		.path = path, .api = p->api_version, .family_bytes = p->family_bytes, .err = err
	};
	enum sw_status st = SW_OK;

	dl_iterate_phdr(add_segments, &c);
	if (c.oom) {
		st = sw_fail(err, SW_ENOMEM, "plug-in %s: no memory to check it", path);
		goto out;
	}
	if (p->n_families < 1 || p->n_families > SW_PLUGIN_MAX_FAMILIES || !p->families)
		st = sw_fail(err, SW_EINVAL,
			     "plug-in %s exports %d families; a plug-in exports 1 to %d "
			     "(SW_PLUGIN)",
			     path, p->families ? p->n_families : 0, SW_PLUGIN_MAX_FAMILIES);
	else if (!holds(&c, p->families, (size_t)p->n_families, sizeof *p->families))
		st = sw_fail(err, SW_EINVAL,
			     "plug-in %s: its list of %d families is not in the plug-in's memory",
			     path, p->n_families);
	for (int i = 0; st == SW_OK && i < p->n_families; i++)
		st = check_family(&c, p, i);
out:
	free(c.segs);
	return st;
}
