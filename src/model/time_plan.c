/*
 * The run's time model (time_plan.h): which rates each GPU predicts with,
 * fitted where a measured file of its class is given, and the transfer's
 * table of measured points. A measured row is a point again when its
 * family, variant and axes give back its id, so rows of another registry
 * or version are left out rather than misread.
 */
#include "model/time_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hash.h"
#include "kernel.h"
#include "model/model.h"

/* FNV-1a 64 of the point's canonical text: the plan's id (job/plan.c),
 * rebuilt here so the model needs no job. */
static uint64_t base_id(const struct sw_family *f, const struct sw_point *p)
{
	char text[512];
	int len = snprintf(text, sizeof text, "%s/%s", f->name, f->variants[p->variant].name);
	for (int a = 0; a < f->n_axes && len < (int)sizeof text; a++) {
		const struct sw_axis_def *d = &f->axes[a];
		if (p->axis[a] == SW_AXIS_UNUSED ||
		    (d->baseline.set && p->axis[a] == d->baseline.value))
			continue;
		len += snprintf(text + len, sizeof text - len, ";%s=%lld", d->name,
				(long long)p->axis[a]);
	}
	return sw_fnv1a_str(text);
}

/* The point a measured row stands for, or -1 when it is not one of this
 * registry's (its id does not come back). */
static int point_of(const struct sw_measured_row *r, const struct sw_family **fam,
		    struct sw_point *p)
{
	for (int i = 0; i < sw_family_count(); i++) {
		const struct sw_family *f = sw_family_at(i);
		if (strcmp(f->name, r->family))
			continue;
		memset(p, 0, sizeof *p);
		p->variant = sw_variant_find(f, r->variant);
		if (p->variant < 0)
			return -1;
		for (int a = 0; a < f->n_axes; a++)
			p->axis[a] = r->axis[sw_axis_column_of(i, a)];
		*fam = f;
		return base_id(f, p) == r->point_id ? 0 : -1;
	}
	return -1;
}

void sw_time_file_spec(const char *spec, char *path, size_t path_len, char *cls, size_t cls_len)
{
	const char *colon = strrchr(spec, ':');
	snprintf(path, path_len, "%s", spec);
	cls[0] = '\0';
	if (!colon || strchr(colon, '/') || access(spec, F_OK) == 0)
		return;
	snprintf(path, path_len, "%.*s", (int)(colon - spec), spec);
	snprintf(cls, cls_len, "%s", colon + 1);
}

/* Up to three of m's classes, ", "-separated, into buf: what a file holds,
 * for a message. */
static const char *classes_of(const struct sw_measured *m, char *buf, size_t len)
{
	const char *seen[3];
	int n = 0, more = 0;
	for (size_t i = 0; i < m->n; i++) {
		int k = 0;
		while (k < n && strcmp(seen[k], m->rows[i].device_class))
			k++;
		if (k < n)
			continue;
		if (n == 3)
			more = 1;
		else
			seen[n++] = m->rows[i].device_class;
	}
	buf[0] = '\0';
	for (int k = 0, used = 0; k < n && used < (int)len; k++)
		used += snprintf(buf + used, len - used, "%s%s", k ? ", " : "", seen[k]);
	if (more && strlen(buf) + 6 < len)
		strcat(buf, ", ...");
	return buf;
}

/* The class of m's rows a file spec names: CLASS, or the only one; its
 * GPU, which the table must know. The message names neither option nor
 * file: the caller wraps it with both. */
static enum sw_status pick_class(const struct sw_measured *m, const char *cls,
				 struct sw_time_file *f, struct sw_err *err)
{
	const struct sw_measured_row *first = NULL;
	char held[3 * SW_DURATION_CLASS_LEN + 8];
	for (size_t i = 0; i < m->n; i++) {
		const struct sw_measured_row *r = &m->rows[i];
		if (*cls && strcmp(cls, r->device_class))
			continue;
		if (!first)
			first = r;
		else if (strcmp(first->device_class, r->device_class))
			return sw_fail(err, SW_EINVAL,
				       "it holds rows of several GPU classes (%s): name one as "
				       "%s:CLASS",
				       classes_of(m, held, sizeof held), f->path);
	}
	if (!first && !m->n)
		return sw_fail(err, SW_EINVAL,
			       "no measured ok rows: the time model takes the ok rows a GPU "
			       "measured (the cuda backend's), with a median above 0");
	if (!first)
		return sw_fail(err, SW_EINVAL, "no measured ok rows of class %s; it holds %s", cls,
			       classes_of(m, held, sizeof held));
	snprintf(f->device_class, sizeof f->device_class, "%s", first->device_class);
	f->gpu = sw_gpu_of_driver_name(first->device_name);
	if (!f->gpu)
		return sw_fail(err, SW_EINVAL,
			       "its GPU '%s' is not in the time model's table "
			       "(sweep --list-devices)",
			       first->device_name);
	return SW_OK;
}

