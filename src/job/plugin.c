/*
 * Plug-in loading: each file is opened once without blocking and checked to
 * be a regular ELF file, hashed from that descriptor, then dlopen'ed by the
 * same resolved path; the libraries that brought in are hashed and kept
 * too (the system set aside: plugin_ident.h), and its sweep_plugin is
 * checked (plugin_check.c) before any family enters the registry. Families
 * stay registered for the process: they are in the plan and in every
 * record. Pure but for the file system and the loader.
 */
#define _GNU_SOURCE
#include "job/plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "core/record.h"
#include "job/plugin_check.h"
#include "job/plugin_ident.h"

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

/* The plug-in's descriptor: the right API, a descriptor sweep can read
 * (plugin_check.c), and families with names no other registered family has. */
static enum sw_status check_plugin(const struct sw_plugin *p, const char *path, struct sw_err *err)
{
	char who[4200];
	enum sw_status st;

	int want_bytes = p->api_version == 2 ? SW_FAMILY_BYTES_API2 : (int)sizeof(struct sw_family);

	if (p->api_version < SW_API_OLDEST || p->api_version > SW_API_VERSION)
		return sw_fail(err, SW_EINVAL,
			       "plug-in %s was built for family API version %d; this sweep "
			       "loads versions %d to %d: rebuild it against this sweep's "
			       "<sweep/family.h>",
			       path, p->api_version, SW_API_OLDEST, SW_API_VERSION);
	if (p->family_bytes != want_bytes)
		return sw_fail(err, SW_EINVAL,
			       "plug-in %s: its struct sw_family is %d bytes, this sweep's %d "
			       "for API version %d (a <sweep/family.h> of another build): "
			       "rebuild it",
			       path, p->family_bytes, want_bytes, p->api_version);
	st = sw_plugin_check(p, path, err);
	if (st != SW_OK)
		return st;
	if (sw_family_count() + p->n_families > SW_MAX_FAMILIES)
		return sw_fail(err, SW_EINVAL, "plug-in %s: more than %d families in all", path,
			       SW_MAX_FAMILIES);
	for (int i = 0; i < p->n_families; i++) {
		const struct sw_family *f = p->families[i];
		const struct sw_family *old = sw_family_find(f->name);
		for (int j = 0; j < i && !old; j++)
			if (!strcmp(p->families[j]->name, f->name))
				return sw_fail(err, SW_EINVAL,
					       "plug-in %s: two families named '%.*s'", path,
					       SW_NAME_LEN, f->name);
		if (old) {
			owner_of(sw_family_index(old), who, sizeof who);
			return sw_fail(err, SW_EINVAL,
				       "plug-in %s: family '%.*s' clashes with %s of that name",
				       path, SW_NAME_LEN, f->name, who);
		}
	}
	return SW_OK;
}

/* A family of an older API, widened to this sweep's struct sw_family:
 * the fields it lacks are zero (no hook). Kept for the process, as the
 * registry keeps every family. */
static const struct sw_family *widened(const struct sw_plugin *p, const struct sw_family *f)
{
	struct sw_family *w;

	if (p->family_bytes == (int)sizeof *f)
		return f;
	w = calloc(1, sizeof *w);
	if (w)
		memcpy(w, f, (size_t)p->family_bytes);
	return w;
}

/* Takes p's families added after the first `before` out of the registry,
 * freeing the widened copies among them. */
static void forget_widened(const struct sw_plugin *p, int before)
{
	const struct sw_family *const *list = sw_family_list();

	for (int i = before; i < sw_family_count(); i++)
		if (list[i] != p->families[i - before])
			free((void *)list[i]);
	sw_family_truncate(before);
}

/* Appends p's families, and keeps them only if the whole registry still
 * fits the record (sw_registry_check). */
static enum sw_status register_families(const struct sw_plugin *p, const char *path,
					struct sw_err *err)
{
	int before = sw_family_count();
	enum sw_status st;

