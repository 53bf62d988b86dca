/*
 * What --dry-run says of each class of a replay with --replay-devices: the
 * classes are known from the SPEC without binding a rank, so each is told
 * with its recording, the GPU that recording measured on, where its
 * expected times come from (class_cost.h) and its estimate on its devices
 * at their speeds. Rank 0; prints to stdout.
 */
#ifndef SW_DRY_CLASSES_H
#define SW_DRY_CLASSES_H

#include "run/rank_ctx.h"

/* Nothing for another backend, or a replay without --replay-devices. */
void sw_dry_print_classes(const struct sw_rank_ctx *r);

#endif
