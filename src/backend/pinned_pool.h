/*
 * Page-locked host blocks for the outputs the CPU checks read (measure.c):
 * kept between points, since pinning costs milliseconds per megabyte, and
 * bounded in total, since a deep queue of checks would otherwise pin a copy
 * of every large output it holds. The allocator is a parameter, so the
 * unit tests run it on malloc.
 */
#ifndef SW_BACKEND_PINNED_POOL_H
#define SW_BACKEND_PINNED_POOL_H

#include <stddef.h>

#define SW_PINNED_MAX_BLOCKS 1024
/* Blocks up to this size serve any smaller request. */
#define SW_PINNED_SMALL ((size_t)64 << 10)

struct sw_pinned_block {
	void *p;
	size_t cap;
	int used;
};

struct sw_pinned_pool {
	void *(*alloc)(size_t bytes); /* NULL when it cannot */
	void (*release)(void *p);
	size_t budget; /* bytes the blocks may total while any is in use */
	size_t total;
	int n;
	struct sw_pinned_block b[SW_PINNED_MAX_BLOCKS];
};

enum sw_pinned_got {
	SW_PINNED_OK,
	SW_PINNED_FULL,  /* over budget: return a block in use, then ask again */
	SW_PINNED_NOMEM, /* the allocator failed */
};

/* A free block of at least bytes into *out: the smallest that fits and is
 * not more than twice as large (any up to SW_PINNED_SMALL), else a new one,
 * after freeing unused blocks to stay within the budget. FULL when
 * that is not enough and force is 0; with force, over the budget. */
enum sw_pinned_got sw_pinned_get(struct sw_pinned_pool *pp, size_t bytes, int force, void **out);

/* Gives back a block sw_pinned_get returned (NULL: nothing). */
void sw_pinned_put(struct sw_pinned_pool *pp, void *p);

/* Frees every block, in use or not. */
void sw_pinned_free_all(struct sw_pinned_pool *pp);

#endif
