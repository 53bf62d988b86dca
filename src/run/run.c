/*
 * A whole sweep over MPI_COMM_WORLD (run.h), as a sequence of stages: set-up
 * (setup.c: the job, the backend, the plan, binding, the output), the
 * points (rank 0's coordinator, coord.c, and a worker loop on every rank,
 * worker.c), then closing and the summary. run.c never asks which backend
 * it runs: that is the backend table's business (backend.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "run/run.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/comm.h"
#include "run/coord.h"
#include "h5/h5out.h"
#include "run/rank_ctx.h"
#include "run/setup.h"
#include "run/worker.h"

volatile sig_atomic_t sw_run_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	sw_run_interrupted = 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double unix_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The binding table, so a job log shows which rank measured on which GPU. */
static void print_bindings(const struct sw_device_info *t, int n)
{
	fprintf(stderr, "sweep: %-5s %-16s %-5s %-14s %-40s %s\n", "rank", "host", "local",
		"pci bus", "uuid", "device");
	for (int r = 0; r < n; r++)
		fprintf(stderr, "sweep: %-5d %-16s %-5d %-14s %-40s %s%s%s\n", t[r].rank, t[r].host,
			t[r].local_rank, t[r].device_index < 0 ? "-" : t[r].pci_bus_id,
			t[r].device_index < 0 ? "-" : t[r].uuid, t[r].name,
			t[r].visible_devices[0] ? " CUDA_VISIBLE_DEVICES=" : "",
			t[r].visible_devices);
}

/* Under a placement the work is pairs (a point on a GPU or a class). */
static void announce_placed(const struct sw_rank_ctx *r)
{
	fprintf(stderr,
		"sweep: %s: %zu runs of %zu points to make on %d rank%s (placement %s, %d device "
		"class%s), writing %s\n",
		r->job.name, r->n_todo, r->plan.n, r->size, r->size == 1 ? "" : "s",
		sw_placement_name(r->placement), r->place.n_classes,
		r->place.n_classes == 1 ? "" : "es", r->path);
	if (r->opt->resume || r->opt->extend)
		fprintf(stderr, "sweep: %s: %zu runs still to make\n",
			r->opt->resume ? "resuming" : "extending", r->n_todo);
	if ((r->opt->resume || r->opt->extend) && (r->gpus_absent || r->gpus_new))
		fprintf(stderr,
			"sweep: %zu GPU%s of the file %s not in this run: %s rows stay under %s "
			"own "
			"UUID and nothing runs for %s; %zu GPU%s of this run %s new to the file "
			"and run%s every point %s owes a GPU\n",
			r->gpus_absent, r->gpus_absent == 1 ? "" : "s",
			r->gpus_absent == 1 ? "is" : "are", r->gpus_absent == 1 ? "its" : "their",
			r->gpus_absent == 1 ? "its" : "their", r->gpus_absent == 1 ? "it" : "them",
			r->gpus_new, r->gpus_new == 1 ? "" : "s", r->gpus_new == 1 ? "is" : "are",
			r->gpus_new == 1 ? "s" : "", "the job");
}

static void announce(const struct sw_rank_ctx *r)
{
	/* even under --quiet: an --extend that runs nothing is not a silent success */
	if (r->rank == 0 && r->opt->extend && !r->n_todo)
		fprintf(stderr,
			"sweep: extending: nothing new to run, all %zu points of the job are "
			"already in %s\n",
			r->plan.n, r->path);
	if (r->rank != 0 || r->opt->quiet)
		return;
	print_bindings(r->devices, r->size);
	if (sw_setup_placed(r)) {
		announce_placed(r);
		return;
	}
	fprintf(stderr, "sweep: %s: %zu of %zu points to run on %d rank%s (%s), writing %s\n",
		r->job.name, r->n_todo, r->plan.n, r->size, r->size == 1 ? "" : "s", r->dev.name,
		r->path);
	if (r->opt->resume)
		fprintf(stderr, "sweep: resuming: %zu points already in the file\n",
			r->plan.n - r->n_todo);
	if (r->opt->extend && r->n_todo)
		fprintf(stderr, "sweep: extending: %zu points already in the file, %zu new\n",
			r->plan.n - r->n_todo, r->n_todo);
}

/* The points: a worker on every rank, and on rank 0 the coordinator too.
 * Returns this rank's status; rank 0's totals in *t. */
