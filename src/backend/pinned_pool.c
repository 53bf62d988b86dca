/* Page-locked host blocks for the checks' output copies (pinned_pool.h). */
#include "backend/pinned_pool.h"

/* Frees the largest unused block; 0 when none is unused. */
static int free_largest_unused(struct sw_pinned_pool *pp)
{
	int k = -1;
	for (int i = 0; i < pp->n; i++)
		if (!pp->b[i].used && (k < 0 || pp->b[i].cap > pp->b[k].cap))
			k = i;
	if (k < 0)
		return 0;
	pp->release(pp->b[k].p);
	pp->total -= pp->b[k].cap;
	pp->b[k] = pp->b[--pp->n];
	return 1;
}

/* A block far larger than the request is left for one that needs it: on
 * the H200, 256 queued histogram checks of a kilobyte each took the 64 MB
 * blocks transpose had left, and the points after them waited for the
 * budget (197700f). */
static int too_big(size_t cap, size_t bytes)
{
	return cap > 2 * bytes && cap > SW_PINNED_SMALL;
}

enum sw_pinned_got sw_pinned_get(struct sw_pinned_pool *pp, size_t bytes, int force, void **out)
{
	int best = -1;
	for (int i = 0; i < pp->n; i++)
		if (!pp->b[i].used && pp->b[i].cap >= bytes && !too_big(pp->b[i].cap, bytes) &&
		    (best < 0 || pp->b[i].cap < pp->b[best].cap))
			best = i;
	if (best >= 0) {
		pp->b[best].used = 1;
		*out = pp->b[best].p;
		return SW_PINNED_OK;
	}
	while ((pp->total + bytes > pp->budget || pp->n == SW_PINNED_MAX_BLOCKS) &&
	       free_largest_unused(pp))
		;
	if (pp->n == SW_PINNED_MAX_BLOCKS || (pp->total + bytes > pp->budget && !force))
		return SW_PINNED_FULL;
	void *p = pp->alloc(bytes ? bytes : 1);
	if (!p)
		return SW_PINNED_NOMEM;
	pp->b[pp->n++] = (struct sw_pinned_block){ p, bytes, 1 };
	pp->total += bytes;
	*out = p;
	return SW_PINNED_OK;
}

void sw_pinned_put(struct sw_pinned_pool *pp, void *p)
{
	for (int i = 0; p && i < pp->n; i++)
		if (pp->b[i].p == p)
			pp->b[i].used = 0;
}

void sw_pinned_free_all(struct sw_pinned_pool *pp)
{
	for (int i = 0; i < pp->n; i++)
		pp->release(pp->b[i].p);
	pp->n = 0;
	pp->total = 0;
}
