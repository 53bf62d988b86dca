/*
 * The plug-in identity a result file records (h5plugins.h), and the check
 * a --resume or --extend makes against it: every plug-in the file's rows
 * were measured with, and every library those brought in, by content. A
 * job's `plugins:` entries are a record of their own (h5extend.c), for
 * reading the file's job again. Also what a resume whose job does not
 * parse is told when the file names a plug-in this run did not load.
 */
#include "h5/h5plugins.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5/h5internal.h"

#define LOADED_PATHS  "plugin_loaded_paths"
#define LOADED_HASHES "plugin_loaded_hashes"
#define LIBS          "plugin_libraries"
#define LIB_HASHES    "plugin_library_hashes"
#define LIB_OWNERS    "plugin_library_owners"

static const char *const names[] = { LOADED_PATHS, LOADED_HASHES, LIBS, LIB_HASHES, LIB_OWNERS };

/* Removes the attributes names[from..] that exist. */
static enum sw_status remove_from(hid_t file, int from, struct sw_err *err)
{
	for (size_t i = (size_t)from; i < sizeof names / sizeof names[0]; i++) {
		htri_t has = H5Aexists(file, names[i]);

		if (has < 0 || (has && H5Adelete(file, names[i]) < 0))
			return sw_h5_fail(err, SW_EHDF5, "cannot remove attribute %s", names[i]);
	}
	return SW_OK;
}

/* The libraries of id as three lists; an owner is its plug-in's content
 * hash, which no load order changes. */
static enum sw_status put_libs(hid_t file, const struct sw_plugin_ident *id, struct sw_err *err)
{
	size_t m = (size_t)id->n_libs;
	const char **paths = malloc(m * sizeof *paths);
	uint64_t *hashes = malloc(m * sizeof *hashes), *owners = malloc(m * sizeof *owners);
	enum sw_status st = SW_OK;

	if (!paths || !hashes || !owners)
		st = sw_fail(err, SW_ENOMEM, "out of memory for the plug-in record");
	for (size_t i = 0; st == SW_OK && i < m; i++) {
		paths[i] = id->libs[i].path;
		hashes[i] = id->libs[i].content_hash;
		owners[i] = id->plugins[id->libs[i].owner].content_hash;
	}
	if (st == SW_OK && (st = sw_h5_put_str_list(file, LIBS, paths, m, err)) == SW_OK &&
	    (st = sw_h5_put_u64_list(file, LIB_HASHES, hashes, m, err)) == SW_OK)
		st = sw_h5_put_u64_list(file, LIB_OWNERS, owners, m, err);
	free(paths);
	free(hashes);
	free(owners);
	return st;
}

enum sw_status sw_h5plugins_put(hid_t file, struct sw_err *err)
{
	struct sw_plugin_ident id;
	size_t n;
	const char **paths;
	uint64_t *hashes;
	enum sw_status st = sw_plugin_ident_loaded(&id, err);

	if (st != SW_OK)
		return st;
	n = (size_t)id.n_plugins;
	paths = malloc((n ? n : 1) * sizeof *paths);
	hashes = malloc((n ? n : 1) * sizeof *hashes);
	if (!paths || !hashes)
		st = sw_fail(err, SW_ENOMEM, "out of memory for the plug-in record");
	for (size_t i = 0; st == SW_OK && i < n; i++) {
		paths[i] = id.plugins[i].path;
		hashes[i] = id.plugins[i].content_hash;
	}
	/* none: no attributes, which a file of schema 8 on reads as none */
	if (st == SW_OK && n &&
	    (st = sw_h5_put_str_list(file, LOADED_PATHS, paths, n, err)) == SW_OK)
		st = sw_h5_put_u64_list(file, LOADED_HASHES, hashes, n, err);
	if (st == SW_OK)
		st = id.n_libs ? put_libs(file, &id, err) : remove_from(file, n ? 2 : 0, err);
	free(paths);
	free(hashes);
	sw_plugin_ident_fini(&id);
	return st;
}

/* ---- reading it back --------------------------------------------------- */

/* The five lists as the file holds them. */
struct lists {
	char **paths, **libs;
	uint64_t *hashes, *lib_hashes, *owners;
	size_t n_paths, n_libs, n_hashes, n_lib_hashes, n_owners;
};

static void lists_fini(struct lists *l)
{
	sw_h5_str_list_fini(l->paths, l->n_paths);
	sw_h5_str_list_fini(l->libs, l->n_libs);
	free(l->hashes);
	free(l->lib_hashes);
	free(l->owners);
}

static enum sw_status read_lists(hid_t file, struct lists *l, struct sw_err *err)
{
	enum sw_status st;

	memset(l, 0, sizeof *l);
	if ((st = sw_h5_get_str_list(file, LOADED_PATHS, &l->paths, &l->n_paths, err)) ||
	    (st = sw_h5_get_u64_list(file, LOADED_HASHES, &l->hashes, &l->n_hashes, err)) ||
	    (st = sw_h5_get_str_list(file, LIBS, &l->libs, &l->n_libs, err)) ||
	    (st = sw_h5_get_u64_list(file, LIB_HASHES, &l->lib_hashes, &l->n_lib_hashes, err)))
		return st;
	return sw_h5_get_u64_list(file, LIB_OWNERS, &l->owners, &l->n_owners, err);
}

