/* Static block-cyclic ownership and the dynamic dispenser of sched.h. */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

int sw_sched_static_owner(size_t i, int n_ranks, size_t block)
{
	if (block == 0)
		block = 1;
	return (int)((i / block) % (size_t)n_ranks);
}

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

void sw_dispenser_fini(struct sw_dispenser *d)
{
	free(d->queue);
	memset(d, 0, sizeof *d);
}

size_t sw_dispenser_take(struct sw_dispenser *d, size_t max, uint32_t *out)
{
	size_t k = d->n - d->head < max ? d->n - d->head : max;
	memcpy(out, d->queue + d->head, k * sizeof *out);
	d->head += k;
	return k;
}

int sw_dispenser_give_back(struct sw_dispenser *d, const uint32_t *idx, size_t n)
{
	/* Compact first: what was handed out is never needed again. */
	memmove(d->queue, d->queue + d->head, (d->n - d->head) * sizeof *d->queue);
	d->n -= d->head;
	d->head = 0;
	if (d->n + n > d->cap) {
		size_t cap = (d->n + n) * 2;
		uint32_t *q = realloc(d->queue, cap * sizeof *q);
		if (!q)
			return -1;
		d->queue = q;
		d->cap = cap;
	}
	memcpy(d->queue + d->n, idx, n * sizeof *idx);
	d->n += n;
	return 0;
}

size_t sw_dispenser_left(const struct sw_dispenser *d)
{
	return d->n - d->head;
}
