/* The backend list (src/core/backend_list.h): every name --backend accepts finds
 * its table entry by that name, with the hooks every backend must have,
 * and parses as --backend NAME (or NAME=ARG). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check_run.h"
#include "job/cli.h"

static const struct {
	const char *name, *arg;
} listed[] = {
#define X(name, arg, about) { #name, arg },
#include "core/backend_list.h"
#undef X
};

START_TEST(test_every_listed_backend)
{
	for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++) {
		const struct sw_backend *b = sw_backend_find(listed[i].name);
		ck_assert_msg(b, "%s is listed but not in the table", listed[i].name);
		ck_assert_str_eq(b->name, listed[i].name);
		ck_assert_msg(b->open && b->run && b->close && b->about, "%s lacks a hook",
			      b->name);

		char arg[64];
		snprintf(arg, sizeof arg, "%s%s%s", listed[i].name, listed[i].arg ? "=" : "",
			 listed[i].arg ? "x" : "");
		char *argv[] = { "sweep", "--backend", arg, "job.yaml", NULL };
		struct sw_options o;
		struct sw_err err = { 0 };
		ck_assert_msg(sw_cli_parse(4, argv, &o, &err) == SW_OK, "%s", err.msg);
		ck_assert_str_eq(sw_cli_backend_name(&o), listed[i].name);
		sw_cli_fini(&o);
	}
	ck_assert_ptr_null(sw_backend_find("auto")); /* a choice, not a backend */
	ck_assert_ptr_null(sw_backend_find("gpu"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("backend");
	TCase *tc = tcase_create("list");
	tcase_add_test(tc, test_every_listed_backend);
	suite_add_tcase(s, tc);
	return sw_check_run(s);
}