static enum sw_status run_points(struct sw_rank_ctx *r, struct sw_coord_totals *t,
				 struct sw_err *err)
{
	int dynamic = r->opt->schedule == SW_SCHED_DYNAMIC && r->size > 1;
	struct sw_coord *co = NULL;
	struct sw_channel ch;
	struct sw_err werr = { 0 };
	enum sw_status st = SW_OK, wst;
	/* the workers would wait for a coordinator forever, rank 0 for a bye */
	if (r->rank == 0 && (st = sw_coord_start(r, dynamic, &co, err)) != SW_OK)
		sw_mpi_abort(sw_status_exit_code(SW_EMPI));
	if (r->rank == 0)
		sw_coord_channel(co, &ch);
	else if (sw_channel_mpi_open(&ch, &werr) != SW_OK)
		sw_mpi_abort(sw_status_exit_code(SW_EMPI));
	wst = sw_worker_run(r, &ch, dynamic, &werr);
	if (r->rank == 0)
		st = sw_coord_finish(&co, t, err);
	else
		sw_channel_mpi_close(&ch);
	if (wst != SW_OK) {
		fprintf(stderr, "sweep: rank %d stopped taking points: %s\n", r->rank, werr.msg);
		if (st == SW_OK)
			*err = werr;
		st = st > wst ? st : wst;
	}
	return st;
}

/* Rank 0: closes the file and counts this session's rows in it (*end);
 * SW_OK or why it failed (in err). */
static enum sw_status close_output(struct sw_rank_ctx *r, struct sw_h5_end *end, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	if (sw_fault_at(&r->faults, SW_STAGE_CLOSE, r->rank))
		st = sw_fail(err, SW_EHDF5, "injected fault (SW_TEST_FAULT)");
	struct sw_err cerr = { 0 };
	enum sw_status cst = sw_h5_finish(&r->h5, unix_s(), end, &cerr);
	if (cst != SW_OK && st == SW_OK) {
		st = cst;
		*err = cerr;
	}
	return st;
}

/* Rank 0: how many ok rows no CPU check compared, and why, so that "ok"
 * is not read as "checked" (the rows' messages say it one by one). */
static void say_unchecked(const struct sw_rank_ctx *r, const struct sw_coord_totals *t)
{
	const char *why = "their families have no check hook";
	char by_backend[96];
	if (!t->unchecked || r->opt->quiet)
		return;
	if (!r->backend->measures) {
		snprintf(by_backend, sizeof by_backend,
			 "the %s backend runs no fill, launch or check", r->backend->name);
		why = by_backend;
	}
	fprintf(stderr,
		"sweep: %zu ok row%s %s never checked against a CPU reference: %s (check_mode "
		"none)\n",
		t->unchecked, t->unchecked == 1 ? "" : "s", t->unchecked == 1 ? "was" : "were",
		why);
}

/* Rank 0: how many device-target rows have no time, and the first reason. */
static void say_untimed(const struct sw_rank_ctx *r, const struct sw_coord_totals *t)
{
	if (!t->untimed || r->opt->quiet)
		return;
	fprintf(stderr, "sweep: %zu device-target row%s no time (model_time_term none): %s\n",
		t->untimed, t->untimed == 1 ? " has" : "s have",
		t->untimed_why[0] ? t->untimed_why : "the time model does not cover the variant");
}

/* Rank 0, after the close: what the file holds of this run, read back from
 * the file the run wrote (end: sw_h5_finish counted it, and says where it
 * is), so a disk that filled up cannot make the summary claim rows it lost.
 * Its count sets the status: a run whose points are not all in the file,
 * or cannot be counted there, has not succeeded (SW_EIO, in err). */
