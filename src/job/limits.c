/*
 * The limits a family's hooks can break (limits.h): a count beyond a fixed
 * array of the harness, or a write past the struct it was given. A
 * plug-in's sizes() is its own code: sweep cannot stop it writing, but it
 * can call it where a write lands in guard bytes, and refuse before any
 * fixed array of its own is sized by what it said.
 */
#include "job/limits.h"

#include <stdio.h>
#include <string.h>

#include "core/record.h"
#include "job/job.h"

/* Bytes after the scratch struct a write past it lands in: bytes[] or
 * sampled_elem[] indices up to about SW_MAX_BUFFERS + 32. */
#define GUARD_BYTES 256
#define GUARD_BYTE  0xA5

struct guarded_sizes {
	struct sw_sizes s;
	unsigned char guard[GUARD_BYTES];
};

static int guard_intact(const struct guarded_sizes *g)
{
	for (size_t i = 0; i < sizeof g->guard; i++)
		if (g->guard[i] != GUARD_BYTE)
			return 0;
	return 1;
}

/* The limit s breaks, as a message tail; NULL when it keeps them all. */
static const char *broken(const struct sw_sizes *s, char *buf, size_t len)
{
	if (s->n_buffers < 0 || s->n_buffers > SW_MAX_BUFFERS)
		snprintf(buf, len,
			 "sets n_buffers %d; a point has 0 to %d buffers (SW_MAX_BUFFERS of "
			 "<sweep/family.h>)",
			 s->n_buffers, SW_MAX_BUFFERS);
	else if (s->n_inputs < 0 || s->n_inputs > s->n_buffers)
		snprintf(buf, len,
			 "sets n_inputs %d with n_buffers %d; the inputs are the first 0 to "
			 "n_buffers buffers",
			 s->n_inputs, s->n_buffers);
	else
		return NULL;
	return buf;
}

enum sw_status sw_family_sizes(const struct sw_family *f, const struct sw_point *p,
			       struct sw_sizes *sz, struct sw_err *err)
{
	struct guarded_sizes g;
	char why[160];
	const char *limit;

	memset(&g.s, 0, sizeof g.s);
	memset(g.guard, GUARD_BYTE, sizeof g.guard);
	f->sizes(p, &g.s);
	if (!guard_intact(&g)) {
		memset(sz, 0, sizeof *sz);
		return sw_fail(err, SW_EINVAL,
			       "sizes() wrote past struct sw_sizes (%zu bytes; its arrays hold "
			       "SW_MAX_BUFFERS, %d, buffers)",
			       sizeof g.s, SW_MAX_BUFFERS);
	}
	if ((limit = broken(&g.s, why, sizeof why))) {
		memset(sz, 0, sizeof *sz);
		return sw_fail(err, SW_EINVAL, "sizes() %s", limit);
	}
	*sz = g.s;
	return SW_OK;
}

enum sw_status sw_plan_check_limits(const struct sw_plan *plan, struct sw_err *err)
{
	for (size_t i = 0; i < plan->n; i++) {
		const struct sw_plan_point *pt = &plan->points[i];
		const struct sw_family *f = sw_family_at(pt->family);
		struct sw_sizes sz;
		char why[SW_MSG_LEN], label[256];

		/* a refused point never has its buffers sized: its sizes() may
		 * not even make sense there */
		if (f->refuse(&pt->p, why, sizeof why))
			continue;
		if (sw_family_sizes(f, &pt->p, &sz, err) != SW_OK) {
			sw_point_label(pt, label, sizeof label);
			return sw_wrap(err, "point %s", label);
		}
	}
	return SW_OK;
}

/* Variant v of f at the first of each used axis's default values. */
static enum sw_status first_default_point(const struct sw_family *f, int v, struct sw_point *p,
					  struct sw_err *err)
{
	p->variant = v;
	for (int a = 0; a < SW_MAX_AXES; a++) {
		struct sw_axis_values vals;
		p->axis[a] = SW_AXIS_UNUSED;
		if (a >= f->n_axes || !(f->variants[v].axes_used & (1u << a)))
			continue;
		if (sw_axis_def_parse(&f->axes[a], f->axes[a].defaults, &vals, err) != SW_OK)
			return sw_wrap(err, "family %s, axis %s: its defaults", f->name,
				       f->axes[a].name);
		p->axis[a] = vals.v[0];
		sw_axis_values_fini(&vals);
	}
	return SW_OK;
}

enum sw_status sw_family_check_defaults(const struct sw_family *f, struct sw_err *err)
{
	for (int v = 0; v < f->n_variants; v++) {
		struct sw_point p;
		struct sw_sizes sz;
		char why[SW_MSG_LEN];
		enum sw_status st = first_default_point(f, v, &p, err);

		if (st != SW_OK)
			return st;
		if (f->refuse(&p, why, sizeof why))
			continue;
		if (sw_family_sizes(f, &p, &sz, err) != SW_OK)
			return sw_wrap(err, "family '%s', variant %s at its first default point",
				       f->name, f->variants[v].name);
	}
	return SW_OK;
}
