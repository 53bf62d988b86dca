/* Static ownership (block-cyclic, or LPT by cost) and the dynamic dispenser
 * of sched.h, in to-do order or by cost. */
#include "run/sched.h"

#include <stdlib.h>
#include <string.h>

int sw_sched_static_owner(size_t i, int n_ranks, size_t block)
{
	if (block == 0)
		block = 1;
	return (int)((i / block) % (size_t)n_ranks);
}

/* NaN and negative costs count as 0, so every order below is total. */
static double cost_or_zero(double c)
{
	return c > 0 ? c : 0.0;
}

/* An entry in cost order: descending cost, then ascending key. */
struct ranked {
	double cost;
	size_t key;
};

static int by_cost_desc(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->cost != b->cost)
		return a->cost > b->cost ? -1 : 1;
	return (a->key > b->key) - (a->key < b->key);
}

/* ---- LPT ------------------------------------------------------------- */

/* A rank in the min-heap of loads: the least load on top, ties by rank. */
struct slot {
	double load_s;
	int rank;
};

static int lighter(const struct slot *a, const struct slot *b)
{
	return a->load_s < b->load_s || (a->load_s == b->load_s && a->rank < b->rank);
}

static void sift_down(struct slot *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct slot t;

		if (l < n && lighter(&h[l], &h[m]))
			m = l;
		if (r < n && lighter(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

enum sw_status sw_sched_lpt(const double *cost_s, size_t n, int n_ranks, int *owner, double *load_s)
{
	struct ranked *order;
	struct slot *heap;

	if (n_ranks < 1)
		return SW_EINVAL;
	order = malloc((n ? n : 1) * sizeof *order);
	heap = malloc((size_t)n_ranks * sizeof *heap);
	if (!order || !heap) {
		free(order);
		free(heap);
		return SW_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = (struct ranked){ cost_or_zero(cost_s[i]), i };
	qsort(order, n, sizeof *order, by_cost_desc);
	/* All loads 0 and ranks ascending: already a heap. */
	for (int r = 0; r < n_ranks; r++)
		heap[r] = (struct slot){ 0.0, r };
	for (size_t k = 0; k < n; k++) {
		owner[order[k].key] = heap[0].rank;
		heap[0].load_s += order[k].cost;
		sift_down(heap, (size_t)n_ranks, 0);
	}
	if (load_s)
		for (int r = 0; r < n_ranks; r++)
			load_s[heap[r].rank] = heap[r].load_s;
	free(order);
	free(heap);
	return SW_OK;
}

enum sw_status sw_sched_lpt_todo(const double *plan_cost_s, const uint32_t *todo, size_t n,
				 int n_ranks, int *owner)
{
	double *cost_s = malloc((n ? n : 1) * sizeof *cost_s);
	if (!cost_s)
		return SW_ENOMEM;
	for (size_t i = 0; i < n; i++)
		cost_s[i] = plan_cost_s[todo ? todo[i] : i];
	enum sw_status st = sw_sched_lpt(cost_s, n, n_ranks, owner, NULL);
	free(cost_s);
	return st;
}

double sw_sched_bound_s(const double *cost_s, size_t n, int n_ranks)
{
	double t1 = 0, longest = 0;

	for (size_t i = 0; i < n; i++) {
		double c = cost_or_zero(cost_s[i]);

		t1 += c;
		if (c > longest)
			longest = c;
	}
	t1 /= n_ranks > 1 ? n_ranks : 1;
	return t1 > longest ? t1 : longest;
}

/* ---- the dispenser --------------------------------------------------- */

int sw_dispenser_init(struct sw_dispenser *d, const uint32_t *todo, size_t n)
{
	memset(d, 0, sizeof *d);
	d->cap = n ? n : 1;
	d->queue = malloc(d->cap * sizeof *d->queue);
	if (!d->queue)
		return -1;
	if (n)
		memcpy(d->queue, todo, n * sizeof *todo);
	d->n = n;
	return 0;
}

/* Sorts q[0..n) longest expected first, through tmp (n entries). */
static void sort_by_cost(uint32_t *q, size_t n, const double *plan_cost_s, struct ranked *tmp)
{
	for (size_t i = 0; i < n; i++)
		tmp[i] = (struct ranked){ plan_cost_s[q[i]], q[i] };
	qsort(tmp, n, sizeof *tmp, by_cost_desc);
	for (size_t i = 0; i < n; i++)
		q[i] = (uint32_t)tmp[i].key;
}

static int all_below(const uint32_t *idx, size_t n, size_t limit)
{
	for (size_t i = 0; i < n; i++)
		if (idx[i] >= limit)
			return 0;
	return 1;
}

enum sw_status sw_dispenser_init_cost(struct sw_dispenser *d, const uint32_t *todo, size_t n,
				      const double *plan_cost_s, size_t plan_n)
{
	struct ranked *tmp;

	memset(d, 0, sizeof *d);
	if (!all_below(todo, n, plan_n))
		return SW_EINVAL;
	if (sw_dispenser_init(d, todo, n) != 0)
		return SW_ENOMEM;
	d->plan_cost_s = malloc((plan_n ? plan_n : 1) * sizeof *d->plan_cost_s);
	tmp = malloc((n ? n : 1) * sizeof *tmp);
	if (!d->plan_cost_s || !tmp) {
		free(tmp);
		sw_dispenser_fini(d);
		return SW_ENOMEM;
	}
	for (size_t i = 0; i < plan_n; i++)
		d->plan_cost_s[i] = cost_or_zero(plan_cost_s[i]);
	d->plan_n = plan_n;
	sort_by_cost(d->queue, n, d->plan_cost_s, tmp);
	free(tmp);
	return SW_OK;
}

void sw_dispenser_fini(struct sw_dispenser *d)
{
	free(d->queue);
	free(d->plan_cost_s);
	memset(d, 0, sizeof *d);
}

size_t sw_dispenser_take(struct sw_dispenser *d, size_t max, uint32_t *out)
{
	size_t k = d->n - d->head < max ? d->n - d->head : max;
	memcpy(out, d->queue + d->head, k * sizeof *out);
	d->head += k;
	return k;
}

size_t sw_dispenser_take_batch(struct sw_dispenser *d, double target_s, size_t max, uint32_t *out,
			       double *batch_s)
{
	double sum = 0;
	size_t k = 0;

	/* The first point always goes; a NaN target stops there, as 0 does. */
	while (k < max && d->head < d->n && (k == 0 || sum < target_s)) {
		uint32_t idx = d->queue[d->head++];

		sum += d->plan_cost_s ? d->plan_cost_s[idx] : target_s;
		out[k++] = idx;
	}
	if (batch_s)
		*batch_s = d->plan_cost_s ? sum : 0.0;
	return k;
}

int sw_dispenser_give_back(struct sw_dispenser *d, const uint32_t *idx, size_t n)
{
	struct ranked *tmp = NULL;

	if (d->plan_cost_s) {
		/* Checked and allocated first, so a failure puts nothing back. */
		if (!all_below(idx, n, d->plan_n))
			return -1;
		tmp = malloc((d->n - d->head + n + 1) * sizeof *tmp);
		if (!tmp)
			return -1;
	}
	/* Compact first: what was handed out is never needed again. */
	memmove(d->queue, d->queue + d->head, (d->n - d->head) * sizeof *d->queue);
	d->n -= d->head;
	d->head = 0;
	if (d->n + n > d->cap) {
		size_t cap = (d->n + n) * 2;
		uint32_t *q = realloc(d->queue, cap * sizeof *q);
		if (!q) {
			free(tmp);
			return -1;
		}
		d->queue = q;
		d->cap = cap;
	}
	memcpy(d->queue + d->n, idx, n * sizeof *idx);
	d->n += n;
	if (tmp)
		sort_by_cost(d->queue, d->n, d->plan_cost_s, tmp);
	free(tmp);
	return 0;
}

size_t sw_dispenser_left(const struct sw_dispenser *d)
{
	return d->n - d->head;
}

double sw_dispenser_left_s(const struct sw_dispenser *d)
{
	double s = 0;

	for (size_t i = d->head; d->plan_cost_s && i < d->n; i++)
		s += d->plan_cost_s[d->queue[i]];
	return s;
}
