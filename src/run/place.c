/*
 * Placement (place.h): classes and their labels, GPU keys, the pairs a run
 * still owes and a rank's static share of them. Hashes are FNV-1a 64 of the
 * keys and labels: a resume compares them, and two distinct GPUs or classes
 * colliding in 64 bits is not a case worth a table of strings.
 */
#define _POSIX_C_SOURCE 200809L
#include "run/place.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "run/sched.h"

static int same_class(const struct sw_device_info *a, const struct sw_device_info *b)
{
	return !strcmp(a->name, b->name) && a->cc == b->cc && a->mem_bytes == b->mem_bytes;
}

static void gib(const struct sw_device_info *d, char *buf, size_t len)
{
	snprintf(buf, len, "%.0f GiB", (double)d->mem_bytes / (1024.0 * 1024.0 * 1024.0));
}

/* Label style 0: name; 1: "name (N GiB)"; 2: "name (cc X.Y, N GiB)"; 3: bytes. */
static void label(const struct sw_device_info *d, int style, char *buf, size_t len)
{
	char g[32];
	gib(d, g, sizeof g);
	if (style == 0)
		snprintf(buf, len, "%s", d->name);
	else if (style == 1)
		snprintf(buf, len, "%.60s (%s)", d->name, g);
	else if (style == 2)
		snprintf(buf, len, "%.48s (cc %d.%d, %s)", d->name, d->cc / 10, d->cc % 10, g);
	else
		snprintf(buf, len, "%.40s (cc %d.%d, %lld bytes)", d->name, d->cc / 10, d->cc % 10,
			 (long long)d->mem_bytes);
}

/* The first style whose label tells first[c] from every other class that
 * shares its name. */
static int label_style(const struct sw_device_info *devs, const int *first, int n_classes, int c)
{
	const struct sw_device_info *d = &devs[first[c]];
	for (int style = 0; style < 3; style++) {
		char mine[96], other[96];
		int clash = 0;
		label(d, style, mine, sizeof mine);
		for (int o = 0; o < n_classes && !clash; o++) {
			label(&devs[first[o]], style, other, sizeof other);
			clash = o != c && !strcmp(mine, other);
		}
		if (!clash)
			return style;
	}
	return 3;
}

static void make_groups(struct sw_place *pl)
{
	for (int k = 0; k < pl->n_ranks; k++)
		pl->group_of[k] = pl->mode == SW_PLACE_EVERY_GPU   ? k
				  : pl->mode == SW_PLACE_PER_CLASS ? pl->class_of[k]
								   : 0;
	pl->n_groups = pl->mode == SW_PLACE_EVERY_GPU   ? pl->n_ranks
		       : pl->mode == SW_PLACE_PER_CLASS ? pl->n_classes
							: 1;
}

enum sw_status sw_place_init(struct sw_place *pl, enum sw_placement mode,
			     struct sw_device_info *devs, int n, struct sw_err *err)
{
	int *first = malloc((n ? n : 1) * sizeof *first);
	memset(pl, 0, sizeof *pl);
	pl->mode = mode;
	pl->n_ranks = n;
	pl->class_of = malloc((n ? n : 1) * sizeof *pl->class_of);
	pl->group_of = malloc((n ? n : 1) * sizeof *pl->group_of);
	if (!first || !pl->class_of || !pl->group_of) {
		free(first);
		sw_place_fini(pl);
		return sw_fail(err, SW_ENOMEM, "no memory for the device classes");
	}
	for (int k = 0; k < n; k++) {
		int c = 0;
		while (c < pl->n_classes && !same_class(&devs[first[c]], &devs[k]))
			c++;
		if (c == pl->n_classes)
			first[pl->n_classes++] = k;
		pl->class_of[k] = c;
	}
	for (int c = 0; c < pl->n_classes; c++) {
		int style = label_style(devs, first, pl->n_classes, c);
		for (int k = 0; k < n; k++)
			if (pl->class_of[k] == c)
				label(&devs[first[c]], style, devs[k].device_class,
				      sizeof devs[k].device_class);
	}
	free(first);
	make_groups(pl);
	return SW_OK;
}

