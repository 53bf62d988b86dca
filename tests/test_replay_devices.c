/*
 * Emulated devices end to end (--replay-devices, issue 21 item 4): real
 * mpirun launches of the replay backend on a real H200 result file. The
 * file's /devices names each rank's class, with a UUID of its own that a
 * resume sees again and the recorded device's CC, SMs and memory; each
 * row's samples are the recorded ones over its device's speed, compared by
 * point id; counts that are not the ranks are refused before anything runs.
 */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "launch.h"

static char tmpdir[256];
static char job[1024];      /* jobs/seeds.yaml */
static char recorded[1024]; /* its run on one H200 */
static char backend[1100];  /* replay=<recorded> */

static double *all_samples(const char *path, size_t *n)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t d = H5Dopen2(f, "samples", H5P_DEFAULT);
	hid_t s = H5Dget_space(d);
	hsize_t rows = 0;
	H5Sget_simple_extent_dims(s, &rows, NULL);
	double *x = malloc((rows ? rows : 1) * sizeof *x);
	ck_assert(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) >= 0);
	H5Sclose(s);
	H5Dclose(d);
	H5Fclose(f);
	*n = (size_t)rows;
	return x;
}

/* The timing columns of one file's /measurements. */
struct rows {
	size_t n;
	uint64_t *id, *offset;
	int32_t *rank, *status;
	uint32_t *n_samples;
	double *median, *samples;
	char (*backend)[8];
};

static struct rows read_rows(const char *path)
{
	struct rows r;
	size_t n, k;
	r.id = launch_column(path, "measurements", "point_id", H5T_NATIVE_UINT64, 8, &r.n);
	r.offset = launch_column(path, "measurements", "sample_offset", H5T_NATIVE_UINT64, 8, &n);
	r.rank = launch_column(path, "measurements", "rank", H5T_NATIVE_INT32, 4, &n);
	r.status = launch_column(path, "measurements", "status", H5T_NATIVE_INT32, 4, &n);
	r.n_samples = launch_column(path, "measurements", "n_samples", H5T_NATIVE_UINT32, 4, &n);
	r.median = launch_column(path, "measurements", "median_ns", H5T_NATIVE_DOUBLE, 8, &n);
	r.backend = launch_column(path, "measurements", "backend", H5I_INVALID_HID, 8, &n);
	r.samples = all_samples(path, &k);
	return r;
}

static void free_rows(struct rows *r)
{
	free(r->id);
	free(r->offset);
	free(r->rank);
	free(r->status);
	free(r->n_samples);
	free(r->median);
	free(r->backend);
	free(r->samples);
}

/* The row of point id with samples, or -1. */
static long find(const struct rows *r, uint64_t id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->id[i] == id && r->status[i] == 0 && r->n_samples[i])
			return (long)i;
	return -1;
}

static const char *const uuids4[] = { "EMU-A-0", "EMU-A-1", "EMU-B-0", "EMU-B-1" };
static const char *const names4[] = { "A", "A", "B", "B" };

/* /devices of path: n_dev rows, each rank's name and UUID as above and the
 * recorded device's CC, SMs and memory. */
static void check_devices(const char *path, size_t n_dev)
{
	size_t n, m;
	char(*name)[64] = launch_column(path, "devices", "name", H5I_INVALID_HID, 64, &n);
	char(*uuid)[48] = launch_column(path, "devices", "uuid", H5I_INVALID_HID, 48, &n);
	char(*pci)[32] = launch_column(path, "devices", "pci_bus_id", H5I_INVALID_HID, 32, &n);
	char(*be)[8] = launch_column(path, "devices", "backend", H5I_INVALID_HID, 8, &n);
	int32_t *rank = launch_column(path, "devices", "rank", H5T_NATIVE_INT32, 4, &n);
	int32_t *cc = launch_column(path, "devices", "cc", H5T_NATIVE_INT32, 4, &n);
	int32_t *sms = launch_column(path, "devices", "sm_count", H5T_NATIVE_INT32, 4, &n);
	int64_t *mem = launch_column(path, "devices", "mem_bytes", H5T_NATIVE_INT64, 8, &n);
	int32_t *rcc = launch_column(recorded, "devices", "cc", H5T_NATIVE_INT32, 4, &m);
	int32_t *rsms = launch_column(recorded, "devices", "sm_count", H5T_NATIVE_INT32, 4, &m);
	int64_t *rmem = launch_column(recorded, "devices", "mem_bytes", H5T_NATIVE_INT64, 8, &m);

	ck_assert_uint_eq(n, n_dev);
	ck_assert_int_eq(rcc[0], 90); /* an H200's */
	for (size_t i = 0; i < n; i++) {
		int k = rank[i];
		ck_assert_int_lt(k, 4);
		ck_assert_str_eq(name[i], names4[k]);
		ck_assert_str_eq(uuid[i], uuids4[k]);
		ck_assert_str_eq(pci[i], "emulated");
		ck_assert_str_eq(be[i], "replay");
		ck_assert_int_eq(cc[i], rcc[0]);
		ck_assert_int_eq(sms[i], rsms[0]);
		ck_assert(mem[i] == rmem[0] && mem[i] > 0);
	}
	free(name);
	free(uuid);
	free(pci);
	free(be);
	free(rank);
	free(cc);
	free(sms);
	free(mem);
	free(rcc);
	free(rsms);
	free(rmem);
}

