/*
 * Plug-ins: loading one into the registry in this process (its families
 * after the built-ins, a second load of the file a no-op, a clash refused,
 * the digest over names and contents), the job's plugins: key, and through
 * the real binary a plug-in built from strided_read's own source under
 * another name: --list shows it, and on the model backend its rows match the
 * built-in's in every column the family fills. And plug-ins that end the
 * process (exit(0) at load or in a hook) or swap the output: never exit 0
 * (docs/bad-inputs.md, X01 to X05). Paths come from ctest.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "job/job.h"
#include "kernel.h"
#include "launch.h"
#include "core/record.h"
#include "job/plugin.h"
#include "core/record.h"

#define PLUGIN_NAME "plugin_strided_read"
/* model/time_model.h's SW_NO_TIME_NO_SHAPE, as a user reads it */
#define SW_NO_TIME "no time: the plug-in describes no launch (family.h, shape)"

static char dir[256];
static char plugin[512], other[512];

START_TEST(test_load_registers_after_builtins)
{
	struct sw_err e = { 0 };
	int n = sw_family_count();

	ck_assert_int_eq(n, sw_family_builtin_count());
	ck_assert_uint_eq(sw_plugins_digest(), 0);
	ck_assert_msg(sw_plugin_load(plugin, &e) == SW_OK, "%s", e.msg);
	ck_assert_int_eq(sw_family_count(), n + 1);
	const struct sw_family *f = sw_family_at(n);
	ck_assert_ptr_eq(sw_family_find(PLUGIN_NAME), f);
	ck_assert_int_eq(sw_family_index(f), n);
	const struct sw_family *b = sw_family_find("strided_read");
	ck_assert_int_eq(f->n_variants, b->n_variants);
	ck_assert_int_eq(f->n_axes, b->n_axes);
	ck_assert_ptr_ne(f->sizes, b->sizes); /* the plug-in's own code, not sweep's */
	ck_assert_int_eq(sw_plugin_count(), 1);
	ck_assert_str_eq(sw_plugin_at(0)->name, PLUGIN_NAME ".so");
	ck_assert_int_eq(sw_plugin_at(0)->first_family, n);
	uint64_t d = sw_plugins_digest();
	ck_assert_uint_ne(d, 0);

	/* the same file again, by another path: nothing changes */
	char again[600];
	snprintf(again, sizeof again, "%s/../plugins/%s.so", getenv("SW_TEST_PLUGINS"),
		 PLUGIN_NAME);
	ck_assert_msg(sw_plugin_load(again, &e) == SW_OK, "%s", e.msg);
	ck_assert_int_eq(sw_family_count(), n + 1);
	ck_assert_uint_eq(sw_plugins_digest(), d);

	/* another file with a family of the same name */
	ck_assert_int_eq(sw_plugin_load(other, &e), SW_EINVAL);
	ck_assert_msg(strstr(e.msg, "family '" PLUGIN_NAME "' clashes with a family of plug-in"),
		      "%s", e.msg);
	ck_assert_int_eq(sw_family_count(), n + 1);
	ck_assert_uint_eq(sw_plugins_digest(), d);

	/* another file's content under the same name: another digest */
	sw_plugin_unload_all();
	ck_assert_int_eq(sw_family_count(), n);
	ck_assert_uint_eq(sw_plugins_digest(), 0);
	ck_assert_msg(sw_plugin_load(other, &e) == SW_OK, "%s", e.msg);
	ck_assert_uint_ne(sw_plugins_digest(), 0);
	ck_assert_uint_ne(sw_plugins_digest(), d);
	sw_plugin_unload_all();
}
END_TEST

START_TEST(test_job_key_resolves_against_the_job)
{
	static const char text[] = "plugins: [" PLUGIN_NAME ".so]\n"
				   "families:\n  " PLUGIN_NAME ":\n    axes:\n      stride: 1,2\n";
	char job_path[600];
	struct sw_job job;
	struct sw_err e = { 0 };

	/* a path that is not the working directory's */
	snprintf(job_path, sizeof job_path, "%s/job.yaml", getenv("SW_TEST_PLUGINS"));
	ck_assert_msg(sw_job_parse(job_path, text, sizeof text - 1, &job, &e) == SW_OK, "%s",
		      e.msg);
	ck_assert_int_eq(job.n_families, 1);
	ck_assert_ptr_eq(job.families[0].family, sw_family_find(PLUGIN_NAME));
	ck_assert_int_eq(job.families[0].index, sw_family_builtin_count());
	ck_assert_int_eq(
		job.families[0].axes[sw_axis_find(job.families[0].family, "stride")].values.n, 2);
	sw_job_fini(&job);
	sw_plugin_unload_all();

	/* the same text read from here finds no such file */
	ck_assert_int_eq(sw_job_parse("job.yaml", text, sizeof text - 1, &job, &e), SW_EINVAL);
	ck_assert_msg(strstr(e.msg, "job.yaml:1:11: plug-in " PLUGIN_NAME ".so"), "%s", e.msg);
	ck_assert_int_eq(sw_family_count(), sw_family_builtin_count());
}
END_TEST