void sw_place_fini(struct sw_place *pl)
{
	free(pl->class_of);
	free(pl->group_of);
	pl->class_of = pl->group_of = NULL;
	pl->n_classes = pl->n_groups = 0;
}

void sw_place_gpu_key(const struct sw_device_info *devs, int n, int k, char *buf, size_t len)
{
	const struct sw_device_info *d = &devs[k];
	int slot = 0;
	if (!d->uuid[0]) { /* the model, a replay: each rank is a device of its own */
		snprintf(buf, len, "%s local-rank %d", d->host, d->local_rank);
		return;
	}
	for (int j = 0; j < k && j < n; j++)
		slot += !strcmp(devs[j].uuid, d->uuid) && !strcmp(devs[j].host, d->host);
	snprintf(buf, len, "%s %s#%d", d->host, d->uuid, slot);
}

void sw_place_hashes(const struct sw_device_info *devs, int n, uint64_t *gpu, uint64_t *cls)
{
	char key[256];
	for (int k = 0; k < n; k++) {
		sw_place_gpu_key(devs, n, k, key, sizeof key);
		gpu[k] = sw_fnv1a_str(key);
		cls[k] = sw_fnv1a_str(devs[k].device_class);
	}
}

/* The hashes of device row i of a file, among the rows of its session. */
static void file_hashes(const struct sw_device_info *devs, size_t n_devs, size_t i,
			struct sw_place_done *h)
{
	char key[256];
	int k = 0;
	/* the session's rows before i, in file order (rank order), count for its slot */
	struct sw_device_info *same = malloc((n_devs ? n_devs : 1) * sizeof *same);
	if (!same)
		return;
	for (size_t j = 0; j <= i; j++)
		if (devs[j].session == devs[i].session)
			same[k++] = devs[j];
	sw_place_gpu_key(same, k, k - 1, key, sizeof key);
	h->gpu = sw_fnv1a_str(key);
	h->cls = sw_fnv1a_str(devs[i].device_class);
	free(same);
}

void sw_place_done_rows(const uint64_t *ids, const int32_t *ranks, const int32_t *sessions,
			size_t n, const struct sw_device_info *devs, size_t n_devs,
			struct sw_place_done *out)
{
	struct sw_place_done *by_dev = calloc(n_devs ? n_devs : 1, sizeof *by_dev);
	for (size_t i = 0; by_dev && i < n_devs; i++)
		file_hashes(devs, n_devs, i, &by_dev[i]);
	for (size_t r = 0; r < n; r++) {
		out[r] = (struct sw_place_done){ .point_id = ids[r] };
		for (size_t i = 0; by_dev && i < n_devs; i++)
			if (devs[i].rank == ranks[r] && devs[i].session == sessions[r]) {
				out[r].gpu = by_dev[i].gpu;
				out[r].cls = by_dev[i].cls;
			}
	}
	free(by_dev);
}

int sw_place_owner_class(const struct sw_place *pl, int32_t owner)
{
	int c = -1;
	if (owner < 0)
		return pl->class_of[-(owner + 1)];
	for (int k = 0; k < pl->n_ranks; k++) {
		if (pl->group_of[k] != owner)
			continue;
		if (c >= 0 && pl->class_of[k] != c)
			return -1;
		c = pl->class_of[k];
	}
	return c;
}

static int cmp_done(const void *a, const void *b)
{
	const struct sw_place_done *x = a, *y = b;
	if (x->point_id != y->point_id)
		return x->point_id < y->point_id ? -1 : 1;
	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	return (x->cls > y->cls) - (x->cls < y->cls);
}

/* The done rows of point id: [*lo, return) of the sorted table. */
static size_t rows_of(const struct sw_place_done *done, size_t n, uint64_t id, size_t *lo)
{
	size_t a = 0, b = n;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (done[m].point_id < id)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	while (b < n && done[b].point_id == id)
		b++;
	return b;
}

static int has(const struct sw_place_done *d, size_t lo, size_t hi, uint64_t gpu, uint64_t cls)
{
	for (size_t i = lo; i < hi; i++)
		if ((gpu && d[i].gpu == gpu) || (cls && d[i].cls == cls))
			return 1;
	return 0;
}

