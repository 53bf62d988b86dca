/*
 * A cluster of two classes, each replaying its own recording (issue 31,
 * items 1 to 3), through real mpirun launches of the replay backend: class
 * A replays a real H200 file of jobs/seeds.yaml (--backend replay=FILE),
 * class B a second recording made from it here with times changed by
 * family and point (non-uniform) and an A100's device (--replay-devices
 * B:2=b.h5). Each class's rows carry its own recording's samples, device
 * (emulates, CC) and model columns, every (point, class) pair once, also
 * after kill -9 and --resume; /replays records both recordings, and a
 * resume with a changed or moved one is refused. --dry-run gives each
 * class its time from the time model on its GPU, never from its recording,
 * SPEED included; a .csv recording's rows are said once to have no device.
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

#include "job/job.h"
#include "job/plan.h"

static char tmpdir[256];
static char job[1024];      /* jobs/seeds.yaml */
static char recorded[1024]; /* its run on one H200: class A's */
static char backend[1100];  /* replay=<recorded> */

/* The GPU class B's recording claims: the A100 SXM4 80GB of the time
 * model's table (src/model/gpu_table.h), another CC than the H200's. */
#define B_GPU  "NVIDIA A100-SXM4-80GB"
#define B_NAME "A100-SXM4-80GB"
#define B_CC   80
#define B_SMS  108

/* B's time over A's for a point: by family, and twice that for the
 * points whose id is seed modulo 7, so B ranks points unlike A. */
static double factor_of(const char *family, uint64_t id, int seed)
{
	double f = !strcmp(family, "matmul") ? 0.5 : !strcmp(family, "smem_bank") ? 1.0 : 1.5;
	return id % 7 == (uint64_t)seed ? 2 * f : f;
}

/* ---- making class B's recording --------------------------------------- */

static void copy_bytes(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t got;
	ck_assert_msg(in && out, "cannot copy %s to %s", from, to);
	while ((got = fread(buf, 1, sizeof buf, in)) > 0)
		ck_assert(fwrite(buf, 1, got, out) == got);
	fclose(in);
	ck_assert(fclose(out) == 0);
}

/* A whole table of file f in its native type: rows into *buf (caller frees),
 * the type into *mt (caller closes). */
static hsize_t read_table(hid_t f, const char *name, hid_t *mt, void **buf)
{
	hid_t d = H5Dopen2(f, name, H5P_DEFAULT), ft = H5Dget_type(d), s = H5Dget_space(d);
	hsize_t n = 0;
	H5Sget_simple_extent_dims(s, &n, NULL);
	*mt = H5Tget_native_type(ft, H5T_DIR_DEFAULT);
	*buf = malloc((n ? n : 1) * H5Tget_size(*mt));
	ck_assert(d >= 0 && *buf && H5Dread(d, *mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, *buf) >= 0);
	H5Sclose(s);
	H5Tclose(ft);
	H5Dclose(d);
	return n;
}