/* What makes l no record sweep wrote, into why; 0 when it is one. */
static int damage(const struct lists *l, char *why, size_t len)
{
	if (l->n_paths != l->n_hashes || l->n_paths > SW_MAX_PLUGINS)
		snprintf(why, len, "%zu plug-in paths and %zu hashes (at most %d)", l->n_paths,
			 l->n_hashes, SW_MAX_PLUGINS);
	else if (l->n_libs != l->n_lib_hashes || l->n_libs != l->n_owners)
		snprintf(why, len, "%zu library paths, %zu hashes and %zu owners", l->n_libs,
			 l->n_lib_hashes, l->n_owners);
	else
		for (size_t i = 0; i < l->n_libs; i++) {
			size_t k = 0;

			while (k < l->n_paths && l->hashes[k] != l->owners[i])
				k++;
			if (k == l->n_paths) {
				snprintf(why, len, "library %zu's owner is no plug-in it records",
					 i);
				return 1;
			}
		}
	return why[0] != 0;
}

/* l into id, its lists taken over. */
static void take_lists(struct lists *l, struct sw_plugin_ident *id)
{
	for (size_t i = 0; i < l->n_paths; i++) {
		id->plugins[i].path = l->paths[i];
		id->plugins[i].content_hash = l->hashes[i];
		l->paths[i] = NULL;
	}
	for (size_t i = 0; i < l->n_libs; i++) {
		int k = 0;

		while (l->hashes[k] != l->owners[i]) /* damage() found one */
			k++;
		id->libs[i].path = l->libs[i];
		id->libs[i].content_hash = l->lib_hashes[i];
		id->libs[i].owner = k;
		l->libs[i] = NULL;
	}
}

enum sw_status sw_h5plugins_get(hid_t file, const char *path, struct sw_plugin_ident *id,
				int *known, struct sw_err *err)
{
	struct lists l;
	char why[160] = "";
	int schema = 0;
	enum sw_status st = read_lists(file, &l, err);

	memset(id, 0, sizeof *id);
	*known = 1;
	if (st == SW_EINVAL || (st == SW_OK && damage(&l, why, sizeof why)))
		st = sw_fail(err, SW_EINVAL,
			     "cannot resume %s: its record of the plug-ins it was made with (%s, "
			     "%s, %s, %s, %s) is damaged: %s; write a new file",
			     path, LOADED_PATHS, LOADED_HASHES, LIBS, LIB_HASHES, LIB_OWNERS,
			     why[0] ? why : err->msg);
	/* none at all: none loaded, or (before schema 8) not recorded */
	if (st == SW_OK && !l.paths && !l.libs &&
	    sw_h5_get_attr(file, "schema_version", H5T_NATIVE_INT, &schema) == 1 && schema < 8)
		*known = 0;
	if (st == SW_OK) {
		id->plugins = calloc(l.n_paths ? l.n_paths : 1, sizeof *id->plugins);
		id->libs = calloc(l.n_libs ? l.n_libs : 1, sizeof *id->libs);
		if (!id->plugins || !id->libs)
			st = sw_fail(err, SW_ENOMEM, "out of memory for the plug-in record");
	}
	if (st == SW_OK) {
		id->n_plugins = (int)l.n_paths;
		id->n_libs = (int)l.n_libs;
		take_lists(&l, id);
	}
	lists_fini(&l);
	if (st != SW_OK)
		sw_plugin_ident_fini(id);
	return st;
}

enum sw_status sw_h5plugins_check(hid_t file, const char *path, struct sw_err *err)
{
	struct sw_plugin_ident was, now = { 0 };
	char say[400];
	int known;
	enum sw_status st = sw_h5plugins_get(file, path, &was, &known, err);

	if (st == SW_OK && known && (st = sw_plugin_ident_loaded(&now, err)) == SW_OK &&
	    sw_plugin_ident_differ(&was, &now, "the file was made with", "this run loads", say,
				   sizeof say))
		st = sw_fail(err, SW_EINVAL,
			     "cannot resume %s: %s; rows measured with other code would disagree "
			     "with its rows: load the same plug-ins and libraries, or write a new "
			     "file",
			     path, say);
	sw_plugin_ident_fini(&was);
	sw_plugin_ident_fini(&now);
	return st;
}

/* ---- a resume whose job sweep could not read --------------------------- */

enum sw_status sw_h5_explain_plugins(const char *path, int extend, enum sw_status st,
				     struct sw_err *err)
{
	struct sw_plugin_ident was = { 0 };
	struct sw_err quiet = { 0 };
	char first[512];
	const char *missing = NULL;
	uint64_t hash = 0;
	int known = 0;
	hid_t file;

	if (!path || !err || sw_h5_open_read(path, "cannot read", &file, &quiet) != SW_OK)
		return st;
	if (sw_h5plugins_get(file, path, &was, &known, &quiet) == SW_OK)
		for (int i = 0; !missing && i < was.n_plugins; i++)
			if (!sw_plugin_find_content(was.plugins[i].content_hash)) {
				missing = was.plugins[i].path;
				hash = was.plugins[i].content_hash;
			}
	H5Fclose(file);
	if (missing) {
		snprintf(first, sizeof first, "%s", err->msg);
		sw_fail(err, st,
			"cannot %s %s: it was made with the plug-in %s (content %016" PRIx64 "), "
			"which this run does not load, and sweep loads none on a file's word: give "
			"it with --plugin %s or the job's plugins: (%s)",
			extend ? "extend" : "resume", path, missing, hash, missing, first);
	}
	sw_plugin_ident_fini(&was);
	return st;
}
