/*
 * Placement (docs/job-format.md, `placement` and `calibrate`): the device
 * classes of a run, the key by which a resume knows a GPU again, and the
 * run's work as pairs of a plan index and its owner: the ranks that may run
 * it. Pure: the coordinator and the workers use these tables, nothing here
 * talks to a rank or reads a file.
 */
#ifndef SW_PLACE_H
#define SW_PLACE_H

#include <stddef.h>
#include <stdint.h>

#include "core/device_info.h"
#include "job/job.h"
#include "job/plan.h"

/* The owner of a pair: a group g >= 0 (its ranks share a dispenser: every
 * rank under once, a class's ranks under per_class, one rank under
 * every_gpu), or SW_PLACE_OWN(k) < 0, rank k's own calibration point. */
#define SW_PLACE_OWN(rank) (-(int32_t)(rank)-1)

struct sw_place {
	enum sw_placement mode;
	int n_ranks;
	int *class_of; /* owned: each rank's class, 0 .. n_classes - 1, by first rank */
	int n_classes;
	int *group_of; /* owned: the group each rank takes shared points from */
	int n_groups;
};

/*
 * The classes of n ranks' devices (a class: name, CC and memory size) into
 * pl (mode and the tables; pl's own), and each device's label into
 * devs[k].device_class: its name when no other class of the run has that
 * name, else "name (N GiB)", else "name (cc X.Y, N GiB)", else the memory
 * in bytes. SW_OK or SW_ENOMEM.
 */
enum sw_status sw_place_init(struct sw_place *pl, enum sw_placement mode,
			     struct sw_device_info *devs, int n, struct sw_err *err);
void sw_place_fini(struct sw_place *pl);

/* The class whose ranks run owner's pairs (a group, or SW_PLACE_OWN(k)):
 * the class of all its ranks, or -1 when they span classes (once). */
int sw_place_owner_class(const struct sw_place *pl, int32_t owner);

/* The key of rank k's GPU among devs[0..n) (one session's ranks): "host
 * uuid#slot", slot counting the ranks before k that share the GPU
 * (--share-gpu); for a backend without UUIDs, "host local-rank L". */
void sw_place_gpu_key(const struct sw_device_info *devs, int n, int k, char *buf, size_t len);

/* A row already in the file: its point and where it ran, as hashes of
 * the GPU's key and of the class label. */
struct sw_place_done {
	uint64_t point_id, gpu, cls;
};

/* The done rows of a file: row i ran point ids[i] on rank ranks[i] of
 * session sessions[i], whose device is the row of devs with that rank and
 * session. Fills out[i] (n of them). */
void sw_place_done_rows(const uint64_t *ids, const int32_t *ranks, const int32_t *sessions,
			size_t n, const struct sw_device_info *devs, size_t n_devs,
			struct sw_place_done *out);

/* The same hashes of the ranks of this run (gpu[k], cls[k]). */
void sw_place_hashes(const struct sw_device_info *devs, int n, uint64_t *gpu, uint64_t *cls);

/*
 * The pairs still to run, in plan order: each calibration point (and under
 * every_gpu each point) once for every rank whose GPU has no row of it,
 * owned by that rank (SW_PLACE_OWN under calibration, its group else);
 * under per_class each point once for every class without a row of it;
 * under once each point without a row. done (sorted or not; n_done rows)
 * may be NULL. With todo NULL, only counts. Returns the number of pairs.
 */
size_t sw_place_todo(const struct sw_plan *plan, const struct sw_place *pl, const uint64_t *gpu,
		     const uint64_t *cls, struct sw_place_done *done, size_t n_done, uint32_t *todo,
		     int32_t *owner);

/* How many pairs sw_place_todo would list, without listing them. */
static inline size_t sw_place_count(const struct sw_plan *plan, const struct sw_place *pl,
				    const uint64_t *gpu, const uint64_t *cls,
				    struct sw_place_done *done, size_t n_done)
{
	return sw_place_todo(plan, pl, gpu, cls, done, n_done, NULL, NULL);
}

/*
 * A static schedule's share of rank: its own pairs first (its calibration
 * points, in to-do order), then its part of its group's pairs, balanced by
 * cost over the group's ranks (greedy LPT, sched.h), in to-do order. out
 * holds up to n; returns the count, or -1 without memory.
 */
long sw_place_static_share(const struct sw_place *pl, const double *cost_s, const uint32_t *todo,
			   const int32_t *owner, size_t n, int rank, uint32_t *out);

/* GPUs of the file's earlier sessions (done rows' gpu hashes) that this
 * run lacks, and GPUs of this run (gpu[0..n_ranks)) the file has no row
 * of: what a resume says under every_gpu. */
void sw_place_gpu_changes(const struct sw_place_done *done, size_t n_done, const uint64_t *gpu,
			  int n_ranks, size_t *absent_now, size_t *new_now);

#endif
