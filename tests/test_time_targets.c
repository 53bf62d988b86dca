/*
 * The time model end to end, on the model backend through mpirun: device
 * targets beside CC targets (ids ;dev=NAME), their predicted times and
 * terms, /model_rates with a calibration file's path and hash, the three
 * bases (datasheet, calibrated, transfer) on real H100 and H200 files, and
 * a resume that refuses a calibration file whose bytes changed (TM12),
 * and a dry run of it that agrees (issue 36); a plug-in's hooks as the
 * time model calls them, and the replay backend with device targets in
 * its job.
 */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"

#define MSG_LEN 160 /* SW_MSG_LEN: /measurements' message */

static char tmpdir[512], job[1024], fleet[1024], full[1024];

static const char *in_tmp(const char *name)
{
	static char paths[8][1024];
	static int next;
	char *p = paths[next++ % 8];
	snprintf(p, sizeof paths[0], "%s/%s", tmpdir, name);
	return p;
}

/* The rows of out for device dev, by a fixed-string column. */
static size_t rows_of(const char *out, const char *col, size_t len, char **values)
{
	size_t n;
	*values = launch_column(out, "measurements", col, H5I_INVALID_HID, len, &n);
	return n;
}

/* Two device targets beside two CCs: every point four times, a device's
 * ids its own, each device row with a time and a term or "none". */
START_TEST(test_device_targets)
{
	const char *out = in_tmp("dev.h5"), *log = in_tmp("dev.log");
	const char *args[] = {
		"--backend", "model", "--model-devices", "H100-SXM,NVIDIA H200", "-q", job, "-o",
		out,         NULL
	};
	ck_assert_msg(launch_run(1, log, args) == 0, "%s", launch_slurp(log));
	char *dev, *term, *basis;
	size_t n = rows_of(out, "model_device", 32, &dev);
	rows_of(out, "model_time_term", 12, &term);
	rows_of(out, "model_time_basis", 12, &basis);
	double *t = launch_column(out, "measurements", "model_time_ns", H5T_NATIVE_DOUBLE,
				  sizeof(double), &n);
	uint64_t *ids = NULL;
	ck_assert_int_eq(launch_rows(out, "/measurements", &ids), (hssize_t)n);
	size_t h100 = 0, h200 = 0, timed = 0, none = 0;
	for (size_t i = 0; i < n; i++) {
		const char *d = dev + 32 * i, *tm = term + 12 * i;
		if (!*d) {
			ck_assert(isnan(t[i])); /* a CC target has no device to time on */
			continue;
		}
		h100 += !strcmp(d, "H100-SXM");
		h200 += !strcmp(d, "H200");
		if (!strcmp(tm, "none")) {
			none++;
			ck_assert(isnan(t[i]));
		} else {
			timed++;
			ck_assert_msg(t[i] > 0 && isfinite(t[i]), "row %zu: %g ns", i, t[i]);
			ck_assert_str_eq(basis + 12 * i, "datasheet");
		}
		for (size_t k = 0; k < i; k++) /* ids of device rows are their own */
			ck_assert(ids[k] != ids[i]);
	}
	ck_assert_uint_gt(h100, 0);
	ck_assert_uint_eq(h100, h200);
	ck_assert_uint_gt(timed, none);
	ck_assert_uint_gt(none, 0); /* cuBLAS, memcpy, the texture path */
	free(dev), free(term), free(basis), free(t), free(ids);
}
END_TEST

/* Calibrated and transferred: the bases say so, /model_rates names the
 * files with their hashes, and a resume with a changed calibration file is
 * refused (TM12), leaving the file as it was. */