	for (int i = 0; i < p->n_families; i++) {
		const struct sw_family *f = widened(p, p->families[i]);

		if (!f) {
			forget_widened(p, before);
			return sw_fail(err, SW_ENOMEM, "plug-in %s: no memory to load it", path);
		}
		sw_family_add(f);
	}
	st = sw_registry_check(sw_family_list(), sw_family_count(), err);
	if (st != SW_OK) {
		forget_widened(p, before);
		return sw_wrap(err, "plug-in %s", path);
	}
	return SW_OK;
}

/* The objects the loader holds (their load addresses), to tell afterwards
 * which ones a dlopen brought in. */
struct objects {
	uintptr_t *base;
	int n, cap, oom;
};

static int note_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct objects *o = data;

	(void)size;
	if (o->n == o->cap) {
		int cap = o->cap ? 2 * o->cap : 64;
		uintptr_t *b = realloc(o->base, (size_t)cap * sizeof *b);

		if (!b) {
			o->oom = 1;
			return 1;
		}
		o->base = b;
		o->cap = cap;
	}
	o->base[o->n++] = info->dlpi_addr;
	return 0;
}

/* What one dlopen added besides the plug-in itself: the libraries it links
 * (and any its constructor loads) that were not loaded yet, but those of
 * the system set. */
struct deps {
	const struct objects *before;
	uintptr_t self; /* the plug-in's own load address */
	const char *path;
	int owner; /* the plug-in's index */
	struct sw_plugin_lib *libs;
	int n, cap;
	uint64_t hash;
	enum sw_status st;
	struct sw_err *err;
};

static int was_loaded(const struct objects *o, uintptr_t base)
{
	for (int i = 0; i < o->n; i++)
		if (o->base[i] == base)
			return 1;
	return 0;
}

static void free_libs(struct sw_plugin_lib *libs, int n)
{
	for (int i = 0; libs && i < n; i++)
		free(libs[i].path);
	free(libs);
}

/* name as the loader gave it, made absolute (LD_LIBRARY_PATH=. gives
 * "./libx.so"), not resolved: its file name is the one the loader sought. */
static char *absolute(const char *name)
{
	char cwd[PATH_MAX], *full;

	if (name[0] == '/' || !getcwd(cwd, sizeof cwd))
		return strdup(name);
	full = malloc(strlen(cwd) + strlen(name) + 2);
	if (full)
		sprintf(full, "%s/%s", cwd, name);
	return full;
}

/* Keeps one new library, hashed as the plug-in's own file is. */
static enum sw_status add_lib(struct deps *d, const char *name)
{
	struct sw_plugin_lib *lib;
	int fd, elf;

	if (d->n == d->cap) {
		int cap = d->cap ? 2 * d->cap : 8;
		lib = realloc(d->libs, (size_t)cap * sizeof *lib);
		if (!lib)
			return sw_fail(d->err, SW_ENOMEM, "plug-in %s: no memory", d->path);
		d->libs = lib;
		d->cap = cap;
	}
	lib = &d->libs[d->n];
	memset(lib, 0, sizeof *lib);
	lib->owner = d->owner;
	fd = open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return sw_fail(d->err, SW_EINVAL,
			       "plug-in %s: cannot read the library %s it loaded: %s", d->path,
			       name, strerror(errno));
	enum sw_status st = hash_file(fd, name, &lib->content_hash, &elf, d->err);
	close(fd);
	if (st != SW_OK)
		return st;
	lib->path = absolute(name);
	if (!lib->path)
		return sw_fail(d->err, SW_ENOMEM, "plug-in %s: no memory", d->path);
	d->n++;
	d->hash = sw_mix64(d->hash ^ lib->content_hash);
	return SW_OK;
}

static int hash_new_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct deps *d = data;

	(void)size;
	if (d->st != SW_OK || !info->dlpi_name[0] || info->dlpi_addr == d->self ||
	    was_loaded(d->before, info->dlpi_addr) || sw_plugin_system_library(info->dlpi_name))
		return 0;
	d->st = add_lib(d, info->dlpi_name);
	return d->st != SW_OK;
}

