/*
 * FNV-1a 64, the one hash of sweep's ids, fingerprints and file hashes:
 * point ids and plan fingerprints (job/plan.c), class hashes (run/place.c),
 * the ranks' agreement digests (run/agree.c), and the bytes of the files a
 * run reads (recordings, calibration and transfer files). The values are
 * written into result files: the function may never change.
 */
#ifndef SW_HASH_H
#define SW_HASH_H

#include <stddef.h>
#include <stdint.h>

#define SW_FNV1A_OFFSET UINT64_C(0xcbf29ce484222325)

/* h extended by the len bytes at data; start from SW_FNV1A_OFFSET. */
uint64_t sw_fnv1a(uint64_t h, const void *data, size_t len);

/* The hash of a string's bytes (without its NUL), from the offset. */
uint64_t sw_fnv1a_str(const char *s);

/* The hash of path's bytes, read as sw_safe_open_read opens (a FIFO or a
 * device is no file); 0 when it cannot be read. */
uint64_t sw_file_hash(const char *path);

#endif