static void write_table(hid_t f, const char *name, hid_t mt, const void *buf)
{
	hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
	ck_assert(d >= 0 && H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
	H5Dclose(d);
}

/* Where column name lies in a row of mt. */
static size_t at(hid_t mt, const char *name)
{
	int i = H5Tget_member_index(mt, name);
	ck_assert_msg(i >= 0, "no column %s", name);
	return H5Tget_member_offset(mt, (unsigned)i);
}

#define FIELD(buf, mt, row, name, type)                                                            \
	(*(type *)((char *)(buf) + (size_t)(row)*H5Tget_size(mt) + at(mt, name)))

/* /devices of f: every row B's GPU. */
static void claim_gpu(hid_t f)
{
	hid_t mt;
	void *d;
	hsize_t n = read_table(f, "devices", &mt, &d);
	for (hsize_t i = 0; i < n; i++) {
		char *name = &FIELD(d, mt, i, "name", char);
		memset(name, 0, 64);
		strcpy(name, B_GPU);
		FIELD(d, mt, i, "cc", int32_t) = B_CC;
		FIELD(d, mt, i, "sm_count", int32_t) = B_SMS;
		FIELD(d, mt, i, "mem_bytes", int64_t) = INT64_C(85899345920);
		FIELD(d, mt, i, "peak_gbps", double) = 2039.0;
		FIELD(d, mt, i, "l2_bytes", int64_t) = 41943040;
	}
	write_table(f, "devices", mt, d);
	H5Tclose(mt);
	free(d);
}

/* dst: the recorded file, its times (samples, statistics, timed_s and the
 * wall time end_unix - start_unix) scaled by factor_of each row, and its
 * device B's. */
static void make_recording(const char *dst, int seed)
{
	static const char *const scaled[] = { "median_ns", "min_ns", "mean_ns", "stddev_ns",
					      "timed_s" };
	hid_t f, mt;
	void *m;
	copy_bytes(recorded, dst);
	f = H5Fopen(dst, H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert(f >= 0);
	hsize_t n = read_table(f, "measurements", &mt, &m), n_s;
	hid_t sd = H5Dopen2(f, "samples", H5P_DEFAULT), ss = H5Dget_space(sd);
	H5Sget_simple_extent_dims(ss, &n_s, NULL);
	double *s = malloc((n_s ? n_s : 1) * sizeof *s);
	ck_assert(H5Dread(sd, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) >= 0);
	for (hsize_t i = 0; i < n; i++) {
		double k = factor_of(&FIELD(m, mt, i, "family", char),
				     FIELD(m, mt, i, "point_id", uint64_t), seed);
		for (size_t c = 0; c < sizeof scaled / sizeof *scaled; c++)
			FIELD(m, mt, i, scaled[c], double) *= k;
		double start = FIELD(m, mt, i, "start_unix", double);
		FIELD(m, mt, i, "end_unix", double) =
			start + (FIELD(m, mt, i, "end_unix", double) - start) * k;
		uint64_t off = FIELD(m, mt, i, "sample_offset", uint64_t);
		for (uint32_t j = 0; j < FIELD(m, mt, i, "n_samples", uint32_t); j++)
			s[off + j] *= k;
	}
	write_table(f, "measurements", mt, m);
	ck_assert(H5Dwrite(sd, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) >= 0);
	H5Sclose(ss);
	H5Dclose(sd);
	claim_gpu(f);
	H5Tclose(mt);
	H5Fclose(f);
	free(m);
	free(s);
}

/* ---- reading a run back ----------------------------------------------- */

/* The columns of a file's /measurements these checks read. */
struct rows {
	size_t n;
	uint64_t *id, *offset;
	int32_t *rank, *session, *status, *cc;
	uint32_t *n_samples;
	double *median, *model_requests, *model_time, *samples;
	char (*family)[32], (*model_device)[32], (*term)[12];
};

static struct rows read_rows(const char *path)
{
	struct rows r;
	size_t n;
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), mt;
	void *all;
	r.id = launch_column(path, "measurements", "point_id", H5T_NATIVE_UINT64, 8, &r.n);
	r.offset = launch_column(path, "measurements", "sample_offset", H5T_NATIVE_UINT64, 8, &n);
	r.rank = launch_column(path, "measurements", "rank", H5T_NATIVE_INT32, 4, &n);
	r.session = launch_column(path, "measurements", "session", H5T_NATIVE_INT32, 4, &n);
	r.status = launch_column(path, "measurements", "status", H5T_NATIVE_INT32, 4, &n);
	r.cc = launch_column(path, "measurements", "cc", H5T_NATIVE_INT32, 4, &n);
	r.n_samples = launch_column(path, "measurements", "n_samples", H5T_NATIVE_UINT32, 4, &n);
	r.median = launch_column(path, "measurements", "median_ns", H5T_NATIVE_DOUBLE, 8, &n);
	r.model_requests =
		launch_column(path, "measurements", "model_requests", H5T_NATIVE_DOUBLE, 8, &n);
	r.model_time =
		launch_column(path, "measurements", "model_time_ns", H5T_NATIVE_DOUBLE, 8, &n);
	r.family = launch_column(path, "measurements", "family", H5I_INVALID_HID, 32, &n);
	r.model_device =
		launch_column(path, "measurements", "model_device", H5I_INVALID_HID, 32, &n);
	r.term = launch_column(path, "measurements", "model_time_term", H5I_INVALID_HID, 12, &n);
	ck_assert(f >= 0);
	hsize_t k = read_table(f, "samples", &mt, &all);
	(void)k;
	r.samples = all;
	H5Tclose(mt);
	H5Fclose(f);
	return r;
}

static void free_rows(struct rows *r)
{
	void *p[] = { r->id,     r->offset,       r->rank,   r->session,        r->status,
		      r->cc,     r->n_samples,    r->median, r->model_requests, r->model_time,
		      r->family, r->model_device, r->term,   r->samples };
	for (size_t i = 0; i < sizeof p / sizeof *p; i++)
		free(p[i]);
}

/* The row of point id with samples in r, or -1. */
static long find(const struct rows *r, uint64_t id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->id[i] == id && r->status[i] == 0 && r->n_samples[i])
			return (long)i;
	return -1;
}

