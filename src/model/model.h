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
/* The same, holding every request it looks at to the point's buffers sz
 * (sw_model_request_bounds): a request that leaves its buffer is SW_EINVAL,
 * naming the variant, access, request and lane, and no figures. sz NULL:
 * unchecked, as sw_model_eval_banked. */
enum sw_status sw_model_eval_sized(const struct sw_variant *v, const struct sw_point *p,
				   const struct sw_sizes *sz, int cc, int kepler_bank_bytes,
				   struct sw_model_figures *out, struct sw_err *err);

/* Whether global request req keeps to the point's buffers sz: the buffer
 * it names (sw_request.buffer) one of sz's, and every active lane's word,
 * [addr, addr + word_bytes), inside its bytes. A request that names no
 * buffer (SW_BUFFER_NONE: an API 2 plug-in's, or a shared or constant
 * one) passes: nothing says where it should stay. SW_EINVAL naming the
 * buffer, the first lane outside and its bytes; the caller names the
 * variant, access and request. */
/* Request r of variant v, with the access it belongs to by name where
 * the variant names its accesses, for messages: "vector request 12
 * (access x)". */
void sw_model_request_name(const struct sw_variant *v, uint64_t r, int access, char *buf,
			   size_t len);

enum sw_status sw_model_request_bounds(const struct sw_request *req, const struct sw_sizes *sz,
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
