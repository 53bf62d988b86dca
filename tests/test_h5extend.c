/* Unit tests for h5extend.c: the /sessions row of a new file, of a resume
 * and of an extend (read back with the plain HDF5 C API), the root
 * attributes an extend takes from the new job, and the refusals: a point of
 * the file the new plan lacks (named by its id), a measure setting that
 * differs (named by its key), and an old job_text that no longer reads. */
#define _GNU_SOURCE

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "check_run.h"
#include "h5/h5extend.h"
#include "h5/h5out.h"
#include "job/job.h"
#include "job/plan.h"

static char dir[256];
static char path[512];

static const char small_job[] = "name: grow\n"
				"families:\n"
				"  strided_read:\n"
				"    axes:\n"
				"      stride: [1, 2]\n"
				"      n: [1M]\n";
static const char big_job[] = "name: grow\n"
			      "families:\n"
			      "  strided_read:\n"
			      "    axes:\n"
			      "      stride: [1, 2, 4]\n"
			      "      n: [1M]\n";
static const char other_warmup[] = "name: grow\n"
				   "measure:\n"
				   "  warmup: 5\n"
				   "families:\n"
				   "  strided_read:\n"
				   "    axes:\n"
				   "      stride: [1, 2, 4]\n"
				   "      n: [1M]\n";

struct fixture {
	struct sw_job job;
	struct sw_plan plan;
};

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof dir, "%s/test_h5extend.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/out.h5", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

static void load(struct fixture *f, const char *text)
{
	struct sw_err e = { 0 };

	ck_assert_msg(sw_job_parse("test.yaml", text, strlen(text), &f->job, &e) == SW_OK, "%s",
		      e.msg);
	ck_assert_msg(sw_plan_build(&f->job, 0, &f->plan, &e) == SW_OK, "%s", e.msg);
}

static void unload(struct fixture *f)
{
	sw_plan_fini(&f->plan);
	sw_job_fini(&f->job);
}

static struct sw_h5_meta meta_of(const struct fixture *f, enum sw_session_mode mode)
{
	struct sw_h5_meta m = {
		.tool_version = "sweep 0.1.0 (git 0123456)",
		.job_text = f->job.text,
		.job_path = "test.yaml",
		.command_line = "sweep test.yaml",
		.backend = "model",
		.mpi_size = 1,
		.plan_fingerprint = f->plan.fingerprint,
		.plan_points = f->plan.n,
		.start_unix = 1700000000.0 + mode,
		.mode = mode,
		.job = &f->job,
		.plan = &f->plan,
	};
	return m;
}

/* A new file holding one row for every point of the small job. */
static void write_small(void)
{
	struct fixture f;
	struct sw_h5_meta m;
	struct sw_h5 *h;
	struct sw_err e = { 0 };

	load(&f, small_job);
	m = meta_of(&f, SW_SESSION_NEW);
	ck_assert_msg(sw_h5_create(path, 0, &m, &h, &e) == SW_OK, "%s", e.msg);
	for (size_t i = 0; i < f.plan.n; i++) {
		struct sw_record r;

		const struct sw_plan_point *pt = &f.plan.points[i];
		const struct sw_family *fam = sw_family_at(pt->family);

		sw_record_init(&r);
		r.point_id = pt->id;
		r.plan_index = (uint32_t)i;
		/* the plan's names: a row of another is damaged (h5plan.c) */
		snprintf(r.family, sizeof r.family, "%s", fam->name);
		snprintf(r.variant, sizeof r.variant, "%s", fam->variants[pt->p.variant].name);
		strcpy(r.backend, "model");
		ck_assert_msg(sw_h5_append(h, &r, &e) == SW_OK, "%s", e.msg);
	}
	ck_assert_msg(sw_h5_close(&h, 1700000100.0, &e) == SW_OK, "%s", e.msg);
	unload(&f);
}

/* sw_h5_resume in mode under text; its status, the ids it read in *n_done. */
static enum sw_status reopen(const char *text, enum sw_session_mode mode, size_t *n_done,
			     struct sw_err *e)
{
	struct fixture f;
	struct sw_h5_meta m;
	struct sw_h5 *h = NULL;
	uint64_t *done = NULL;
	int session = -1;
	enum sw_status st;

	load(&f, text);
	m = meta_of(&f, mode);
	st = sw_h5_resume(path, &m, &h, &done, n_done, &session, e);
	free(done);
	if (st == SW_OK)
		ck_assert_msg(sw_h5_resume_begin(h, &m, e) == SW_OK, "%s", e->msg);
	if (st == SW_OK) {
		ck_assert_int_gt(session, 0);
		ck_assert_int_eq(sw_h5_close(&h, 1700000200.0, e), SW_OK);
	}
	unload(&f);
	return st;
}

struct srow {
	int32_t session;
	char mode[8];
	uint64_t plan_points;
	char *job_text;
};

