/*
 * The identity of a file's plug-ins (docs/hdf5-schema.md, schema 8): every
 * plug-in the run that made the file loaded, --plugin and plugins: alike,
 * and the libraries their loading brought in, each by path and content
 * (plugin_ident.h). A --resume or --extend runs only with that code: every
 * check names what differs. Rank 0 only, inside the writer.
 */
#ifndef SW_H5PLUGINS_H
#define SW_H5PLUGINS_H

#include <hdf5.h>

#include "core/status.h"
#include "job/plugin_ident.h"

/* Writes this process's plug-in identity (sw_plugin_ident_loaded) as the
 * root attributes plugin_loaded_paths, plugin_loaded_hashes and, where
 * they brought libraries in, plugin_libraries, plugin_library_hashes and
 * plugin_library_owners; with no plug-in loaded, removes them. SW_EHDF5,
 * SW_ENOMEM. */
enum sw_status sw_h5plugins_put(hid_t file, struct sw_err *err);

/* The file's record into *id (sw_plugin_ident_fini frees it); *known 0 for
 * a file older than schema 8 that records none (its plug-ins are unknown,
 * not none). SW_EINVAL, naming path, when the attributes are not a record
 * sweep wrote (lengths, types, an owner that is no recorded plug-in). */
enum sw_status sw_h5plugins_get(hid_t file, const char *path, struct sw_plugin_ident *id,
				int *known, struct sw_err *err);

/* --resume and --extend: SW_EINVAL, naming the first plug-in or library
 * that differs, unless this run loaded every plug-in the file records and
 * the libraries they bring in are the file's, by content (extra plug-ins
 * are fine: an --extend may add one). A file that records none passes. */
enum sw_status sw_h5plugins_check(hid_t file, const char *path, struct sw_err *err);

#endif