/* The observations of m's rows of file f's class, where want (may be NULL)
 * holds their point; *n of them into a malloc'ed array. */
static enum sw_status observe(const struct sw_measured *m, const struct sw_time_file *f,
			      const uint64_t *want, size_t n_want, struct sw_time_obs **obs,
			      uint64_t **ids, int *n, struct sw_err *err)
{
	*obs = calloc(m->n ? m->n : 1, sizeof **obs);
	*ids = calloc(m->n ? m->n : 1, sizeof **ids);
	*n = 0;
	if (!*obs || !*ids)
		return sw_fail(err, SW_ENOMEM, "out of memory for the rows of %s", f->path);
	for (size_t i = 0; i < m->n; i++) {
		const struct sw_measured_row *r = &m->rows[i];
		const struct sw_family *fam;
		struct sw_point p;
		struct sw_err why;
		int wanted = !want;
		for (size_t k = 0; !wanted && k < n_want; k++)
			wanted = want[k] == r->point_id;
		if (!wanted || strcmp(r->device_class, f->device_class) || point_of(r, &fam, &p) ||
		    sw_time_inputs_of(fam, &p, f->gpu, SW_KEPLER_BANK_BYTES_DEFAULT, &(*obs)[*n].in,
				      &why))
			continue;
		(*obs)[*n].measured_ns = r->median_ns;
		(*ids)[(*n)++] = r->point_id;
	}
	return SW_OK;
}

static struct sw_time_gpu *gpu_entry(struct sw_time_plan *tp, const struct sw_gpu *g)
{
	for (int i = 0; i < tp->n_gpus; i++)
		if (tp->gpus[i].gpu == g)
			return &tp->gpus[i];
	if (tp->n_gpus == SW_TIME_MAX_GPUS)
		return NULL;
	struct sw_time_gpu *e = &tp->gpus[tp->n_gpus++];
	e->gpu = g;
	e->calibrated_by = -1;
	sw_time_rates_datasheet(g, &e->rates);
	return e;
}

static void settle_fit(struct sw_time_gpu *e)
{
	for (int k = 0; k < SW_N_RATES; k++)
		e->status[k] = e->fit.fitted[k] || e->fit.points[k] > 0 ? SW_RATE_FITTED
									: SW_RATE_NOT_NEEDED;
}

/* Fits e's rates to file k's observations. */
static enum sw_status fit_to(struct sw_time_gpu *e, struct sw_time_file *f, int k,
			     const struct sw_time_obs *obs, int n, struct sw_err *err)
{
	sw_time_rates_datasheet(e->gpu, &e->rates);
	enum sw_status st = sw_time_fit(e->gpu, obs, n, &e->rates, &e->fit, err);
	if (st != SW_OK)
		return st;
	settle_fit(e);
	e->calibrated_by = k;
	f->n_points = n;
	return SW_OK;
}

/* --model-calibrate spec, read into m: the file's class, its GPU fitted;
 * its observations' ids into *ids (malloc'ed, *n of them) for the
 * transfer. */
static enum sw_status calibrate_one(struct sw_time_plan *tp, const char *spec,
				    const struct sw_measured *m, uint64_t **ids, int *n,
				    struct sw_err *err)
{
	struct sw_time_file *f = &tp->files[tp->n_files];
	char cls[SW_DURATION_CLASS_LEN];
	struct sw_time_obs *obs = NULL;
	sw_time_file_spec(spec, f->path, sizeof f->path, cls, sizeof cls);
	f->content_hash = m->content_hash;
	enum sw_status st = pick_class(m, cls, f, err);
	if (st == SW_OK)
		st = observe(m, f, NULL, 0, &obs, ids, n, err);
	if (st != SW_OK) {
		free(obs);
		return sw_wrap(err, "--model-calibrate %s", spec);
	}
	struct sw_time_gpu *e = gpu_entry(tp, f->gpu);
	if (!e)
		st = sw_fail(err, SW_EINVAL, "too many GPUs to predict for");
	else if (e->calibrated_by >= 0)
		st = sw_fail(err, SW_EINVAL, "two --model-calibrate files of %s: give one",
			     f->gpu->name);
	else if (fit_to(e, f, tp->n_files, obs, *n, err) != SW_OK)
		st = sw_wrap(err, "--model-calibrate %s", spec);
	free(obs);
	if (st == SW_OK)
		tp->n_files++;
	return st;
}

