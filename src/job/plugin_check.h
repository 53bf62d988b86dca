/*
 * A plug-in's exported descriptor, checked before sweep reads through it
 * (plugin.c calls it between dlsym and registering). Every count is checked
 * before the array it counts is read, and every pointer before it is
 * followed: a table or text must lie in a loaded object's memory, a hook in
 * its code. Then the rules a name and a unit must follow for the command
 * line, the job file and the result file. Pure but for the loader's list of
 * objects; never prints, registers nothing.
 */
#ifndef SW_PLUGIN_CHECK_H
#define SW_PLUGIN_CHECK_H

#include "core/status.h"
#include "kernel.h"

/* p's families (1 to SW_PLUGIN_MAX_FAMILIES of them), each descriptor, its
 * axes and variants: the counts, the pointers, the names (letters, digits
 * and '_', starting with a letter; no axis named `variants`) and each
 * axis's units against every registered family's axis of that name.
 * SW_EINVAL naming path and the rule; SW_ENOMEM. */
#define SW_PLUGIN_MAX_FAMILIES 16
enum sw_status sw_plugin_check(const struct sw_plugin *p, const char *path, struct sw_err *err);

#endif
