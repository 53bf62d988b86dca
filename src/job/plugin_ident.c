/*
 * The identity of a run's plug-ins (plugin_ident.h): the system set, by
 * file name; the comparison of two identities, by content; and their bytes
 * for another rank. The libraries themselves are found and hashed as each
 * plug-in loads (plugin.c); a result file's record is h5plugins.c's.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "job/plugin_ident.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file names of the system set (plugin_ident.h says why). */
static const char *const system_set[] = {
	/* the C library and its loader */
	"ld-linux*.so*", "ld64.so*", "libc.so*", "libm.so*", "libmvec.so*", "libpthread.so*",
	"libdl.so*", "librt.so*", "libutil.so*", "libresolv.so*", "libanl.so*", "libnsl.so*",
	"libnss_*.so*", "libthread_db.so*", "libBrokenLocale.so*", "libc_malloc_debug.so*",
	/* the CUDA driver, and the libraries it loads */
	"libcuda.so*", "libnvidia-*.so*", "libcudadebugger.so*",
	/* the CUDA runtime */
	"libcudart.so*"
};

/* A packed identity holds no more than this many libraries. */
#define MAX_LIBS 65536

static const char *file_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int sw_plugin_system_library(const char *path)
{
	const char *name = file_name(path);

	for (size_t i = 0; i < sizeof system_set / sizeof system_set[0]; i++)
		if (fnmatch(system_set[i], name, 0) == 0)
			return 1;
	return 0;
}

void sw_plugin_ident_fini(struct sw_plugin_ident *id)
{
	for (int i = 0; id->plugins && i < id->n_plugins; i++)
		free(id->plugins[i].path);
	for (int i = 0; id->libs && i < id->n_libs; i++)
		free(id->libs[i].path);
	free(id->plugins);
	free(id->libs);
	memset(id, 0, sizeof *id);
}

/* id with room for n plug-ins and m libraries, their paths unset. A count
 * outside what an identity holds (a negative one, or more libraries than a
 * packed identity carries) is refused here, before it becomes a size. */
static enum sw_status make_room(struct sw_plugin_ident *id, int n, int m, struct sw_err *err)
{
	memset(id, 0, sizeof *id);
	if (n < 0 || n > SW_MAX_PLUGINS || m < 0 || m > MAX_LIBS)
		return sw_fail(err, SW_EINVAL,
			       "%d plug-ins with %d libraries: an identity holds 0 to %d plug-ins "
			       "and 0 to %d libraries",
			       n, m, SW_MAX_PLUGINS, MAX_LIBS);
	id->plugins = calloc(n ? (size_t)n : 1, sizeof *id->plugins);
	id->libs = calloc(m ? (size_t)m : 1, sizeof *id->libs);
	if (!id->plugins || !id->libs) {
		sw_plugin_ident_fini(id);
		return sw_fail(err, SW_ENOMEM, "no memory for the plug-ins' identity");
	}
	id->n_plugins = n;
	id->n_libs = m;
	return SW_OK;
}

enum sw_status sw_plugin_ident_loaded(struct sw_plugin_ident *id, struct sw_err *err)
{
	int n = sw_plugin_count(), m = 0, k = 0, bad = 0;
	enum sw_status st;

	for (int i = 0; i < n; i++)
		m += sw_plugin_at(i)->n_libs;
	if ((st = make_room(id, n, m, err)) != SW_OK)
		return st;
	for (int i = 0; i < n; i++) {
		const struct sw_plugin_info *p = sw_plugin_at(i);

		id->plugins[i].path = strdup(p->path);
		id->plugins[i].content_hash = p->content_hash;
		bad |= !id->plugins[i].path;
		for (int j = 0; j < p->n_libs; j++, k++) {
			id->libs[k] = p->libs[j];
			id->libs[k].path = strdup(p->libs[j].path);
			bad |= !id->libs[k].path;
		}
	}
	if (!bad)
		return SW_OK;
	sw_plugin_ident_fini(id);
	return sw_fail(err, SW_ENOMEM, "no memory for the plug-ins' identity");
}

/* ---- comparing ----------------------------------------------------------- */

static const struct sw_plugin_ref *find_plugin(const struct sw_plugin_ident *id, uint64_t hash)
{
	for (int i = 0; i < id->n_plugins; i++)
		if (id->plugins[i].content_hash == hash)
			return &id->plugins[i];
	return NULL;
}

/* The library of id named as lib is (its file name), of lib's content
 * when there is one, else of another; NULL when none has that name. */
static const struct sw_plugin_lib *find_lib(const struct sw_plugin_ident *id,
					    const struct sw_plugin_lib *lib)
{
	const struct sw_plugin_lib *named = NULL;

	for (int i = 0; i < id->n_libs; i++) {
		if (strcmp(file_name(id->libs[i].path), file_name(lib->path)) != 0)
			continue;
		if (id->libs[i].content_hash == lib->content_hash)
			return &id->libs[i];
		named = named ? named : &id->libs[i];
	}
	return named;
}

/* The file name of the plug-in that brought lib in. */
static const char *owner_name(const struct sw_plugin_ident *id, const struct sw_plugin_lib *lib)
{
	if (lib->owner < 0 || lib->owner >= id->n_plugins)
		return "?";
	return file_name(id->plugins[lib->owner].path);
}

/* "/a/libx.so (content 0123...)", or "none of that name". */
static void lib_words(const struct sw_plugin_lib *lib, char *buf, size_t len)
{
	if (lib)
		snprintf(buf, len, "%s (content %016" PRIx64 ")", lib->path, lib->content_hash);
	else
		snprintf(buf, len, "none of that name");
}

/* A library the two sides hold differently (was_lib or now_lib NULL: that
 * side has none of its name), named after lib, brought in by a plug-in of
 * owners. */