static size_t put(uint32_t *todo, int32_t *owner, size_t n, size_t i, int32_t who)
{
	if (todo) {
		todo[n] = (uint32_t)i;
		owner[n] = who;
	}
	return n + 1;
}

/* The pairs of plan point i that its rows [lo, hi) leave to run. */
static size_t point_pairs(const struct sw_plan *plan, const struct sw_place *pl, size_t i,
			  const uint64_t *gpu, const uint64_t *cls, const struct sw_place_done *d,
			  size_t lo, size_t hi, uint32_t *todo, int32_t *owner, size_t n)
{
	int cal = plan->points[i].calibration;
	if (cal || pl->mode == SW_PLACE_EVERY_GPU) {
		for (int k = 0; k < pl->n_ranks; k++)
			if (!has(d, lo, hi, gpu[k], 0))
				n = put(todo, owner, n, i, cal ? SW_PLACE_OWN(k) : pl->group_of[k]);
	} else if (pl->mode == SW_PLACE_PER_CLASS) {
		for (int c = 0; c < pl->n_classes; c++) {
			int k = 0;
			while (pl->class_of[k] != c)
				k++;
			if (!has(d, lo, hi, 0, cls[k]))
				n = put(todo, owner, n, i, c);
		}
	} else if (lo == hi) {
		n = put(todo, owner, n, i, 0);
	}
	return n;
}

size_t sw_place_todo(const struct sw_plan *plan, const struct sw_place *pl, const uint64_t *gpu,
		     const uint64_t *cls, struct sw_place_done *done, size_t n_done, uint32_t *todo,
		     int32_t *owner)
{
	size_t n = 0;
	if (!done)
		n_done = 0;
	if (n_done)
		qsort(done, n_done, sizeof *done, cmp_done);
	for (size_t i = 0; i < plan->n; i++) {
		size_t lo = 0, hi = rows_of(done, n_done, plan->points[i].id, &lo);
		n = point_pairs(plan, pl, i, gpu, cls, done, lo, hi, todo, owner, n);
	}
	return n;
}

long sw_place_static_share(const struct sw_place *pl, const double *cost_s, const uint32_t *todo,
			   const int32_t *owner, size_t n, int rank, uint32_t *out)
{
	int g = pl->group_of[rank], n_members = 0, me = 0;
	long k = 0;
	size_t m = 0;
	uint32_t *shared = malloc((n ? n : 1) * sizeof *shared);
	int *who = malloc((n ? n : 1) * sizeof *who);
	if (!shared || !who) {
		free(shared);
		free(who);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (owner[i] == SW_PLACE_OWN(rank))
			out[k++] = todo[i];
		else if (owner[i] == g)
			shared[m++] = todo[i];
	for (int r = 0; r < pl->n_ranks; r++)
		if (pl->group_of[r] == g) {
			if (r == rank)
				me = n_members;
			n_members++;
		}
	if (sw_sched_lpt_todo(cost_s, shared, m, n_members, who) != SW_OK)
		k = -1;
	for (size_t i = 0; k >= 0 && i < m; i++)
		if (who[i] == me)
			out[k++] = shared[i];
	free(shared);
	free(who);
	return k;
}

void sw_place_gpu_changes(const struct sw_place_done *done, size_t n_done, const uint64_t *gpu,
			  int n_ranks, size_t *absent_now, size_t *new_now)
{
	uint64_t *seen = malloc((n_done ? n_done : 1) * sizeof *seen);
	size_t n_seen = 0;
	*absent_now = *new_now = 0;
	if (!seen)
		return;
	for (size_t i = 0; i < n_done; i++) {
		size_t j = 0;
		while (j < n_seen && seen[j] != done[i].gpu)
			j++;
		if (j == n_seen)
			seen[n_seen++] = done[i].gpu;
	}
	for (size_t j = 0; j < n_seen; j++) {
		int here = 0;
		for (int k = 0; k < n_ranks && !here; k++)
			here = gpu[k] == seen[j];
		*absent_now += !here;
	}
	for (int k = 0; k < n_ranks; k++) {
		int known = 0;
		for (size_t j = 0; j < n_seen && !known; j++)
			known = seen[j] == gpu[k];
		*new_now += !known;
	}
	free(seen);
}
