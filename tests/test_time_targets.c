/*
 * The time model end to end, on the model backend through mpirun: device
 * targets beside CC targets (ids ;dev=NAME), their predicted times and
 * terms, /model_rates with a calibration file's path and hash, the three
 * bases (datasheet, calibrated, transfer) on real H100 and H200 files, and
 * a resume that refuses a calibration file whose bytes changed (TM12), or
 * the same file's rows of another class (H36-03). GPU names with spaces
 * around them, as "H200, A10" has them, run (H36-04).
 */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"

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
	ck_assert_msg(launch_run(1, log, again) == 0, "%s", launch_slurp(log));
	FILE *f = fopen(cal, "ab");
	ck_assert_ptr_nonnull(f);
	fputs("changed", f);
	fclose(f);
	ck_assert_int_eq(launch_run(1, log, again), 2);
	ck_assert_msg(strstr(launch_slurp(log), "whose content has changed since"), "%s",
		      launch_slurp(log));
	free(basis), free(file);
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
	tcase_add_test(tc, test_resume_another_class);
	tcase_add_test(tc, test_names_with_spaces);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