/* What loading h added to the process besides the plug-in, into info's
 * libs and deps_hash: the ranks compare it, and a result file records it,
 * so a library that differs on one rank, or in a later session, is seen. */
static enum sw_status find_libraries(void *h, const struct objects *before, const char *path,
				     struct sw_plugin_info *info, struct sw_err *err)
{
	struct link_map *lm = NULL;
	struct deps d = { .before = before, .path = path, .owner = n_plugins, .err = err };

	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
		return sw_fail(err, SW_EINVAL,
			       "plug-in %s: the loader does not say where it is: %s", path,
			       dlerror());
	d.self = lm->l_addr;
	dl_iterate_phdr(hash_new_object, &d);
	if (d.st != SW_OK) {
		free_libs(d.libs, d.n);
		return d.st;
	}
	info->libs = d.libs;
	info->n_libs = d.n;
	info->deps_hash = d.hash;
	return SW_OK;
}

/* The loaded plug-in of this real path and content, or NULL. */
static const struct sw_plugin_info *already_loaded(const char *real, uint64_t hash)
{
	for (int i = 0; i < n_plugins; i++)
		if (!strcmp(plugins[i].path, real) && plugins[i].content_hash == hash)
			return &plugins[i];
	return NULL;
}

const struct sw_plugin_info *sw_plugin_find_content(uint64_t content_hash)
{
	for (int i = 0; i < n_plugins; i++)
		if (plugins[i].content_hash == content_hash)
			return &plugins[i];
	return NULL;
}

/* sw_plugin_load; *loaded: the plug-in path is (new, or loaded before). */
static enum sw_status load(const char *path, const struct sw_plugin_info **loaded,
			   struct sw_err *err)
{
	char real[PATH_MAX];
	const struct sw_plugin *p;
	struct sw_plugin_info *info = &plugins[n_plugins];
	struct objects before = { 0 };
	uint64_t hash = 0;
	enum sw_status st;
	void *h;

	st = check_file(path, real, &hash, err);
	if (st != SW_OK || (*loaded = already_loaded(real, hash)) != NULL)
		return st;
	if (n_plugins == SW_MAX_PLUGINS)
		return sw_fail(err, SW_EINVAL, "plug-in %s: more than %d plug-ins", path,
			       SW_MAX_PLUGINS);
	dl_iterate_phdr(note_object, &before);
	if (before.oom) {
		free(before.base);
		return sw_fail(err, SW_ENOMEM, "plug-in %s: no memory to load it", path);
	}
	/* RTLD_NOW: an unresolved symbol fails here, not in the middle of a run. */
	h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		free(before.base);
		return sw_fail(err, SW_EINVAL, "plug-in %s: cannot load: %s", path, dlerror());
	}
	memset(info, 0, sizeof *info);
	st = find_libraries(h, &before, path, info, err);
	free(before.base);
	if (st != SW_OK)
		goto fail;
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
	snprintf(info->path, sizeof info->path, "%s", real);
	snprintf(info->name, sizeof info->name, "%s", strrchr(real, '/') + 1);
	info->content_hash = hash;
	info->first_family = sw_family_count() - p->n_families;
	info->n_families = p->n_families;
	handles[n_plugins++] = h;
	*loaded = info;
	return SW_OK;
fail:
	free_libs(info->libs, info->n_libs);
	memset(info, 0, sizeof *info);
	dlclose(h);
	return st;
}

enum sw_status sw_plugin_load(const char *path, struct sw_err *err)
{
	const struct sw_plugin_info *loaded;

	return load(path, &loaded, err);
}

/* path beside the job file job_path (path itself when absolute, or when
 * job_path has no directory) into full. */
static enum sw_status beside(const char *job_path, const char *path, char *full, size_t len,
			     struct sw_err *err)
{
	const char *slash = job_path ? strrchr(job_path, '/') : NULL;
	int n = path[0] == '/' || !slash
			? snprintf(full, len, "%s", path)
			: snprintf(full, len, "%.*s/%s", (int)(slash - job_path), job_path, path);