/* The class (0: A, 1: B) of a row's rank and session in path's /devices,
 * each checked to be the emulated device of its recording. */
static int *row_classes(const char *path, const struct rows *r)
{
	size_t n;
	char(*name)[64] = launch_column(path, "devices", "name", H5I_INVALID_HID, 64, &n);
	char(*emu)[64] = launch_column(path, "devices", "emulates", H5I_INVALID_HID, 64, &n);
	int32_t *rank = launch_column(path, "devices", "rank", H5T_NATIVE_INT32, 4, &n);
	int32_t *sess = launch_column(path, "devices", "session", H5T_NATIVE_INT32, 4, &n);
	int32_t *cc = launch_column(path, "devices", "cc", H5T_NATIVE_INT32, 4, &n);
	int32_t *sms = launch_column(path, "devices", "sm_count", H5T_NATIVE_INT32, 4, &n);
	double *peak = launch_column(path, "devices", "peak_gbps", H5T_NATIVE_DOUBLE, 8, &n);
	int *cls = calloc(r->n ? r->n : 1, sizeof *cls);
	for (size_t j = 0; j < n; j++) {
		int b = rank[j] >= 2;
		ck_assert_str_eq(name[j], b ? "B" : "A");
		ck_assert_str_eq(emu[j], b ? B_GPU : "NVIDIA H200");
		ck_assert_int_eq(cc[j], b ? B_CC : 90);
		ck_assert_int_eq(sms[j], b ? B_SMS : 132);
		ck_assert(b ? peak[j] == 2039.0 : peak[j] > 4000);
	}
	for (size_t i = 0; i < r->n; i++) {
		size_t j = 0;
		while (j < n && (rank[j] != r->rank[i] || sess[j] != r->session[i]))
			j++;
		ck_assert_msg(j < n, "%s: row %zu has no /devices row", path, i);
		cls[i] = !strcmp(name[j], "B");
	}
	free(name);
	free(emu);
	free(rank);
	free(sess);
	free(cc);
	free(sms);
	free(peak);
	return cls;
}

static size_t plan_points(void)
{
	struct sw_job j;
	struct sw_plan plan;
	struct sw_err err = { 0 };
	ck_assert_msg(sw_job_load(job, &j, &err) == SW_OK, "%s", err.msg);
	ck_assert_int_eq(sw_plan_build(&j, 0, &plan, &err), SW_OK);
	size_t n = plan.n;
	sw_plan_fini(&plan);
	sw_job_fini(&j);
	return n;
}

/* out holds every point once on each class, each row its class's
 * recording's samples and device, B's times its own (non-uniform ratios
 * to A's), and the model's columns of its class's GPU. */
