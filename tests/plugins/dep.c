/* A library a test plug-in links (plugin_hostile_dep, found beside it by
 * its $ORIGIN run path), built twice with another SW_DEP_VALUE: the same
 * plug-in file measures differently on a rank that has the other build
 * (tests/test_bad_input.c, row P33). */
int sw_test_dep_value(void);

__attribute__((visibility("default"))) int sw_test_dep_value(void)
{
	return SW_DEP_VALUE;
}
