/*
 * A test plug-in made from a built-in family's own source: SW_RENAME_SOURCE
 * (a kernels/ file) is compiled in whole, and its descriptor SW_RENAME_FROM
 * is exported under the name SW_RENAME_TO. Its rows must match the
 * built-in's in every column the family fills (tests/test_plugin.c).
 * SW_RENAME_ABOUT, when given, changes the text only: another file's content
 * with the same family, for the cross-rank check.
 */
#include <sweep/family.h>

#include SW_RENAME_SOURCE

/* A copy of the built-in's descriptor (constant-initialised, so ready
 * before this dynamic initialiser runs at dlopen) under another name. */
static struct sw_family renamed(const struct sw_family *f)
{
	struct sw_family r = *f;
	r.name = SW_RENAME_TO;
#ifdef SW_RENAME_ABOUT
	r.about = SW_RENAME_ABOUT;
#endif
	return r;
}

static const struct sw_family plugin_family = renamed(&SW_RENAME_FROM);

SW_PLUGIN(plugin_family);
