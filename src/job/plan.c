/* Plan expansion, stable point ids (FNV-1a over a canonical text) and labels. */
#include "job/plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "model/model.h"

/* Whether an axis value enters a point id: not when unused, nor at the
 * axis's baseline, which is what the family did before the axis existed. */
static int axis_in_id(const struct sw_axis_def *def, int64_t v)
{
	return v != SW_AXIS_UNUSED && !(def->baseline.set && v == def->baseline.value);
}

uint64_t sw_point_id(const struct sw_family *f, const struct sw_point *p, int cc)
{
	/* Names, not indices: ids survive families and variants being reordered. */
	char text[512];
	int len = snprintf(text, sizeof text, "%s/%s", f->name, f->variants[p->variant].name);
	for (int a = 0; a < f->n_axes && len < (int)sizeof text; a++)
		if (axis_in_id(&f->axes[a], p->axis[a]))
			len += snprintf(text + len, sizeof text - len, ";%s=%" PRId64,
					f->axes[a].name, p->axis[a]);
	if (cc && len < (int)sizeof text)
		len += snprintf(text + len, sizeof text - len, ";cc=%d", cc);
	return sw_fnv1a(SW_FNV1A_OFFSET, text, strlen(text));
}

uint64_t sw_point_id_dev(const struct sw_family *f, const struct sw_point *p, const char *device)
{
	char text[512];
	int len = snprintf(text, sizeof text, "%s/%s", f->name, f->variants[p->variant].name);
	for (int a = 0; a < f->n_axes && len < (int)sizeof text; a++)
		if (axis_in_id(&f->axes[a], p->axis[a]))
			len += snprintf(text + len, sizeof text - len, ";%s=%" PRId64,
					f->axes[a].name, p->axis[a]);
	if (len < (int)sizeof text)
		snprintf(text + len, sizeof text - len, ";dev=%s", device);
	return sw_fnv1a(SW_FNV1A_OFFSET, text, strlen(text));
}

static int selected(const struct sw_job_family *jf, int v)
{
	return (jf->variants & (1u << v)) != 0;
}

/* Points of one variant: the product of the axes it uses; 0 on overflow. */
static uint64_t variant_points(const struct sw_job_family *jf, int v)
{
	const struct sw_family *f = jf->family;
	uint64_t count = 1;
	for (int a = 0; a < f->n_axes; a++) {
		if (!(f->variants[v].axes_used & (1u << a)))
			continue;
		uint64_t n = jf->axes[a].values.n;
		if (n && count > UINT64_MAX / n)
			return 0;
		count *= n;
	}
	return count;
}

/* Points of the whole plan, each variant's once per target; refused above
 * SW_PLAN_MAX_POINTS (checked as it sums, so the sum cannot overflow). */
static enum sw_status count_points(const struct sw_job *job, uint64_t targets, uint64_t *total,
				   struct sw_err *err)
{
	*total = 0;
	for (int j = 0; j < job->n_families + job->n_calibrate; j++) {
		const struct sw_job_family *jf = j < job->n_families
							 ? &job->families[j]
							 : &job->calibrate[j - job->n_families];
		for (int v = 0; v < jf->family->n_variants; v++) {
			if (!selected(jf, v))
				continue;
			uint64_t n = variant_points(jf, v);
			if (!n || n > SW_PLAN_MAX_POINTS ||
			    (*total += n * targets) > SW_PLAN_MAX_POINTS)
				return sw_fail(err, SW_EINVAL,
					       "the plan has more than %d points; narrow the axes",
					       SW_PLAN_MAX_POINTS);
		}
	}
	if (*total == 0)
		return sw_fail(err, SW_EINVAL,
			       "the plan is empty: no family, variant or CC selected");
	return SW_OK;
}

/* The point of variant v at odometer position pos: the axes it uses take
 * their pos-th value, the others SW_AXIS_UNUSED. */