static void check_classes(const char *out, const char *b_file)
{
	struct rows got = read_rows(out), a = read_rows(recorded), b = read_rows(b_file);
	int *cls = row_classes(out, &got);
	size_t n_plan = plan_points(), timed[2] = { 0 }, ratios[3] = { 0 }, modelled[2] = { 0 },
	       figures[2] = { 0 };

	ck_assert_uint_eq(got.n, 2 * n_plan);
	for (size_t i = 0; i < got.n; i++) {
		size_t same = 0;
		for (size_t j = 0; j < got.n; j++)
			same += got.id[j] == got.id[i] && cls[j] == cls[i];
		ck_assert_msg(same == 1, "point %016llx has %zu rows on class %c",
			      (unsigned long long)got.id[i], same, 'A' + cls[i]);
		ck_assert_int_eq(got.cc[i], cls[i] ? B_CC : 90);
		if (!isnan(got.model_time[i]) && got.model_time[i] > 0) {
			ck_assert_str_eq(got.model_device[i], cls[i] ? B_NAME : "H200");
			modelled[cls[i]]++;
		}
		figures[cls[i]] += got.model_requests[i] > 0;
		const struct rows *rec = cls[i] ? &b : &a;
		long j = find(rec, got.id[i]), ja = find(&a, got.id[i]);
		if (got.status[i] != 0 || j < 0)
			continue;
		ck_assert_uint_eq(got.n_samples[i], rec->n_samples[j]);
		for (uint32_t s = 0; s < got.n_samples[i]; s++)
			ck_assert(fabs(got.samples[got.offset[i] + s] -
				       rec->samples[rec->offset[j] + s]) <=
				  1e-9 * rec->samples[rec->offset[j] + s]);
		timed[cls[i]]++;
		double k = got.median[i] / a.median[ja];
		ratios[0] += cls[i] && fabs(k - 0.5) < 1e-6;
		ratios[1] += cls[i] && fabs(k - 1.5) < 1e-6;
		ratios[2] += cls[i] && fabs(k - 3.0) < 1e-6;
	}
	ck_assert_msg(timed[0] > 100 && timed[1] > 100, "timed rows: A %zu, B %zu", timed[0],
		      timed[1]);
	ck_assert_msg(ratios[0] && ratios[1] && ratios[2],
		      "B's times over A's: %zu at 0.5, %zu "
		      "at 1.5, %zu at 3",
		      ratios[0], ratios[1], ratios[2]);
	ck_assert_msg(modelled[0] > 10 && modelled[1] > 10, "model times: A %zu, B %zu",
		      modelled[0], modelled[1]);
	ck_assert_msg(figures[0] > 50 && figures[1] > 50, "model figures: A %zu, B %zu", figures[0],
		      figures[1]);
	free(cls);
	free_rows(&got);
	free_rows(&a);
	free_rows(&b);
}