START_TEST(test_calibrate_transfer_resume)
{
	const char *out = in_tmp("cal.h5"), *log = in_tmp("cal.log"), *cal = in_tmp("fleet.h5");
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", fleet, cal);
	ck_assert_int_eq(system(cmd), 0);
	const char *args[] = { "--backend",
			       "model",
			       "--model-devices",
			       "H100-SXM",
			       "--model-calibrate",
			       cal,
			       "--model-from",
			       full,
			       "-q",
			       job,
			       "-o",
			       out,
			       NULL };
	ck_assert_msg(launch_run(1, log, args) == 0, "%s", launch_slurp(log));
	char *basis, *file;
	size_t n = rows_of(out, "model_time_basis", 12, &basis), transfer = 0;
	for (size_t i = 0; i < n; i++)
		transfer += !strcmp(basis + 12 * i, "transfer");
	ck_assert_uint_gt(transfer, 0);
	size_t nr;
	file = launch_column(out, "model_rates", "file", H5I_INVALID_HID, 1024, &nr);
	ck_assert_uint_eq(nr, 2);
	ck_assert_str_eq(file, cal);
	ck_assert_str_eq(file + 1024, full);
	/* the same files resume, a changed one does not */
	const char *again[] = { "--resume", "--backend",
				"model",    "--model-devices",
				"H100-SXM", "--model-calibrate",
				cal,        "--model-from",
				full,       "-q",
				job,        "-o",
				out,        NULL };
	/* a dry run says what the run does (issue 36, cause 5): it read no
	 * time-model file before, so it knew no /model_rates file */
	const char *dry[sizeof again / sizeof *again + 1] = { "--dry-run" };
	memcpy(dry + 1, again, sizeof again); /* --dry-run --resume, the same options */
	ck_assert_msg(launch_run(1, log, dry) == 0, "%s", launch_slurp(log));
	dry[1] = "--extend";
	ck_assert_msg(launch_run(1, log, dry) == 0, "%s", launch_slurp(log));
	ck_assert_msg(launch_run(1, log, again) == 0, "%s", launch_slurp(log));
	FILE *f = fopen(cal, "ab");
	ck_assert_ptr_nonnull(f);
	fputs("changed", f);
	fclose(f);
	ck_assert_int_eq(launch_run(1, log, again), 2);
	ck_assert_msg(strstr(launch_slurp(log), "whose content has changed since"), "%s",
		      launch_slurp(log));
	dry[1] = "--resume";
	ck_assert_int_eq(launch_run(1, log, dry), 2);
	ck_assert_msg(strstr(launch_slurp(log), "whose content has changed since"), "%s",
		      launch_slurp(log));
	free(basis), free(file);
}
END_TEST

/* The family `hostile` of tests/plugins/hostile.c, build which, on the
 * model backend with the device target H100-SXM, into out: the run's exit
 * status; per H100-SXM row (n = 1K to 4K) its status, term, time and
 * message. */
struct hook_rows {
	int32_t status[4];
	char term[4][12];
	double ns[4];
	char message[4][MSG_LEN];
};
static int run_hostile(const char *which, const char *out, struct hook_rows *h)
{
	char plugin[1024], yaml[1024], logf[1024];
	snprintf(plugin, sizeof plugin, "%s/plugin_hostile_%s.so", launch_env("SW_TEST_PLUGINS"),
		 which);
	snprintf(yaml, sizeof yaml, "%s", in_tmp("hostile.yaml"));
	snprintf(logf, sizeof logf, "%s", in_tmp("hostile.log"));
	launch_write_text(yaml, "name: hostile\nmodel:\n  ccs: [9.0]\nfamilies:\n  hostile:\n");
	const char *args[] = { "--backend", "model", "--plugin", plugin, "--model-devices",
			       "H100-SXM",  "-q",    yaml,       "-o",   out,
			       NULL };
	int rc = launch_run(1, logf, args);
	size_t n;
	char *dev = launch_column(out, "measurements", "model_device", H5I_INVALID_HID, 32, &n);
	char *term = launch_column(out, "measurements", "model_time_term", H5I_INVALID_HID, 12, &n);
	char *msg = launch_column(out, "measurements", "message", H5I_INVALID_HID, MSG_LEN, &n);
	int32_t *st = launch_column(out, "measurements", "status", H5T_NATIVE_INT32, 4, &n);
	double *ns = launch_column(out, "measurements", "model_time_ns", H5T_NATIVE_DOUBLE, 8, &n);
	int64_t *elems = launch_column(out, "measurements", "n", H5T_NATIVE_INT64, 8, &n);
	int seen = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(dev + 32 * i, "H100-SXM"))
			continue;
		int k = (int)(elems[i] / 1024) - 1;
		ck_assert_msg(k >= 0 && k < 4, "n = %lld", (long long)elems[i]);
		h->status[k] = st[i];
		h->ns[k] = ns[i];
		snprintf(h->term[k], sizeof h->term[k], "%s", term + 12 * i);
		snprintf(h->message[k], sizeof h->message[k], "%s", msg + MSG_LEN * i);
		seen++;
	}
	ck_assert_int_eq(seen, 4);
	free(dev), free(term), free(msg), free(st), free(ns), free(elems);
	return rc;
}

