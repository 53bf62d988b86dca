/*
 * Which rank runs which point, as pure bookkeeping that tests drive without
 * MPI. Static: block-cyclic over the list of points still to run. Dynamic:
 * a dispenser that hands out batches on request and takes back the points of
 * a rank that stopped.
 */
#ifndef SW_SCHED_H
#define SW_SCHED_H

#include <stddef.h>
#include <stdint.h>

/* Static: the rank that runs entry i of the to-do list. */
int sw_sched_static_owner(size_t i, int n_ranks, size_t block);

struct sw_dispenser {
	uint32_t *queue; /* owned: plan indices still to hand out */
	size_t head, n, cap;
};

/* Takes a copy of todo (plan indices). */
int sw_dispenser_init(struct sw_dispenser *d, const uint32_t *todo, size_t n);
void sw_dispenser_fini(struct sw_dispenser *d);

/* Hands out up to max indices into out; returns how many (0: none left). */
size_t sw_dispenser_take(struct sw_dispenser *d, size_t max, uint32_t *out);

/* Puts indices back (a rank stopped before running them). 0 or -1 (ENOMEM). */
int sw_dispenser_give_back(struct sw_dispenser *d, const uint32_t *idx, size_t n);

size_t sw_dispenser_left(const struct sw_dispenser *d);

#endif