	if (n < 0 || (size_t)n >= len)
		return sw_fail(err, SW_EINVAL, "plug-in %s: the path is too long", path);
	return SW_OK;
}

/* A stored job's entry, as its file records it: the plug-in of that
 * content this run loaded, and nothing else. Nothing is loaded for it: a
 * plug-in the run does not load has no family the run's plan names, so
 * loading it could only run code no job of this run asked for. What the
 * recorded file is now says why none matches. */
static enum sw_status find_recorded(const char *entry, const struct sw_plugin_ref *rec,
				    const struct sw_plugin_info **loaded, struct sw_err *err)
{
	char real[PATH_MAX], why[160] = "";
	uint64_t hash = 0;
	struct sw_err e = { 0 };

	if ((*loaded = sw_plugin_find_content(rec->content_hash)) != NULL)
		return SW_OK;
	if (access(rec->path, F_OK) != 0)
		snprintf(why, sizeof why, ", which is gone (%s),", strerror(errno));
	else if (check_file(rec->path, real, &hash, &e) != SW_OK || hash != rec->content_hash)
		snprintf(why, sizeof why, ", which holds another file now,");
	return sw_fail(err, SW_EINVAL,
		       "its job's plug-in %s was %s%s and this run loads no plug-in of its "
		       "content",
		       entry, rec->path, why);
}

/* A stored job's entry in a file that records none: only a plug-in this run
 * loaded, found beside the job it was given; nothing new is loaded. */
static enum sw_status find_unrecorded(const char *job_path, const char *entry,
				      const struct sw_plugin_info **loaded, struct sw_err *err)
{
	char full[PATH_MAX], real[PATH_MAX];
	enum sw_status st = beside(job_path, entry, full, sizeof full, err);

	if (st)
		return st;
	*loaded = NULL;
	if (realpath(full, real))
		for (int i = 0; i < n_plugins && !*loaded; i++)
			if (!strcmp(plugins[i].path, real))
				*loaded = &plugins[i];
	if (*loaded)
		return SW_OK;
	return sw_fail(err, SW_EINVAL,
		       "its job's plug-in %s is not recorded in it (a file of schema 6 or older "
		       "records no plug-in paths), and beside this run's job, as %s, it is no "
		       "plug-in this run loads",
		       entry, full);
}

enum sw_status sw_plugin_load_entry(struct sw_plugin_where *w, int i, const char *entry,
				    struct sw_plugin_ref *ref, struct sw_err *err)
{
	const struct sw_plugin_info *loaded = NULL;
	enum sw_status st;

	ref->path = NULL;
	ref->content_hash = 0;
	if (!w->stored) {
		char full[PATH_MAX];

		st = beside(w->job_path, entry, full, sizeof full, err);
		if (st == SW_OK)
			st = load(full, &loaded, err);
	} else if (w->n_recorded < 0) {
		st = find_unrecorded(w->job_path, entry, &loaded, err);
		w->failed |= st != SW_OK;
	} else if (i < w->n_recorded) {
		st = find_recorded(entry, &w->recorded[i], &loaded, err);
		w->failed |= st != SW_OK;
	} else { /* parse_plugins compares the counts first */
		st = sw_fail(err, SW_EINVAL, "plug-in %s: not recorded in the file", entry);
	}
	if (st != SW_OK)
		return st;
	ref->path = strdup(loaded->path);
	ref->content_hash = loaded->content_hash;
	return ref->path ? SW_OK : sw_fail(err, SW_ENOMEM, "plug-in %s: out of memory", entry);
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
		d = sw_mix64(d ^ plugins[i].deps_hash);
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
	for (int i = n_plugins - 1; i >= 0; i--) {
		dlclose(handles[i]);
		free_libs(plugins[i].libs, plugins[i].n_libs);
		memset(&plugins[i], 0, sizeof plugins[i]);
	}
	n_plugins = 0;
}