static enum sw_status calibrate(struct sw_time_plan *tp, const char *const *specs,
				const struct sw_measured *calib, int n_calib, uint64_t **used,
				int *n_used, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	for (int c = 0; st == SW_OK && c < n_calib; c++) {
		uint64_t *ids = NULL;
		int n = 0;
		st = calibrate_one(tp, specs[c], &calib[c], &ids, &n, err);
		if (st == SW_OK && !*used) { /* the transfer's source fits the same points */
			*used = ids;
			*n_used = n;
		} else {
			free(ids);
		}
	}
	return st;
}

static int by_id(const void *a, const void *b)
{
	uint64_t x = ((const struct sw_time_point *)a)->id,
		 y = ((const struct sw_time_point *)b)->id;
	return x < y ? -1 : x > y;
}

/* The transfer's source: file f's GPU at its datasheet rates, or as a
 * --model-calibrate file of its class fitted it (that calibration wins
 * over the source's own rows: *used is then NULL); its points obs[0..n)
 * with their ids. */
static enum sw_status keep_source(struct sw_time_plan *tp, const struct sw_time_file *f,
				  const struct sw_time_obs *obs, const uint64_t *ids, int n,
				  const uint64_t **used, struct sw_err *err)
{
	tp->source.gpu = f->gpu;
	tp->source.calibrated_by = -1;
	sw_time_rates_datasheet(f->gpu, &tp->source.rates);
	for (int i = 0; i < tp->n_gpus; i++)
		if (tp->gpus[i].gpu == f->gpu && tp->gpus[i].calibrated_by >= 0) {
			tp->source = tp->gpus[i];
			*used = NULL;
		}
	tp->points = calloc(n ? n : 1, sizeof *tp->points);
	if (!tp->points)
		return sw_fail(err, SW_ENOMEM, "out of memory for its points");
	for (int i = 0; i < n; i++)
		tp->points[tp->n_points++] =
			(struct sw_time_point){ ids[i], obs[i].measured_ns, obs[i].in };
	qsort(tp->points, tp->n_points, sizeof *tp->points, by_id);
	return SW_OK;
}

/* Points of its own the transfer alone fits the source on: at most this
 * many of its rows, spread evenly (a full file's 3,000 fit no better). */
#define ALONE_FIT_POINTS 400

/* --model-from without a calibration: nothing fits the target, so the
 * source is fitted on its own rows, and the target takes the source's
 * rates as the architecture's (predict, target_rates). */
static enum sw_status fit_alone(struct sw_time_plan *tp, const struct sw_time_file *f,
				const struct sw_time_obs *obs, int n, struct sw_err *err)
{
	int k = n > ALONE_FIT_POINTS ? ALONE_FIT_POINTS : n;
	struct sw_time_obs *some = calloc(k ? k : 1, sizeof *some);
	enum sw_status st = SW_OK;
	if (!some)
		return sw_fail(err, SW_ENOMEM, "out of memory for the rows of %s", f->path);
	for (int i = 0; i < k; i++)
		some[i] = obs[(int)((double)i * n / k)];
	if (k >= 3) {
		st = sw_time_fit(f->gpu, some, k, &tp->source.rates, &tp->source.fit, err);
		settle_fit(&tp->source);
		tp->source.calibrated_by = tp->n_files;
		tp->alone = st == SW_OK;
	}
	free(some);
	return st;
}

/* --model-from: the source's GPU, its rates (fitted on its own rows of the
 * points the calibration used, else the datasheet's), its points. Nothing
 * of the file is used before its class and GPU are known. */
