/*
 * Which rank runs which point, as pure bookkeeping that tests drive without
 * MPI. Static: block-cyclic over the list of points still to run, or
 * balanced by expected cost (greedy LPT). Dynamic: a dispenser that hands
 * out points on request, in to-do order or longest expected first with
 * short points batched by cost, and takes back the points of a rank that
 * stopped. Costs come from elsewhere (cost.h); nothing here measures time.
 */
#ifndef SW_SCHED_H
#define SW_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* Static: the rank that runs entry i of the to-do list. */
int sw_sched_static_owner(size_t i, int n_ranks, size_t block);

/*
 * Static, balanced by cost: greedy LPT. Entries are taken in descending
 * cost_s (ties: the lower entry first), each given to the rank with the
 * least expected load so far (ties: the lower rank), so the result depends
 * on nothing but the inputs. Fills owner[i] for entry i < n and, when load_s
 * is not NULL, load_s[r] (seconds) for each rank r < n_ranks. The largest
 * load, the expected makespan, is at most T1/N + (1 - 1/N) * longest for N
 * ranks (as for any greedy list schedule) and within 4/3 of the optimum
 * (Graham). A cost that is NaN or negative counts as 0. SW_OK, SW_EINVAL
 * (n_ranks < 1) or SW_ENOMEM; owner and load_s are the caller's.
 */
enum sw_status sw_sched_lpt(const double *cost_s, size_t n, int n_ranks, int *owner,
			    double *load_s);

/* sw_sched_lpt over part of a plan: entry i of the to-do list is plan
 * index todo[i] (todo NULL: i itself), whose cost is plan_cost_s[todo[i]].
 * Fills owner[i] for i < n, the same on every rank that gives the same
 * inputs. SW_OK, SW_EINVAL (n_ranks < 1) or SW_ENOMEM; owner is the
 * caller's. */
enum sw_status sw_sched_lpt_todo(const double *plan_cost_s, const uint32_t *todo, size_t n,
				 int n_ranks, int *owner);

/* The lower bound on any schedule's makespan over n_ranks: max(T1 /
 * n_ranks, the longest entry), in seconds (costs as sw_sched_lpt counts
 * them). T1 / (n_ranks * bound) is the best efficiency a schedule can reach. */
double sw_sched_bound_s(const double *cost_s, size_t n, int n_ranks);

/*
 * What a dispenser holds: the to-do list in the order it goes out (queue,
 * from head), and, for a dispenser that knows cost, the points given back
 * in a heap of their own (back, the next to go out on top), so a give-back
 * costs O(log n) a point and never touches the queue; each take hands out
 * whichever of the two tops comes first in cost order.
 */
struct sw_dispenser {
	uint32_t *queue; /* owned: plan indices still to hand out */
	size_t head, n, cap;
	uint32_t *back; /* owned: given back, a heap (with costs only) */
	size_t n_back, cap_back;
	double *plan_cost_s; /* owned: expected seconds by plan index; NULL: no costs */
	size_t plan_n;
	/* comparisons and entries moved by give-backs and takes so far: the
	 * work tests count, so a give-back that grows with the queue fails them */
	size_t work;
};

/* Takes a copy of todo (plan indices), handed out in that order. */
int sw_dispenser_init(struct sw_dispenser *d, const uint32_t *todo, size_t n);

/*
 * A dispenser that knows cost: takes copies of todo (n plan indices, each
 * below plan_n) and of plan_cost_s (expected seconds of every plan point,
 * plan_n of them; NaN or negative counts as 0) and hands the indices out
 * longest expected first (ties: the lower plan index). Points given back go
 * into that order too. SW_OK, SW_EINVAL (an index not below plan_n) or
 * SW_ENOMEM; on failure d is empty (sw_dispenser_fini is still safe).
 */
enum sw_status sw_dispenser_init_cost(struct sw_dispenser *d, const uint32_t *todo, size_t n,
				      const double *plan_cost_s, size_t plan_n);

void sw_dispenser_fini(struct sw_dispenser *d);

/* Hands out up to max indices into out; returns how many (0: none left). */
size_t sw_dispenser_take(struct sw_dispenser *d, size_t max, uint32_t *out);

/*
 * One answer to a request for work, by cost: the next point, then more
 * while the batch's expected seconds stay under target_s and it holds
 * fewer than max. A point of target_s or more goes alone; points of 1 ms
 * go about 50 to a batch at a target of 50 ms; a target that is not > 0
 * gives one point per request. Without costs (sw_dispenser_init) every
 * point counts as target_s: one per request too. Writes up to max
 * indices into out and, when batch_s is not NULL, their expected seconds
 * (0 without costs); returns how many (0: none left, or max is 0).
 */
size_t sw_dispenser_take_batch(struct sw_dispenser *d, double target_s, size_t max, uint32_t *out,
			       double *batch_s);

/* Puts indices back (a rank stopped before running them): at the end of
 * the queue, or into cost order for a dispenser that knows cost. Costs
 * O(n log(n + b)) for n given back while b wait in the heap of points
 * given back, whatever the queue holds; amortised O(n) without costs. 0,
 * or -1 (out of memory, or an index not below plan_n of a dispenser with
 * costs; nothing is put back then). */
int sw_dispenser_give_back(struct sw_dispenser *d, const uint32_t *idx, size_t n);

size_t sw_dispenser_left(const struct sw_dispenser *d);

/* Expected seconds of the points still to hand out; 0 without costs. */
double sw_dispenser_left_s(const struct sw_dispenser *d);

#endif
