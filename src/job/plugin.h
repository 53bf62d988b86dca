/*
 * Plug-ins: shared objects that add families at run time (--plugin, the
 * job's `plugins:`). Loading checks the file before dlopen (a regular ELF
 * file, opened without blocking), its `sweep_plugin` symbol, its API version
 * and every count, pointer, name and unit of its descriptor (plugin_check.h),
 * then appends the families to the registry. Not
 * collective: comparing ranks is the caller's (sw_plugins_digest). Never prints.
 */
#ifndef SW_PLUGIN_H
#define SW_PLUGIN_H

#include <stdint.h>

#include "core/status.h"

#define SW_MAX_PLUGINS 16

/* A library that loading a plug-in brought into the process: part of the
 * plug-in's identity, by content (plugin_ident.h says which count). */
struct sw_plugin_lib {
	char *path;            /* as the loader found it, made absolute (malloc'd) */
	uint64_t content_hash; /* of the file's bytes */
	int owner;             /* the plug-in whose loading brought it in, by load order */
};

/* One loaded plug-in, owned by this module until sw_plugin_unload_all. */
struct sw_plugin_info {
	char path[4096];       /* the resolved path that was checked and loaded */
	char name[64];         /* the file name, for messages */
	uint64_t content_hash; /* of the file's bytes */
	uint64_t deps_hash;    /* of the contents of libs, in load order */
	/* the libraries its dlopen added to the process (they were not loaded
	 * before it), those of the system set aside (sw_plugin_system_library),
	 * in the loader's order; owner is this plug-in's index */
	struct sw_plugin_lib *libs;
	int n_libs;
	int first_family; /* its families' registry indices: first .. + n_families */
	int n_families;
};

/* Loads the plug-in at path (relative to the working directory) and
 * registers its families after those already there. Loading the same file
 * again (same resolved path and content) does nothing. SW_EINVAL, naming
 * the file: missing, not a regular file, not a shared object, no
 * sweep_plugin symbol, another API version, a descriptor sweep cannot read
 * or address (plugin_check.h), a family name already registered, or
 * families the record cannot hold; nothing is registered then. A plug-in
 * whose constructor ends the process ends it here (main.c says so). */
enum sw_status sw_plugin_load(const char *path, struct sw_err *err);

/* Which plug-in file one entry of a job's `plugins:` resolved to: its real
 * path and its content hash (sw_plugin_info's). A result file records them
 * (docs/hdf5-schema.md, `plugin_paths`), so that its stored job resolves
 * to the same plug-ins wherever sweep runs. */
struct sw_plugin_ref {
	char *path; /* malloc'd */
	uint64_t content_hash;
};

/* How the entries of a job's `plugins:` resolve. A job file (stored 0):
 * beside job_path. A result file's stored job_text (stored 1): entry i is
 * recorded[i] and nothing else (n_recorded >= 0), or, in a file that
 * records none (n_recorded -1, schema 6 and older), beside job_path (the
 * job this run was given) and only to a plug-in this run loaded. */
struct sw_plugin_where {
	const char *job_path;
	int stored;
	const struct sw_plugin_ref *recorded;
	int n_recorded;
	int failed; /* out: set when an entry could not be resolved or loaded */
};

/* Entry i of a job's plugins: (its text, entry) as w says, and which
 * plug-in it is, in *ref (the caller frees ref->path). A job file's entry
 * is loaded (sw_plugin_load), a relative path taken against the directory
 * of w->job_path. A stored job's loads nothing: it is the
 * plug-in of its recorded content that this run loaded (from anywhere),
 * else SW_EINVAL naming the recorded path and saying whether that file is
 * gone or changed since; in a file that records none, the plug-in beside
 * w->job_path that this run loaded. Never looks in the working directory.
 * SW_EINVAL, SW_ENOMEM. */
enum sw_status sw_plugin_load_entry(struct sw_plugin_where *w, int i, const char *entry,
				    struct sw_plugin_ref *ref, struct sw_err *err);

/* The loaded plug-in whose content hashes to content_hash, or NULL. */
const struct sw_plugin_info *sw_plugin_find_content(uint64_t content_hash);

int sw_plugin_count(void);
const struct sw_plugin_info *sw_plugin_at(int i); /* NULL out of range */

/* A hash over every loaded plug-in's content hash, the content of the
 * libraries its loading added (its libs), and each of its family names, in
 * load order; 0 when none is loaded. Ranks that loaded the same plug-ins
 * and dependencies (by content, wherever they lie) have the same digest;
 * sw_plugin_ident_differ (plugin_ident.h) says what differs. */
uint64_t sw_plugins_digest(void);

/* Forgets every plug-in's families and closes the libraries (tests). */
void sw_plugin_unload_all(void);

#endif
