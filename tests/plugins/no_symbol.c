/* A shared object that is no plug-in: it exports no `sweep_plugin`
 * (tests/test_bad_input.c, row P03). */
int sw_test_not_a_plugin(void);

__attribute__((visibility("default"))) int sw_test_not_a_plugin(void)
{
	return 1;
}
