/*
 * The model backend, first form: 32-byte sectors per global request on CC 6.0
 * and later, from the addresses the family's requests function gives. It
 * samples up to SW_MODEL_MAX_SAMPLED requests spread evenly over the point
 * and scales their averages by the request count. Rules for older compute
 * capabilities and shared-memory banks come later (docs/model.md).
 */
#include "model.h"

#include <stdlib.h>
#include <string.h>

int sw_model_supports(int cc)
{
	return cc >= 60;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Distinct 32-byte sectors the active lanes' words touch. */
static int sectors_of(const struct sw_request *req)
{
	uint64_t s[32 * 2]; /* a word of up to 32 bytes spans at most two sectors */
	int n = 0;
	for (int l = 0; l < 32; l++) {
		if (!(req->active & (1u << l)))
			continue;
		uint64_t first = req->addr[l] / 32, last = (req->addr[l] + req->word_bytes - 1) / 32;
		for (uint64_t x = first; x <= last && n < 64; x++)
			s[n++] = x;
	}
	qsort(s, n, sizeof s[0], cmp_u64);
	int distinct = 0;
	for (int i = 0; i < n; i++)
		distinct += i == 0 || s[i] != s[i - 1];
	return distinct;
}

enum sw_status sw_model_eval(const struct sw_variant *v, const struct sw_point *p, int cc,
			     struct sw_model_figures *out, struct sw_err *err)
{
	memset(out, 0, sizeof *out);
	if (!v->requests)
		return sw_fail(err, SW_SKIP, "variant %s has no access pattern to model", v->name);
	if (!sw_model_supports(cc))
		return sw_fail(err, SW_SKIP, "no model rules for CC %d.%d yet (sectors: 6.0 and later)",
			       cc / 10, cc % 10);

	uint64_t total = v->requests(p, 0, NULL);
	if (total == 0)
		return SW_OK;
	uint64_t sampled = total < SW_MODEL_MAX_SAMPLED ? total : SW_MODEL_MAX_SAMPLED;
	double sectors = 0, useful = 0;
	uint64_t issued = 0;
	struct sw_request req;
	for (uint64_t k = 0; k < sampled; k++) {
		/* Evenly spread over [0, total), last request included. */
		uint64_t r = sampled == 1 ? 0 : (uint64_t)((double)k * (double)(total - 1) / (double)(sampled - 1));
		v->requests(p, r, &req);
		if (!req.active)
			continue; /* a warp with no lane left issues nothing */
		issued++;
		sectors += sectors_of(&req);
		useful += (double)__builtin_popcount(req.active) * req.word_bytes;
	}
	if (!issued)
		return SW_OK;
	double scale = (double)total * ((double)issued / (double)sampled) / (double)issued;
	out->requests = (double)total * ((double)issued / (double)sampled);
	out->sectors_per_request = sectors / (double)issued;
	out->useful_bytes = useful * scale;
	out->moved_bytes = sectors * 32 * scale;
	out->efficiency = out->useful_bytes / out->moved_bytes;
	return SW_OK;
}
