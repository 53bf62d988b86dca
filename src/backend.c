/* The backends --backend can name, in the order `auto` tries them. */
#include "backend.h"

#include <string.h>

static const struct sw_backend *const backends[] = { &sw_backend_cuda, &sw_backend_model,
						     &sw_backend_replay };

const struct sw_backend *sw_backend_find(const char *name)
{
	for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}
