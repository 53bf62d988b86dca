/*
 * --replay-devices SPEC: parsing its entries into struct sw_options, and
 * which emulated device a rank is. Pure; never prints.
 */
#ifndef SW_REPLAY_SPEC_H
#define SW_REPLAY_SPEC_H

#include <stddef.h>

#include "core/status.h"
#include "job/cli.h"

/* One CLASS:COUNT[:SPEED] entry (len bytes of e) onto o's list of classes.
 * SW_EINVAL with the rule broken (o->replay_devices, the whole SPEC, names
 * it), SW_ENOMEM. */
enum sw_status sw_replay_spec_add(struct sw_options *o, const char *e, size_t len,
				  struct sw_err *err);

/* The --replay-devices class of rank (0 <= rank < o->n_replay_devices), and
 * in *index the rank's place among the devices of that class name, counted
 * over the whole SPEC (A:3,A:1:0.8 gives the slow one index 3); NULL when
 * o has no such rank. */
const struct sw_replay_class *sw_replay_spec_device(const struct sw_options *o, int rank,
						    int *index);

/* How many times faster than recorded rank replays its points: the
 * --replay-speed times its device's SPEED (1 for a rank the SPEC gives no
 * device, and for every rank of a run without either, any backend). */
double sw_replay_spec_rate(const struct sw_options *o, int rank);

#endif
