/* The fuzz targets' stand-in for src/job/plugin.c: a job's plugins: key is
 * parsed, but no file a fuzzer made up is ever opened or dlopen'ed. */
#include "job/plugin.h"

enum sw_status sw_plugin_load_entry(struct sw_plugin_where *w, int i, const char *entry,
				    struct sw_plugin_ref *ref, struct sw_err *err)
{
	(void)i;
	ref->path = NULL;
	w->failed = 1;
	return sw_fail(err, SW_EINVAL, "plug-in %s: not loaded while fuzzing", entry);
}
