/*
 * The identity of a run's plug-ins (src/job/plugin_ident.c; issue 30, cause
 * 3): which libraries are the system's, how two identities compare (by
 * content, whatever the load order, extra plug-ins allowed) and what the
 * first difference is called, and the bytes one rank sends another.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/plugin_ident.h"

START_TEST(test_system_set_by_file_name)
{
	static const char *const system[] = {
		"/lib64/ld-linux-x86-64.so.2",
		"/lib/x86_64-linux-gnu/libc.so.6",
		"libm.so.6",
		"/usr/lib/libpthread.so.0",
		"librt.so.1",
		"libdl.so.2",
		"libnss_files.so.2",
		"/usr/lib/x86_64-linux-gnu/libcuda.so.1",
		"libcuda.so",
		"libnvidia-ptxjitcompiler.so.1",
		"/usr/local/cuda/lib64/libcudart.so.12",
		"libcudart.so.13.0.48",
	};
	static const char *const counted[] = {
		"/opt/x/libswdep.so", "libcrypto.so.3", "libcublas.so.13",    "libcupti.so.13",
		"libmpi.so.40",       "libstdc++.so.6", "/opt/libc/libcx.so", "libcudnn.so.9",
		"libmagic.so.1",      "libc.so.6.d/x",  "mylibc.so.6",
	};
	for (size_t i = 0; i < sizeof system / sizeof system[0]; i++)
		ck_assert_msg(sw_plugin_system_library(system[i]), "%s", system[i]);
	for (size_t i = 0; i < sizeof counted / sizeof counted[0]; i++)
		ck_assert_msg(!sw_plugin_system_library(counted[i]), "%s", counted[i]);
}
END_TEST

/* An identity of n plug-ins a.so, b.so, ... (content 100 + i) and the
 * libraries spec names: "0:/a/libx.so=7" is /a/libx.so of content 7,
 * brought in by plug-in 0. */
static void make(struct sw_plugin_ident *id, int n, const char *const *spec)
{
	int m = 0;
	while (spec && spec[m])
		m++;
	memset(id, 0, sizeof *id);
	id->plugins = calloc((size_t)n + 1, sizeof *id->plugins);
	id->libs = calloc((size_t)m + 1, sizeof *id->libs);
	ck_assert(id->plugins && id->libs);
	id->n_plugins = n;
	id->n_libs = m;
	for (int i = 0; i < n; i++) {
		char path[32];
		snprintf(path, sizeof path, "/p/%c.so", 'a' + i);
		id->plugins[i].path = strdup(path);
		id->plugins[i].content_hash = 100 + (uint64_t)i;
	}
	for (int i = 0; i < m; i++) {
		char path[64];
		unsigned long long h;
		ck_assert(sscanf(spec[i], "%d:%63[^=]=%llu", &id->libs[i].owner, path, &h) == 3);
		id->libs[i].path = strdup(path);
		id->libs[i].content_hash = h;
	}
}

static int differ(const struct sw_plugin_ident *was, const struct sw_plugin_ident *now, char *say)
{
	return sw_plugin_ident_differ(was, now, "the file was made with", "this run loads", say,
				      400);
}

START_TEST(test_the_same_code_agrees_wherever_it_lies)
{
	static const char *const here[] = { "0:/a/libx.so=7", "1:/a/liby.so.2=8", NULL };
	/* other folders, and the other plug-in brought libx in (another load order) */
	static const char *const there[] = { "1:/b/liby.so.2=8", "0:/c/libx.so=7", NULL };
	struct sw_plugin_ident was, now;
	char say[400];

	make(&was, 2, here);
	make(&now, 2, there);
	ck_assert_msg(!differ(&was, &now, say), "%s", say);
	ck_assert_str_eq(say, "");
	/* one more plug-in, with a library of its own: an --extend may add one */
	sw_plugin_ident_fini(&now);
	static const char *const more[] = { "0:/a/libx.so=7", "1:/a/liby.so.2=8", "2:/a/libz.so=9",
					    NULL };
	make(&now, 3, more);
	ck_assert_msg(!differ(&was, &now, say), "%s", say);
	/* ... but not the other way round */
	ck_assert(differ(&now, &was, say));
	ck_assert_str_eq(say, "the file was made with the plug-in /p/c.so (content "
			      "0000000000000066), this run loads none of that content");
	sw_plugin_ident_fini(&was);
	sw_plugin_ident_fini(&now);
}
END_TEST

