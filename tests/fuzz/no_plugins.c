/* The fuzz targets' stand-in for src/job/plugin.c: a job's plugins: key is
 * parsed, but no file a fuzzer made up is ever opened or dlopen'ed. */
#include "job/plugin.h"

enum sw_status sw_plugin_load_from(const char *job_path, const char *path, struct sw_err *err)
{
	return sw_fail(err, SW_EINVAL, "plug-in %s: not loaded while fuzzing", path);
}
