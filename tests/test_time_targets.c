/*
 * The time model end to end, on the model backend through mpirun: device
 * targets beside CC targets (ids ;dev=NAME), their predicted times and
 * terms, /model_rates with a calibration file's path and hash, the three
 * bases (datasheet, calibrated, transfer) on real H100 and H200 files, and
 * a resume that refuses a calibration file whose bytes changed (TM12),
 * and a dry run of it that agrees (issue 36); what each rate's fit rests
 * on, a fleet file of an earlier jobs/fleet.yaml accepted with a warning
 * (TM13), and a schema 8 file's /model_rates resumed as it is; a plug-in's
 * hooks as the time model calls them, and the replay backend with device
 * targets in its job; a resume that refuses the same file's rows of
 * another class (H36-B03), and GPU names with spaces around them, as
 * "H200, A10" has them (H36-B04).
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

/* The transfer alone (--model-from without a calibration): the source is
 * fitted on its own rows (its /model_rates row says calibrated, with its
 * points), and the rows it measured are transferred. */
START_TEST(test_transfer_alone)
{
	const char *out = in_tmp("alone.h5"), *log = in_tmp("alone.log");
	const char *args[] = { "--backend",
			       "model",
			       "--model-devices",
			       "H100-SXM",
			       "--model-from",
			       full,
			       "-q",
			       job,
			       "-o",
			       out,
			       NULL };
	ck_assert_msg(launch_run(1, log, args) == 0, "%s", launch_slurp(log));
	char *basis, *role, *rbasis;
	size_t n = rows_of(out, "model_time_basis", 12, &basis), transfer = 0, nr;
	for (size_t i = 0; i < n; i++)
		transfer += !strcmp(basis + 12 * i, "transfer");
	ck_assert_uint_gt(transfer, 0);
	role = launch_column(out, "model_rates", "role", H5I_INVALID_HID, 12, &nr);
	rbasis = launch_column(out, "model_rates", "basis", H5I_INVALID_HID, 12, &nr);
	int32_t *points =
		launch_column(out, "model_rates", "points", H5T_NATIVE_INT32, sizeof *points, &nr);
	ck_assert_uint_ge(nr, 1);
	ck_assert_str_eq(role, "from");
	ck_assert_str_eq(rbasis, "calibrated");
	ck_assert_int_ge(points[0], 3);
	free(basis), free(role), free(rbasis), free(points);
}
END_TEST

/* Column col (RATE_fit, a string[20]) of /model_rates' row 0. */
static void fit_of(const char *out, const char *rate, char word[20], int32_t *points)
{
	char col[64];
	size_t n;
	snprintf(col, sizeof col, "%s_fit", rate);
	char *w = launch_column(out, "model_rates", col, H5I_INVALID_HID, 20, &n);
	ck_assert_uint_gt(n, 0);
	snprintf(word, 20, "%s", w);
	snprintf(col, sizeof col, "%s_points", rate);
	int32_t *p = launch_column(out, "model_rates", col, H5T_NATIVE_INT32, sizeof *p, &n);
	*points = p[0];
	free(w), free(p);
}

/* The file's /model_rates as schema 8 wrote it: its RATE_fit and
 * RATE_points columns gone, the rest as they were; schema_version 8. */
