/* FNV-1a 64 (hash.h). */
#include "core/hash.h"

#include <string.h>
#include <unistd.h>

#include "core/safe_open.h"

#define FNV1A_PRIME UINT64_C(0x100000001b3)

uint64_t sw_fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * FNV1A_PRIME;
	return h;
}

uint64_t sw_fnv1a_str(const char *s)
{
	return sw_fnv1a(SW_FNV1A_OFFSET, s, strlen(s));
}

uint64_t sw_file_hash(const char *path)
{
	unsigned char buf[65536];
	ssize_t got;
	uint64_t h = SW_FNV1A_OFFSET;
	int fd = sw_safe_open_read(path, NULL);
	if (fd < 0)
		return 0;
	while ((got = read(fd, buf, sizeof buf)) > 0)
		h = sw_fnv1a(h, buf, (size_t)got);
	close(fd);
	return got < 0 ? 0 : h;
}
