/*
 * Plug-in loading: each file is opened once without blocking and checked to
 * be a regular ELF file, hashed from that descriptor, then dlopen'ed by the
 * same resolved path; its sweep_plugin is checked before any family enters
 * the registry. Families stay registered for the process: they are in the
 * plan and in every record. Pure but for the file system and the loader.
 */
#define _GNU_SOURCE
#include "job/plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "core/record.h"

static struct sw_plugin_info plugins[SW_MAX_PLUGINS];
static void *handles[SW_MAX_PLUGINS];
static int n_plugins;

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* The content hash of the open file fd, read from its start; whether it
 * starts with the ELF magic goes to *elf. */
static enum sw_status hash_file(int fd, const char *path, uint64_t *hash, int *elf,
				struct sw_err *err)
{
	unsigned char buf[1 << 16];
	uint64_t h = 0, total = 0;
	ssize_t got;

	*elf = 0;
	while ((got = read(fd, buf, sizeof buf)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return sw_fail(err, SW_EINVAL, "plug-in %s: cannot read: %s", path,
				       strerror(errno));
		if (total == 0)
			*elf = got >= 4 && memcmp(buf, "\177ELF", 4) == 0;
		for (ssize_t i = 0; i < got; i += 8) {
			uint64_t w = 0;
			memcpy(&w, buf + i, (size_t)(got - i < 8 ? got - i : 8));
			h = sw_mix64(h ^ w);
		}
		total += (uint64_t)got;
	}
	*hash = sw_mix64(h ^ total);
	return SW_OK;
}

/* Resolves path, opens it without blocking (a FIFO would hang a plain open
 * or dlopen), and checks it is a regular ELF file; hashes its content. */
static enum sw_status check_file(const char *path, char *real, uint64_t *hash, struct sw_err *err)
{
	struct stat sb;
	enum sw_status st;
	int fd, elf;

	if (!realpath(path, real))
		return sw_fail(err, SW_EINVAL, "plug-in %s: %s", path, strerror(errno));
	fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return sw_fail(err, SW_EINVAL, "plug-in %s: cannot open: %s", path,
			       strerror(errno));
	if (fstat(fd, &sb)) {
		st = sw_fail(err, SW_EINVAL, "plug-in %s: cannot stat: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		st = sw_fail(err, SW_EINVAL, "plug-in %s: %s, not a shared object", path,
			     kind_of(sb.st_mode));
		goto out;
	}
	st = hash_file(fd, path, hash, &elf, err);
	if (st == SW_OK && !elf)
		st = sw_fail(err, SW_EINVAL,
			     "plug-in %s: not a shared object (no ELF header); build it with "
			     "sweep_add_plugin",
			     path);
out:
	close(fd);
	return st;
}

/* Whose the registered family at index i is, for a clash message. */
static void owner_of(int i, char *buf, size_t len)
{
	for (int p = 0; p < n_plugins; p++)
		if (i >= plugins[p].first_family &&
		    i < plugins[p].first_family + plugins[p].n_families) {
			snprintf(buf, len, "a family of plug-in %s", plugins[p].path);
			return;
		}
	snprintf(buf, len, "a built-in family");
}

/* The first hook the harness calls without asking that f leaves NULL, or
 * NULL when it has all of them (check, requests and the rest are optional). */
static const char *missing_hook(const struct sw_family *f)
{
	if (!f->sizes)
		return "sizes";
	if (!f->refuse)
		return "refuse";
	if (!f->useful_bytes)
		return "useful_bytes";
	if (!f->flops)
		return "flops";
	if (f->n_axes > 0 && !f->axes)
		return "axes";
	if (f->n_variants > 0 && !f->variants)
		return "variants";
	for (int v = 0; v < f->n_variants; v++)
		if (!f->variants[v].launch)
			return "a variant's launch";
	return NULL;
}

/* The plug-in's descriptor: the right API, and families with names no
 * other registered family has. */
static enum sw_status check_plugin(const struct sw_plugin *p, const char *path, struct sw_err *err)
{
	char who[4200];