START_TEST(test_a_library_of_other_content_is_named)
{
	static const char *const a[] = { "0:/a/libx.so=7", NULL };
	static const char *const b[] = { "0:/b/libx.so=17", NULL };
	struct sw_plugin_ident was, now;
	char say[400];

	make(&was, 1, a);
	make(&now, 1, b);
	ck_assert(differ(&was, &now, say));
	ck_assert_str_eq(say, "the library libx.so of the plug-in a.so: the file was made with "
			      "/a/libx.so (content 0000000000000007), this run loads /b/libx.so "
			      "(content 0000000000000011)");
	sw_plugin_ident_fini(&was);
	sw_plugin_ident_fini(&now);
}
END_TEST

START_TEST(test_a_library_missing_or_new_is_named)
{
	static const char *const a[] = { "0:/a/libx.so=7", NULL };
	static const char *const none[] = { NULL };
	struct sw_plugin_ident was, now;
	char say[400];

	make(&was, 1, a);
	make(&now, 1, none);
	ck_assert(differ(&was, &now, say));
	ck_assert_str_eq(say, "the library libx.so of the plug-in a.so: the file was made with "
			      "/a/libx.so (content 0000000000000007), this run loads none of that "
			      "name");
	/* the other way: the file's plug-in now brings in a library it did not */
	ck_assert(differ(&now, &was, say));
	ck_assert_str_eq(say, "the library libx.so of the plug-in a.so: the file was made with "
			      "none of that name, this run loads /a/libx.so (content "
			      "0000000000000007)");
	sw_plugin_ident_fini(&was);
	sw_plugin_ident_fini(&now);
}
END_TEST

START_TEST(test_packed_for_another_rank)
{
	static const char *const libs[] = { "1:/a/libx.so=7", "0:/b/liby.so=18446744073709551615",
					    NULL };
	struct sw_plugin_ident id, back;
	struct sw_err e = { 0 };
	char *buf, say[400];
	size_t len;

	make(&id, 2, libs);
	ck_assert_int_eq(sw_plugin_ident_pack(&id, &buf, &len, &e), SW_OK);
	ck_assert_msg(sw_plugin_ident_unpack(buf, len, &back, &e) == SW_OK, "%s", e.msg);
	ck_assert_int_eq(back.n_plugins, 2);
	ck_assert_int_eq(back.n_libs, 2);
	ck_assert_str_eq(back.plugins[1].path, "/p/b.so");
	ck_assert_str_eq(back.libs[1].path, "/b/liby.so");
	ck_assert_uint_eq(back.libs[1].content_hash, UINT64_MAX);
	ck_assert_int_eq(back.libs[0].owner, 1);
	ck_assert(!differ(&id, &back, say) && !differ(&back, &id, say));
	sw_plugin_ident_fini(&back);
	/* cut short, or one byte more: not an identity */
	ck_assert_int_eq(sw_plugin_ident_unpack(buf, len - 1, &back, &e), SW_EINVAL);
	ck_assert_ptr_null(back.plugins);
	char *longer = malloc(len + 1);
	memcpy(longer, buf, len);
	ck_assert_int_eq(sw_plugin_ident_unpack(longer, len + 1, &back, &e), SW_EINVAL);
	/* a library whose owner is no plug-in of it */
	int32_t two = 2;
	memcpy(longer, buf, len);
	size_t at = 8 + 2 * (8 + 4 + 4 + strlen("/p/a.so")) + 8;
	memcpy(longer + at, &two, sizeof two);
	ck_assert_int_eq(sw_plugin_ident_unpack(longer, len, &back, &e), SW_EINVAL);
	ck_assert_int_eq(sw_plugin_ident_unpack(NULL, 0, &back, &e), SW_EINVAL);
	free(longer);
	free(buf);
	sw_plugin_ident_fini(&id);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plugin_ident");
	TCase *tc = tcase_create("ident");
	tcase_add_test(tc, test_system_set_by_file_name);
	tcase_add_test(tc, test_the_same_code_agrees_wherever_it_lies);
	tcase_add_test(tc, test_a_library_of_other_content_is_named);
	tcase_add_test(tc, test_a_library_missing_or_new_is_named);
	tcase_add_test(tc, test_packed_for_another_rank);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
