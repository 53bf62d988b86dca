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
	free(d->back);
	free(d->plan_cost_s);
	memset(d, 0, sizeof *d);
}

/* Does plan index a go out before b? Longest expected first, ties by the
 * lower index: the order sort_by_cost gives the queue. */
static int goes_first(struct sw_dispenser *d, uint32_t a, uint32_t b)
{
	double ca = d->plan_cost_s[a], cb = d->plan_cost_s[b];
	d->work++;
	return ca > cb || (ca == cb && a < b);
}

static void swap_back(struct sw_dispenser *d, size_t i, size_t j)
{
	uint32_t t = d->back[i];
	d->back[i] = d->back[j];
	d->back[j] = t;
	d->work++;
}

static void back_sift_up(struct sw_dispenser *d, size_t i)
{
	while (i > 0 && goes_first(d, d->back[i], d->back[(i - 1) / 2])) {
		swap_back(d, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void back_sift_down(struct sw_dispenser *d, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < d->n_back && goes_first(d, d->back[l], d->back[m]))
			m = l;
		if (r < d->n_back && goes_first(d, d->back[r], d->back[m]))
			m = r;
		if (m == i)
			return;
		swap_back(d, i, m);
		i = m;
	}
}

/* The next point to hand out, off the queue or the heap of points given
 * back, whichever comes first; 0 when none is left. */
static int next_point(struct sw_dispenser *d, uint32_t *idx)
{
	if (d->n_back && (d->head == d->n || goes_first(d, d->back[0], d->queue[d->head]))) {
		*idx = d->back[0];
		d->back[0] = d->back[--d->n_back];
		back_sift_down(d, 0);
		return 1;
	}
	if (d->head == d->n)
		return 0;
	*idx = d->queue[d->head++];
	d->work++;
	return 1;
}

size_t sw_dispenser_take(struct sw_dispenser *d, size_t max, uint32_t *out)
{
	size_t k = 0;

	while (k < max && next_point(d, &out[k]))
		k++;
	return k;
}

size_t sw_dispenser_take_batch(struct sw_dispenser *d, double target_s, size_t max, uint32_t *out,
			       double *batch_s)
{
	double sum = 0;
	size_t k = 0;

	/* The first point always goes; a NaN target stops there, as 0 does. */
	while (k < max && (k == 0 || sum < target_s) && next_point(d, &out[k])) {
		sum += d->plan_cost_s ? d->plan_cost_s[out[k]] : target_s;
		k++;
	}
	if (batch_s)
		*batch_s = d->plan_cost_s ? sum : 0.0;
	return k;
}

/* Room for n more at the queue's end. What was handed out goes first, and
 * the queue grows to twice what it must hold, so the entries moved are
 * paid for by those appended since the last move. */
static int queue_room(struct sw_dispenser *d, size_t n)
{
	size_t live = d->n - d->head;

	if (d->n + n <= d->cap)
		return 0;
	if (2 * (live + n) > d->cap) {
		uint32_t *q = realloc(d->queue, 2 * (live + n) * sizeof *q);
		if (!q)
			return -1;
		d->queue = q;
		d->cap = 2 * (live + n);
	}
	memmove(d->queue, d->queue + d->head, live * sizeof *d->queue);
	d->work += live;
	d->n = live;
	d->head = 0;
	return 0;
}

/* Puts n into the heap of points given back, O(log) each. */
static int push_back_heap(struct sw_dispenser *d, const uint32_t *idx, size_t n)
{
	/* Checked and allocated first, so a failure puts nothing back. */
	if (!all_below(idx, n, d->plan_n))
		return -1;
	if (d->n_back + n > d->cap_back) {
		size_t cap = 2 * (d->n_back + n);
		uint32_t *h = realloc(d->back, cap * sizeof *h);
		if (!h)
			return -1;
		d->back = h;
		d->cap_back = cap;
	}
	for (size_t i = 0; i < n; i++) {
		d->back[d->n_back] = idx[i];
		back_sift_up(d, d->n_back++);
	}
	return 0;
}

int sw_dispenser_give_back(struct sw_dispenser *d, const uint32_t *idx, size_t n)
{
	if (d->plan_cost_s)
		return push_back_heap(d, idx, n);
	if (queue_room(d, n) != 0)
		return -1;
	memcpy(d->queue + d->n, idx, n * sizeof *idx);
	d->n += n;
	d->work += n;
	return 0;
}

size_t sw_dispenser_left(const struct sw_dispenser *d)
{
	return d->n - d->head + d->n_back;
}

double sw_dispenser_left_s(const struct sw_dispenser *d)
{
	double s = 0;

	for (size_t i = d->head; d->plan_cost_s && i < d->n; i++)
		s += d->plan_cost_s[d->queue[i]];
	for (size_t i = 0; d->plan_cost_s && i < d->n_back; i++)
		s += d->plan_cost_s[d->back[i]];
	return s;
}
