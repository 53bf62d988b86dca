/*
 * Unit tests of measure_cfg.c against its one list, measure_settings.h:
 * docs/job-format.md's `measure` table gives every setting in the list's
 * order with its type, default and range; docs/bad-inputs.md's B10 message
 * names them all; the defaults lie in their ranges; sw_measure_diff names
 * the setting that differs; and no file in src/ but the list writes a key
 * as a string more than once. Paths come from ctest: SW_SOURCE_DIR.
 */
#define _XOPEN_SOURCE 700

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check_run.h"
#include "job/measure_cfg.h"

#define MAX_ROWS 32

struct row {
	char cell[8][512]; /* job-format.md: key, type, default, range, meaning */
};

static const char *source_dir(void)
{
	const char *top = getenv("SW_SOURCE_DIR");
	return top && *top ? top : ".";
}

/* The text of cell, without spaces around it. */
static void trim_into(char *out, size_t len, const char *from, size_t n)
{
	while (n && *from == ' ')
		from++, n--;
	while (n && from[n - 1] == ' ')
		n--;
	snprintf(out, len, "%.*s", (int)n, from);
}

/* The rows of the first table after the line `heading` in docs/<doc>;
 * -1 when the file or the heading is missing. */
static int doc_rows(const char *doc, const char *heading, struct row *rows, int max)
{
	char path[1024], *line = NULL;
	size_t cap = 0;
	int n = 0, found = 0, in_table = 0;
	FILE *f;

	snprintf(path, sizeof path, "%s/docs/%s", source_dir(), doc);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0 && n < max) {
		line[strcspn(line, "\n")] = '\0';
		if (!found) {
			found = strcmp(line, heading) == 0;
			continue;
		}
		if (line[0] != '|') {
			if (in_table)
				break;
			continue;
		}
		if (in_table++ < 2) /* the header and the |---| line */
			continue;
		const char *p = line + 1;
		for (int c = 0; c < 8 && *p; c++) {
			size_t w = strcspn(p, "|");
			trim_into(rows[n].cell[c], sizeof rows[n].cell[c], p, w);
			p += w + (p[w] == '|');
		}
		n++;
	}
	free(line);
	fclose(f);
	return found ? n : -1;
}

/* How docs/job-format.md writes a setting's type: "number, seconds",
 * "integer", "`auto`, `always` or `never`". */
static void doc_type(const struct sw_measure_setting *s, char *buf, size_t len)
{
	size_t used = 0;
	int n = 1;

	if (s->kind != SW_MEASURE_WORD) {
		snprintf(buf, len, "%s%s%s", s->kind == SW_MEASURE_INT ? "integer" : "number",
			 s->units ? ", " : "", s->units ? s->units : "");
		return;
	}
	for (const char *p = s->words; (p = strchr(p, ' ')); p++)
		n++;
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		const char *w = s->words;
		for (int k = 0; k < i; k++)
			w = strchr(w, ' ') + 1;
		used += (size_t)snprintf(buf + used, len - used, "%s`%.*s`",
					 i == 0      ? ""
					 : i + 1 < n ? ", "
						     : " or ",
					 (int)strcspn(w, " "), w);
	}
}