static void say_lib(const struct sw_plugin_ident *owners, const struct sw_plugin_lib *lib,
		    const struct sw_plugin_lib *was_lib, const struct sw_plugin_lib *now_lib,
		    const char *was_words, const char *now_words, char *say, size_t len)
{
	char was[320], now[320];

	lib_words(was_lib, was, sizeof was);
	lib_words(now_lib, now, sizeof now);
	snprintf(say, len, "the library %s of the plug-in %s: %s %s, %s %s", file_name(lib->path),
		 owner_name(owners, lib), was_words, was, now_words, now);
}

int sw_plugin_ident_differ(const struct sw_plugin_ident *was, const struct sw_plugin_ident *now,
			   const char *was_words, const char *now_words, char *say, size_t len)
{
	for (int i = 0; i < was->n_plugins; i++)
		if (!find_plugin(now, was->plugins[i].content_hash)) {
			snprintf(say, len,
				 "%s the plug-in %s (content %016" PRIx64 "), %s none of "
				 "that content",
				 was_words, was->plugins[i].path, was->plugins[i].content_hash,
				 now_words);
			return 1;
		}
	for (int i = 0; i < was->n_libs; i++) {
		const struct sw_plugin_lib *l = &was->libs[i], *there = find_lib(now, l);

		if (!there || there->content_hash != l->content_hash) {
			say_lib(was, l, l, there, was_words, now_words, say, len);
			return 1;
		}
	}
	for (int i = 0; i < now->n_libs; i++) {
		const struct sw_plugin_lib *l = &now->libs[i], *there;

		/* a plug-in was did not load: its libraries are new with it */
		if (l->owner < 0 || l->owner >= now->n_plugins ||
		    !find_plugin(was, now->plugins[l->owner].content_hash))
			continue;
		there = find_lib(was, l);
		if (!there || there->content_hash != l->content_hash) {
			say_lib(now, l, there, l, was_words, now_words, say, len);
			return 1;
		}
	}
	if (len)
		say[0] = 0;
	return 0;
}

/* ---- bytes for another rank ---------------------------------------------- */

/* A growing buffer; oom once an append failed. */
struct bytes {
	char *p;
	size_t n, cap;
	int oom;
};

static void put(struct bytes *b, const void *v, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		while (cap < b->n + n)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}

static void put_entry(struct bytes *b, uint64_t hash, int32_t owner, const char *path)
{
	uint32_t len = (uint32_t)strlen(path);

	put(b, &hash, sizeof hash);
	put(b, &owner, sizeof owner);
	put(b, &len, sizeof len);
	put(b, path, len);
}

enum sw_status sw_plugin_ident_pack(const struct sw_plugin_ident *id, char **buf, size_t *len,
				    struct sw_err *err)
{
	struct bytes b = { 0 };
	int32_t counts[2] = { id->n_plugins, id->n_libs };

	put(&b, counts, sizeof counts);
	for (int i = 0; i < id->n_plugins; i++)
		put_entry(&b, id->plugins[i].content_hash, -1, id->plugins[i].path);
	for (int i = 0; i < id->n_libs; i++)
		put_entry(&b, id->libs[i].content_hash, id->libs[i].owner, id->libs[i].path);
	if (b.oom) {
		free(b.p);
		*buf = NULL;
		*len = 0;
		return sw_fail(err, SW_ENOMEM, "no memory for the plug-ins' identity");
	}
	*buf = b.p;
	*len = b.n;
	return SW_OK;
}

/* Takes n bytes at *at into v; 0 when buf has fewer left. */
static int take(const char *buf, size_t len, size_t *at, void *v, size_t n)
{
	if (len - *at < n)
		return 0;
	memcpy(v, buf + *at, n);
	*at += n;
	return 1;
}

/* One entry into its hash, owner and a malloc'd copy of its path. */
static int take_entry(const char *buf, size_t len, size_t *at, uint64_t *hash, int32_t *owner,
		      char **path)
{
	uint32_t n;

	if (!take(buf, len, at, hash, sizeof *hash) || !take(buf, len, at, owner, sizeof *owner) ||
	    !take(buf, len, at, &n, sizeof n) || len - *at < n || !(*path = malloc(n + 1)))
		return 0;
	memcpy(*path, buf + *at, n);
	(*path)[n] = 0;
	*at += n;
	return 1;
}

enum sw_status sw_plugin_ident_unpack(const char *buf, size_t len, struct sw_plugin_ident *id,
				      struct sw_err *err)
{
	int32_t counts[2], owner;
	size_t at = 0;
	int ok;
	enum sw_status st;

	memset(id, 0, sizeof *id);
	if (!take(buf, len, &at, counts, sizeof counts) || counts[0] < 0 ||
	    counts[0] > SW_MAX_PLUGINS || counts[1] < 0 || counts[1] > MAX_LIBS)
		return sw_fail(err, SW_EINVAL, "not a packed plug-in identity");
	if ((st = make_room(id, counts[0], counts[1], err)) != SW_OK)
		return st;
	ok = 1;
	for (int i = 0; ok && i < id->n_plugins; i++)
		ok = take_entry(buf, len, &at, &id->plugins[i].content_hash, &owner,
				&id->plugins[i].path);
	for (int i = 0; ok && i < id->n_libs; i++) {
		ok = take_entry(buf, len, &at, &id->libs[i].content_hash, &owner,
				&id->libs[i].path);
		id->libs[i].owner = owner;
		ok = ok && owner >= 0 && owner < id->n_plugins;
	}
	if (ok && at == len)
		return SW_OK;
	sw_plugin_ident_fini(id);
	return sw_fail(err, SW_EINVAL, "not a packed plug-in identity");
}