START_TEST(test_list_shows_plugin_families)
{
	char log[600];
	snprintf(log, sizeof log, "%s/list.log", dir);
	const char *args[] = { "--plugin", plugin, "--list", NULL };
	ck_assert_int_eq(launch_run(1, log, args), 0);
	const char *out = launch_slurp(log);
	ck_assert_msg(strstr(out, "\n" PLUGIN_NAME ": bandwidth against the stride"), "%s", out);
	ck_assert_msg(strstr(out, "\nstrided_read: "), "%s", out);
}
END_TEST

/* Every row of /measurements in path, in the file's native layout. */
static void *read_rows(const char *path, hid_t *type, hssize_t *n)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert_int_ge(f, 0);
	hid_t d = H5Dopen2(f, "/measurements", H5P_DEFAULT);
	ck_assert_int_ge(d, 0);
	hid_t ft = H5Dget_type(d), sp = H5Dget_space(d);
	*type = H5Tget_native_type(ft, H5T_DIR_ASCEND);
	*n = H5Sget_simple_extent_npoints(sp);
	void *buf = calloc((size_t)*n, H5Tget_size(*type));
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_ge(H5Dread(d, *type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), 0);
	H5Tclose(ft), H5Sclose(sp), H5Dclose(d), H5Fclose(f);
	return buf;
}

/* Columns that name the family or follow from its name or the moment. */
static int differs_by_name_or_time(const char *col)
{
	static const char *const skip[] = { "family",     "point_id", "seed",
					    "start_unix", "end_unix", "timed_s" };
	for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
		if (!strcmp(col, skip[i]))
			return 1;
	return 0;
}

static void run_job(const char *family, const char *out, const char *const *extra)
{
	char job[600], set[128], log[700];
	snprintf(job, sizeof job, "%s/%s.yaml", dir, family);
	snprintf(log, sizeof log, "%s.log", out);
	FILE *f = fopen(job, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "name: %s\nfamilies:\n  %s:\n    axes:\n      n: 1M\n", family, family);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(set, sizeof set, "%s.stride=1,2,3,32", family);
	const char *args[16] = { "--backend", "model", "--quiet", "--set", set, "-o", out, job };
	int k = 8;
	for (int i = 0; extra && extra[i]; i++)
		args[k++] = extra[i];
	args[k] = NULL;
	ck_assert_msg(launch_run(1, log, args) == 0, "%s", launch_slurp(log));
}

START_TEST(test_plugin_rows_match_builtin)
{
	char a[600], b[600];
	const char *extra[] = { "--plugin", plugin, NULL };
	snprintf(a, sizeof a, "%s/builtin.h5", dir);
	snprintf(b, sizeof b, "%s/plugin.h5", dir);
	run_job("strided_read", a, NULL);
	run_job(PLUGIN_NAME, b, extra);

	hid_t ta, tb;
	hssize_t na, nb;
	char *ra = read_rows(a, &ta, &na), *rb = read_rows(b, &tb, &nb);
	ck_assert_int_gt(na, 4);
	ck_assert_int_eq(na, nb);
	ck_assert_int_eq(H5Tget_size(ta), H5Tget_size(tb));
	int n = H5Tget_nmembers(ta), compared = 0;
	size_t row = H5Tget_size(ta);
	ck_assert_int_eq(n, H5Tget_nmembers(tb));
	for (int m = 0; m < n; m++) {
		char *name = H5Tget_member_name(ta, (unsigned)m);
		hid_t mt = H5Tget_member_type(ta, (unsigned)m);
		size_t off = H5Tget_member_offset(ta, (unsigned)m), len = H5Tget_size(mt);
		ck_assert_int_eq(H5Tget_member_index(tb, name), m);
		ck_assert_uint_eq(H5Tget_member_offset(tb, (unsigned)m), off);
		for (hssize_t r = 0; r < na && !differs_by_name_or_time(name); r++)
			ck_assert_msg(!memcmp(ra + r * row + off, rb + r * row + off, len),
				      "row %lld, column %s differs", (long long)r, name);
		compared += !differs_by_name_or_time(name);
		H5Tclose(mt);
		H5free_memory(name);
	}
	ck_assert_int_gt(compared, 40);
	/* and the family column says whose the rows are */
	ck_assert_int_ge(H5Tget_member_index(tb, "family"), 0);
	H5Tclose(ta), H5Tclose(tb);
	free(ra), free(rb);
}
END_TEST

