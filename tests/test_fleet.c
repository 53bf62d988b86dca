/*
 * Issue 21's "Done when" on emulated devices: real mpirun launches of the
 * replay backend (--replay-devices) on a real H200 result file. per_class
 * over two classes has each point once per class, under the right class
 * names, also with --costs of such a file (times per class), dynamic and
 * static; every_gpu over three GPUs has each point once on each UUID; a
 * kill -9 midway then --resume gives exactly the pairs of an uninterrupted
 * run; a calibrate job on four GPUs, one at 0.8 speed, has each calibration
 * point once on each GPU and the rest once; --extend adds calibration
 * points and a family. `test_fleet report` runs sweep-report on the
 * calibrate job's file and checks the fleet section flags the slow GPU
 * and no other (SKIPPED without the build's venv).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "launch.h"

#include "job/job.h"
#include "job/plan.h"

static char tmpdir[256];
static char seeds[1024];   /* jobs/seeds.yaml */
static char backend[1100]; /* replay=<a real H200 file with samples> */

/* ---- reading a file's pairs ------------------------------------------ */

/* A file's rows as pairs: the point and where it ran, the UUID or the
 * class label of its rank's /devices row in its session. */
struct pair {
	uint64_t id;
	char where[96];
	int32_t cal;
};

enum by { BY_UUID, BY_CLASS };

static int cmp_pair(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return strcmp(a->where, b->where);
}

/* Sorted pairs of path (*n of them). */
static struct pair *read_pairs(const char *path, enum by by, size_t *n)
{
	size_t nd, k;
	uint64_t *id = launch_column(path, "measurements", "point_id", H5T_NATIVE_UINT64, 8, n);
	int32_t *rank = launch_column(path, "measurements", "rank", H5T_NATIVE_INT32, 4, &k);
	int32_t *sess = launch_column(path, "measurements", "session", H5T_NATIVE_INT32, 4, &k);
	int32_t *cal = launch_column(path, "measurements", "calibration", H5T_NATIVE_INT32, 4, &k);
	int32_t *drank = launch_column(path, "devices", "rank", H5T_NATIVE_INT32, 4, &nd);
	int32_t *dsess = launch_column(path, "devices", "session", H5T_NATIVE_INT32, 4, &nd);
	char(*where)[96] =
		by == BY_UUID
			? launch_column(path, "devices", "uuid", H5I_INVALID_HID, 96, &nd)
			: launch_column(path, "devices", "device_class", H5I_INVALID_HID, 96, &nd);
	struct pair *p = calloc(*n ? *n : 1, sizeof *p);
	for (size_t i = 0; i < *n; i++) {
		size_t j = 0;
		while (j < nd && (drank[j] != rank[i] || dsess[j] != sess[i]))
			j++;
		ck_assert_msg(j < nd, "%s: row %zu (rank %d, session %d) has no /devices row", path,
			      i, rank[i], sess[i]);
		p[i].id = id[i];
		p[i].cal = cal[i];
		memcpy(p[i].where, where[j], sizeof p[i].where);
	}
	qsort(p, *n, sizeof *p, cmp_pair);
	free(id);
	free(rank);
	free(sess);
	free(cal);
	free(drank);
	free(dsess);
	free(where);
	return p;
}

/* Rows of point id at where (where NULL: anywhere). */
static int count(const struct pair *p, size_t n, uint64_t id, const char *where)
{
	int c = 0;
	for (size_t i = 0; i < n; i++)
		c += p[i].id == id && (!where || !strcmp(p[i].where, where));
	return c;
}

static void plan_of(const char *job_path, struct sw_plan *plan)
{
	struct sw_job job;
	struct sw_err err = { 0 };
	ck_assert_msg(sw_job_load(job_path, &job, &err) == SW_OK, "%s", err.msg);
	ck_assert_int_eq(sw_plan_build(&job, 0, plan, &err), SW_OK); /* replay: no model rows */
	sw_job_fini(&job);
}

/*
 * path holds, for each plan point, exactly one row at each of wheres[] when
 * the point is a calibration point or `all` is set, else one row in all,
 * and nothing else; each row's calibration column is its point's.
 */
static void assert_pairs(const char *path, const struct sw_plan *plan, enum by by,
			 const char *const *wheres, int all)
{
	size_t n, want = 0, n_where = 0;
	struct pair *p = read_pairs(path, by, &n);
	while (wheres[n_where])
		n_where++;
	for (size_t i = 0; i < plan->n; i++) {
		const struct sw_plan_point *pt = &plan->points[i];
		int each = all || pt->calibration;
		want += each ? n_where : 1;
		for (size_t w = 0; each && w < n_where; w++)
			ck_assert_msg(count(p, n, pt->id, wheres[w]) == 1,
				      "%s: point %zu has %d rows at %s", path, i,
				      count(p, n, pt->id, wheres[w]), wheres[w]);
		ck_assert_msg(each || count(p, n, pt->id, NULL) == 1, "%s: point %zu has %d rows",
			      path, i, count(p, n, pt->id, NULL));
		for (size_t j = 0; j < n; j++)
			if (p[j].id == pt->id)
				ck_assert_int_eq(p[j].cal, pt->calibration);
	}
	ck_assert_msg(n == want, "%s: %zu rows, not %zu", path, n, want);
	free(p);
}