START_TEST(doc_table_matches_the_list)
{
	static struct row rows[MAX_ROWS];
	int n = doc_rows("job-format.md", "### `measure`", rows, MAX_ROWS);

	ck_assert_msg(n >= 0, "docs/job-format.md has no ### `measure` table");
	for (int i = 0; i < sw_measure_n_settings || i < n; i++) {
		const struct sw_measure_setting *s = &sw_measure_settings[i];
		char key[80], want[256], dflt[64];

		ck_assert_msg(i < n, "docs/job-format.md: the `measure` table has no row for %s",
			      s->name);
		ck_assert_msg(i < sw_measure_n_settings,
			      "docs/job-format.md: `measure` row %s is not a setting of "
			      "src/job/measure_settings.h",
			      rows[i].cell[0]);
		snprintf(key, sizeof key, "`%s`", s->name);
		ck_assert_msg(!strcmp(rows[i].cell[0], key),
			      "docs/job-format.md: `measure` row %d is %s; the list has %s there",
			      i + 1, rows[i].cell[0], key);
		doc_type(s, want, sizeof want);
		ck_assert_msg(!strcmp(rows[i].cell[1], want),
			      "docs/job-format.md: %s is of type '%s'; the list says '%s'", s->name,
			      rows[i].cell[1], want);
		sw_measure_value_text(s, &sw_measure_defaults, dflt, sizeof dflt);
		if (s->kind == SW_MEASURE_WORD) {
			snprintf(want, sizeof want, "`%s`", dflt);
			ck_assert_msg(!strcmp(rows[i].cell[2], want),
				      "docs/job-format.md: %s defaults to %s; the list says %s",
				      s->name, rows[i].cell[2], want);
		} else {
			ck_assert_msg(strtod(rows[i].cell[2], NULL) == strtod(dflt, NULL),
				      "docs/job-format.md: %s defaults to %s; the list says %s",
				      s->name, rows[i].cell[2], dflt);
		}
		sw_measure_range_text(s, want, sizeof want);
		ck_assert_msg(!strcmp(rows[i].cell[3], want),
			      "docs/job-format.md: %s ranges over '%s'; the list says '%s'",
			      s->name, rows[i].cell[3], want);
	}
}
END_TEST

/* B10, an unknown key in measure: its message lists every key. */
START_TEST(bad_inputs_lists_every_key)
{
	static struct row rows[MAX_ROWS * 4];
	char want[512] = "expected one of: ";
	int n = doc_rows("bad-inputs.md", "### Keys", rows, MAX_ROWS * 4), b10 = -1;

	for (int i = 0; i < sw_measure_n_settings; i++)
		snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", i ? ", " : "",
			 sw_measure_settings[i].name);
	ck_assert_msg(n > 0, "docs/bad-inputs.md has no ### Keys table");
	for (int i = 0; i < n; i++)
		if (!strcmp(rows[i].cell[0], "B10"))
			b10 = i;
	ck_assert_msg(b10 >= 0, "docs/bad-inputs.md: no row B10");
	/* the columns: #, bad input, files, arguments, exit, message, test */
	const char *msg = rows[b10].cell[5], *at = strstr(msg, want);
	ck_assert_msg(at && !strcmp(at, want),
		      "docs/bad-inputs.md: B10's message is '%s'; it should end '%s'", msg, want);
}
END_TEST

START_TEST(defaults_lie_in_their_ranges)
{
	for (int i = 0; i < sw_measure_n_settings; i++) {
		const struct sw_measure_setting *s = &sw_measure_settings[i];
		const char *p = (const char *)&sw_measure_defaults + s->offset;
		double v = s->kind == SW_MEASURE_REAL ? *(const double *)p : *(const int *)p;

		if (s->kind == SW_MEASURE_WORD)
			continue;
		ck_assert_msg((s->lo_open ? v > s->lo : v >= s->lo) &&
				      (s->hi_open ? v < s->hi : v <= s->hi),
			      "default %s = %g is out of its range", s->name, v);
	}
	ck_assert_int_le(sw_measure_defaults.min_samples, sw_measure_defaults.max_samples);
}
END_TEST

START_TEST(diff_names_the_first_difference)
{
	struct sw_measure_cfg a = sw_measure_defaults, b = sw_measure_defaults;
	char msg[128] = "";

	ck_assert_int_eq(sw_measure_diff(&a, &b, msg, sizeof msg), 0);
	b.flush_method = SW_FLUSH_BY_MEMSET;
	ck_assert_int_eq(sw_measure_diff(&a, &b, msg, sizeof msg), 1);
	ck_assert_str_eq(msg, "measure.flush_method is read in the file, memset in this job");
	b.warmup = 5;
	ck_assert_int_eq(sw_measure_diff(&a, &b, msg, sizeof msg), 1);
	ck_assert_str_eq(msg, "measure.warmup is 2 in the file, 5 in this job");
	b.rse_target = 0.01;
	ck_assert_int_eq(sw_measure_diff(&a, &b, msg, sizeof msg), 1);
	ck_assert_str_eq(msg, "measure.rse_target is 0.005 in the file, 0.01 in this job");
}
END_TEST

