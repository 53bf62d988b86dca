/*
 * The model backend: predicts a point's global-memory behaviour on a compute
 * capability from the addresses its warp-level requests touch (the family's
 * requests function, built on the kernel's own index helpers). First form:
 * 32-byte sectors per request on CC 6.0 and later. Pure.
 */
#ifndef SW_MODEL_H
#define SW_MODEL_H

#include "kernel.h"
#include "status.h"

#define SW_MODEL_MAX_SAMPLED 4096 /* requests looked at per point */

struct sw_model_figures {
	double requests;            /* warp-level requests the point issues */
	double sectors_per_request; /* averaged over the sampled requests */
	double useful_bytes;        /* whole point, from the lanes' words */
	double moved_bytes;         /* whole point, sectors x 32 */
	double efficiency;          /* useful over moved */
};

/* Nonzero when the model has rules for cc (10 * major + minor). */
int sw_model_supports(int cc);

/* SW_SKIP with a reason when the variant is not modelled or cc has no rules. */
enum sw_status sw_model_eval(const struct sw_variant *v, const struct sw_point *p, int cc,
			     struct sw_model_figures *out, struct sw_err *err);

#endif
