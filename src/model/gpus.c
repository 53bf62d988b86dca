/*
 * The GPU table (gpus.h): gpu_table.h expanded into arrays, and the name
 * lookups. A name matches a table name, driver name or alias exactly (case
 * and the spaces around it apart), never by a part of one: "NVIDIA H20", a
 * real GPU the table lacks, is not the H200, and "H100" is refused with
 * both H100s listed. The entries whose names hold it are the candidates a
 * refusal lists.
 */
#include "model/gpus.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/suggest.h"

static const struct sw_gpu gpus[] = {
#define SW_GPU(name, aliases, cc, sms, mhz, dram, l2, fp32, sources)                               \
	{ name, aliases, cc, sms, mhz, dram, l2, fp32, sources },
#include "model/gpu_table.h"
};
#define N_GPUS ((int)(sizeof gpus / sizeof gpus[0]))

static const struct sw_cc_limits limits[] = {
#define SW_CC(cc, threads, blocks, shared, source) { cc, threads, blocks, shared, source },
#include "model/gpu_table.h"
};
#define N_LIMITS ((int)(sizeof limits / sizeof limits[0]))

static const struct {
	const char *key, *citation;
} sources[] = {
#define SW_GPU_SOURCE(key, citation) { key, citation },
#include "model/gpu_table.h"
};
#define N_SOURCES ((int)(sizeof sources / sizeof sources[0]))

int sw_gpu_count(void)
{
	return N_GPUS;
}

const struct sw_gpu *sw_gpu_at(int i)
{
	return i >= 0 && i < N_GPUS ? &gpus[i] : NULL;
}

/* Calls match(word, len) on each '|'-separated alias of g and its name;
 * nonzero when one call is. */
static int any_name(const struct sw_gpu *g, const char *name,
		    int (*match)(const char *word, size_t len, const char *name))
{
	if (match(g->name, strlen(g->name), name))
		return 1;
	for (const char *a = g->aliases; *a;) {
		size_t len = strcspn(a, "|");
		if (match(a, len, name))
			return 1;
		a += len + (a[len] == '|');
	}
	return 0;
}

static int equals(const char *word, size_t len, const char *name)
{
	return strlen(name) == len && !strncasecmp(word, name, len);
}

static int contains(const char *word, size_t len, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; n && i + n <= len; i++)
		if (!strncasecmp(word + i, name, n))
			return 1;
	return 0;
}

/* The entries any_name(match) finds: their count, the first in *found,
 * their names "a, b" into list. */
static int matches(const char *name, int (*match)(const char *, size_t, const char *),
		   const struct sw_gpu **found, char *list, size_t len)
{
	int n = 0;
	size_t used = 0;
	list[0] = '\0';
	for (int i = 0; i < N_GPUS; i++) {
		if (!any_name(&gpus[i], name, match))
			continue;
		if (!n++)
			*found = &gpus[i];
		if (used < len)
			used += (size_t)snprintf(list + used, len - used, "%s%s", n > 1 ? ", " : "",
						 gpus[i].name);
	}
	return n;
}

enum sw_status sw_gpu_find(const char *name, const struct sw_gpu **gpu, struct sw_err *err)
{
	char list[512], trimmed[128];
	*gpu = NULL;
	while (name && isspace((unsigned char)*name))
		name++;
	size_t len = name ? strlen(name) : 0;
	while (len && isspace((unsigned char)name[len - 1]))
		len--;
	if (!len)
		return sw_fail(err, SW_EINVAL,
			       "an empty GPU name; `sweep --list-devices` lists them");
	if (len >= sizeof trimmed)
		return sw_fail(err, SW_EINVAL,
			       "GPU name '%.40s...' is %zu bytes, longer than any in the table; "
			       "`sweep --list-devices` lists them",
			       name, len);
	memcpy(trimmed, name, len);
	trimmed[len] = '\0';
	name = trimmed;
	if (matches(name, equals, gpu, list, sizeof list) == 1)
		return SW_OK;
	*gpu = NULL;
	const struct sw_gpu *part = NULL;
	int n = matches(name, contains, &part, list, sizeof list);
	if (n > 1)
		return sw_fail(err, SW_EINVAL,
			       "GPU '%s' fits %d entries of the table: %s; name one", name, n,
			       list);
	if (n == 1 && part)
		return sw_fail(err, SW_EINVAL,
			       "no GPU '%s' in the table; it is only part of the names of %s "
			       "(%.*s), another GPU: name a GPU exactly, by its name in the table, "
			       "its driver's name or an alias (`sweep --list-devices` lists them)",
			       name, part->name, (int)strcspn(part->aliases, "|"), part->aliases);
	const char *names[64];
	for (int i = 0; i < N_GPUS && i < 64; i++)
		names[i] = gpus[i].name;
	char near[160];
	sw_suggest_text(name, names, N_GPUS < 64 ? N_GPUS : 64, near, sizeof near);
	return sw_fail(err, SW_EINVAL,
		       "no GPU '%s' in the table%s%s; `sweep --list-devices` lists them", name,
		       *near ? ": did you mean " : "", near);
}

const struct sw_gpu *sw_gpu_of_driver_name(const char *name)
{
	for (int i = 0; i < N_GPUS; i++) {
		size_t len = strcspn(gpus[i].aliases, "|");
		if (equals(gpus[i].aliases, len, name) || !strcasecmp(gpus[i].name, name))
			return &gpus[i];
	}
	return NULL;
}

const struct sw_cc_limits *sw_cc_limits_of(int cc)
{
	const struct sw_cc_limits *best = NULL;
	for (int i = 0; i < N_LIMITS; i++)
		if (limits[i].cc <= cc)
			best = &limits[i];
	return best;
}

const char *sw_gpu_source(const char *key)
{
	for (int i = 0; i < N_SOURCES; i++) {
		size_t len = strlen(sources[i].key);
		int wild = len > 1 && sources[i].key[len - 1] == '*';
		if (wild ? !strncmp(key, sources[i].key, len - 1) : !strcmp(key, sources[i].key))
			return sources[i].citation;
	}
	return NULL;
}