/* Two files hold the same pairs, as multisets. */
static void assert_same_pairs(const char *a, const char *b, enum by by)
{
	size_t na, nb;
	struct pair *pa = read_pairs(a, by, &na), *pb = read_pairs(b, by, &nb);
	ck_assert_msg(na == nb, "%s: %zu rows, %s: %zu", a, na, b, nb);
	for (size_t i = 0; i < na; i++)
		ck_assert_msg(!cmp_pair(&pa[i], &pb[i]) && pa[i].cal == pb[i].cal,
			      "pair %zu: %016llx at %s in %s, %016llx at %s in %s", i,
			      (unsigned long long)pa[i].id, pa[i].where, a,
			      (unsigned long long)pb[i].id, pb[i].where, b);
	free(pa);
	free(pb);
}

/* ---- runs ------------------------------------------------------------- */

static const char *in_tmp(const char *name)
{
	static char buf[8][512];
	static int next;
	char *p = buf[next++ % 8];
	snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
	return p;
}

/* sweep on the replay backend, np ranks as devices, under placement (NULL:
 * the job's), at speed; extra (NULL-ended, may be NULL) before the job. */
static void sweep(int np, const char *devices, const char *placement, const char *speed,
		  const char *const *extra, const char *job, const char *out)
{
	const char *args[32] = { "--backend", backend,          "--replay-devices",
				 devices,     "--replay-speed", speed,
				 "-q" };
	int k = 7;
	if (placement) {
		args[k++] = "--placement";
		args[k++] = placement;
	}
	for (int i = 0; extra && extra[i]; i++)
		args[k++] = extra[i];
	args[k++] = job;
	args[k++] = "-o";
	args[k++] = out;
	args[k] = NULL;
	const char *log = in_tmp("run.log");
	ck_assert_msg(launch_run(np, log, args) == 0, "%s", launch_slurp(log));
}

static const char *const classes_ab[] = { "A", "B", NULL };
static const char *const uuids_a3[] = { "EMU-A-0", "EMU-A-1", "EMU-A-2", NULL };
static const char *const uuids_a4[] = { "EMU-A-0", "EMU-A-1", "EMU-A-2", "EMU-A-3", NULL };

START_TEST(test_per_class_two_classes)
{
	struct sw_plan plan;
	plan_of(seeds, &plan);
	ck_assert_uint_eq(plan.n, 115);
	sweep(4, "A:2,B:2:0.5", "per_class", "100", NULL, seeds, in_tmp("pc.h5"));
	assert_pairs(in_tmp("pc.h5"), &plan, BY_CLASS, classes_ab, 1);
	/* and the classes are the ranks the SPEC gave them */
	size_t n, k;
	int32_t *rank = launch_column(in_tmp("pc.h5"), "devices", "rank", H5T_NATIVE_INT32, 4, &n);
	char(*cls)[96] =
		launch_column(in_tmp("pc.h5"), "devices", "device_class", H5I_INVALID_HID, 96, &k);
	ck_assert_uint_eq(n, 4);
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(cls[i], rank[i] < 2 ? "A" : "B");
	free(rank);
	free(cls);
	/* --costs of that file: its times per class order each class's points,
	 * dynamic and static; the pairs are the same */
	const char *dyn[] = { "--costs", in_tmp("pc.h5"), NULL };
	const char *stat[] = { "--costs", in_tmp("pc.h5"), "--schedule", "static", NULL };
	sweep(4, "A:2,B:2:0.5", "per_class", "100", dyn, seeds, in_tmp("pc-costs.h5"));
	assert_pairs(in_tmp("pc-costs.h5"), &plan, BY_CLASS, classes_ab, 1);
	sweep(4, "A:2,B:2:0.5", "per_class", "100", stat, seeds, in_tmp("pc-static.h5"));
	assert_pairs(in_tmp("pc-static.h5"), &plan, BY_CLASS, classes_ab, 1);
	sw_plan_fini(&plan);
}
END_TEST

START_TEST(test_every_gpu_three)
{
	struct sw_plan plan;
	plan_of(seeds, &plan);
	sweep(3, "A:3", "every_gpu", "100", NULL, seeds, in_tmp("every.h5"));
	assert_pairs(in_tmp("every.h5"), &plan, BY_UUID, uuids_a3, 1);
	sw_plan_fini(&plan);
}
END_TEST

