/*
 * The model backend: a row per point and target (a CC, or a GPU of the
 * time model's table) with the model's predicted transactions and
 * efficiency (model.h), and for a GPU its predicted time (time_plan.h).
 * Needs no GPU, so it serves wherever CUDA cannot run.
 */
#include "backend/backend.h"

#include <stdio.h>
#include <stdlib.h>

#include "job/limits.h"
#include "model/model.h"

enum sw_status sw_backend_add_model_kept(const struct sw_plan_point *pt, int cc,
					 int kepler_bank_bytes, struct sw_record *rec,
					 struct sw_model_figures *m, struct sw_err *err)
{
	const struct sw_family *f = sw_family_at(pt->family);
	const struct sw_variant *v = &f->variants[pt->p.variant];
	struct sw_sizes sz;
	/* the point's buffers, which its requests must keep to (the plan's
	 * check passed its sizes() already) */
	enum sw_status st = sw_family_sizes(f, &pt->p, &sz, err);
	if (st == SW_OK)
		st = sw_model_eval_sized(v, &pt->p, &sz, cc, kepler_bank_bytes, m, err);
	if (st != SW_OK)
		return st;
	sw_record_set_model(rec, m);
	return SW_OK;
}

enum sw_status sw_backend_add_model(const struct sw_plan_point *pt, int cc, int kepler_bank_bytes,
				    struct sw_record *rec, struct sw_err *err)
{
	struct sw_model_figures m;
	return sw_backend_add_model_kept(pt, cc, kepler_bank_bytes, rec, &m, err);
}

void sw_backend_add_gpu_model(const struct sw_plan_point *pt, double peak_gbps,
			      const struct sw_gpu *gpu, const struct sw_time_plan *tp,
			      struct sw_record *rec)
{
	struct sw_err why = { 0 };
	struct sw_model_figures m;
	if (!sw_model_supports(rec->cc) ||
	    sw_backend_add_model_kept(pt, rec->cc, SW_KEPLER_BANK_BYTES_DEFAULT, rec, &m, &why))
		return;
	if (peak_gbps > 0)
		rec->model_time_bound_ns = rec->model_moved_bytes / peak_gbps; /* GB/s = B/ns */
	/* a sizes() past its limits leaves no time: the cuda backend's own
	 * call of it fails the row (measure.c), a replay's row is the
	 * recording's */
	if (gpu && tp && gpu->cc == rec->cc)
		(void)sw_time_plan_predict_from(tp, sw_family_at(pt->family), &pt->p, gpu, &m, rec,
						&why);
}

struct model_state {
	int kepler_bank_bytes;
	const struct sw_time_plan *time;
};

static enum sw_status model_open(const struct sw_backend_args *a, struct sw_device_info *dev,
				 void **state, struct sw_err *err)
{
	struct model_state *s = malloc(sizeof *s);
	if (!s)
		return sw_fail(err, SW_ENOMEM, "no memory for the model backend");
	s->kepler_bank_bytes = a->job->kepler_bank_bytes;
	s->time = a->time;
	sw_device_host_info(a->local_rank, dev);
	snprintf(dev->name, sizeof dev->name, "%s", sw_backend_model.name);
	*state = s;
	return SW_OK;
}

/* A row the model cannot predict is skipped with the model's reason: a
 * variant not modelled, or a request that leaves its buffer or names an
 * access its variant lacks (never an ok row, whose figures would cost
 * addresses no kernel may touch). */
static enum sw_status model_run(void *state, const struct sw_plan_point *pt, struct sw_record *rec,
				struct sw_record **done, int *n_done, struct sw_err *err)
{
	const struct model_state *s = state;
	struct sw_err why = { 0 };
	(void)err;
	struct sw_model_figures m;
	struct sw_sizes sz;
	/* a sizes() past its limits now, though it kept them for the plan's
	 * check, fails the row, as the cuda backend fails one (measure.c) */
	if (sw_family_sizes(sw_family_at(pt->family), &pt->p, &sz, &why) != SW_OK) {
		rec->status = SW_ROW_FAILED;
		snprintf(rec->message, sizeof rec->message, "%s", why.msg);
		if (pt->gpu)
			snprintf(rec->model_device, sizeof rec->model_device, "%s", pt->gpu->name),
				snprintf(rec->model_time_term, sizeof rec->model_time_term, "none");
		done[0] = rec;
		*n_done = 1;
		return SW_OK;
	}
	enum sw_status st =
		sw_backend_add_model_kept(pt, pt->cc, s->kepler_bank_bytes, rec, &m, &why);
	if (st != SW_OK) {
		rec->status = SW_ROW_SKIPPED;
		snprintf(rec->message, sizeof rec->message, "%s", why.msg);
	} else { /* "ok" is the model's, never the check's: the row says so */
		snprintf(rec->message, sizeof rec->message, "%s", SW_NOT_CHECKED_MODEL);
	}
	/* a device target's time (a CC target has no device to time on), from
	 * the figures just counted */
	if (pt->gpu && s->time && st == SW_OK) {
		/* a sizes() past its limits here fails the row, as the cuda
		 * backend fails one (measure.c) */
		if (sw_time_plan_predict_from(s->time, sw_family_at(pt->family), &pt->p, pt->gpu,
					      &m, rec, &why)) {
			rec->status = SW_ROW_FAILED;
			snprintf(rec->message, sizeof rec->message, "%s", why.msg);
		}
	} else if (pt->gpu) /* not modelled: no time either */
		snprintf(rec->model_device, sizeof rec->model_device, "%s", pt->gpu->name),
			snprintf(rec->model_time_term, sizeof rec->model_time_term, "none");
	done[0] = rec;
	*n_done = 1;
	return SW_OK;
}

static void model_close(void **state)
{
	free(*state);
	*state = NULL;
}

const struct sw_backend sw_backend_model = {
	.name = "model",
	.about = "predictions of the model for every CC and device of the job, no GPU",
	.model_targets = 1,
	.open = model_open,
	.run = model_run,
	.close = model_close,
};