/* The /sessions rows (at most 8); their count. The caller frees job_text. */
static size_t read_sessions(struct srow *rows)
{
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d, t, mode, text, space;
	hsize_t n = 0;

	ck_assert_int_ge(file, 0);
	d = H5Dopen2(file, "sessions", H5P_DEFAULT);
	ck_assert_msg(d >= 0, "no /sessions in %s", path);
	space = H5Dget_space(d);
	H5Sget_simple_extent_dims(space, &n, NULL);
	H5Sclose(space);
	ck_assert_uint_le(n, 8);
	t = H5Tcreate(H5T_COMPOUND, sizeof *rows);
	mode = H5Tcopy(H5T_C_S1);
	H5Tset_size(mode, sizeof rows->mode);
	text = H5Tcopy(H5T_C_S1);
	H5Tset_size(text, H5T_VARIABLE);
	H5Tset_cset(text, H5T_CSET_UTF8); /* HDF5 converts no character sets */
	H5Tinsert(t, "session", HOFFSET(struct srow, session), H5T_NATIVE_INT32);
	H5Tinsert(t, "mode", HOFFSET(struct srow, mode), mode);
	H5Tinsert(t, "plan_points", HOFFSET(struct srow, plan_points), H5T_NATIVE_UINT64);
	H5Tinsert(t, "job_text", HOFFSET(struct srow, job_text), text);
	ck_assert_int_ge(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows), 0);
	H5Tclose(text);
	H5Tclose(mode);
	H5Tclose(t);
	H5Dclose(d);
	H5Fclose(file);
	return n;
}

static uint64_t root_u64(const char *name)
{
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), a;
	uint64_t v = 0;

	a = H5Aopen(file, name, H5P_DEFAULT);
	ck_assert_int_ge(a, 0);
	H5Aread(a, H5T_NATIVE_UINT64, &v);
	H5Aclose(a);
	H5Fclose(file);
	return v;
}

START_TEST(sessions_new_resume_extend)
{
	struct srow rows[8];
	struct sw_err e = { 0 };
	struct fixture small, big;
	size_t n_done = 0, n_small, n_big;

	load(&small, small_job);
	load(&big, big_job);
	n_small = small.plan.n;
	n_big = big.plan.n;
	ck_assert_uint_gt(n_big, n_small);
	write_small();
	ck_assert_uint_eq(read_sessions(rows), 1);
	ck_assert_int_eq(rows[0].session, 0);
	ck_assert_str_eq(rows[0].mode, "new");
	ck_assert_uint_eq(rows[0].plan_points, n_small);
	ck_assert_str_eq(rows[0].job_text, small_job);
	free(rows[0].job_text);

	ck_assert_msg(reopen(small_job, SW_SESSION_RESUME, &n_done, &e) == SW_OK, "%s", e.msg);
	ck_assert_uint_eq(n_done, n_small);
	ck_assert_msg(reopen(big_job, SW_SESSION_EXTEND, &n_done, &e) == SW_OK, "%s", e.msg);
	ck_assert_uint_eq(n_done, n_small);

	ck_assert_uint_eq(read_sessions(rows), 3);
	ck_assert_int_eq(rows[1].session, 1);
	ck_assert_str_eq(rows[1].mode, "resume");
	ck_assert_int_eq(rows[2].session, 2);
	ck_assert_str_eq(rows[2].mode, "extend");
	ck_assert_uint_eq(rows[2].plan_points, n_big);
	ck_assert_str_eq(rows[2].job_text, big_job);
	for (int i = 0; i < 3; i++)
		free(rows[i].job_text);
	/* the grown file is now the big job's: a plain resume of it is accepted */
	ck_assert_uint_eq(root_u64("plan_fingerprint"), big.plan.fingerprint);
	ck_assert_uint_eq(root_u64("plan_points"), n_big);
	unload(&big);
	unload(&small);
	ck_assert_msg(reopen(big_job, SW_SESSION_RESUME, &n_done, &e) == SW_OK, "%s", e.msg);
}
END_TEST

START_TEST(extend_refuses_a_lost_point)
{
	static const char fewer[] = "name: grow\n"
				    "families:\n"
				    "  strided_read:\n"
				    "    axes:\n"
				    "      stride: [2, 4]\n"
				    "      n: [1M]\n";
	struct fixture small, left;
	struct sw_err e = { 0 };
	struct srow rows[8];
	size_t n_done = 0, lost = 0, named = 0;
	char count[64];

	write_small();
	ck_assert_int_eq(reopen(fewer, SW_SESSION_EXTEND, &n_done, &e), SW_EINVAL);
	/* the message counts the points of stride 1 and names one of them */
	load(&small, small_job);
	load(&left, fewer);
	for (size_t i = 0; i < small.plan.n; i++) {
		char id[32];
		int kept = 0;

		for (size_t k = 0; k < left.plan.n; k++)
			kept |= left.plan.points[k].id == small.plan.points[i].id;
		snprintf(id, sizeof id, "point %016" PRIx64 " is one", small.plan.points[i].id);
		lost += !kept;
		named += !kept && strstr(e.msg, id);
	}
	snprintf(count, sizeof count, "%zu of its %zu points are not in this job", lost,
		 small.plan.n);
	ck_assert_uint_gt(lost, 0);
	ck_assert_msg(strstr(e.msg, count) && named == 1, "%s", e.msg);
	unload(&left);
	unload(&small);
	/* a plain resume under the bigger job is still refused: it is another plan */
	ck_assert_int_eq(reopen(big_job, SW_SESSION_RESUME, &n_done, &e), SW_EINVAL);
	ck_assert_uint_eq(read_sessions(rows), 1); /* refused sessions leave no row */
	free(rows[0].job_text);
}
END_TEST

START_TEST(extend_refuses_other_measure_settings)
{
	struct sw_err e = { 0 };
	size_t n_done = 0;

	write_small();
	ck_assert_int_eq(reopen(other_warmup, SW_SESSION_EXTEND, &n_done, &e), SW_EINVAL);
	ck_assert_msg(strstr(e.msg, "measure.warmup"), "%s", e.msg);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("h5extend");
	TCase *tc = tcase_create("extend");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, sessions_new_resume_extend);
	tcase_add_test(tc, extend_refuses_a_lost_point);
	tcase_add_test(tc, extend_refuses_other_measure_settings);
	suite_add_tcase(s, tc);
	return sw_check_run(s);
}