static enum sw_status summarise(const struct sw_rank_ctx *r, const struct sw_coord_totals *t,
				const struct sw_h5_end *end, double wall, enum sw_status st,
				struct sw_err *err)
{
	struct sw_h5_rows in = end->rows;
	const char *where = end->where;
	if (end->count_st != SW_OK) {
		if (st == SW_OK)
			return sw_fail(err, SW_EIO, "%zu rows were handed to the writer, but %s",
				       t->written, end->count_err.msg);
		if (t->written)
			fprintf(stderr, "sweep: %zu rows were handed to the writer, but %s\n",
				t->written, end->count_err.msg);
		return st;
	}
	int missing = in.rows < r->n_todo;
	if (!r->opt->quiet || st != SW_OK || missing)
		fprintf(stderr,
			"sweep: %llu rows %s %s: %llu ok, %llu skipped, %llu invalid, %llu "
			"failed\n",
			(unsigned long long)in.rows,
			(st == SW_OK || st == SW_ECUDA) && !missing ? "written to"
								    : "of this run are safe in",
			where, (unsigned long long)in.by_status[SW_ROW_OK],
			(unsigned long long)in.by_status[SW_ROW_SKIPPED],
			(unsigned long long)in.by_status[SW_ROW_INVALID],
			(unsigned long long)in.by_status[SW_ROW_FAILED]);
	say_unchecked(r, t);
	say_untimed(r, t);
	if (r->backend->measures && in.rows && wall > 0 && !r->opt->quiet)
		fprintf(stderr,
			"sweep: timed GPU time %.2f s of %.2f s wall x %d rank%s: sweep efficiency "
			"%.2f\n",
			t->timed_s, wall, r->size, r->size == 1 ? "" : "s",
			t->timed_s / (wall * r->size));
	if (t->unrun && !sw_run_interrupted)
		fprintf(stderr,
			"sweep: %zu runs were left by a rank that stopped, with no rank to take "
			"them: its calibration points%s wait for --resume, on that GPU once it "
			"works\n",
			t->unrun,
			r->placement == SW_PLACE_EVERY_GPU ? " and every point it owed"
			: r->placement == SW_PLACE_PER_CLASS
				? ", and its class's points once no rank of its class was left,"
				: "");
	const char *what = sw_setup_placed(r) ? "runs" : "points";
	if (missing && st == SW_OK && !sw_run_interrupted) /* a stop says so itself */
		return sw_fail(err, SW_EIO,
			       "%zu of the %zu %s of this run are not in %s; `--resume -o %s` "
			       "completes it",
			       r->n_todo - (size_t)in.rows, r->n_todo, what, where, where);
	if (missing)
		fprintf(stderr, "sweep: %zu %s not in the file; `--resume -o %s` completes it%s\n",
			r->n_todo - (size_t)in.rows, what, where,
			st == SW_EIO ? " once the cause above is fixed (a full disk: free space; a "
				       "file-size limit: raise it)"
				     : "");
	return st;
}

/* Rows that did not measure make the exit status say so; so does a stop.
 * measures: the backend times on a GPU (a model row fails by a family's
 * hook past its limits, never on a GPU). */