static enum sw_status transfer_from(struct sw_time_plan *tp, const char *spec,
				    const struct sw_measured *m, const uint64_t *used, int n_used,
				    struct sw_err *err)
{
	struct sw_time_file *f = &tp->files[tp->n_files];
	char cls[SW_DURATION_CLASS_LEN];
	struct sw_time_obs *obs = NULL;
	uint64_t *ids = NULL;
	int n = 0;
	sw_time_file_spec(spec, f->path, sizeof f->path, cls, sizeof cls);
	f->content_hash = m->content_hash;
	enum sw_status st = pick_class(m, cls, f, err);
	if (st == SW_OK)
		st = observe(m, f, NULL, 0, &obs, &ids, &n, err);
	if (st == SW_OK)
		st = keep_source(tp, f, obs, ids, n, &used, err);
	f->n_points = n;
	if (st == SW_OK && !used && tp->source.calibrated_by < 0)
		st = fit_alone(tp, f, obs, n, err);
	free(obs);
	free(ids);
	obs = NULL;
	ids = NULL;
	/* the source's rates, fitted on its rows of the calibration's points */
	if (st == SW_OK && used)
		st = observe(m, f, used, (size_t)n_used, &obs, &ids, &n, err);
	if (st == SW_OK && used && n >= 3)
		st = sw_time_fit(f->gpu, obs, n, &tp->source.rates, &tp->source.fit, err);
	if (st == SW_OK && used && n >= 3) {
		settle_fit(&tp->source);
		tp->source.calibrated_by = tp->n_files;
	}
	free(obs);
	free(ids);
	if (st != SW_OK)
		return sw_wrap(err, "--model-from %s", spec);
	tp->from = tp->n_files++;
	return SW_OK;
}

enum sw_status sw_time_plan_build(const char *const *calib_specs, const struct sw_measured *calib,
				  int n_calib, const char *from_spec,
				  const struct sw_measured *from, struct sw_time_plan *tp,
				  struct sw_err *err)
{
	uint64_t *used = NULL;
	int n_used = 0;
	memset(tp, 0, sizeof *tp);
	tp->from = -1;
	if (n_calib + (from != NULL) > SW_TIME_MAX_FILES)
		return sw_fail(err, SW_EINVAL, "more than %d measured files for the time model",
			       SW_TIME_MAX_FILES);
	for (int i = 0; i < sw_gpu_count(); i++)
		gpu_entry(tp, sw_gpu_at(i));
	enum sw_status st = calibrate(tp, calib_specs, calib, n_calib, &used, &n_used, err);
	if (st == SW_OK && from)
		st = transfer_from(tp, from_spec, from, used, n_used, err);
	free(used);
	if (st)
		sw_time_plan_fini(tp);
	return st;
}

void sw_time_plan_fini(struct sw_time_plan *tp)
{
	free(tp->points);
	tp->points = NULL;
	tp->n_points = 0;
}

static const struct sw_time_point *source_point(const struct sw_time_plan *tp, uint64_t id)
{
	struct sw_time_point key = { .id = id };
	return tp->n_points ? bsearch(&key, tp->points, tp->n_points, sizeof key, by_id) : NULL;
}

/* Rates of e no point fit that are still not needed, and not in used. */
static int undecided(const struct sw_time_gpu *e, const int *used)
{
	int n = 0;
	for (int k = 0; k < SW_N_RATES; k++)
		n += e->status[k] == SW_RATE_NOT_NEEDED && !used[k];
	return n;
}

static void settle_needs(struct sw_time_gpu *e, const int *used)
{
	for (int k = 0; k < SW_N_RATES; k++)
		if (e->status[k] == SW_RATE_NOT_NEEDED && used[k])
			e->status[k] = SW_RATE_NOT_IDENTIFIABLE;
}

/* The rates e's GPU uses for the job's points it predicts: its device
 * target's, and the measured points, which a GPU of its class may run. */
static void needs_of(struct sw_time_gpu *e, sw_time_job_at at, const void *job)
{
	int used[SW_N_RATES] = { 0 };
	struct sw_time_job_point pt;
	for (size_t j = 0; undecided(e, used) && at(job, j, &pt); j++) {
		struct sw_time_inputs in;
		struct sw_err why;
		if ((pt.gpu == e->gpu || pt.measured) &&
		    sw_time_inputs_of(pt.f, pt.p, e->gpu, SW_KEPLER_BANK_BYTES_DEFAULT, &in,
				      &why) == SW_OK)
			sw_time_rates_used(e->gpu, &in, used);
	}
	settle_needs(e, used);
}

