/*
 * Each class's expected times (class_cost.h): the cost table's, carried to
 * the class's GPU by the time model's ratio, point by point.
 */
#include "run/class_cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "model/model.h"

const struct sw_gpu *sw_class_cost_table_gpu(const struct sw_duration *rows, size_t n)
{
	const struct sw_gpu *one = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct sw_gpu *g = rows[i].device_class[0]
						 ? sw_gpu_of_driver_name(rows[i].device_class)
						 : NULL;
		if (!g || (one && g != one))
			return NULL;
		one = g;
	}
	return one;
}

/* The time model's predicted ns of pt on a and on b (NaN where it does
 * not cover it), the model's figures counted once where both share a CC. */
static void predict_both(const struct sw_time_plan *tp, const struct sw_plan_point *pt,
			 const struct sw_gpu *a, const struct sw_gpu *b, struct sw_record *scratch,
			 double *ns_a, double *ns_b)
{
	const struct sw_family *f = sw_family_at(pt->family);
	struct sw_model_figures m;
	struct sw_err why;
	int shared = a->cc == b->cc &&
		     sw_model_eval_banked(&f->variants[pt->p.variant], &pt->p, a->cc,
					  SW_KEPLER_BANK_BYTES_DEFAULT, &m, &why) == SW_OK;
	*ns_a = *ns_b = NAN;
	if (a->cc == b->cc && !shared)
		return; /* the model has no figures: no time on either */
	const struct sw_gpu *gpu[2] = { a, b };
	double *ns[2] = { ns_a, ns_b };
	for (int i = 0; i < 2; i++) {
		scratch->model_time_ns = NAN;
		/* a hook past its limits leaves NaN: the point's own row says why */
		enum sw_status st =
			shared ? sw_time_plan_predict_from(tp, f, &pt->p, gpu[i], &m, scratch, &why)
			       : sw_time_plan_predict(tp, f, &pt->p, gpu[i],
						      SW_KEPLER_BANK_BYTES_DEFAULT, scratch, &why);
		*ns[i] = st == SW_OK ? scratch->model_time_ns : NAN;
	}
}

void sw_class_cost_times(const struct sw_cost_model *m, const struct sw_gpu *table_gpu,
			 const struct sw_time_plan *tp, const struct sw_plan *plan, const char *cls,
			 const struct sw_gpu *gpu, double *t, struct sw_class_basis *b)
{
	int carry = gpu && table_gpu && gpu != table_gpu && tp;
	/* a row's model columns, written by the time model and read back */
	struct sw_record *scratch = carry ? calloc(1, sizeof *scratch) : NULL;
	memset(b, 0, sizeof *b);
	for (size_t i = 0; i < plan->n; i++) {
		const struct sw_plan_point *pt = &plan->points[i];
		double on_gpu, on_table;
		t[i] = sw_cost_point_on(m, cls, pt).expected_s;
		if (sw_cost_knows_point_on(m, cls, pt->id)) {
			b->own++;
			continue;
		}
		if (scratch)
			predict_both(tp, pt, gpu, table_gpu, scratch, &on_gpu, &on_table);
		if (scratch && on_gpu > 0 && on_table > 0 && isfinite(on_gpu) &&
		    isfinite(on_table)) {
			t[i] *= on_gpu / on_table;
			b->carried++;
		} else {
			b->kept++;
		}
	}
	free(scratch);
}