/* Each ok row's samples and median are the recorded ones over its rank's
 * speed (B, ranks 2-3: 0.5); every rank ran some. Returns the rows. */
static size_t check_samples(const char *path)
{
	struct rows got = read_rows(path), rec = read_rows(recorded);
	size_t per_rank[4] = { 0 }, timed = 0;

	for (size_t i = 0; i < got.n; i++) {
		ck_assert_str_eq(got.backend[i], "replay");
		ck_assert_int_lt(got.rank[i], 4);
		per_rank[got.rank[i]]++;
		long j = find(&rec, got.id[i]);
		if (got.status[i] != 0 || j < 0)
			continue;
		double speed = got.rank[i] >= 2 ? 0.5 : 1.0;
		ck_assert_uint_eq(got.n_samples[i], rec.n_samples[j]);
		for (uint32_t s = 0; s < got.n_samples[i]; s++) {
			double a = got.samples[got.offset[i] + s];
			double b = rec.samples[rec.offset[j] + s] / speed;
			ck_assert_msg(fabs(a - b) <= 1e-9 * b,
				      "point %016llx sample %u: %g, recorded %g",
				      (unsigned long long)got.id[i], s, a, b * speed);
		}
		ck_assert_double_eq_tol(got.median[i], rec.median[j] / speed,
					1e-9 * rec.median[j] / speed);
		timed++;
	}
	for (int k = 0; k < 4; k++)
		ck_assert_msg(per_rank[k] > 0, "rank %d ran no point", k);
	ck_assert_uint_gt(timed, 100);
	size_t n = got.n;
	free_rows(&got);
	free_rows(&rec);
	return n;
}

START_TEST(test_two_classes)
{
	char out[512], log[512];
	snprintf(out, sizeof out, "%s/two.h5", tmpdir);
	snprintf(log, sizeof log, "%s/two.log", tmpdir);
	const char *args[] = { "--backend",
			       backend,
			       "--replay-devices",
			       "A:2,B:2:0.5",
			       "--replay-speed",
			       "50",
			       "-q",
			       job,
			       "-o",
			       out,
			       NULL };
	ck_assert_msg(launch_run(4, log, args) == 0, "%s", launch_slurp(log));
	check_devices(out, 4);
	ck_assert_uint_eq(check_samples(out),
			  115); /* seeds.yaml's points, float3 at block 32 among them */
}
END_TEST

/* Counts that are not the ranks: refused once, by rank 0, before the file. */
START_TEST(test_counts_refused)
{
	char out[512], log[512];
	snprintf(out, sizeof out, "%s/three.h5", tmpdir);
	snprintf(log, sizeof log, "%s/three.log", tmpdir);
	const char *args[] = { "--backend",   backend, "--replay-devices",
			       "A:2,B:2:0.5", "-q",    job,
			       "-o",          out,     NULL };
	ck_assert_int_eq(launch_run(3, log, args), 2);
	const char *text = launch_slurp(log);
	const char *want = "sweep: --replay-devices A:2,B:2:0.5 makes 4 devices, but the run has "
			   "3 ranks: the counts must add up to the number of ranks\n";
	const char *at = strstr(text, want);
	ck_assert_msg(at, "%s", text);
	ck_assert_ptr_null(strstr(at + 1, "sweep: "));
	ck_assert_int_ne(access(out, F_OK), 0);
}
END_TEST

/* Killed once rows are seen, then resumed with the same SPEC: both
 * sessions' /devices rows give each rank the same UUID, and the file
 * holds each point once. */