void sw_time_plan_needs(struct sw_time_plan *tp, sw_time_job_at at, const void *job)
{
	struct sw_time_job_point pt;
	for (int i = 0; i < tp->n_gpus; i++)
		if (tp->gpus[i].calibrated_by >= 0)
			needs_of(&tp->gpus[i], at, job);
	if (tp->from < 0)
		return;
	struct sw_time_gpu *src = &tp->source;
	if (src->calibrated_by >= 0 && src->calibrated_by != tp->from) {
		/* the source's rates are a calibration's: so is what they rest on */
		for (int i = 0; i < tp->n_gpus; i++)
			if (tp->gpus[i].gpu == src->gpu)
				memcpy(src->status, tp->gpus[i].status, sizeof src->status);
		return;
	}
	int used[SW_N_RATES] = { 0 };
	for (size_t j = 0; src->calibrated_by >= 0 && undecided(src, used) && at(job, j, &pt);
	     j++) {
		const struct sw_time_point *sp =
			pt.gpu ? source_point(tp, base_id(pt.f, pt.p)) : NULL;
		if (sp)
			sw_time_rates_used(src->gpu, &sp->in, used);
	}
	settle_needs(src, used);
}

static const char *const rate_names[SW_N_RATES] = {
#define X(name, units, about) #name,
	SW_TIME_RATES(X)
#undef X
};

/* word onto the list in buf, after ", " unless it is the first (i 0). */
static void append(char *buf, size_t size, int i, const char *word)
{
	size_t at = strlen(buf);
	snprintf(buf + at, size - at, "%s%s", i ? ", " : "", word);
}

/* Rate k of r, in SW_TIME_RATES order. */
static double rate_of(const struct sw_time_rates *r, int k)
{
	double v[SW_N_RATES];
	sw_time_rates_to_array(r, v);
	return v[k];
}

int sw_time_plan_unfitted(const struct sw_time_plan *tp, int k, char *msg, size_t len)
{
	const struct sw_time_gpu *e =
		k == tp->from && tp->source.calibrated_by == k ? &tp->source : NULL;
	for (int i = 0; !e && i < tp->n_gpus; i++)
		if (tp->gpus[i].calibrated_by == k && k != tp->from)
			e = &tp->gpus[i];
	if (!e || k < 0 || k >= tp->n_files)
		return 0;
	char names[512] = "", out[512] = "";
	int n = 0, n_out = 0;
	for (int r = 0; r < SW_N_RATES; r++) {
		if (e->status[r] != SW_RATE_NOT_IDENTIFIABLE)
			continue;
		append(names, sizeof names, n++, rate_names[r]);
		if (rate_of(&e->rates, r) == 0) /* the datasheet leaves its term out */
			append(out, sizeof out, n_out++, rate_names[r]);
	}
	if (!n)
		return 0;
	int w = snprintf(msg, len,
			 "%s %s: rate%s %s not identifiable: the file holds no point that fits "
			 "%s (none whose time halving or doubling %s moves by %.0f%%); %s "
			 "datasheet value%s %s used",
			 k == tp->from ? "--model-from" : "--model-calibrate", tp->files[k].path,
			 n > 1 ? "s" : "", names, n > 1 ? "them" : "it", n > 1 ? "one" : "it",
			 100 * SW_RATE_FIT_MOVE, n > 1 ? "their" : "its", n > 1 ? "s" : "",
			 n > 1 ? "are" : "is");
	if (n_out && w >= 0 && (size_t)w < len)
		snprintf(msg + w, len - w, " (0 for %s: %s term%s left out)", out,
			 n_out > 1 ? "their" : "its", n_out > 1 ? "s" : "");
	return 1;
}

/* rec's time from its inputs in on e's GPU, transferred where the
 * source measured the point. */
/* The source GPU's rates for a target e: as e's calibration has them (each
 * fitted rate over its datasheet value, times the source's datasheet
 * value; a rate the datasheet leaves out, as fitted), since what an SM does
 * a cycle and the share of its peak a DRAM streams at are the
 * architecture's; but the cost of a DRAM chunk touched alone the source's
 * own, as its calibration or its own rows fitted it: scattered accesses
 * scale with neither board's peak (on the H100 and the H200, 1.23 where
 * the peaks are 1.43 apart: docs/results/time-model.md). */
