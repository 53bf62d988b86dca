/* The family registry, expanded from kernel_list.h, and lookups by name. */
#include "kernel.h"

#include <string.h>

const struct sw_family *const sw_families[] = {
#define X(name) &sw_family_##name,
#include "kernel_list.h"
#undef X
};
const int sw_n_families = SW_COUNT(sw_families);

const struct sw_family *sw_family_find(const char *name)
{
	for (int i = 0; i < sw_n_families; i++)
		if (strcmp(sw_families[i]->name, name) == 0)
			return sw_families[i];
	return NULL;
}

int sw_family_index(const struct sw_family *f)
{
	for (int i = 0; i < sw_n_families; i++)
		if (sw_families[i] == f)
			return i;
	return -1;
}

int sw_variant_find(const struct sw_family *f, const char *name)
{
	for (int i = 0; i < f->n_variants; i++)
		if (strcmp(f->variants[i].name, name) == 0)
			return i;
	return -1;
}

int sw_axis_find(const struct sw_family *f, const char *name)
{
	for (int i = 0; i < f->n_axes; i++)
		if (strcmp(f->axes[i].name, name) == 0)
			return i;
	return -1;
}