/* /replays: the shared recording (A's) and B's, hashed, with their GPUs. */
static void check_replays(const char *out, const char *b_file)
{
	size_t n;
	char(*cls)[33] = launch_column(out, "replays", "device_class", H5I_INVALID_HID, 33, &n);
	char(*file)[1024] = launch_column(out, "replays", "file", H5I_INVALID_HID, 1024, &n);
	char(*emu)[64] = launch_column(out, "replays", "emulates", H5I_INVALID_HID, 64, &n);
	uint64_t *hash = launch_column(out, "replays", "file_hash", H5T_NATIVE_UINT64, 8, &n);
	int32_t *devs = launch_column(out, "replays", "devices", H5T_NATIVE_INT32, 4, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(cls[0], "");
	ck_assert_str_eq(file[0], recorded);
	ck_assert_str_eq(emu[0], "NVIDIA H200");
	ck_assert_str_eq(cls[1], "B");
	ck_assert_str_eq(file[1], b_file);
	ck_assert_str_eq(emu[1], B_GPU);
	ck_assert(hash[0] && hash[1] && hash[0] != hash[1]);
	ck_assert(devs[0] == 2 && devs[1] == 2);
	free(cls);
	free(file);
	free(emu);
	free(hash);
	free(devs);
}

/* ---- the runs ---------------------------------------------------------- */

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* Room for per_class_args' arguments and their NULL. */
#define PER_CLASS_ARGS 14

/* The arguments of a per_class run of job into out, each class as spec
 * says, on backend be at --replay-speed speed; a --resume where asked. */
static void per_class_args(const char **args, const char *be, const char *spec, const char *speed,
			   int resume, const char *out)
{
	const char *head[] = { "--backend",   be,          "--replay-devices", spec,
			       "--placement", "per_class", "--replay-speed",   speed,
			       "-q" };
	int n = 0;
	for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
		args[n++] = head[i];
	if (resume)
		args[n++] = "--resume";
	args[n++] = job;
	args[n++] = "-o";
	args[n++] = out;
	args[n] = NULL;
}

START_TEST(test_own_recordings)
{
	char b[512], spec[600], out[512], log[512];
	path_in(b, sizeof b, "b.h5");
	path_in(out, sizeof out, "own.h5");
	path_in(log, sizeof log, "own.log");
	make_recording(b, 0);
	snprintf(spec, sizeof spec, "A:2,B:2=%s", b);
	const char *args[PER_CLASS_ARGS];
	per_class_args(args, backend, spec, "50", 0, out);
	ck_assert_msg(launch_run(4, log, args) == 0, "%s", launch_slurp(log));
	check_classes(out, b);
	check_replays(out, b);
}
END_TEST

/* A resume of out with B's recording at another path (b2, the same
 * bytes), then with b's bytes changed: each refused, naming it, and the
 * file left as it was. */
static void refused_changed(const char *out, const char *b, const char *b2, const char *log,
			    const char *const *again)
{
	char spec2[600];
	/* B's recording moved: another path, the same bytes */
	copy_bytes(b, b2);
	snprintf(spec2, sizeof spec2, "A:2,B:2=%s", b2);
	const char *moved[PER_CLASS_ARGS];
	per_class_args(moved, backend, spec2, "50", 1, out);
	ck_assert_int_eq(launch_run(4, log, moved), 2);
	char want[1600];
	snprintf(want, sizeof want,
		 "sweep: %s was made without --replay-devices class B's recording %s: give the "
		 "recordings it was made with (h5dump -d /replays %s)\n",
		 out, b2, out);
	ck_assert_msg(strstr(launch_slurp(log), want), "%s", launch_slurp(log));

	/* B's recording changed: the same path, other times */
	make_recording(b, 3);
	ck_assert_int_eq(launch_run(4, log, again), 2);
	snprintf(want, sizeof want,
		 "sweep: %s was made with --replay-devices class B's recording %s, whose content "
		 "has changed since (hash ",
		 out, b);
	const char *said = launch_slurp(log);
	ck_assert_msg(strstr(said, want) && strstr(said, "give the recording it was made with"),
		      "%s", said);
	ck_assert_int_eq(launch_rows(out, "/measurements", NULL), (hssize_t)(2 * plan_points()));
}

/* kill -9 once rows are in, --resume: the same pairs; then a resume with
 * B's recording changed, or moved, is refused and the file left as it was. */
START_TEST(test_kill_resume_changed)
{
	char b[512], b2[512], spec[600], out[512], log[512];
	path_in(b, sizeof b, "kb.h5");
	path_in(b2, sizeof b2, "kb2.h5");
	path_in(out, sizeof out, "killed.h5");
	path_in(log, sizeof log, "killed.log");
	make_recording(b, 0);
	snprintf(spec, sizeof spec, "A:2,B:2=%s", b);
	const char *first[PER_CLASS_ARGS];
	per_class_args(first, backend, spec, "1", 0, out);
	pid_t pid = launch_start(4, log, first);
	ck_assert_msg(launch_wait_for_rows(out, 8, pid) >= 8, "no rows: %s", launch_slurp(log));
	launch_kill_all(pid);
	hssize_t before = launch_rows_swmr(out, "/measurements", NULL);
	ck_assert_msg(before > 0 && (size_t)before < 2 * plan_points(), "%lld rows after the kill",
		      (long long)before);
	const char *again[PER_CLASS_ARGS];
	per_class_args(again, backend, spec, "50", 1, out);
	ck_assert_msg(launch_run(4, log, again) == 0, "%s", launch_slurp(log));
	check_classes(out, b);
	check_replays(out, b);

	refused_changed(out, b, b2, log, again);
}
END_TEST

/* Issue 36, cause 12: a recording of two classes' rows (a per_class run
 * of A and B), replayed by classes named as it names them, gives each
 * class its own rows, samples and device (was: class B got A's under B's
 * name); classes it does not name are refused, the dry run too, saying
 * how to choose, and nothing is written. */
START_TEST(test_two_class_recording)
{
	char b[512], two[512], spec[1200], out[512], log[512];
	path_in(b, sizeof b, "tb.h5");
	path_in(two, sizeof two, "two.h5");
	path_in(out, sizeof out, "mix.h5");
	path_in(log, sizeof log, "two.log");
	make_recording(b, 0);
	snprintf(spec, sizeof spec, "A:2,B:2=%s", b);
	const char *args[PER_CLASS_ARGS];
	per_class_args(args, backend, spec, "50", 0, two);
	ck_assert_msg(launch_run(4, log, args) == 0, "%s", launch_slurp(log));

	snprintf(spec, sizeof spec, "A:2=%s,B:2=%s", two, two);
	per_class_args(args, "replay", spec, "50", 0, out);
	ck_assert_msg(launch_run(4, log, args) == 0, "%s", launch_slurp(log));
	check_classes(out, b);

	char want[1600];
	snprintf(spec, sizeof spec, "C:2=%s,B:2=%s", two, two);
	snprintf(want, sizeof want,
		 "--replay-devices C:...=%s holds rows of two device classes ('A', 'B'), "
		 "none of them 'C': a class replays the rows of its own name from a recording "
		 "of several: name the class as the recording does (A:COUNT=FILE), or give "
		 "a recording of one class\n",
		 two);
	/* each rank of class C says it as it binds: ranks 0 and 1 */
	path_in(out, sizeof out, "refused.h5");
	per_class_args(args, "replay", spec, "50", 0, out);
	ck_assert_int_eq(launch_run(4, log, args), 2);
	ck_assert_msg(strstr(launch_slurp(log), want), "%s", launch_slurp(log));
	ck_assert_int_ne(access(out, F_OK), 0);
	const char *dry[] = { "--backend", "replay",      "--replay-devices",
			      spec,        "--placement", "per_class",
			      "-n",        job,           NULL };
	ck_assert_int_eq(launch_run(4, log, dry), 2);
	ck_assert_msg(strstr(launch_slurp(log), want), "%s", launch_slurp(log));
}
END_TEST

/* Seconds of "8.41 s", "12:03" or "1:02:03", as --dry-run writes them. */
static double seconds_of(const char *text)
{
	double s = 0, part;
	int used;
	while (sscanf(text, "%lf%n", &part, &used) == 1) {
		s = s * 60 + part;
		text += used;
		if (*text != ':')
			break;
		text++;
	}
	return s;
}

/* The estimate --dry-run gives class B, "expected X", and its times line. */
static double dry_estimate(const char *spec, char *times, size_t len)
{
	char log[512];
	path_in(log, sizeof log, "dry.log");
	const char *args[] = { "--backend", backend,       "--replay-devices",
			       spec,        "--placement", "per_class",
			       "-n",        job,           NULL };
	ck_assert_msg(launch_run(4, log, args) == 0, "%s", launch_slurp(log));
	const char *text = launch_slurp(log), *line = strstr(text, "\n  B: 2 devices, replays ");
	ck_assert_msg(line && strstr(line, "(" B_GPU "): expected "), "%s", text);
	double s = seconds_of(strstr(line, ": expected ") + strlen(": expected "));
	const char *t = strstr(line, "    times: ");
	ck_assert_ptr_nonnull(t);
	snprintf(times, len, "%.*s", (int)strcspn(t, "\n"), t);
	ck_assert_msg(strstr(text, "\n  A: 2 devices, replays ") &&
			      strstr(text, "(NVIDIA H200): expected "),
		      "%s", text);
	return s;
}

/* Each class's estimate comes from the time model on its GPU: B's is
 * carried from the estimates' GPU to the A100, the same whatever B's
 * recording holds, and SPEED divides it. */
START_TEST(test_dry_run_per_class)
{
	char b[512], b2[512], spec[600], times[512], times2[512], times3[512];
	path_in(b, sizeof b, "db.h5");
	path_in(b2, sizeof b2, "db2.h5");
	make_recording(b, 0);
	make_recording(b2, 5);
	snprintf(spec, sizeof spec, "A:2,B:2=%s", b);
	double s1 = dry_estimate(spec, times, sizeof times);
	ck_assert_msg(strstr(times, "carried from H200 to " B_NAME " by the time model"), "%s",
		      times);
	snprintf(spec, sizeof spec, "A:2,B:2=%s", b2);
	double s2 = dry_estimate(spec, times2, sizeof times2);
	ck_assert_str_eq(times, times2);
	ck_assert_double_eq(s1, s2);
	snprintf(spec, sizeof spec, "A:2,B:2:0.5=%s", b);
	double s3 = dry_estimate(spec, times3, sizeof times3);
	ck_assert_msg(fabs(s3 / s1 - 2) < 0.02, "at SPEED 0.5: %g s, at 1: %g s", s3, s1);
}
END_TEST

/* A .csv recording names no device: its rows keep the model's columns NaN,
 * and one rank says so, once; B's rows have them. */
START_TEST(test_csv_said_once)
{
	char b[512], csv[512], spec[600], be[600], out[512], log[512];
	path_in(b, sizeof b, "cb.h5");
	path_in(csv, sizeof csv, "a.csv");
	path_in(out, sizeof out, "csv.h5");
	path_in(log, sizeof log, "csv.log");
	make_recording(b, 0);
	FILE *f = fopen(csv, "w");
	ck_assert(f && fputs("point_id_hex,family,variant,seconds\n", f) >= 0 && fclose(f) == 0);
	snprintf(spec, sizeof spec, "A:2,B:2=%s", b);
	snprintf(be, sizeof be, "replay=%s", csv);
	const char *args[PER_CLASS_ARGS];
	per_class_args(args, be, spec, "50", 0, out);
	ck_assert_msg(launch_run(4, log, args) == 0, "%s", launch_slurp(log));
	const char *text = launch_slurp(log), *at = strstr(text, "names no device");
	ck_assert_msg(at && strstr(text, "the rows of class A carry no model columns"), "%s", text);
	ck_assert_ptr_null(strstr(at + 1, "names no device"));
	struct rows got = read_rows(out);
	size_t a_rows = 0, b_modelled = 0;
	for (size_t i = 0; i < got.n; i++)
		if (got.rank[i] < 2) {
			a_rows++;
			ck_assert(isnan(got.model_requests[i]) && isnan(got.model_time[i]));
		} else {
			b_modelled += !isnan(got.model_requests[i]);
		}
	ck_assert_msg(a_rows > 100 && b_modelled > 50, "A rows %zu, B rows modelled %zu", a_rows,
		      b_modelled);
	free_rows(&got);
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
	if (launch_make_tmpdir(tmpdir, sizeof tmpdir, "replay-classes") != 0)
		return EXIT_FAILURE;
	Suite *s = suite_create("replay_classes");
	TCase *tc = tcase_create("mpirun");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_own_recordings);
	tcase_add_test(tc, test_kill_resume_changed);
	tcase_add_test(tc, test_dry_run_per_class);
	tcase_add_test(tc, test_csv_said_once);
	tcase_add_test(tc, test_two_class_recording);
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