static void as_schema_8(const char *path)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(f >= 0);
	hid_t d = H5Dopen2(f, "model_rates", H5P_DEFAULT), ft = H5Dget_type(d);
	hid_t old = H5Tcreate(H5T_COMPOUND, H5Tget_size(ft));
	size_t at = 0;
	for (int i = 0; i < H5Tget_nmembers(ft); i++) {
		char *name = H5Tget_member_name(ft, (unsigned)i);
		size_t len = strlen(name);
		hid_t mt = H5Tget_member_type(ft, (unsigned)i);
		int newer = (len > 4 && !strcmp(name + len - 4, "_fit")) ||
			    (len > 7 && !strcmp(name + len - 7, "_points"));
		if (!newer) {
			ck_assert(H5Tinsert(old, name, at, mt) >= 0);
			at += H5Tget_size(mt);
		}
		H5Tclose(mt);
		H5free_memory(name);
	}
	ck_assert(H5Tset_size(old, at) >= 0);
	hid_t space = H5Dget_space(d), dcpl = H5Dget_create_plist(d);
	hssize_t n = H5Sget_simple_extent_npoints(space);
	char *rows = calloc((size_t)n + 1, at);
	ck_assert(H5Dread(d, old, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
	H5Dclose(d);
	ck_assert(H5Ldelete(f, "model_rates", H5P_DEFAULT) >= 0);
	d = H5Dcreate2(f, "model_rates", old, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	ck_assert(d >= 0 && H5Dwrite(d, old, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
	int32_t eight = 8;
	hid_t a = H5Aopen(f, "schema_version", H5P_DEFAULT);
	ck_assert(a >= 0 && H5Awrite(a, H5T_NATIVE_INT32, &eight) >= 0);
	H5Aclose(a), H5Pclose(dcpl), H5Sclose(space), H5Tclose(old), H5Tclose(ft);
	H5Dclose(d), H5Fclose(f);
	free(rows);
}

/* TM13: a fleet file of an earlier jobs/fleet.yaml (9 points) calibrates
 * what its points fit; the rates the job needs that none of them fits are
 * named on stderr and recorded "not identifiable", at the datasheet's
 * values. Then the same file as schema 8 wrote it resumes, and stays so. */
START_TEST(test_old_fleet)
{
	const char *old = in_tmp("old-fleet.h5"), *out = in_tmp("old.h5"), *log = in_tmp("old.log");
	ck_assert_uint_eq(launch_old_fleet(fleet, old), 9);
	const char *args[] = { "--backend",
			       "model",
			       "--model-devices",
			       "H100-SXM",
			       "--model-calibrate",
			       old,
			       "-q",
			       job,
			       "-o",
			       out,
			       NULL };
	ck_assert_msg(launch_run(1, log, args) == 0, "%s", launch_slurp(log));
	char said[1200], word[20];
	snprintf(said, sizeof said, "sweep: --model-calibrate %s: rate", old);
	const char *text = launch_slurp(log), *at = strstr(text, said);
	ck_assert_msg(at, "%s", text);
	ck_assert_msg(strstr(at, "not identifiable: the file holds no point that fits"), "%s",
		      text);
	ck_assert_msg(strstr(at, "datasheet value"), "%s", text);
	int32_t points;
	int unfitted = 0, rates = 0;
	/* each rate (a RATE_fit column) the file cannot fit is said */
	hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "model_rates", 0);
	hid_t t = H5Dget_type(d);
	for (int i = 0; i < H5Tget_nmembers(t); i++) {
		char *col = H5Tget_member_name(t, (unsigned)i), rate[64];
		size_t len = strlen(col);
		if (len > 4 && !strcmp(col + len - 4, "_fit")) {
			snprintf(rate, sizeof rate, "%.*s", (int)(len - 4), col);
			fit_of(out, rate, word, &points);
			rates++;
			if (!strcmp(word, "not identifiable")) {
				unfitted++;
				ck_assert_msg(strstr(at, rate), "%s not said: %s", rate, text);
				ck_assert_int_eq(points, 0);
			} else {
				ck_assert_msg(!strcmp(word, "fitted") ||
						      !strcmp(word, "not needed"),
					      "%s: '%s'", rate, word);
			}
		}
		H5free_memory(col);
	}
	H5Tclose(t), H5Dclose(d), H5Fclose(f);
	ck_assert_int_ge(rates, 10);
	ck_assert_int_gt(unfitted, 0);
	fit_of(out, "dram_efficiency", word, &points); /* the streaming reads fit it */
	ck_assert_str_eq(word, "fitted");
	ck_assert_int_gt(points, 0);
	ck_assert_int_le(points, 7);

	as_schema_8(out);
	const char *again[] = { "--resume", "--backend",
				"model",    "--model-devices",
				"H100-SXM", "--model-calibrate",
				old,        "-q",
				job,        "-o",
				out,        NULL };
	ck_assert_msg(launch_run(1, log, again) == 0, "%s", launch_slurp(log));
	f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "model_rates", 0);
	t = H5Dget_type(d);
	ck_assert_int_lt(H5Tget_member_index(t, "l2_gbps_fit"), 0);
	ck_assert_int_ge(H5Tget_member_index(t, "l2_gbps"), 0);
	int32_t version = 0;
	hid_t a = H5Aopen(f, "schema_version", H5P_DEFAULT);
	ck_assert(H5Aread(a, H5T_NATIVE_INT32, &version) >= 0);
	ck_assert_int_eq(version, 8);
	H5Aclose(a), H5Tclose(t), H5Dclose(d), H5Fclose(f);
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

/* Rows [0, n) of table name of f again as rows [n, 2n), each with rank 1
 * and, where label is set, that device_class. */
static void twice(hid_t f, const char *name, const char *label)
{
	hid_t d = H5Dopen2(f, name, H5P_DEFAULT), ft = H5Dget_type(d), s = H5Dget_space(d);
	hid_t mt = H5Tget_native_type(ft, H5T_DIR_DEFAULT);
	hsize_t n = 0;
	H5Sget_simple_extent_dims(s, &n, NULL);
	size_t size = H5Tget_size(mt);
	char *buf = malloc(2 * n * size);
	ck_assert(d >= 0 && buf && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
	size_t rank = H5Tget_member_offset(mt, (unsigned)H5Tget_member_index(mt, "rank"));
	for (hsize_t i = 0; i < n; i++) {
		char *row = buf + (n + i) * size;
		memcpy(row, buf + i * size, size);
		*(int32_t *)(row + rank) = 1;
		if (label) {
			int k = H5Tget_member_index(mt, "device_class");
			hid_t lt = H5Tget_member_type(mt, (unsigned)k);
			char *at = row + H5Tget_member_offset(mt, (unsigned)k);
			memset(at, 0, H5Tget_size(lt));
			memcpy(at, label, strlen(label));
			H5Tclose(lt);
		}
	}
	hsize_t all = 2 * n;
	ck_assert(H5Dset_extent(d, &all) >= 0 &&
		  H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
	free(buf);
	H5Tclose(mt), H5Tclose(ft), H5Sclose(s), H5Dclose(d);
}

/* Issue 36, cause 3: one calibration file of two classes (the H100 file's
 * rows again on a rank of class B): a resume that takes its rows of the
 * other class is refused, naming both, and changes nothing; the class it
 * was made with resumes (was: accepted, the GPU calibrated in one session
 * and datasheet in the next). */
START_TEST(test_resume_another_class)
{
	const char *out = in_tmp("cls.h5"), *log = in_tmp("cls.log"), *two = in_tmp("two.h5");
	char cmd[4096], b[1100], other[1100], want[2048];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", fleet, two);
	ck_assert_int_eq(system(cmd), 0);
	hid_t f = H5Fopen(two, H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(f >= 0);
	twice(f, "devices", "B");
	twice(f, "measurements", NULL);
	H5Fclose(f);
	snprintf(b, sizeof b, "%s:B", two);
	snprintf(other, sizeof other, "%s:NVIDIA H100 80GB HBM3", two);
	const char *args[] = { "--backend",
			       "model",
			       "--model-devices",
			       "H100-SXM,H200",
			       "--model-calibrate",
			       b,
			       "-q",
			       job,
			       "-o",
			       out,
			       NULL,
			       NULL };
	ck_assert_msg(launch_run(1, log, args) == 0, "%s", launch_slurp(log));
	snprintf(cmd, sizeof cmd, "cp '%s' '%s.before'", out, out);
	ck_assert_int_eq(system(cmd), 0);
	args[5] = other;
	args[10] = "--resume";
	ck_assert_int_eq(launch_run(1, log, args), 2);
	snprintf(want, sizeof want,
		 "sweep: %s was made with --model-calibrate %s:B (its rows of class "
		 "'B', for GPU H100-SXM), and this run takes its rows of class 'NVIDIA "
		 "H100 80GB HBM3' (for GPU H100-SXM): give %s:B, the class it was made "
		 "with, or start a new output\n",
		 out, two, two);
	ck_assert_msg(strstr(launch_slurp(log), want), "%s", launch_slurp(log));
	snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s.before'", out, out);
	ck_assert_int_eq(system(cmd), 0);
	args[5] = b;
	ck_assert_msg(launch_run(1, log, args) == 0, "%s", launch_slurp(log));
}
END_TEST

/* Issue 36, cause 4: "H200, A10" and "H200, T4" alike: the space after the
 * comma goes, and each names its GPU (was: " A10" refused as fitting A10
 * and A100, " T4" taken by a part of "Tesla T4"). */
START_TEST(test_names_with_spaces)
{
	const char *out = in_tmp("sp.h5"), *log = in_tmp("sp.log");
	const char *lists[] = { "H200, A10", "H200, T4" }, *names[] = { "A10", "T4" };
	for (int k = 0; k < 2; k++) {
		const char *args[] = { "--backend", "model",   "--model-devices",
				       lists[k],    "--force", "-q",
				       job,         "-o",      out,
				       NULL };
		ck_assert_msg(launch_run(1, log, args) == 0, "%s", launch_slurp(log));
		char *dev;
		size_t n = rows_of(out, "model_device", 32, &dev), h200 = 0, other = 0;
		for (size_t i = 0; i < n; i++) {
			h200 += !strcmp(dev + 32 * i, "H200");
			other += !strcmp(dev + 32 * i, names[k]);
		}
		ck_assert_uint_gt(h200, 0);
		ck_assert_uint_eq(h200, other);
		free(dev);
	}
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
	tcase_add_test(tc, test_transfer_alone);
	tcase_add_test(tc, test_resume_another_class);
	tcase_add_test(tc, test_names_with_spaces);
	tcase_add_test(tc, test_old_fleet);
	tcase_add_test(tc, test_plugin_hooks);
	tcase_add_test(tc, test_replay_no_targets);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