/* Issue 36, causes 2 and 9: a plug-in's hooks as the time model calls
 * them. A sizes() that kept its limits for the plan's check and breaks
 * them when the time model calls it again (nine buffers; a write past the
 * struct, which overwrote the caller's stack) fails that row with the
 * reason, exit 5, as the cuda backend fails one; a shape() of no block is
 * no time at that point (term none, NaN), the others timed. */
START_TEST(test_plugin_hooks)
{
	struct hook_rows h;
	const char *out = in_tmp("hooks.h5");
	memset(&h, 0, sizeof h);
	ck_assert_int_eq(run_hostile("buffers_later", out, &h), 5);
	ck_assert_int_eq(h.status[2], 3);
	ck_assert_msg(strstr(h.message[2], "sizes() sets n_buffers 9"), "%s", h.message[2]);
	ck_assert_int_eq(h.status[0] + h.status[1] + h.status[3], 0);
	ck_assert_str_eq(h.term[2], "none");
	ck_assert(isnan(h.ns[2]));
	unlink(out);
	ck_assert_int_eq(run_hostile("write_past_later", out, &h), 5);
	ck_assert_int_eq(h.status[2], 3);
	ck_assert_msg(strstr(h.message[2], "sizes() wrote past struct sw_sizes"), "%s",
		      h.message[2]);
	unlink(out);
	ck_assert_int_eq(run_hostile("zero_blocks", out, &h), 0);
	for (int k = 0; k < 4; k++) {
		ck_assert_int_eq(h.status[k], 0);
		if (k == 1) {
			ck_assert_str_eq(h.term[k], "none");
			ck_assert(isnan(h.ns[k]));
		} else {
			ck_assert_str_ne(h.term[k], "none");
			ck_assert_msg(h.ns[k] > 0 && isfinite(h.ns[k]), "n=%dK: %g", k + 1,
				      h.ns[k]);
		}
	}
}
END_TEST

/* Issue 36, cause 10: the job's model.devices on the replay backend makes
 * no row of those GPUs, and /model_rates lists no target no row used. */
START_TEST(test_replay_no_targets)
{
	const char *out = in_tmp("replay.h5"), *log = in_tmp("replay.log");
	const char *yaml = in_tmp("targets.yaml");
	char recording[1024];
	snprintf(recording, sizeof recording, "replay=%s", full);
	launch_write_text(yaml, "name: seeds\nmeasure:\n  rse_target: 0.005\n  min_samples: 30\n"
				"  max_samples: 200\n  warmup: 1\n  time_cap_s: 2.0\nmodel:\n"
				"  devices: [H100-SXM, H200]\nfamilies:\n  strided_read:\n"
				"    axes:\n      stride: 1:4:x2\n      n: 64M\n");
	const char *args[] = { "--backend", recording, "--replay-speed",
			       "1000000",   "-q",      yaml,
			       "-o",        out,       NULL };
	ck_assert_msg(launch_run(1, log, args) == 0, "%s", launch_slurp(log));
	size_t n, nr;
	char *dev = launch_column(out, "measurements", "model_device", H5I_INVALID_HID, 32, &n);
	ck_assert_uint_gt(n, 0);
	size_t h200 = 0; /* the recording's GPU's, never a target's ("": memcpy, not modelled) */
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(!strcmp(dev + 32 * i, "H200") || !dev[32 * i], "row %zu: %s", i,
			      dev + 32 * i);
		h200 += !strcmp(dev + 32 * i, "H200");
	}
	ck_assert_uint_gt(h200, 0);
	char *role = launch_column(out, "model_rates", "role", H5I_INVALID_HID, 12, &nr);
	ck_assert_uint_eq(nr, 0);
	free(dev), free(role);
}
END_TEST

int main(void)
{
	const char *src = launch_env("SW_SOURCE_DIR");
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	snprintf(job, sizeof job, "%s/jobs/fleet.yaml", src);
	snprintf(fleet, sizeof fleet, "%s/docs/results/h100-fleet.h5", src);
	snprintf(full, sizeof full, "%s/docs/results/h200-seeds.h5", src);
	if (launch_make_tmpdir(tmpdir, sizeof tmpdir, "time-targets") != 0)
		return EXIT_FAILURE;
	Suite *s = suite_create("time_targets");
	TCase *tc = tcase_create("mpirun");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_device_targets);
	tcase_add_test(tc, test_calibrate_transfer_resume);
	tcase_add_test(tc, test_plugin_hooks);
	tcase_add_test(tc, test_replay_no_targets);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
