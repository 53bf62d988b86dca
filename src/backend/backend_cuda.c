/*
 * The cuda backend: binds the rank's GPU (device.h) and measures each point
 * on it (measure.h), its CPU check overlapping the next point's timing. A
 * measured row also carries the model's figures for the GPU's own CC, and a
 * lower bound on its time: the predicted bytes at the device's peak.
 */
#include "backend/backend.h"

#include <stdlib.h>

#include "backend/checks.h"
#include "backend/measure.h"
#include "model/model.h"

struct cuda_state {
	struct sw_device_info dev;
	struct sw_measure *gpu;
	const struct sw_measure_cfg *cfg;
	const struct sw_time_plan *time;
	const struct sw_gpu *gpu_entry; /* the table's row of this GPU; NULL: not in it */
};

static int cuda_available(void)
{
	return sw_device_count() > 0;
}

static enum sw_status cuda_open(const struct sw_backend_args *a, struct sw_device_info *dev,
				void **state, struct sw_err *err)
{
	struct cuda_state *s = calloc(1, sizeof *s);
	if (!s)
		return sw_fail(err, SW_ENOMEM, "no memory for the cuda backend");
	s->cfg = &a->job->measure;
	enum sw_status st = sw_device_bind(a->local_rank, dev, err);
	if (st == SW_OK)
		st = sw_measure_create(dev, &s->gpu, err);
	if (st != SW_OK) {
		free(s);
		return st;
	}
	if (a->opt->counters)
		sw_measure_use_counters(s->gpu);
	/* an unknown name is refused here, at binding, before any point runs */
	if (a->opt->n_metrics)
		st = sw_measure_use_metrics(s->gpu, (const char *const *)a->opt->metrics,
					    a->opt->n_metrics, err);
	if (st != SW_OK) {
		sw_measure_destroy(&s->gpu);
		free(s);
		return st;
	}
	s->dev = *dev;
	s->time = a->time;
	s->gpu_entry = sw_gpu_of_driver_name(dev->name);
	*state = s;
	return SW_OK;
}

/* Rank 0 alone looks the names up, on its node's first GPU: the names are
 * the same everywhere, and a dry run binds no rank. */
static enum sw_status cuda_dry_check(const struct sw_backend_args *a, struct sw_err *err)
{
	if (!a->opt->n_metrics || a->rank != 0)
		return SW_OK;
	return sw_measure_check_metrics(0, (const char *const *)a->opt->metrics, a->opt->n_metrics,
					err);
}

static const char *cuda_note(void *state)
{
	const struct cuda_state *s = state;
	return sw_measure_counters_unavailable(s->gpu);
}

static enum sw_status cuda_run(void *state, const struct sw_plan_point *pt, struct sw_record *rec,
			       struct sw_record **done, int *n_done, struct sw_err *err)
{
	struct cuda_state *s = state;
	const struct sw_family *f = sw_family_at(pt->family);
	/* A measured row's model is the GPU's own CC, and its time this GPU's,
	 * where the table knows it. */
	sw_backend_add_gpu_model(pt, s->dev.peak_gbps, s->gpu_entry, s->time, rec);
	_Static_assert(SW_MEASURE_MAX_DONE <= SW_BACKEND_MAX_DONE &&
			       SW_CHECK_SETS <= SW_BACKEND_MAX_KEPT,
		       "the worker holds every record the checks keep");
	return sw_measure_start_point(s->gpu, f, &pt->p, s->cfg, rec, done, n_done, err);
}

static struct sw_record *cuda_settle(void *state)
{
	struct cuda_state *s = state;
	return sw_measure_settle(s->gpu);
}

static void cuda_close(void **state)
{
	struct cuda_state *s = *state;
	if (s)
		sw_measure_destroy(&s->gpu);
	free(s);
	*state = NULL;
}

const struct sw_backend sw_backend_cuda = {
	.name = "cuda",
	.about = "timings on the rank's GPU, each point checked against its CPU reference",
	.measures = 1,
	.counters = 1,
	.available = cuda_available,
	.open = cuda_open,
	.dry_check = cuda_dry_check,
	.note = cuda_note,
	.run = cuda_run,
	.settle = cuda_settle,
	.close = cuda_close,
};