	if (p->api_version != SW_API_VERSION)
		return sw_fail(err, SW_EINVAL,
			       "plug-in %s was built for family API version %d; this sweep "
			       "takes version %d: rebuild it against this sweep's "
			       "<sweep/family.h>",
			       path, p->api_version, SW_API_VERSION);
	if (p->family_bytes != (int)sizeof(struct sw_family))
		return sw_fail(err, SW_EINVAL,
			       "plug-in %s: its struct sw_family is %d bytes, this sweep's %d "
			       "(a <sweep/family.h> of another build): rebuild it",
			       path, p->family_bytes, (int)sizeof(struct sw_family));
	if (p->n_families < 1 || !p->families)
		return sw_fail(err, SW_EINVAL, "plug-in %s exports no family", path);
	if (sw_family_count() + p->n_families > SW_MAX_FAMILIES)
		return sw_fail(err, SW_EINVAL, "plug-in %s: more than %d families in all", path,
			       SW_MAX_FAMILIES);
	for (int i = 0; i < p->n_families; i++) {
		const struct sw_family *f = p->families[i];
		const struct sw_family *old = f && f->name ? sw_family_find(f->name) : NULL;
		if (!f || !f->name || !f->name[0])
			return sw_fail(err, SW_EINVAL, "plug-in %s: family %d has no name", path,
				       i);
		for (int j = 0; j < i && !old; j++)
			if (p->families[j]->name && !strcmp(p->families[j]->name, f->name))
				return sw_fail(err, SW_EINVAL,
					       "plug-in %s: two families named '%.*s'", path,
					       SW_NAME_LEN, f->name);
		if (missing_hook(f))
			return sw_fail(err, SW_EINVAL, "plug-in %s: family '%.*s' has no %s", path,
				       SW_NAME_LEN, f->name, missing_hook(f));
		if (old) {
			owner_of(sw_family_index(old), who, sizeof who);
			return sw_fail(err, SW_EINVAL,
				       "plug-in %s: family '%.*s' clashes with %s of that name",
				       path, SW_NAME_LEN, f->name, who);
		}
	}
	return SW_OK;
}

/* Appends p's families, and keeps them only if the whole registry still
 * fits the record (sw_registry_check). */
static enum sw_status register_families(const struct sw_plugin *p, const char *path,
					struct sw_err *err)
{
	int before = sw_family_count();
	enum sw_status st;

	for (int i = 0; i < p->n_families; i++)
		sw_family_add(p->families[i]);
	st = sw_registry_check(sw_family_list(), sw_family_count(), err);
	if (st != SW_OK) {
		sw_family_truncate(before);
		return sw_wrap(err, "plug-in %s", path);
	}
	return SW_OK;
}

static int already_loaded(const char *real, uint64_t hash)
{
	for (int i = 0; i < n_plugins; i++)
		if (!strcmp(plugins[i].path, real) && plugins[i].content_hash == hash)
			return 1;
	return 0;
}

enum sw_status sw_plugin_load(const char *path, struct sw_err *err)
{
	char real[PATH_MAX];
	const struct sw_plugin *p;
	struct sw_plugin_info *info = &plugins[n_plugins];
	uint64_t hash = 0;
	enum sw_status st;
	void *h;

	st = check_file(path, real, &hash, err);
	if (st != SW_OK || already_loaded(real, hash))
		return st;
	if (n_plugins == SW_MAX_PLUGINS)
		return sw_fail(err, SW_EINVAL, "plug-in %s: more than %d plug-ins", path,
			       SW_MAX_PLUGINS);
	/* RTLD_NOW: an unresolved symbol fails here, not in the middle of a run. */
	h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return sw_fail(err, SW_EINVAL, "plug-in %s: cannot load: %s", path, dlerror());
	p = (const struct sw_plugin *)dlsym(h, "sweep_plugin");
	if (!p) {
		st = sw_fail(err, SW_EINVAL,
			     "plug-in %s: no `sweep_plugin` symbol (a plug-in ends in "
			     "SW_PLUGIN(...))",
			     path);
		goto fail;
	}
	st = check_plugin(p, path, err);
	if (st == SW_OK)
		st = register_families(p, path, err);
	if (st != SW_OK)
		goto fail;
	memset(info, 0, sizeof *info);
	snprintf(info->path, sizeof info->path, "%s", real);
	snprintf(info->name, sizeof info->name, "%s", strrchr(real, '/') + 1);
	info->content_hash = hash;
	info->first_family = sw_family_count() - p->n_families;
	info->n_families = p->n_families;
	handles[n_plugins++] = h;
	return SW_OK;
fail:
	dlclose(h);
	return st;
}

enum sw_status sw_plugin_load_from(const char *job_path, const char *path, struct sw_err *err)
{
	char full[PATH_MAX];
	const char *slash = job_path ? strrchr(job_path, '/') : NULL;

	if (path[0] == '/' || !slash)
		return sw_plugin_load(path, err);
	if (snprintf(full, sizeof full, "%.*s/%s", (int)(slash - job_path), job_path, path) >=
	    (int)sizeof full)
		return sw_fail(err, SW_EINVAL, "plug-in %s: the path is too long", path);
	return sw_plugin_load(full, err);
}

int sw_plugin_count(void)
{
	return n_plugins;
}

const struct sw_plugin_info *sw_plugin_at(int i)
{
	return i >= 0 && i < n_plugins ? &plugins[i] : NULL;
}

uint64_t sw_plugins_digest(void)
{
	uint64_t d = 0;

	if (n_plugins == 0)
		return 0;
	for (int i = 0; i < n_plugins; i++) {
		d = sw_mix64(d ^ plugins[i].content_hash);
		for (int f = 0; f < plugins[i].n_families; f++)
			for (const char *c = sw_family_at(plugins[i].first_family + f)->name; *c;
			     c++)
				d = sw_mix64(d ^ (unsigned char)*c);
		d = sw_mix64(d ^ (uint64_t)plugins[i].n_families);
	}
	return d ? d : 1; /* 0 means none */
}

void sw_plugin_unload_all(void)
{
	sw_family_truncate(sw_family_builtin_count());
	for (int i = n_plugins - 1; i >= 0; i--)
		dlclose(handles[i]);
	n_plugins = 0;
}
