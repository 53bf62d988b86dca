/* A test plug-in built for another family API version: sweep refuses it,
 * naming both versions (tests/test_bad_input.c, row P04). */
#include <sweep/family.h>

SW_PLUGIN_EXPORT const struct sw_plugin sweep_plugin = {
	SW_API_VERSION + 1,
	(int)sizeof(struct sw_family),
	0,
	NULL,
};