/* kill -9 once an eighth of the pairs are in (the longest points go first,
 * so rows come slowly, then all at once), then --resume with the same
 * SPEC: the pairs of an uninterrupted run, written first. */
static void kill_and_resume(int np, const char *devices, const char *placement, enum by by,
			    const char *name)
{
	char whole[512], out[512], log[512];
	snprintf(whole, sizeof whole, "%s/%s-whole.h5", tmpdir, name);
	snprintf(out, sizeof out, "%s/%s-killed.h5", tmpdir, name);
	snprintf(log, sizeof log, "%s/%s-killed.log", tmpdir, name);
	sweep(np, devices, placement, "100", NULL, seeds, whole);
	size_t n_whole;
	free(read_pairs(whole, by, &n_whole));

	const char *first[] = { "--backend",
				backend,
				"--replay-devices",
				devices,
				"--replay-speed",
				"2",
				"--placement",
				placement,
				"-q",
				seeds,
				"-o",
				out,
				NULL };
	pid_t pid = launch_start(np, log, first);
	hssize_t seen = launch_wait_for_rows(out, (hssize_t)n_whole / 8, pid);
	ck_assert_msg(seen >= 0, "the run ended before the kill: %s", launch_slurp(log));
	launch_kill_all(pid);
	hssize_t partial = launch_rows_swmr(out, "/measurements", NULL);
	ck_assert_msg(partial >= seen && (size_t)partial < n_whole,
		      "%lld rows after the kill (%lld seen): nothing to resume", (long long)partial,
		      (long long)seen);
	const char *resume[] = { "--resume", NULL };
	sweep(np, devices, placement, "100", resume, seeds, out);
	assert_same_pairs(whole, out, by);
}

START_TEST(test_kill_resume_per_class)
{
	kill_and_resume(4, "A:2,B:2:0.5", "per_class", BY_CLASS, "pc");
}
END_TEST

START_TEST(test_kill_resume_every_gpu)
{
	kill_and_resume(3, "A:3", "every_gpu", BY_UUID, "every");
}
END_TEST

/* seeds.yaml with its strided_read and smem_bank points also in calibrate:
 * the fleet check of one run (seeds' own points, so the replayed file has
 * them all). */
static void write_cal_job(const char *path, const char *extra_calibrate)
{
	FILE *in = fopen(seeds, "r"), *out = fopen(path, "w");
	ck_assert(in && out);
	char line[512];
	while (fgets(line, sizeof line, in))
		fputs(line, out);
	fputs("calibrate:\n  strided_read:\n    axes:\n      stride: 1:128:x2\n      n: 64M\n"
	      "  smem_bank:\n    axes:\n      word_stride: [0, 1, 2, 3, 4, 8, 16, 32]\n",
	      out);
	if (extra_calibrate)
		fputs(extra_calibrate, out);
	fclose(in);
	fclose(out);
}

/* The calibrate job on A:3,A:1:0.8 under once into out. */
static void run_fleet(const char *out)
{
	const char *job = in_tmp("fleet.yaml");
	write_cal_job(job, NULL);
	sweep(4, "A:3,A:1:0.8", NULL, "100", NULL, job, out);
}

START_TEST(test_calibrate_four)
{
	struct sw_plan plan;
	const char *out = in_tmp("fleet.h5");
	run_fleet(out);
	plan_of(in_tmp("fleet.yaml"), &plan);
	size_t cal = 0;
	for (size_t i = 0; i < plan.n; i++)
		cal += plan.points[i].calibration;
	ck_assert_uint_eq(plan.n, 115);
	ck_assert_uint_eq(cal, 18 + 11); /* seeds' strided_read and smem_bank points */
	assert_pairs(out, &plan, BY_UUID, uuids_a4, 0);
	sw_plan_fini(&plan);
}
END_TEST

/* A per_class run of seeds' float3, then --extend with calibrate points
 * (seeds' smem_bank) and a new family (reduce): the old pairs stay, each
 * calibration point runs once on every GPU, the new family once per class. */
