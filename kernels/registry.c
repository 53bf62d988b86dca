/*
 * The family registry: the built-ins expanded from kernel_list.h, then the
 * families plug-ins add at run time (src/job/plugin.c), in load order, and
 * lookups by name. The one mutable list of the kernel seam: families are
 * added while the run is set up, before any point, and never reordered.
 */
#include "kernel.h"

#include <string.h>

static const struct sw_family *const builtins[] = {
#define X(name) &sw_family_##name,
#include "kernel_list.h"
#undef X
};

static const struct sw_family *registry[SW_MAX_FAMILIES] = {
#define X(name) &sw_family_##name,
#include "kernel_list.h"
#undef X
};
static int n_registered = SW_COUNT(builtins);

_Static_assert(SW_COUNT(builtins) <= SW_MAX_FAMILIES, "more built-in families than fit");

int sw_family_count(void)
{
	return n_registered;
}

int sw_family_builtin_count(void)
{
	return SW_COUNT(builtins);
}

const struct sw_family *sw_family_at(int i)
{
	return i >= 0 && i < n_registered ? registry[i] : NULL;
}

const struct sw_family *const *sw_family_list(void)
{
	return registry;
}

int sw_family_add(const struct sw_family *f)
{
	if (n_registered >= SW_MAX_FAMILIES)
		return -1;
	registry[n_registered++] = f;
	return 0;
}

void sw_family_truncate(int n)
{
	if (n >= SW_COUNT(builtins) && n < n_registered)
		n_registered = n;
}

const struct sw_family *sw_family_find(const char *name)
{
	for (int i = 0; i < n_registered; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

int sw_family_index(const struct sw_family *f)
{
	for (int i = 0; i < n_registered; i++)
		if (registry[i] == f)
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

int sw_axis_name_count(const struct sw_axis_def *d)
{
	int n = 0;
	while (d->names && d->names[n])
		n++;
	return n;
}

const char *sw_axis_value_name(const struct sw_axis_def *d, int64_t v)
{
	if (!d->names || v < d->min || v > d->max || v - d->min >= sw_axis_name_count(d))
		return NULL;
	return d->names[v - d->min];
}

int sw_variant_access_count(const struct sw_variant *v)
{
	int n = 0;
	while (v->accesses && v->accesses[n])
		n++;
	return n;
}
