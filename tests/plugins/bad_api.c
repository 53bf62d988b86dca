/* A test plug-in built for family API version 1 (before named values,
 * named accesses and 8 buffers): sweep refuses it, naming both versions and
 * saying to rebuild (tests/test_bad_input.c, rows P04 and U301). */
#include <sweep/family.h>

SW_PLUGIN_EXPORT const struct sw_plugin sweep_plugin = {
	1,
	(int)sizeof(struct sw_family),
	0,
	NULL,
};