START_TEST(test_extend_calibrate)
{
	const char *out = in_tmp("ext.h5"), *job = in_tmp("ext.yaml");
	struct sw_plan before, after;
	FILE *f = fopen(job, "w");
	ck_assert_ptr_nonnull(f);
	fputs("name: seeds\nplacement: per_class\nfamilies:\n  float3:\n"
	      "    variants: [aos, staged, soa, copy, memcpy]\n    axes:\n      n: 64M\n",
	      f);
	fclose(f);
	plan_of(job, &before);
	sweep(4, "A:2,B:2:0.5", NULL, "100", NULL, job, out);
	assert_pairs(out, &before, BY_CLASS, classes_ab, 1);

	f = fopen(job, "a");
	fputs("  reduce:\n    axes:\n      n: 64M\n"
	      "calibrate:\n  smem_bank:\n    axes:\n      word_stride: [0, 1, 2, 3, 4, 8, 16, "
	      "32]\n",
	      f);
	fclose(f);
	plan_of(job, &after);
	ck_assert_uint_gt(after.n, before.n);
	const char *extend[] = { "--extend", NULL };
	sweep(4, "A:2,B:2:0.5", NULL, "100", extend, job, out);
	/* every point once per class; the calibration points once per GPU too */
	static const char *const uuids[] = { "EMU-A-0", "EMU-A-1", "EMU-B-0", "EMU-B-1", NULL };
	size_t n;
	struct pair *pc = read_pairs(out, BY_CLASS, &n);
	struct pair *pu = read_pairs(out, BY_UUID, &n);
	size_t want = 0;
	for (size_t i = 0; i < after.n; i++) {
		const struct sw_plan_point *pt = &after.points[i];
		for (int c = 0; !pt->calibration && classes_ab[c]; c++)
			ck_assert_int_eq(count(pc, n, pt->id, classes_ab[c]), 1);
		for (int u = 0; pt->calibration && uuids[u]; u++)
			ck_assert_int_eq(count(pu, n, pt->id, uuids[u]), 1);
		want += pt->calibration ? 4 : 2;
	}
	ck_assert_uint_eq(n, want);
	free(pc);
	free(pu);
	sw_plan_fini(&before);
	sw_plan_fini(&after);
}
END_TEST

/* ---- the report ------------------------------------------------------- */

/*
 * sweep-report on the fleet file: report.md flags EMU-A-3 (0.8 of its
 * class's speed) on a line with "flagged", and no "flagged" line names
 * another UUID. Returns 77 (SKIPPED) without the build's venv.
 */
static int report_check(void)
{
	const char *venv = getenv("SW_VENV");
	char tool[1100], cmd[4096], md[512];
	if (!venv || !venv[0])
		return 77;
	snprintf(tool, sizeof tool, "%s/bin/sweep-report", venv);
	if (access(tool, X_OK) != 0) {
		printf("SKIPPED: no %s\n", tool);
		return 77;
	}
	const char *out = in_tmp("fleet-report.h5");
	run_fleet(out);
	snprintf(cmd, sizeof cmd, "'%s' -q '%s' -o '%s/report' > '%s/report.log' 2>&1", tool, out,
		 tmpdir, tmpdir);
	ck_assert_msg(system(cmd) == 0, "%s", launch_slurp(in_tmp("report.log")));
	snprintf(md, sizeof md, "%s/report/report.md", tmpdir);
	const char *text = launch_slurp(md);
	int slow = 0, other = 0;
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[4096];
		snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1),
			 line);
		if (strstr(buf, "flagged")) {
			slow += strstr(buf, "EMU-A-3") != NULL;
			other += strstr(buf, "EMU-A-0") || strstr(buf, "EMU-A-1") ||
				 strstr(buf, "EMU-A-2");
		}
		line += len + (end != NULL);
	}
	ck_assert_msg(slow >= 1, "report.md flags no line with EMU-A-3:\n%s", text);
	ck_assert_msg(other == 0, "report.md flags another GPU:\n%s", text);
	return 0;
}

START_TEST(test_report_flags_slow_gpu)
{
	ck_assert_int_eq(report_check(), 0);
}
END_TEST

int main(int argc, char **argv)
{
	const char *src = launch_env("SW_SOURCE_DIR");
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	snprintf(seeds, sizeof seeds, "%s/jobs/seeds.yaml", src);
	snprintf(backend, sizeof backend,
		 "replay=%s/docs/results/gpu-runs/h200-check-2b86d9f/seeds-gpu-1.h5", src);
	if (launch_make_tmpdir(tmpdir, sizeof tmpdir, "fleet") != 0)
		return EXIT_FAILURE;
	int report = argc > 1 && !strcmp(argv[1], "report");
	if (report && (!getenv("SW_VENV") || access(getenv("SW_VENV"), F_OK) != 0)) {
		rmdir(tmpdir);
		printf("SKIPPED: no venv with sweep-report (SW_VENV)\n");
		return 77;
	}
	Suite *s = suite_create("fleet");
	TCase *tc = tcase_create("mpirun");
	tcase_set_timeout(tc, 600);
	if (report) {
		tcase_add_test(tc, test_report_flags_slow_gpu);
	} else {
		tcase_add_test(tc, test_per_class_two_classes);
		tcase_add_test(tc, test_every_gpu_three);
		tcase_add_test(tc, test_kill_resume_per_class);
		tcase_add_test(tc, test_kill_resume_every_gpu);
		tcase_add_test(tc, test_calibrate_four);
		tcase_add_test(tc, test_extend_calibrate);
	}
	suite_add_tcase(s, tc);
	return launch_run_suite(s, tmpdir);
}