/* ---- plug-ins that end the process or the run's file (issue 23, cause 1) */

static char hostile_job[600];

/* Runs the job of family `hostile` on np ranks with plugin_hostile_<which>.so,
 * writing out; the exit code, the log in log. */
static int run_hostile(int np, const char *which, const char *out, const char *log, const char *set)
{
	char plugin_path[600];
	snprintf(plugin_path, sizeof plugin_path, "%s/plugin_hostile%s%s.so",
		 launch_env("SW_TEST_PLUGINS"), which[0] ? "_" : "", which);
	const char *args[] = { "--backend",          "model",     "-q", "--plugin",
			       plugin_path,          hostile_job, "-o", out,
			       set ? "--set" : NULL, set,         NULL };
	return launch_run(np, log, args);
}

/* X01, X02: exit(0) in a constructor, at dlopen during the agreement. */
START_TEST(test_exit_at_load_is_no_success)
{
	char out[600], log[600];
	for (int np = 1; np <= 2; np++) {
		snprintf(out, sizeof out, "%s/ctor%d.h5", dir, np);
		snprintf(log, sizeof log, "%s/ctor%d.log", dir, np);
		int rc = run_hostile(np, "exit_ctor", out, log, NULL);
		const char *said = launch_slurp(log);
		ck_assert_msg(rc == 1, "np %d: exit code %d, expected 1: %s", np, rc, said);
		ck_assert_msg(strstr(said, "ended before sweep's end: exit(0) was called while "
					   "loading the job and its plug-ins") &&
				      strstr(said, "nothing was run"),
			      "np %d: %s", np, said);
		ck_assert_msg(access(out, F_OK) != 0, "np %d: %s was written", np, out);
	}
}
END_TEST

/* X03, X04: exit(0) in a hook midway: part of the points in the file, and
 * the status and the message say so. */
START_TEST(test_exit_in_a_hook_is_no_success)
{
	char out[600], log[600], want[700];
	for (int np = 1; np <= 2; np++) {
		snprintf(out, sizeof out, "%s/hook%d.h5", dir, np);
		snprintf(log, sizeof log, "%s/hook%d.log", dir, np);
		int rc = run_hostile(np, "exit_hook", out, log, NULL);
		const char *said = launch_slurp(log);
		snprintf(want, sizeof want,
			 "ended before sweep's end: exit(0) was called during the run, by a "
			 "plug-in or a library; the run is not complete: `--resume -o %s`",
			 out);
		ck_assert_msg(rc == 1, "np %d: exit code %d, expected 1: %s", np, rc, said);
		ck_assert_msg(strstr(said, want), "np %d: %s", np, said);
		ck_assert_msg(!strstr(said, "rows written"), "np %d: a summary: %s", np, said);
		hssize_t rows = launch_rows_swmr(out, "/measurements", NULL);
		ck_assert_msg(rows >= 0 && rows < 24, "np %d: %lld rows of 24", np,
			      (long long)rows);
	}
}
END_TEST

/* X05: a hook puts a smaller run's file, early.h5, in the output's place.
 * Before issue 23's cause 2 the summary read early.h5 back and found this
 * run's points missing, and the count set the status; now the run holds
 * its own file, sees that out.h5 no longer names it, and says where its
 * rows are (bad-inputs H01 to H08): exit 4 either way. */
