/*
 * The model backend: predicts a point's memory behaviour on any compute
 * capability from the addresses its warp-level requests touch (the variant's
 * requests function, built on the kernel's own index helpers). Global memory:
 * transactions per request by the coalescing rules of each CC family (the
 * half-warp rules of 1.0/1.1 and 1.2/1.3, 128-byte L1 lines on 2.x, 32-byte
 * segments on 3.x-5.x, 32-byte sectors from 6.0 on). Shared memory: the
 * bank-conflict degree. Constant memory: distinct addresses per request.
 * docs/model.md gives each rule and its source. Pure.
 */
#ifndef SW_MODEL_H
#define SW_MODEL_H

#include "kernel.h"
#include "core/figures.h"
#include "core/status.h"

#define SW_MODEL_MAX_SAMPLED 512 /* requests spread evenly over a point */
#define SW_MODEL_MAX_REFINED 512 /* more, where the kind of request changes */
#define SW_MODEL_PER_ACCESS  64  /* at least, of each named access that has as many */

/* The cost of one warp-level request on one CC. */
struct sw_model_cost {
	int transactions;     /* global: memory transactions (sectors from 6.0 on) */
	int moved_bytes;      /* global: bytes those transactions carry */
	int useful_bytes;     /* bytes the active lanes asked for */
	int conflict_degree;  /* shared: serialised passes (1 = conflict free); constant:
			      * distinct addresses (1 = broadcast) */
	int wavefronts;       /* shared, 2.x on: passes summed over the request's phases */
	int ideal_wavefronts; /* the same without conflicts: one per phase with a lane */
	int lines;            /* global: distinct 128-byte lines touched */
	int granules;         /* global: distinct DRAM granules touched (SW_MODEL_GRANULE_BYTES) */
	int chunks;           /* global: distinct SW_MODEL_CHUNK_BYTES chunks touched */
};

/* The unit in which L2 fetches from and writes to DRAM on CC 6.0 and later:
 * a pair of sectors (docs/model.md, "Time"). */
#define SW_MODEL_GRANULE_BYTES 64
#define SW_MODEL_CHUNK_BYTES   256

/* Nonzero when the model has rules for cc (10 * major + minor). */
int sw_model_supports(int cc);

/* Kepler (CC 3.x) can run shared memory in banks of 8-byte words
 * (cudaDeviceSetSharedMemConfig with cudaSharedMemBankSizeEightByte); 4 is
 * its default mode, and the only one of every other CC. */
#define SW_KEPLER_BANK_BYTES_DEFAULT 4

/* The cost of one request; SW_EINVAL for an unknown CC or word size. */
enum sw_status sw_model_request(const struct sw_request *req, int cc, struct sw_model_cost *cost,
				struct sw_err *err);
/* The same with the bank width a CC 3.x target uses: 4 or 8 bytes. */
enum sw_status sw_model_request_banked(const struct sw_request *req, int cc, int kepler_bank_bytes,
				       struct sw_model_cost *cost, struct sw_err *err);

/* A point's figures on cc: every request when it has up to
 * SW_MODEL_MAX_SAMPLED, else that many spread evenly over it, the first and
 * last included, and, by bisection, up to SW_MODEL_MAX_REFINED more where
 * the kind of request (space, load or store, active lanes) changes between
 * two of them. Each request looked at stands for itself and half the
 * requests between it and each neighbour looked at: exact where the kinds
 * run in stretches whose ends it finds, such as the partial warp and the
 * idle ones at the end of a grid-stride loop. A named access of which
 * fewer than SW_MODEL_PER_ACCESS requests were looked at then gets that
 * many more, spread evenly over its stretch, so that a rare store is not
 * priced from a dozen requests. SW_SKIP with a reason when the
 * variant is not modelled or cc has no rules; SW_EINVAL for a bad request;
 * SW_ENOMEM. */
enum sw_status sw_model_eval(const struct sw_variant *v, const struct sw_point *p, int cc,
			     struct sw_model_figures *out, struct sw_err *err);
enum sw_status sw_model_eval_banked(const struct sw_variant *v, const struct sw_point *p, int cc,
				    int kepler_bank_bytes, struct sw_model_figures *out,
				    struct sw_err *err);

/* f->sizes(p) into *sz, called on a zeroed scratch struct followed by
 * guard bytes: SW_EINVAL, naming the limit (the caller names the point),
 * when it sets n_buffers outside 0..SW_MAX_BUFFERS, n_inputs outside
 * 0..n_buffers, or writes past struct sw_sizes (*sz is then zeroed). Every
 * caller of a family's sizes() goes through it: a plug-in's may behave
 * for its first calls and not later (job/limits.h checks a plan with it;
 * the cuda backend and the time model call it again at each point). */
enum sw_status sw_family_sizes(const struct sw_family *f, const struct sw_point *p,
			       struct sw_sizes *sz, struct sw_err *err);

#endif
