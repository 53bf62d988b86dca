/*
 * The limits a family's hooks can break (limits.h), checked over a plan
 * and at loading through sw_family_sizes (model/model.h, which the time
 * model calls too): refused before any fixed array of the harness is
 * sized by what a hook said.
 */
#include "job/limits.h"

#include <stdio.h>
#include <string.h>

#include "core/record.h"
#include "job/job.h"

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