/* ---- each key written once: the list is the only place to add one ---- */

static int key_counts[MAX_ROWS];

static int is_word_char(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
}

/* Counts the string literal lit[0..n) for each key it holds as a word. */
static void count_literal(const char *lit, size_t n)
{
	for (int k = 0; k < sw_measure_n_settings; k++) {
		const char *key = sw_measure_settings[k].name;
		size_t kl = strlen(key);
		for (size_t i = 0; i + kl <= n; i++)
			if (!memcmp(lit + i, key, kl) && (i == 0 || !is_word_char(lit[i - 1])) &&
			    (i + kl == n || !is_word_char(lit[i + kl]))) {
				key_counts[k]++;
				break;
			}
	}
}

/* The string literals of C text, outside comments and character literals. */
static void scan_c(const char *t)
{
	while (*t) {
		if (t[0] == '/' && t[1] == '*') {
			const char *e = strstr(t + 2, "*"
						      "/");
			t = e ? e + 2 : t + strlen(t);
		} else if (t[0] == '/' && t[1] == '/') {
			t += strcspn(t, "\n");
		} else if (*t == '"' || *t == '\'') {
			const char *start = ++t;
			while (*t && *t != start[-1])
				t += t[0] == '\\' && t[1] ? 2 : 1;
			if (start[-1] == '"')
				count_literal(start, (size_t)(t - start));
			t += *t != '\0';
		} else {
			t++;
		}
	}
}

static int scan_file(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	size_t len = strlen(path);
	FILE *f;
	char *text;

	(void)ftw;
	if (type != FTW_F || strstr(path, "/core/record_columns.h") ||
	    !(len > 2 && (!strcmp(path + len - 2, ".c") || !strcmp(path + len - 2, ".h") ||
			  strstr(path + len - 4, ".cu"))))
		return 0;
	f = fopen(path, "r");
	text = calloc(1, (size_t)sb->st_size + 1);
	ck_assert_msg(f && text, "cannot read %s", path);
	ck_assert(fread(text, 1, (size_t)sb->st_size, f) == (size_t)sb->st_size);
	fclose(f);
	scan_c(text);
	free(text);
	return 0;
}

/* Outside the record columns, no file in src/ writes a measure key in a
 * string more than once in all: the list stringizes its names. */
START_TEST(each_key_quoted_at_most_once)
{
	char src[1024];

	snprintf(src, sizeof src, "%s/src", source_dir());
	ck_assert_msg(nftw(src, scan_file, 16, FTW_PHYS) == 0, "cannot walk %s", src);
	for (int k = 0; k < sw_measure_n_settings; k++)
		ck_assert_msg(key_counts[k] <= 1,
			      "src/ writes measure key %s in %d strings; add it to "
			      "src/job/measure_settings.h alone",
			      sw_measure_settings[k].name, key_counts[k]);
}
END_TEST

/* The scanner itself: a key in a string counts, in a comment it does not. */
START_TEST(scanner_counts_strings_only)
{
	memset(key_counts, 0, sizeof key_counts);
	scan_c("/* \"warmup\" */ // \"warmup\"\nx = \"measure.warmup: %d\"; c = '\"';"
	       " y = \"warmups\"; z = \"a \\\"warmup\\\"\";");
	for (int k = 0; k < sw_measure_n_settings; k++)
		ck_assert_int_eq(key_counts[k],
				 strcmp(sw_measure_settings[k].name, "warmup") ? 0 : 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("measure_cfg");
	TCase *t = tcase_create("list");

	tcase_add_test(t, doc_table_matches_the_list);
	tcase_add_test(t, bad_inputs_lists_every_key);
	tcase_add_test(t, defaults_lie_in_their_ranges);
	tcase_add_test(t, diff_names_the_first_difference);
	tcase_add_test(t, scanner_counts_strings_only);
	tcase_add_test(t, each_key_quoted_at_most_once);
	suite_add_tcase(s, t);
	return sw_check_run(s);
}
