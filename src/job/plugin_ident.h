/*
 * What a run's plug-ins are, by content: every plug-in it loaded and the
 * libraries their loading brought in. Two runs (a file's first session and
 * its --resume, or two ranks) that differ here measure with other code, so
 * their rows of one point could disagree. This module says which libraries
 * count, compares two identities and names the first difference, and packs
 * one for a message between ranks. Pure: never prints, loads nothing.
 */
#ifndef SW_PLUGIN_IDENT_H
#define SW_PLUGIN_IDENT_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "job/plugin.h"

/* Every plug-in (path, content hash) in load order, and the libraries
 * their loading brought in, each with its owner's index in plugins. */
struct sw_plugin_ident {
	struct sw_plugin_ref *plugins; /* owned, with their paths */
	int n_plugins;
	struct sw_plugin_lib *libs; /* owned, with their paths */
	int n_libs;
};

/* Nonzero when the library at path (its file name decides) is of the
 * system set, which is not part of a plug-in's identity: the C library and
 * its loader (glibc's ld-linux*, libc, libm, libmvec, libpthread, libdl,
 * librt, libutil, libresolv, libanl, libnsl, libnss_*, libthread_db,
 * libBrokenLocale, libc_malloc_debug), the CUDA driver (libcuda.so*, the
 * libnvidia-*.so* it loads, libcudadebugger) and the CUDA runtime
 * (libcudart.so*). They are the machine's: /devices records the driver and
 * runtime versions of every session, and a node's C library is not code a
 * plug-in brings. Every other library a plug-in's dlopen adds counts. */
int sw_plugin_system_library(const char *path);

/* The identity of the plug-ins this process loaded (plugin.h's registry),
 * into *id (sw_plugin_ident_fini frees it). SW_ENOMEM. */
enum sw_status sw_plugin_ident_loaded(struct sw_plugin_ident *id, struct sw_err *err);

/* Frees what id owns and zeroes it; a zeroed id is fine. */
void sw_plugin_ident_fini(struct sw_plugin_ident *id);

/* Whether now runs the code was ran with: 0 when every plug-in of was is
 * in now (by content), every library of was is in now (by file name and
 * content), and every library that now's plug-ins of was's content brought
 * in is in was; which plug-in brought a library in does not count, so the
 * load order does not either. Plug-ins now has beyond was's, and their
 * libraries, are not compared. Else 1, and say holds the first difference,
 * each side named by its words ("the file was made with", "this run
 * loads"): "the library libx.so of the plug-in p.so: the file was made with
 * /a/libx.so (content 0123...), this run loads /b/libx.so (content 4567...)".
 * Compare both ways for two sets that must be the same. */
int sw_plugin_ident_differ(const struct sw_plugin_ident *was, const struct sw_plugin_ident *now,
			   const char *was_words, const char *now_words, char *say, size_t len);

/* id as bytes, to send to another rank (*buf malloc'd, *len bytes), and
 * back (into a zeroed *id). unpack: SW_EINVAL when buf is not a whole
 * packed identity. SW_ENOMEM. */
enum sw_status sw_plugin_ident_pack(const struct sw_plugin_ident *id, char **buf, size_t *len,
				    struct sw_err *err);
enum sw_status sw_plugin_ident_unpack(const char *buf, size_t len, struct sw_plugin_ident *id,
				      struct sw_err *err);

#endif