static enum sw_status verdict(const struct sw_coord_totals *t, int rank, int measures,
			      struct sw_err *err)
{
	int bad = 0, stopped = sw_run_interrupted, any_stopped = 0;
	if (rank == 0 && t->counts[SW_ROW_INVALID])
		bad = SW_EVALIDATE;
	if (rank == 0 && t->counts[SW_ROW_FAILED])
		bad = SW_ECUDA;
	MUST_MPI(MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD));
	MUST_MPI(MPI_Allreduce(&stopped, &any_stopped, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	if (bad)
		return sw_fail(err, (enum sw_status)bad, "%s",
			       bad == SW_EVALIDATE ? "some points failed validation (status 2 rows)"
			       : measures          ? "some points failed on the GPU (status 3 rows)"
					  : "some points failed (status 3 rows: their message says "
					    "why)");
	if (any_stopped)
		return sw_fail(err, SW_EIO, "interrupted; the file holds what was measured");
	return SW_OK;
}

/* From the open file to the verdict: points, close, summary. */
static enum sw_status measure_and_close(struct sw_rank_ctx *r, struct sw_err *err)
{
	struct sw_coord_totals t = { 0 };
	double t0 = now_s();
	announce(r);
	enum sw_status mine = run_points(r, &t, err);
	enum sw_status st = sw_mpi_worst(mine);
	if (st != SW_OK && mine == SW_OK)
		sw_fail(err, st, "another rank failed (see the messages above)");
	if (r->rank == 0) {
		struct sw_err cerr = { 0 };
		struct sw_h5_end end = { 0 };
		snprintf(end.where, sizeof end.where, "%s", r->path); /* finish says where */
		enum sw_status cst = close_output(r, &end, &cerr);
		if (cst != SW_OK && st == SW_OK) {
			st = cst;
			*err = cerr;
			sw_wrap(err, "rank 0, %s", sw_stage_name(SW_STAGE_CLOSE));
		}
		st = summarise(r, &t, &end, now_s() - t0, st, err);
	}
	st = sw_mpi_worst(st);
	if (st == SW_OK)
		st = verdict(&t, r->rank, r->backend->measures, err);
	return st;
}

/* Rank 0, --dry-run --resume: what the file holds, and what a resume would
 * do about damaged rows and /plan first. */
/* What --dry-run --resume or --extend (how) found damaged in the file. */
static void say_dry_damage(const char *how, const char *path, const struct sw_h5_damage *d)
{
	if (d->rows)
		fprintf(stderr,
			"sweep: %s: %s: %s; %s marks them damaged (status %d) and runs their "
			"points again\n",
			how, path, d->note, how, SW_H5_DAMAGED_STATUS);
	int resume = strcmp(how, "--resume") == 0;
	if (d->plan_damage[0])
		fprintf(stderr,
			"sweep: %s: %s: its /plan is damaged (%s), so no row is judged by it: %s "
			"judges rows by %s, and %s\n",
			how, path, d->plan_damage, how,
			resume ? "the job's plan" : "the new job's plan and the families' names",
			resume ? "writes /plan again" : "writes the new /plan");
	else if (d->plan_wrong && resume) /* an extend writes its new plan */
		fprintf(stderr, "sweep: %s: %s: its /plan is not its plan's; %s writes it again\n",
			how, path, how);
}

/* What --dry-run --resume or --extend found (rank 0): the points in the
 * file and, under a placement, the runs (pairs) this run makes and how many
 * the file lacks, which is what the run would run. */
static void say_dry_reopen(const struct sw_rank_ctx *r, const struct sw_dry_resume *d)
{
	const char *how = r->opt->resume ? "--resume" : "--extend";
	int other = d->dmg.rows || (r->opt->resume ? d->dmg.plan_wrong : d->dmg.plan_damage[0]);
	char runs[224] = "";
	if (d->placed)
		snprintf(runs, sizeof runs,
			 "; %zu of the %zu runs of this run (placement %s, %d device class%s) are "
			 "in it, %zu %s",
			 d->runs - d->runs_left, d->runs, sw_placement_name(r->placement),
			 r->place.n_classes, r->place.n_classes == 1 ? "" : "es", d->runs_left,
			 r->opt->resume ? "to make" : "would be made");
	if (r->opt->resume)
		fprintf(stderr,
			"sweep: %s: %s passes every %scheck; %zu of %zu points are in it%s\n", how,
			r->path, other ? "other " : "", d->n_done, r->plan.n, runs);
	else /* every point of the file is in the plan, or the check refused it */
		fprintf(stderr,
			"sweep: %s: %s passes every %scheck; %zu of the job's %zu points are in "
			"it, %zu would be added%s\n",
			how, r->path, other ? "other " : "", d->n_done, r->plan.n,
			r->plan.n - d->n_done, runs);
}

/* --dry-run: every check the run makes before its first point (the
 * output's, or those of the file a resume or extend opens), then the plan;
 * measures and writes nothing. */
static enum sw_status dry_run(struct sw_rank_ctx *r, struct sw_err *err)
{
	const struct sw_options *opt = r->opt;
	struct sw_dry_resume d = { 0 };
	enum sw_status st;
	int reopen = opt->resume || opt->extend;
	/* under a placement the runs depend on the GPUs: bound as the run
	 * binds them (sw_setup_check_resume binds for a resume or extend) */
	if ((st = sw_setup_dry_check(r, err)) != SW_OK ||
	    (!reopen && (st = sw_setup_check_output(r, err)) != SW_OK) ||
	    (!reopen && sw_setup_placed(r) && (st = sw_setup_bind(r, err)) != SW_OK) ||
	    (reopen && (st = sw_setup_check_resume(r, &d, err)) != SW_OK))
		return st;
	if (r->rank != 0)
		return SW_OK;
	sw_setup_print_plan(r);
	if (reopen) {
		say_dry_damage(opt->resume ? "--resume" : "--extend", r->path, &d.dmg);
		say_dry_reopen(r, &d);
	}
	return SW_OK;
}

enum sw_status sw_run(const struct sw_options *opt, struct sw_job *job, int argc, char **argv,
		      struct sw_err *err)
{
	struct sw_rank_ctx r = { .opt = opt, .job = *job, .share_lock_fd = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	enum sw_status st;

	MUST_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &r.rank));
	MUST_MPI(MPI_Comm_size(MPI_COMM_WORLD, &r.size));
	sw_faults_parse(getenv("SW_TEST_FAULT"), &r.faults);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	memset(job, 0, sizeof *job); /* the run's now: sw_setup_fini frees it */
	r.placement = opt->placement >= 0 ? (enum sw_placement)opt->placement : r.job.placement;

	if ((st = sw_setup_job(&r, err)) != SW_OK || (st = sw_setup_backend(&r, err)) != SW_OK ||
	    (st = sw_setup_plan(&r, err)) != SW_OK || (st = sw_setup_costs(&r, err)) != SW_OK)
		goto out;
	if (opt->dry_run) {
		st = dry_run(&r, err);
		goto out;
	}
	/* Devices first: a run that cannot bind leaves no file behind. */
	if ((st = sw_setup_bind(&r, err)) != SW_OK ||
	    (st = sw_setup_open(&r, argc, argv, err)) != SW_OK)
		goto out;
	st = measure_and_close(&r, err);
out:
	sw_setup_fini(&r);
	return st;
}
