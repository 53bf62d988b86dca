/* The backends --backend can name: the table of backend_list.h. */
#include "backend/backend.h"

#include <string.h>

static const struct sw_backend *const backends[] = {
#define X(name, arg, about) &sw_backend_##name,
#include "core/backend_list.h"
#undef X
};

const struct sw_backend *sw_backend_find(const char *name)
{
	for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}
