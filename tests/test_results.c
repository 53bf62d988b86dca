/* Every committed result in docs/results, in every folder below it too
 * (gpu-runs/, offset-study/), names the clean revision that built it: each
 * .h5 file's tool_version reads "sweep V (git REV)" with REV 7 to 40 hex
 * digits, not "unknown", not "-dirty". Files under docs/results/legacy/
 * predate that and must each be named in its README.md instead. Other files
 * (the .md reports, .csv and .log extracts) carry no revision attribute; the
 * test names each one it passes over, so none is skipped silently. */
#define _GNU_SOURCE

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "check_run.h"

static char results[512];

/* 1 when rev is 7 to 40 lowercase or uppercase hex digits and nothing else. */
static int clean_rev(const char *rev)
{
	size_t n = strspn(rev, "0123456789abcdefABCDEF");

	return n >= 7 && n <= 40 && rev[n] == '\0';
}

/* The revision in "sweep 0.1.0 (git REV)", copied to rev; 0 when the text has no such form. */
static int rev_of(const char *tool_version, char *rev, size_t size)
{
	const char *p = strstr(tool_version, "(git ");
	const char *end;

	if (!p)
		return 0;
	p += strlen("(git ");
	end = strchr(p, ')');
	if (!end || end[1] != '\0' || (size_t)(end - p) >= size)
		return 0;
	memcpy(rev, p, end - p);
	rev[end - p] = '\0';
	return 1;
}

/* The file's tool_version attribute, variable-length or fixed-length, or ""
 * when it has none (H5Eset_auto is off). */
static void tool_version(const char *path, char *out, size_t size)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), a = -1, ft, t;
	char *s = NULL;

	out[0] = '\0';
	if (f < 0)
		return;
	a = H5Aopen(f, "tool_version", H5P_DEFAULT);
	ft = a >= 0 ? H5Aget_type(a) : -1;
	if (ft >= 0 && H5Tget_class(ft) == H5T_STRING) {
		int variable = H5Tis_variable_str(ft) > 0;
		size_t n = H5Tget_size(ft);

		t = H5Tcopy(H5T_C_S1);
		H5Tset_size(t, variable ? H5T_VARIABLE : n + 1);
		H5Tset_cset(t, H5Tget_cset(ft));
		if (variable && H5Aread(a, t, &s) >= 0 && s) {
			snprintf(out, size, "%s", s);
			H5free_memory(s);
		} else if (!variable && n + 1 <= size) {
			if (H5Aread(a, t, out) < 0)
				out[0] = '\0';
		}
		H5Tclose(t);
	}
	if (ft >= 0)
		H5Tclose(ft);
	if (a >= 0)
		H5Aclose(a);
	H5Fclose(f);
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && strcmp(s + n - m, tail) == 0;
}

/* Whether docs/results/legacy/README.md names the file, as `name`. */
static int legacy_listed(const char *name)
{
	char path[600], line[1024], quoted[300];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof path, "%s/legacy/README.md", results);
	snprintf(quoted, sizeof quoted, "`%s`", name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s is missing: it must say why each legacy file is there", path);
	while (!found && fgets(line, sizeof line, f))
		found = strstr(line, quoted) != NULL;
	fclose(f);
	return found;
}

/* Checks every file in dir and the folders below it (legacy: within the
 * legacy folder); returns the .h5 files checked. */
static int check_dir(const char *dir, int legacy)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int checked = 0;

	ck_assert_msg(d != NULL, "cannot open %s", dir);
	while ((e = readdir(d))) {
		char path[1024], version[256], rev[64];
		struct stat sb;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			checked += check_dir(path, legacy || strcmp(e->d_name, "legacy") == 0);
			continue;
		}
		if (!ends_with(e->d_name, ".h5")) {
			printf("not a result with a revision attribute: %s\n", path);
			continue;
		}
		checked++;
		if (legacy) {
			ck_assert_msg(legacy_listed(e->d_name), "%s: not named in legacy/README.md",
				      path);
			printf("legacy (named in its README): %s\n", path);
			continue;
		}
		tool_version(path, version, sizeof version);
		ck_assert_msg(version[0], "%s: no tool_version attribute", path);
		ck_assert_msg(rev_of(version, rev, sizeof rev),
			      "%s: tool_version \"%s\" names no git revision", path, version);
		ck_assert_msg(clean_rev(rev),
			      "%s: built from \"%s\", not a clean revision (7-40 hex digits): "
			      "regenerate it, or move it under docs/results/legacy/ with a line in "
			      "its README",
			      path, rev);
		printf("clean (git %s): %s\n", rev, path);
	}
	closedir(d);
	return checked;
}

START_TEST(revision_rule)
{
	char rev[64];

	ck_assert(clean_rev("46ab23d"));
	ck_assert(clean_rev("46ab23d4209c"));
	ck_assert(!clean_rev("46ab23"));
	ck_assert(!clean_rev("unknown"));
	ck_assert(!clean_rev("46ab23d4209c-dirty"));
	ck_assert(!clean_rev("0123456789012345678901234567890123456789a"));
	ck_assert(rev_of("sweep 0.1.0 (git 46ab23d4209c)", rev, sizeof rev));
	ck_assert_str_eq(rev, "46ab23d4209c");
	ck_assert(rev_of("sweep 0.1.0 (git unknown)", rev, sizeof rev));
	ck_assert(!clean_rev(rev));
	ck_assert(!rev_of("sweep 0.1.0", rev, sizeof rev));
	ck_assert(!rev_of("sweep 0.1.0 (git abc) trailing", rev, sizeof rev));
}
END_TEST

START_TEST(committed_results)
{
	ck_assert_int_gt(check_dir(results, 0), 0);
}
END_TEST

int main(void)
{
	const char *src = getenv("SW_SOURCE_DIR");
	Suite *s = suite_create("results");
	TCase *tc = tcase_create("revisions");

	if (!src) {
		fprintf(stderr, "SW_SOURCE_DIR is not set (ctest sets it)\n");
		return 1;
	}
	snprintf(results, sizeof results, "%s/docs/results", src);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	tcase_add_test(tc, revision_rule);
	tcase_add_test(tc, committed_results);
	suite_add_tcase(s, tc);
	return sw_check_run(s);
}