START_TEST(test_summary_count_sets_the_status)
{
	char here[600], sub[600];
	ck_assert_ptr_nonnull(getcwd(here, sizeof here));
	snprintf(sub, sizeof sub, "%s/swap", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(chdir(sub), 0);
	int early = run_hostile(1, "", "early.h5", "early.log", "hostile.n=1K");
	ck_assert_msg(early == 0, "%s", launch_slurp("early.log"));
	int rc = run_hostile(1, "swap_output", "out.h5", "swap.log", NULL);
	const char *said = launch_slurp("swap.log");
	ck_assert_int_eq(chdir(here), 0);
	ck_assert_msg(rc == 4, "exit code %d, expected 4: %s", rc, said);
	ck_assert_msg(strstr(said, "out.h5 is no longer this sweep's file: another file was put "
				   "at that name while it ran (left as it is); this run's rows are "
				   "in ") &&
			      strstr(said, "/swap/moved.h5, where the file was moved") &&
			      strstr(said, "sweep: 24 rows of this run are safe in "),
		      "%s", said);
}
END_TEST

/* A plug-in of family API 2 loads under API 3: its shorter descriptor is
 * widened with no reference hook (the garbage past its end never read), and
 * its points run. */
START_TEST(test_api2_plugin_loads)
{
	struct sw_err e = { 0 };
	char path[600], out[600], log[600];
	int n = sw_family_count();

	snprintf(path, sizeof path, "%s/plugin_hostile_api2.so", launch_env("SW_TEST_PLUGINS"));
	ck_assert_msg(sw_plugin_load(path, &e) == SW_OK, "%s", e.msg);
	ck_assert_int_eq(sw_family_count(), n + 1);
	const struct sw_family *f = sw_family_find("hostile");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_null(f->reference);
	ck_assert_ptr_nonnull(f->sizes);
	sw_plugin_unload_all();
	ck_assert_int_eq(sw_family_count(), n);

	snprintf(out, sizeof out, "%s/api2.h5", dir);
	snprintf(log, sizeof log, "%s/api2.log", dir);
	int rc = run_hostile(1, "api2", out, log, "hostile.n=1K");
	ck_assert_msg(rc == 0, "exit code %d: %s", rc, launch_slurp(log));
	ck_assert_int_ge(launch_rows_swmr(out, "/measurements", NULL), 1);
}
END_TEST

/* A family without a shape hook: every device-target row says why it has
 * no time, and so do the run's last lines (issue 35 item 4). */
START_TEST(test_no_shape_no_time)
{
	char path[600], out[600], log[600];
	size_t n = 0, k = 0;

	snprintf(path, sizeof path, "%s/plugin_hostile.so", launch_env("SW_TEST_PLUGINS"));
	snprintf(out, sizeof out, "%s/noshape.h5", dir);
	snprintf(log, sizeof log, "%s/noshape.log", dir);
	const char *args[] = { "--backend",       "model",    "--plugin", path,
			       "--model-devices", "H100-SXM", "--set",    "hostile.n=1K",
			       hostile_job,       "-o",       out,        NULL };
	int rc = launch_run(1, log, args);
	const char *said = launch_slurp(log);
	ck_assert_msg(rc == 0, "exit code %d: %s", rc, said);
	ck_assert_msg(
		strstr(said, "device-target row has no time (model_time_term none): " SW_NO_TIME),
		"%s", said);
	char *dev = launch_column(out, "measurements", "model_device", H5I_INVALID_HID, 32, &n);
	char *msg = launch_column(out, "measurements", "message", H5I_INVALID_HID, SW_MSG_LEN, &n);
	for (size_t i = 0; i < n; i++)
		if (dev[32 * i]) {
			k++;
			ck_assert_msg(strstr(msg + SW_MSG_LEN * i, SW_NO_TIME), "row %zu: %.160s",
				      i, msg + SW_MSG_LEN * i);
		}
	ck_assert_uint_eq(k, 1);
	free(dev);
	free(msg);
}
END_TEST

/* ---- sweep --check-plugin (issue 38) ---------------------------------- */

/* sweep --check-plugin plugin_hostile_<which>.so [job]: the exit code, the
 * log (stdout and stderr) in *said. */
static int check_plugin(const char *which, const char *job, const char **said)
{
	char plugin_path[600], log[600];
	snprintf(plugin_path, sizeof plugin_path, "%s/plugin_hostile%s%s.so",
		 launch_env("SW_TEST_PLUGINS"), which[0] ? "_" : "", which);
	snprintf(log, sizeof log, "%s/check-%s.log", dir, which[0] ? which : "good");
	const char *args[] = { "--check-plugin", plugin_path, job, NULL };
	int rc = launch_run(1, log, args);
	*said = launch_slurp(log);
	return rc;
}

/* A good plug-in passes, at its defaults or on a job, with its summary:
 * every request walked, each in its buffer, and a reference held to its
 * check where it has one. */
START_TEST(test_check_plugin_passes)
{
	const char *said;
	ck_assert_msg(check_plugin("", NULL, &said) == 0, "%s", said);
	/* n = 1K, 2K, 3K and 4K: 32 + 64 + 96 + 128 requests, all walked */
	ck_assert_msg(strstr(said, "  plain               4       0       320       320         0  "
				   "no reference hook"),
		      "%s", said);
	ck_assert_msg(strstr(said, "passes\n"), "%s", said);
	ck_assert_msg(check_plugin("ref", hostile_job, &said) == 0, "%s", said);
	ck_assert_msg(strstr(said, "4 full, 0 sampled, 0 sampled views, 0 not"), "%s", said);
}
END_TEST

/* Each refusal: exit 2, naming the plug-in, the point and what broke. */
START_TEST(test_check_plugin_refuses)
{
	static const struct {
		const char *which, *msg;
	} bad[] = {
		{ "buffer_past",
		  "point hostile/plain n=1K: plain request 31 (access data): lane 31 "
		  "reads bytes 4096 to 4099 of buffer 0, past its 4096 bytes" },
		{ "buffer_unknown",
		  "point hostile/plain n=1K: plain request 0 (access data): names "
		  "buffer 1, but the point has 1 (sw_request.buffer indexes "
		  "sw_sizes.bytes)" },
		{ "ref_wrong", "point hostile/plain n=1K: check() fails the reference's own output "
			       "(full, 1024 elements): element 0: got" },
		{ "ref_blind", "point hostile/plain n=1K: check() passes the reference's output "
			       "with every byte inverted (full, 1024 elements): it compares "
			       "nothing" },
		{ "ref_sampled", "point hostile/plain n=1K: check() fails the reference's output "
				 "when only the elements a sampled check picks come back" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *said;
		int rc = check_plugin(bad[i].which, NULL, &said);
		ck_assert_msg(rc == 2, "%s: exit %d: %s", bad[i].which, rc, said);
		ck_assert_msg(strstr(said, "sweep: plug-in ") && strstr(said, bad[i].msg), "%s: %s",
			      bad[i].which, said);
		ck_assert_msg(!strstr(said, ".so passes"), "%s: %s", bad[i].which, said);
	}
}
END_TEST

/* The model backend holds the same lanes: a point whose request leaves its
 * buffer has no ok row, but a skipped one with the reason. */
START_TEST(test_model_row_past_its_buffer)
{
	char out[600], log[600];
	snprintf(out, sizeof out, "%s/past.h5", dir);
	snprintf(log, sizeof log, "%s/past.log", dir);
	int rc = run_hostile(1, "buffer_past", out, log, "hostile.n=1K");
	ck_assert_msg(rc == 0, "exit code %d: %s", rc, launch_slurp(log));
	size_t n, n_msg;
	int32_t *status =
		launch_column(out, "measurements", "status", H5T_NATIVE_INT32, sizeof *status, &n);
	char *msg =
		launch_column(out, "measurements", "message", H5I_INVALID_HID, SW_MSG_LEN, &n_msg);
	ck_assert_uint_ge(n, 1);
	ck_assert_uint_eq(n, n_msg);
	for (size_t i = 0; i < n; i++) {
		const char *m = msg + SW_MSG_LEN * i;
		ck_assert_int_eq(status[i], 1); /* skipped */
		ck_assert_msg(strstr(m, "plain request 31 (access data): lane 31 reads bytes 4096 "
					"to 4099 of buffer 0, past its 4096 bytes"),
			      "%s", m);
	}
	free(status), free(msg);
}
END_TEST

int main(void)
{
	if (launch_make_tmpdir(dir, sizeof dir, "plugin") != 0)
		return 1;
	snprintf(plugin, sizeof plugin, "%s/%s.so", launch_env("SW_TEST_PLUGINS"), PLUGIN_NAME);
	snprintf(other, sizeof other, "%s/other/%s.so", launch_env("SW_TEST_PLUGINS"), PLUGIN_NAME);
	snprintf(hostile_job, sizeof hostile_job, "%s/hostile.yaml", dir);
	FILE *job = fopen(hostile_job, "w");
	if (!job || fputs("families:\n  hostile:\n", job) < 0 || fclose(job) != 0)
		return 1;
	Suite *s = suite_create("plugin");
	TCase *tc = tcase_create("plugin");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_load_registers_after_builtins);
	tcase_add_test(tc, test_job_key_resolves_against_the_job);
	tcase_add_test(tc, test_list_shows_plugin_families);
	tcase_add_test(tc, test_plugin_rows_match_builtin);
	tcase_add_test(tc, test_exit_at_load_is_no_success);
	tcase_add_test(tc, test_exit_in_a_hook_is_no_success);
	tcase_add_test(tc, test_summary_count_sets_the_status);
	tcase_add_test(tc, test_api2_plugin_loads);
	tcase_add_test(tc, test_no_shape_no_time);
	tcase_add_test(tc, test_check_plugin_passes);
	tcase_add_test(tc, test_check_plugin_refuses);
	tcase_add_test(tc, test_model_row_past_its_buffer);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, dir);
}