static void source_rates(const struct sw_time_gpu *e, const struct sw_time_gpu *src,
			 struct sw_time_rates *out)
{
	double fit[SW_N_RATES], sheet[SW_N_RATES], theirs[SW_N_RATES];
	struct sw_time_rates r;
	sw_time_rates_to_array(&e->rates, fit);
	sw_time_rates_datasheet(e->gpu, &r);
	sw_time_rates_to_array(&r, sheet);
	sw_time_rates_datasheet(src->gpu, &r);
	sw_time_rates_to_array(&r, theirs);
	for (int k = 0; k < SW_N_RATES; k++)
		theirs[k] = sheet[k] > 0 ? theirs[k] * fit[k] / sheet[k] : fit[k];
	sw_time_rates_from_array(theirs, out);
	out->dram_chunk_bytes = src->rates.dram_chunk_bytes;
}

/* The transfer alone's target rates: the source's fit carried as
 * source_rates carries a calibration the other way (each fitted rate over
 * the source's datasheet value, times the target's); the bytes a DRAM
 * chunk touched alone moves, which nothing of the target's tells, as the
 * source's. */
static void target_rates(const struct sw_time_gpu *e, const struct sw_time_gpu *src,
			 struct sw_time_rates *out)
{
	double fit[SW_N_RATES], sheet[SW_N_RATES], ours[SW_N_RATES];
	struct sw_time_rates r;
	sw_time_rates_to_array(&src->rates, fit);
	sw_time_rates_datasheet(src->gpu, &r);
	sw_time_rates_to_array(&r, sheet);
	sw_time_rates_datasheet(e->gpu, &r);
	sw_time_rates_to_array(&r, ours);
	for (int k = 0; k < SW_N_RATES; k++)
		ours[k] = sheet[k] > 0 ? ours[k] * fit[k] / sheet[k] : fit[k];
	sw_time_rates_from_array(ours, out);
	out->dram_chunk_bytes = src->rates.dram_chunk_bytes;
}

static void predict(const struct sw_time_plan *tp, const struct sw_time_gpu *e,
		    const struct sw_family *f, const struct sw_point *p,
		    const struct sw_time_inputs *in, struct sw_record *rec)
{
	struct sw_time t, ts;
	sw_time_eval(e->gpu, &e->rates, in, &t);
	rec->model_time_ns = t.ns;
	snprintf(rec->model_time_term, sizeof rec->model_time_term, "%s",
		 sw_time_term_word(t.term));
	snprintf(rec->model_time_basis, sizeof rec->model_time_basis, "%s",
		 e->calibrated_by >= 0 ? "calibrated" : "datasheet");
	const struct sw_time_point *sp = tp->from >= 0 ? source_point(tp, base_id(f, p)) : NULL;
	if (!sp)
		return;
	struct sw_time_rates sr = tp->source.rates, tr;
	if (tp->alone && e->calibrated_by < 0) { /* the target's rates from the source's */
		target_rates(e, &tp->source, &tr);
		sw_time_eval(e->gpu, &tr, in, &t);
	} else {
		source_rates(e, &tp->source, &sr);
	}
	sw_time_eval(tp->source.gpu, &sr, &sp->in, &ts);
	if (!(ts.ns > 0) || !isfinite(ts.ns) || !isfinite(t.ns))
		return;
	rec->model_time_ns = sp->median_ns * t.ns / ts.ns;
	snprintf(rec->model_time_basis, sizeof rec->model_time_basis, "transfer");
}

static const struct sw_time_gpu *entry_of(const struct sw_time_plan *tp, const struct sw_gpu *gpu,
					  struct sw_record *rec)
{
	snprintf(rec->model_device, sizeof rec->model_device, "%s", gpu->name);
	snprintf(rec->model_time_term, sizeof rec->model_time_term, "none");
	for (int i = 0; i < tp->n_gpus; i++)
		if (tp->gpus[i].gpu == gpu)
			return &tp->gpus[i];
	return NULL;
}

/* The row has no time: its reason joins the row's message (a device-target
 * row says why, as a skipped row does). */