START_TEST(test_resume_same_gpus)
{
	char out[512], log[512];
	snprintf(out, sizeof out, "%s/resume.h5", tmpdir);
	snprintf(log, sizeof log, "%s/resume.log", tmpdir);
	const char *first[] = { "--backend",
				backend,
				"--replay-devices",
				"A:2,B:2:0.5",
				"--replay-speed",
				"1",
				"-q",
				job,
				"-o",
				out,
				NULL };
	pid_t pid = launch_start(4, log, first);
	ck_assert_msg(launch_wait_for_rows(out, 1, pid) >= 1, "no rows: %s", launch_slurp(log));
	launch_kill_all(pid);
	hssize_t before = launch_rows_seen(out);
	uint64_t *ids = NULL;
	const char *again[] = {
		"--backend", backend, "--replay-devices", "A:2,B:2:0.5", "--replay-speed",
		"50",        "-q",    "--resume",         job,           "-o",
		out,         NULL
	};
	ck_assert_msg(launch_run(4, log, again) == 0, "%s", launch_slurp(log));
	check_devices(out, 8);
	size_t n;
	int32_t *session = launch_column(out, "devices", "session", H5T_NATIVE_INT32, 4, &n);
	ck_assert_int_eq(session[0], 0);
	ck_assert_int_eq(session[7], 1);
	free(session);
	hssize_t k = launch_rows(out, "/measurements", &ids);
	ck_assert_msg(before > 0 && before < 115, "%lld rows before the kill", (long long)before);
	ck_assert_int_eq(k, 115);
	for (hssize_t i = 0; i < k; i++)
		for (hssize_t j = i + 1; j < k; j++)
			ck_assert(ids[i] != ids[j]);
	free(ids);
	check_samples(out);
}
END_TEST

/* A dry run's "estimated time: " in s: "8.41 s", "12:03" or "1:02:03". */
static double estimated_s(const char *log)
{
	const char *at = strstr(launch_slurp(log), "estimated time: ");
	unsigned h = 0, m = 0, sec = 0;
	double s = -1;
	ck_assert_msg(at, "no estimate: %s", launch_slurp(log));
	at += strlen("estimated time: ");
	if (sscanf(at, "%u:%u:%u", &h, &m, &sec) == 3)
		return 3600.0 * h + 60.0 * m + sec;
	if (sscanf(at, "%u:%u", &m, &sec) == 2)
		return 60.0 * m + sec;
	ck_assert_int_eq(sscanf(at, "%lf s", &s), 1);
	return s;
}

/* H4P06 (issue 30, cause 10): the dry run's estimate honours a device's
 * SPEED, as the run's sleeps do (was: the same estimate at any SPEED).
 * --replay-speed 0.001 makes the times long enough to read to 1 s. */
START_TEST(test_dry_run_speed)
{
	char log[512];
	snprintf(log, sizeof log, "%s/dry.log", tmpdir);
	const char *plain[] = { "--backend", backend, "--replay-speed", "0.001", "-n", job, NULL };
	ck_assert_msg(launch_finish(launch_start_alone(log, plain)) == 0, "%s", launch_slurp(log));
	double at_1 = estimated_s(log);
	ck_assert_msg(strstr(launch_slurp(log), "(replayed: each rank's time over --replay-speed "
						"0.001)"),
		      "%s", launch_slurp(log));
	const char *slow[] = { "--backend",
			       backend,
			       "--replay-speed",
			       "0.001",
			       "--replay-devices",
			       "A:1:0.25",
			       "-n",
			       job,
			       NULL };
	ck_assert_msg(launch_finish(launch_start_alone(log, slow)) == 0, "%s", launch_slurp(log));
	double at_quarter = estimated_s(log);
	ck_assert_msg(at_1 > 30 && fabs(at_quarter / at_1 - 4) < 0.12,
		      "at SPEED 1: %g s, at SPEED 0.25: %g s (want 4 times as long)", at_1,
		      at_quarter);
}
END_TEST

int main(void)
{
	const char *src = launch_env("SW_SOURCE_DIR");
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	snprintf(job, sizeof job, "%s/jobs/seeds.yaml", src);
	snprintf(recorded, sizeof recorded,
		 "%s/docs/results/gpu-runs/h200-check-2b86d9f/seeds-gpu-1.h5", src);
	snprintf(backend, sizeof backend, "replay=%s", recorded);
	if (launch_make_tmpdir(tmpdir, sizeof tmpdir, "replay-devices") != 0)
		return EXIT_FAILURE;
	Suite *s = suite_create("replay_devices");
	TCase *tc = tcase_create("mpirun");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_two_classes);
	tcase_add_test(tc, test_counts_refused);
	tcase_add_test(tc, test_resume_same_gpus);
	tcase_add_test(tc, test_dry_run_speed);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
