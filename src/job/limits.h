/*
 * What a family's hooks may not exceed, checked where they run and before
 * anything relies on them: sizes() through sw_family_sizes (model/model.h,
 * a scratch struct with guard bytes after it), for every point of a plan
 * (dry runs and the model backend included, which never allocate) and
 * again wherever it is called later. Pure.
 */
#ifndef SW_LIMITS_H
#define SW_LIMITS_H

#include "job/plan.h"
#include "kernel.h"
#include "core/status.h"
#include "model/model.h" /* sw_family_sizes */

/* sw_family_sizes for each variant of f at the first of each axis's
 * default values, unless refused: what a plug-in's loading (--list
 * included) can check before any job names it. SW_OK, SW_EINVAL or
 * SW_ENOMEM. */
enum sw_status sw_family_check_defaults(const struct sw_family *f, struct sw_err *err);

/* sw_family_sizes for every point of plan its family does not refuse: the
 * first that breaks a limit, named by its label. SW_OK or SW_EINVAL. */
enum sw_status sw_plan_check_limits(const struct sw_plan *plan, struct sw_err *err);

#endif