static void no_time(struct sw_record *rec, const struct sw_err *why)
{
	const char *end = memchr(rec->message, '\0', sizeof rec->message);
	size_t n = end ? (size_t)(end - rec->message) : sizeof rec->message;
	if (!why->msg[0] || n + 1 >= sizeof rec->message || strstr(rec->message, why->msg))
		return;
	snprintf(rec->message + n, sizeof rec->message - n, "%s%s", n ? "; " : "", why->msg);
}

/* in's status: SW_SKIP (no time, the row keeps NaN and "none", and says
 * why) is no failure; a family's hook past its limits is. */
static enum sw_status covered(enum sw_status st, struct sw_record *rec, const struct sw_err *why)
{
	if (st == SW_SKIP)
		no_time(rec, why);
	return st == SW_SKIP ? SW_OK : st;
}

enum sw_status sw_time_plan_predict(const struct sw_time_plan *tp, const struct sw_family *f,
				    const struct sw_point *p, const struct sw_gpu *gpu,
				    int kepler_bank_bytes, struct sw_record *rec,
				    struct sw_err *err)
{
	const struct sw_time_gpu *e = entry_of(tp, gpu, rec);
	struct sw_time_inputs in;
	if (!e)
		return SW_OK;
	enum sw_status st = sw_time_inputs_of(f, p, gpu, kepler_bank_bytes, &in, err);
	if (st == SW_OK)
		predict(tp, e, f, p, &in, rec);
	return covered(st, rec, err);
}

enum sw_status sw_time_plan_predict_from(const struct sw_time_plan *tp, const struct sw_family *f,
					 const struct sw_point *p, const struct sw_gpu *gpu,
					 const struct sw_model_figures *m, struct sw_record *rec,
					 struct sw_err *err)
{
	const struct sw_time_gpu *e = entry_of(tp, gpu, rec);
	struct sw_time_inputs in;
	if (!e)
		return SW_OK;
	enum sw_status st = sw_time_inputs_from(f, p, gpu, m, &in, err);
	if (st == SW_OK)
		predict(tp, e, f, p, &in, rec);
	return covered(st, rec, err);
}

static void rate_row(const struct sw_time_plan *tp, const struct sw_time_gpu *e, const char *role,
		     int file, struct sw_time_rate_row *r)
{
	memset(r, 0, sizeof *r);
	snprintf(r->device, sizeof r->device, "%s", e->gpu->name);
	snprintf(r->role, sizeof r->role, "%s", role);
	snprintf(r->basis, sizeof r->basis, "%s",
		 e->calibrated_by >= 0 ? "calibrated" : "datasheet");
	r->rates = e->rates;
	int k = 0;
#define X(name, units, about)                                                                      \
	snprintf(r->fit.name, sizeof r->fit.name, "%s", sw_rate_fit_word(e->status[k]));           \
	r->fit_points.name = e->calibrated_by >= 0 ? e->fit.points[k] : -1;                        \
	k++;
	SW_TIME_RATES(X)
#undef X
	r->error_before = r->error_after = NAN;
	if (file < 0)
		return;
	const struct sw_time_file *f = &tp->files[file];
	snprintf(r->file, sizeof r->file, "%s", f->path);
	r->file_hash = f->content_hash;
	snprintf(r->file_class, sizeof r->file_class, "%s", f->device_class);
	r->points = e->calibrated_by >= 0 ? e->fit.n_points : f->n_points;
	if (e->calibrated_by >= 0) {
		r->error_before = e->fit.error_before;
		r->error_after = e->fit.error_after;
	}
}

int sw_time_plan_rows(const struct sw_time_plan *tp, const struct sw_gpu *const *targets, int n,
		      struct sw_time_rate_row *rows, int max)
{
	int k = 0;
	for (int f = 0; f < tp->n_files && k < max; f++)
		if (f == tp->from)
			rate_row(tp, &tp->source, "from", f, &rows[k++]);
		else
			for (int i = 0; i < tp->n_gpus; i++)
				if (tp->gpus[i].calibrated_by == f && k < max)
					rate_row(tp, &tp->gpus[i], "calibrate", f, &rows[k++]);
	for (int t = 0; t < n && k < max; t++)
		for (int i = 0; i < tp->n_gpus; i++)
			if (tp->gpus[i].gpu == targets[t] && tp->gpus[i].calibrated_by < 0)
				rate_row(tp, &tp->gpus[i], "target", -1, &rows[k++]);
	return k;
}