static struct sw_point point_at(const struct sw_job_family *jf, int v, const size_t *pos)
{
	const struct sw_family *f = jf->family;
	unsigned used = f->variants[v].axes_used;
	struct sw_point p = { .variant = v };
	for (int a = 0; a < SW_MAX_AXES; a++)
		p.axis[a] = a < f->n_axes && (used & (1u << a)) ? jf->axes[a].values.v[pos[a]]
								: SW_AXIS_UNUSED;
	return p;
}

/* Steps the odometer over the axes variant v uses, last axis fastest. */
static void advance(const struct sw_job_family *jf, int v, size_t *pos)
{
	const struct sw_family *f = jf->family;
	unsigned used = f->variants[v].axes_used;
	for (int a = f->n_axes - 1; a >= 0; a--) {
		if (!(used & (1u << a)))
			continue;
		if (++pos[a] < jf->axes[a].values.n)
			return;
		pos[a] = 0;
	}
}

/* Appends variant v's points to plan, each once per model target, the CCs
 * then the devices (or once, with cc 0, for a measured plan). */
static void expand_variant(struct sw_plan *plan, const struct sw_job *job,
			   const struct sw_job_family *jf, int v, int model_targets)
{
	int targets = model_targets ? job->n_ccs + job->n_devices : 1;
	size_t pos[SW_MAX_AXES] = { 0 };
	for (uint64_t k = variant_points(jf, v); k > 0; k--) {
		struct sw_point p = point_at(jf, v, pos);
		for (int t = 0; t < targets; t++) {
			struct sw_plan_point *pt = &plan->points[plan->n++];
			pt->family = jf->index;
			pt->p = p;
			if (model_targets && t >= job->n_ccs) {
				pt->gpu = job->devices[t - job->n_ccs];
				pt->cc = pt->gpu->cc;
				pt->id = sw_point_id_dev(jf->family, &p, pt->gpu->name);
				continue;
			}
			pt->cc = model_targets ? job->ccs[t] : 0;
			pt->id = sw_point_id(jf->family, &p, pt->cc);
		}
		advance(jf, v, pos);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* An id and the plan index of the point that has it. */
struct id_at {
	uint64_t id;
	size_t at;
};

static int cmp_id_at(const void *a, const void *b)
{
	return cmp_u64(&((const struct id_at *)a)->id, &((const struct id_at *)b)->id);
}

/* The calibrate points, appended after the first n_fam: one that is also a
 * family point marks that one and goes; the rest stay, marked. */
static enum sw_status merge_calibration(struct sw_plan *plan, size_t n_fam, struct sw_err *err)
{
	struct id_at *fam = malloc((n_fam ? n_fam : 1) * sizeof *fam);
	size_t kept = n_fam;
	if (!fam)
		return sw_fail(err, SW_ENOMEM, "no memory to merge the calibrate points");
	for (size_t i = 0; i < n_fam; i++)
		fam[i] = (struct id_at){ plan->points[i].id, i };
	qsort(fam, n_fam, sizeof *fam, cmp_id_at);
	for (size_t i = n_fam; i < plan->n; i++) {
		struct id_at key = { plan->points[i].id, 0 };
		struct id_at *hit =
			n_fam ? bsearch(&key, fam, n_fam, sizeof *fam, cmp_id_at) : NULL;
		if (hit) {
			plan->points[hit->at].calibration = 1;
			continue;
		}
		plan->points[kept] = plan->points[i];
		plan->points[kept++].calibration = 1;
	}
	plan->n = kept;
	free(fam);
	return SW_OK;
}

/* Refuses a plan in which two points share an id: sorting a copy finds them. */
static enum sw_status check_unique(const struct sw_plan *plan, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	uint64_t *ids = malloc(plan->n * sizeof *ids);
	if (!ids)
		return sw_fail(err, SW_ENOMEM, "no memory to check plan ids");
	for (size_t i = 0; i < plan->n; i++)
		ids[i] = plan->points[i].id;
	qsort(ids, plan->n, sizeof *ids, cmp_u64);
	for (size_t i = 1; i < plan->n; i++)
		if (ids[i] == ids[i - 1]) {
			st = sw_fail(err, SW_EINVAL,
				     "two plan points share id %016" PRIx64
				     " (duplicate axis values?)",
				     ids[i]);
			break;
		}
	free(ids);
	return st;
}

/* Every id in plan order, and what else changes the meaning of the rows. */
static uint64_t fingerprint(const struct sw_plan *plan, const struct sw_job *job, int model_targets)
{
	uint64_t fp = SW_FNV1A_OFFSET;
	for (size_t i = 0; i < plan->n; i++)
		fp = sw_fnv1a(fp, &plan->points[i].id, sizeof plan->points[i].id);
	/* Kepler's 8-byte banks change what model rows of 3.x mean: another plan */
	if (model_targets && job->kepler_bank_bytes != SW_KEPLER_BANK_BYTES_DEFAULT)
		fp = sw_fnv1a(fp, &job->kepler_bank_bytes, sizeof job->kepler_bank_bytes);
	/* which points run on every GPU: another plan (only where there are any) */
	for (size_t i = 0; i < plan->n; i++)
		if (plan->points[i].calibration)
			fp = sw_fnv1a(fp, &plan->points[i].id, sizeof plan->points[i].id) ^ 0x63;
	return fp;
}

enum sw_status sw_plan_build(const struct sw_job *job, int model_targets, struct sw_plan *plan,
			     struct sw_err *err)
{
	uint64_t total;
	memset(plan, 0, sizeof *plan);
	enum sw_status st = count_points(
		job, model_targets ? (uint64_t)(job->n_ccs + job->n_devices) : 1, &total, err);
	if (st != SW_OK)
		return st;

	plan->points = calloc(total, sizeof *plan->points);
	if (!plan->points)
		return sw_fail(err, SW_ENOMEM, "no memory for %" PRIu64 " plan points", total);
	for (int j = 0; j < job->n_families; j++)
		for (int v = 0; v < job->families[j].family->n_variants; v++)
			if (selected(&job->families[j], v))
				expand_variant(plan, job, &job->families[j], v, model_targets);
	size_t n_fam = plan->n;
	for (int j = 0; j < job->n_calibrate; j++)
		for (int v = 0; v < job->calibrate[j].family->n_variants; v++)
			if (selected(&job->calibrate[j], v))
				expand_variant(plan, job, &job->calibrate[j], v, model_targets);

	st = merge_calibration(plan, n_fam, err);
	if (st == SW_OK)
		st = check_unique(plan, err);
	if (st != SW_OK) {
		sw_plan_fini(plan);
		return st;
	}
	plan->fingerprint = fingerprint(plan, job, model_targets);
	return SW_OK;
}

void sw_plan_fini(struct sw_plan *plan)
{
	free(plan->points);
	memset(plan, 0, sizeof *plan);
}

/* 67108864 -> "64M": exact multiples of 1024^k read as the job file writes them. */
static void format_count(char *buf, size_t len, int64_t v)
{
	static const char suffix[] = "KMG";
	int k = -1;
	while (k < 2 && v != 0 && v % 1024 == 0) {
		v /= 1024;
		k++;
	}
	if (k >= 0)
		snprintf(buf, len, "%" PRId64 "%c", v, suffix[k]);
	else
		snprintf(buf, len, "%" PRId64, v);
}

void sw_point_label(const struct sw_plan_point *pt, char *buf, size_t len)
{
	const struct sw_family *f = sw_family_at(pt->family);
	int n = snprintf(buf, len, "%s/%s", f->name, f->variants[pt->p.variant].name);
	for (int a = 0; a < f->n_axes && n >= 0 && (size_t)n < len; a++) {
		/* as in the id: an axis at its baseline reads as the point before it */
		if (!axis_in_id(&f->axes[a], pt->p.axis[a]))
			continue;
		const char *name = sw_axis_value_name(&f->axes[a], pt->p.axis[a]);
		char v[32];
		format_count(v, sizeof v, pt->p.axis[a]);
		n += snprintf(buf + n, len - n, " %s=%s", f->axes[a].name, name ? name : v);
	}
	if (pt->gpu && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " dev=%s", pt->gpu->name);
	else if (pt->cc && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " cc=%d.%d", pt->cc / 10, pt->cc % 10);
}
