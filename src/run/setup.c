/*
 * A run's set-up, stage by stage (setup.h): the job travels from rank 0 to
 * every rank, each builds the same plan, binds its backend, and rank 0 opens
 * the output and tells every rank what is left to run. Every stage ends on
 * every rank with one reduction, so one rank's failure stops all of them at
 * the same point, and no rank leaves another waiting in a collective.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run/class_cost.h"
#include "run/comm.h"
#include "run/cost.h"
#include "run/dry_classes.h"
#include "core/durations.h"
#include "h5/h5out.h"
#include "job/plugin.h"
#include "job/replay_spec.h"
#include "backend/measure.h"
#include "run/progress.h"
#include "run/recordings.h"
#include "core/safe_open.h"
#include "run/sched.h"
#include "run/setup.h"
#include "run/time_setup.h"
#include "version.h"

/* The worst and the best status over all ranks, in one reduction. */
static void reduce_status(enum sw_status mine, enum sw_status *worst, enum sw_status *best)
{
	int in[2] = { (int)mine, -(int)mine }, out[2];
	MUST_MPI(MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	*worst = (enum sw_status)out[0];
	*best = (enum sw_status) - out[1];
}

/* Ends stage s on every rank (collective): a rank whose status is bad says
 * so, naming itself and the stage; rank 0's message becomes err. Returns the
 * worst status, the same on every rank. */
static enum sw_status stage_end(const struct sw_rank_ctx *r, enum sw_stage s, enum sw_status mine,
				struct sw_err *err)
{
	enum sw_status worst, best;
	reduce_status(mine, &worst, &best);
	if (best != SW_OK) /* the same failure everywhere (bad input): rank 0 says it once */
		return worst;
	if (mine != SW_OK && r->rank != 0)
		fprintf(stderr, "sweep: rank %d, %s: %s\n", r->rank, sw_stage_name(s), err->msg);
	else if (mine != SW_OK)
		sw_wrap(err, "rank 0, %s", sw_stage_name(s));
	else if (worst != SW_OK)
		sw_fail(err, worst, "%s failed on another rank (see the messages above)",
			sw_stage_name(s));
	return worst;
}

static enum sw_status injected(const struct sw_rank_ctx *r, enum sw_stage s, enum sw_status st,
			       struct sw_err *err)
{
	if (st != SW_OK || !sw_fault_at(&r->faults, s, r->rank))
		return st;
	return sw_fail(err, SW_EIO, "injected fault (SW_TEST_FAULT) in %s on rank %d",
		       sw_stage_name(s), r->rank);
}

/* The job is each rank's own: read, --set applied and compared with every
 * other rank's (text, plan, plug-ins) in the agreement before the run, so
 * nothing is read or sent here; the stage is where a rank may still fail
 * (SW_TEST_FAULT=stage:job) before any other work. */
enum sw_status sw_setup_job(struct sw_rank_ctx *r, struct sw_err *err)
{
	return stage_end(r, SW_STAGE_JOB, injected(r, SW_STAGE_JOB, SW_OK, err), err);
}

static int available_everywhere(const struct sw_backend *b, int *anywhere)
{
	int have = !b->available || b->available(), all = 0, any = 0;
	MUST_MPI(MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
	MUST_MPI(MPI_Allreduce(&have, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	if (anywhere)
		*anywhere = any;
	return all;
}

/* What --counters and --metrics need: a backend that counts, on GPUs that
 * every rank has (named: the --backend given; NULL for auto). */
static enum sw_status check_counting(const struct sw_options *o, const struct sw_backend *named,
				     int gpus, const char *who, struct sw_err *err)
{
	if (o->counters && named && !named->counters)
		return sw_fail(err, SW_EINVAL,
			       "--counters needs the %s backend: hardware counters come from "
			       "a GPU, not from the %s backend",
			       sw_backend_cuda.name, named->name);
	if (o->n_metrics && named && !named->counters)
		return sw_fail(err, SW_EINVAL,
			       "--metrics needs the %s backend: CUPTI metrics come from a GPU, "
			       "not from the %s backend",
			       sw_backend_cuda.name, named->name);
	if (o->counters && !gpus && !o->dry_run)
		return sw_fail(err, SW_ECUDA, "--counters: %s has no usable CUDA device", who);
	/* the names are checked against the GPU's own list: a dry run needs it too */
	if (o->n_metrics && !gpus)
		return sw_fail(err, SW_ECUDA,
			       "--metrics: %s has no usable CUDA device to count on or to check "
			       "the metric names against",
			       who);
	return SW_OK;
}

/* --backend NAME, or auto: the GPU when every rank has one, else the model.
 * Only auto names backends; for the rest the table says what each can do
 * (counters) and where it runs (available). */
static enum sw_status pick_backend(struct sw_rank_ctx *r, struct sw_err *err)
{
	const struct sw_options *o = r->opt;
	const struct sw_backend *cuda = &sw_backend_cuda, *model = &sw_backend_model;
	const struct sw_backend *named =
		o->backend == SW_BACKEND_AUTO ? NULL : sw_backend_find(sw_cli_backend_name(o));
	int any = 0, gpus = available_everywhere(cuda, &any);
	const char *who = any ? "at least one rank" : "this machine";
	enum sw_status st = check_counting(o, named, gpus, who, err);

	if (st != SW_OK)
		return st;
	r->backend = named ? named : gpus ? cuda : model;
	/* An unattended batch run that meant to measure must not record
	 * predictions: auto falls back to the model only for one rank at a
	 * terminal, never under mpirun -np >1 or in a Slurm job. */
	if (!named && !gpus && !o->dry_run && (r->size > 1 || getenv("SLURM_JOB_ID")))
		return sw_fail(
			err, SW_ECUDA,
			"--backend %s: %s has no usable CUDA device, and under %s sweep does "
			"not fall back to the %s backend by itself: pass --backend %s to "
			"record predictions, or run where every rank has a GPU",
			sw_cli_backend_name(o), who,
			r->size > 1 ? "mpirun with more than one rank" : "Slurm", model->name,
			model->name);
	if (named == cuda && !gpus && !o->dry_run) /* a plan needs no GPU */
		return sw_fail(err, SW_ECUDA, "--backend %s: %s has no usable CUDA device",
			       cuda->name, who);
	if (named && named != cuda && named->available && !o->dry_run &&
	    !available_everywhere(named, NULL))
		return sw_fail(err, SW_EIO, "--backend %s: not every rank can run it", named->name);
	/* --model-devices asks for rows of GPUs the run does not run on: only
	 * the model backend makes those (the job's model: is its alone too) */
	if (o->model_devices && !r->backend->model_targets)
		return sw_fail(err, SW_EINVAL,
			       "--model-devices %s: the %s backend predicts times for the GPU its "
			       "rows %s, never for device targets: give --backend %s for rows "
			       "of those GPUs",
			       o->model_devices, r->backend->name,
			       r->backend->measures ? "ran on" : "emulate (its recording's)",
			       model->name);
	if (!named && !gpus && r->rank == 0 && !o->quiet)
		fprintf(stderr, "sweep: %s: using the %s backend (predictions, no timings)\n",
			any ? "not every rank has a CUDA device" : "no CUDA device found",
			model->name);
	return SW_OK;
}

enum sw_status sw_setup_backend(struct sw_rank_ctx *r, struct sw_err *err)
{
	/* the same on every rank: only rank 0 prints, and reductions agree */
	return sw_mpi_worst(pick_backend(r, err));
}

enum sw_status sw_setup_plan(struct sw_rank_ctx *r, struct sw_err *err)
{
	return sw_mpi_worst(sw_plan_build(&r->job, r->backend->model_targets, &r->plan, err));
}

/* Rank 0: the cost model, from --costs or the default result file. */
static enum sw_status load_costs(struct sw_rank_ctx *r, struct sw_cost_model *m, struct sw_err *err)
{
	struct sw_durations d = { 0 };
	const char *path = r->opt->costs;
	enum sw_status st = SW_OK;
	if (path)
		st = sw_durations_read(path, &d, err);
	else if (access(SW_DEFAULT_COSTS, R_OK) != 0 ||
		 sw_durations_read(SW_DEFAULT_COSTS, &d, err) != SW_OK)
		sw_durations_fini(&d); /* no default file: bytes and flops alone */
	if (st != SW_OK)
		return sw_wrap(err, "--costs %s", path);
	r->costs_gpu = sw_class_cost_table_gpu(d.rows, d.n);
	/* the default file is another job's: its rates, not its points */
	st = path ? sw_cost_init(m, d.rows, d.n, err) : sw_cost_init_rates(m, d.rows, d.n, err);
	sw_durations_fini(&d);
	return st;
}

enum sw_status sw_setup_costs(struct sw_rank_ctx *r, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	r->cost_s = malloc((r->plan.n ? r->plan.n : 1) * sizeof *r->cost_s);
	if (!r->cost_s)
		st = sw_fail(err, SW_ENOMEM, "no memory for the points' expected times");
	if (st == SW_OK && r->rank == 0) {
		/* kept until binding, which knows the classes (class_costs) */
		r->costs = calloc(1, sizeof *r->costs);
		st = r->costs ? load_costs(r, r->costs, err)
			      : sw_fail(err, SW_ENOMEM, "no memory for the cost model");
		if (st == SW_OK)
			sw_cost_todo(r->costs, &r->plan, NULL, r->plan.n, r->cost_s,
				     r->cost_sources);
	}
	if ((st = sw_mpi_worst(st)) != SW_OK)
		return st;
	MUST_MPI(MPI_Bcast(r->cost_s, (int)r->plan.n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
	return SW_OK;
}

static void free_costs(struct sw_rank_ctx *r)
{
	if (r->costs)
		sw_cost_fini(r->costs);
	free(r->costs);
	r->costs = NULL;
}

/* Rank 0: each class's expected times (class_cost.h), when --costs knows
 * some of a class's points or the time model carries some to a class's
 * GPU; NULL else (cost_s for every class). */
static double *class_table(const struct sw_rank_ctx *r)
{
	const struct sw_place *pl = &r->place;
	double *t = malloc((size_t)pl->n_classes * r->plan.n * sizeof *t);
	int differ = 0;
	for (int c = 0; t && c < pl->n_classes; c++) {
		int k = 0;
		while (pl->class_of[k] != c)
			k++;
		const struct sw_device_info *d = &r->devices[k];
		struct sw_class_basis b;
		sw_class_cost_times(r->costs, r->costs_gpu, &r->time, &r->plan, d->device_class,
				    sw_gpu_of_driver_name(d->emulates[0] ? d->emulates : d->name),
				    t + (size_t)c * r->plan.n, &b);
		differ |= b.own || b.carried;
	}
	if (!differ) {
		free(t);
		t = NULL;
	}
	return t;
}

/* After the classes: each class's expected times on every rank (rank 0
 * reckons them from --costs), so each class's dispenser and static split
 * order its points by what they cost there. */
static enum sw_status class_costs(struct sw_rank_ctx *r, struct sw_err *err)
{
	int have = 0;
	if (r->rank == 0 && r->costs && r->plan.n) {
		r->class_cost_s = class_table(r);
		have = r->class_cost_s != NULL;
	}
	if (!r->opt->dry_run) /* a dry run prints each class's estimate from it */
		free_costs(r);
	MUST_MPI(MPI_Bcast(&have, 1, MPI_INT, 0, MPI_COMM_WORLD));
	if (!have)
		return SW_OK;
	size_t n = (size_t)r->place.n_classes * r->plan.n;
	if (r->rank != 0)
		r->class_cost_s = malloc(n * sizeof *r->class_cost_s);
	/* a rank without the memory receives nothing: all of them fail */
	enum sw_status st = r->class_cost_s ? SW_OK
					    : sw_fail(err, SW_ENOMEM,
						      "no memory for the classes' expected times");
	if ((st = sw_mpi_worst(st)) != SW_OK)
		return st;
	MUST_MPI(MPI_Bcast(r->class_cost_s, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
	return SW_OK;
}

/* The rank's node-local rank, from MPI rather than a launcher's variables. */
static int local_rank_of(struct sw_err *err, int *local_rank)
{
	MPI_Comm local;
	enum sw_status st = CHECK_MPI(
		MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local),
		err);
	if (st != SW_OK)
		return st;
	st = CHECK_MPI(MPI_Comm_rank(local, local_rank), err);
	struct sw_err ferr = { 0 }; /* freed either way; the first failure is told */
	enum sw_status fst = CHECK_MPI(MPI_Comm_free(&local), &ferr);
	if (st == SW_OK && fst != SW_OK) {
		st = fst;
		*err = ferr;
	}
	return st;
}

/* The time model (time_setup.h), built once on every rank: a dry run
 * builds it with its checks, as the run does before its backend opens,
 * and may bind after (sw_setup_check_resume). */
/* Point j of the plan as the time model walks a job (time_plan.h). */
static int plan_point(const void *job, size_t j, struct sw_time_job_point *pt)
{
	const struct sw_plan *plan = job;
	if (j >= plan->n)
		return 0;
	const struct sw_plan_point *q = &plan->points[j];
	pt->f = sw_family_at(q->family);
	pt->p = &q->p;
	pt->gpu = q->gpu;
	pt->measured = !q->gpu && !q->cc;
	return 1;
}

static enum sw_status time_model(struct sw_rank_ctx *r, struct sw_err *err)
{
	if (r->time_built)
		return SW_OK;
	enum sw_status st = sw_time_setup(r->opt, &r->time, err);
	r->time_built = st == SW_OK;
	return st;
}

enum sw_status sw_setup_dry_check(struct sw_rank_ctx *r, struct sw_err *err)
{
	struct sw_backend_args a = {
		.opt = r->opt, .job = &r->job, .arg = r->opt->backend_arg, .rank = r->rank
	};
	a.size = r->size;
	enum sw_status st = local_rank_of(err, &a.local_rank);
	if (st == SW_OK) /* its files are inputs the output's check knows */
		st = time_model(r, err);
	if (st == SW_OK && r->backend->dry_check)
		st = r->backend->dry_check(&a, err);
	return sw_mpi_worst(st);
}

static enum sw_status open_backend(struct sw_rank_ctx *r, struct sw_err *err)
{
	struct sw_backend_args a = {
		.opt = r->opt, .job = &r->job, .arg = r->opt->backend_arg, .rank = r->rank
	};
	a.size = r->size;
	a.stop = &sw_run_interrupted; /* SIGINT, SIGTERM (run.c) */
	a.time = &r->time;
	enum sw_status st = local_rank_of(err, &a.local_rank);
	if (st == SW_OK)
		st = injected(r, SW_STAGE_BIND, st, err);
	if (st == SW_OK)
		st = time_model(r, err);
	if (st == SW_OK && r->rank == 0) /* what /model_rates will say of the job's rates */
		sw_time_plan_needs(&r->time, plan_point, &r->plan);
	if (st == SW_OK)
		st = r->backend->open(&a, &r->dev, &r->backend_state, err);
	r->dev.rank = r->rank;
	snprintf(r->dev.backend, sizeof r->dev.backend, "%s", r->backend->name);
	if (st == SW_OK && r->backend->note) {
		const char *note = r->backend->note(r->backend_state);
		if (note) /* the run goes on; each row says why too */
			fprintf(stderr, "sweep: rank %d on %s: %s\n", r->rank, r->dev.host, note);
	}
	return st;
}

/* The rank another one shares its GPU with, or -1. */
static int sharing_rank(const struct sw_rank_ctx *r)
{
	if (r->dev.device_index < 0) /* nothing bound: nothing to share */
		return -1;
	for (int k = 0; k < r->size; k++)
		if (k != r->rank && strcmp(r->devices[k].uuid, r->dev.uuid) == 0 &&
		    strcmp(r->devices[k].host, r->dev.host) == 0)
			return k;
	return -1;
}

/* Two ranks never time kernels on one GPU at once: refused, or taking turns
 * under a lock with --share-gpu. */
static enum sw_status check_sharing(struct sw_rank_ctx *r, struct sw_err *err)
{
	int other = sharing_rank(r);
	if (other < 0)
		return SW_OK;
	if (!r->opt->share_gpu)
		return sw_fail(err, SW_EINVAL,
			       "ranks %d and %d would time kernels on the same GPU (%s, %s on "
			       "%s): give each rank its own GPU, or pass --share-gpu to take "
			       "turns on it",
			       other < r->rank ? other : r->rank, other < r->rank ? r->rank : other,
			       r->dev.name, r->dev.uuid, r->dev.host);
	char path[256];
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/sweep-%s.lock", tmp && *tmp ? tmp : "/tmp", r->dev.uuid);
	r->share_lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (r->share_lock_fd < 0)
		return sw_fail(err, SW_EIO, "--share-gpu: cannot open lock file %s: %s", path,
			       strerror(errno));
	return SW_OK;
}

enum sw_status sw_setup_bind(struct sw_rank_ctx *r, struct sw_err *err)
{
	enum sw_status st = stage_end(r, SW_STAGE_BIND, open_backend(r, err), err);
	if (st != SW_OK)
		return st;
	r->devices = calloc(r->size, sizeof *r->devices);
	if (!r->devices)
		st = sw_fail(err, SW_ENOMEM, "no memory for the device table");
	if ((st = stage_end(r, SW_STAGE_BIND, st, err)) != SW_OK)
		return st;
	MUST_MPI(MPI_Allgather(&r->dev, sizeof r->dev, MPI_BYTE, r->devices, sizeof r->dev,
			       MPI_BYTE, MPI_COMM_WORLD));
	if ((st = stage_end(r, SW_STAGE_BIND, check_sharing(r, err), err)) != SW_OK)
		return st;
	/* the same table on every rank gives the same classes everywhere */
	st = sw_place_init(&r->place, r->placement, r->devices, r->size, err);
	if (st == SW_OK)
		memcpy(r->dev.device_class, r->devices[r->rank].device_class,
		       sizeof r->dev.device_class);
	if ((st = stage_end(r, SW_STAGE_BIND, st, err)) != SW_OK)
		return st;
	return stage_end(r, SW_STAGE_BIND, class_costs(r, err), err);
}

static double unix_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void join_args(int argc, char **argv, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < argc && n + 1 < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? " " : "", argv[i]);
}

/* Room for the inputs a run reads besides its job: --backend NAME=FILE,
 * --costs, each plug-in by its option and as loaded, the time model's
 * measured files and the replay classes' own recordings. */
#define MAX_INPUTS (2 + 2 * SW_MAX_PLUGINS + SW_TIME_MAX_FILES + SW_REPLAY_MAX_FILES)

/* The files this run reads besides its job (rank 0), which its output may
 * not be (docs/bad-inputs.md, "Inputs that are also outputs"); how many. */
static int list_inputs(const struct sw_rank_ctx *r, struct sw_h5_input *in)
{
	const struct sw_options *o = r->opt;
	char brief[160];
	int n = 0;

	if (o->backend_arg && o->backend_arg[0]) {
		in[n].path = o->backend_arg;
		snprintf(in[n++].what, sizeof in->what, "the %s file of --backend %s=%s",
			 r->backend->name, r->backend->name,
			 sw_safe_open_brief(o->backend_arg, brief, sizeof brief));
	}
	for (int i = 0; i < o->n_replay_classes && n < MAX_INPUTS; i++) {
		const struct sw_replay_class *c = &o->replay_classes[i];
		if (!c->file)
			continue;
		in[n].path = c->file;
		snprintf(in[n++].what, sizeof in->what,
			 "class %s's recording of --replay-devices %s:...=%s", c->name, c->name,
			 sw_safe_open_brief(c->file, brief, sizeof brief));
	}
	if (o->costs) {
		in[n].path = o->costs;
		snprintf(in[n++].what, sizeof in->what, "the costs file of --costs %s",
			 sw_safe_open_brief(o->costs, brief, sizeof brief));
	}
	for (int i = 0; i < o->n_plugins && n < MAX_INPUTS; i++) {
		in[n].path = o->plugins[i];
		snprintf(in[n++].what, sizeof in->what, "the plug-in of --plugin %s",
			 sw_safe_open_brief(o->plugins[i], brief, sizeof brief));
	}
	for (int i = 0; i < r->time.n_files && n < MAX_INPUTS; i++) {
		in[n].path = r->time.files[i].path;
		snprintf(in[n++].what, sizeof in->what, "the measured file of %s %s",
			 i == r->time.from ? "--model-from" : "--model-calibrate",
			 sw_safe_open_brief(r->time.files[i].path, brief, sizeof brief));
	}
	/* the job's plugins: as loaded (a --plugin file matched above first) */
	for (int i = 0; i < sw_plugin_count() && n < MAX_INPUTS; i++) {
		in[n].path = sw_plugin_at(i)->path;
		snprintf(in[n++].what, sizeof in->what,
			 "the plug-in %s, which the job's plugins: loads",
			 sw_safe_open_brief(sw_plugin_at(i)->path, brief, sizeof brief));
	}
	return n;
}

/* Rows of /model_rates: every file, and each device target's rates. */
#define MAX_RATE_ROWS (SW_TIME_MAX_FILES * 2 + SW_MAX_DEVICES)

/* What the file says of this run (rank 0); version, in, rates and recs
 * are the caller's. */
static struct sw_h5_meta file_meta(const struct sw_rank_ctx *r, char *version, size_t len,
				   struct sw_h5_input in[MAX_INPUTS],
				   struct sw_time_rate_row rates[MAX_RATE_ROWS],
				   struct sw_h5_recording recs[SW_MAX_RECORDINGS])
{
	snprintf(version, len, "sweep %s (git %s)", SW_VERSION, SW_GIT_REV);
	struct sw_h5_meta meta = {
		.tool_version = version,
		.job_text = r->job.text,
		.job_path = r->job.path,
		.command_line = r->cmdline,
		.backend = r->backend->name,
		.placement = sw_placement_name(r->placement),
		.mpi_size = r->size,
		.plan_fingerprint = r->plan.fingerprint,
		.plan_points = r->plan.n,
		.start_unix = unix_s(),
		.measure_method = r->backend->measures ? SW_MEASURE_METHOD : 0,
		.metric_names = (const char *const *)r->opt->metrics,
		.n_metrics = r->opt->n_metrics,
		.mode = r->opt->extend   ? SW_SESSION_EXTEND
			: r->opt->resume ? SW_SESSION_RESUME
					 : SW_SESSION_NEW,
		.job = &r->job,
		.plan = &r->plan,
		.inputs = in,
		.n_inputs = list_inputs(r, in),
		.rates = rates,
		/* device targets are the model backend's alone (pick_backend) */
		.n_rates = sw_time_plan_rows(&r->time, r->job.devices,
					     r->backend->model_targets ? r->job.n_devices : 0,
					     rates, MAX_RATE_ROWS),
		.recordings = recs,
		.n_recordings = r->backend == &sw_backend_replay
					? sw_recordings_of(r->opt, r->size, recs)
					: 0,
	};
	return meta;
}

/* The output's name into r->path; its whole length, which may not fit. */
static int output_path(struct sw_rank_ctx *r)
{
	if (r->opt->output)
		return snprintf(r->path, sizeof r->path, "%s", r->opt->output);
	return snprintf(r->path, sizeof r->path, "%s.h5", r->job.name);
}

/* A name that does not fit r->path could be another file's: refused
 * whole. len: output_path's. */
static enum sw_status path_fits(const struct sw_rank_ctx *r, int len, struct sw_err *err)
{
	char brief[160];
	if ((size_t)len < sizeof r->path)
		return SW_OK;
	return sw_fail(err, SW_EIO, "cannot create %s: File name too long (%d bytes, at most %zu)",
		       sw_safe_open_brief(r->opt->output, brief, sizeof brief), len,
		       sizeof r->path - 1);
}

int sw_setup_placed(const struct sw_rank_ctx *r)
{
	int cal = 0;
	for (size_t i = 0; i < r->plan.n && !cal; i++)
		cal = r->plan.points[i].calibration;
	return cal || r->placement != SW_PLACE_ONCE;
}

enum sw_status sw_setup_check_output(struct sw_rank_ctx *r, struct sw_err *err)
{
	char version[128];
	enum sw_status st = path_fits(r, output_path(r), err);
	if (st == SW_OK && r->rank == 0) {
		struct sw_h5_input in[MAX_INPUTS];
		static struct sw_time_rate_row rates[MAX_RATE_ROWS];
		static struct sw_h5_recording recs[SW_MAX_RECORDINGS];
		struct sw_h5_meta meta = file_meta(r, version, sizeof version, in, rates, recs);
		st = sw_h5_check_create(r->path, r->opt->force, &meta, err);
	}
	return sw_mpi_worst(st);
}

/* Rank 0, a dry run under a placement, bound: the runs (pairs) this run
 * makes, and those of them the file's rows p lack. */
static enum sw_status dry_pairs(const struct sw_rank_ctx *r, const struct sw_h5_placed *p,
				struct sw_dry_resume *d, struct sw_err *err)
{
	struct sw_place_done *done = malloc((p->n_rows ? p->n_rows : 1) * sizeof *done);
	uint64_t *gpu = malloc(r->size * sizeof *gpu), *cls = malloc(r->size * sizeof *cls);
	enum sw_status st = SW_OK;
	if (!done || !gpu || !cls) {
		st = sw_fail(err, SW_ENOMEM, "no memory for %zu rows", p->n_rows);
	} else {
		sw_place_done_rows(p->point_id, p->rank, p->session, p->n_rows, p->devices,
				   p->n_devices, done);
		sw_place_hashes(r->devices, r->size, gpu, cls);
		d->runs = sw_place_count(&r->plan, &r->place, gpu, cls, NULL, 0);
		d->runs_left = sw_place_count(&r->plan, &r->place, gpu, cls, done, p->n_rows);
	}
	free(done);
	free(gpu);
	free(cls);
	return st;
}

enum sw_status sw_setup_check_resume(struct sw_rank_ctx *r, struct sw_dry_resume *d,
				     struct sw_err *err)
{
	enum sw_status st = SW_OK;
	char version[128];
	struct sw_h5_placed p = { 0 };
	output_path(r);
	memset(d, 0, sizeof *d);
	d->placed = sw_setup_placed(r);
	if (r->rank == 0) {
		struct sw_h5_input in[MAX_INPUTS];
		static struct sw_time_rate_row rates[MAX_RATE_ROWS];
		static struct sw_h5_recording recs[SW_MAX_RECORDINGS];
		struct sw_h5_meta meta = file_meta(r, version, sizeof version, in, rates, recs);
		st = sw_h5_check_resume_placed(r->path, &meta, &d->n_done, &d->dmg,
					       d->placed ? &p : NULL, err);
	}
	st = sw_mpi_worst(st);
	/* the runs owed depend on this run's GPUs and classes: bound as the
	 * run would bind them (and refused where the run would be) */
	if (st == SW_OK && d->placed && (st = sw_setup_bind(r, err)) == SW_OK) {
		if (r->rank == 0)
			st = dry_pairs(r, &p, d, err);
		st = sw_mpi_worst(st);
	}
	sw_h5_placed_fini(&p);
	return st;
}

/* Rank 0, a resume: where the file's rows ran, as place.h compares them. */
static enum sw_status read_done(struct sw_rank_ctx *r, struct sw_place_done **done, size_t *n_done,
				struct sw_err *err)
{
	struct sw_h5_placed p;
	enum sw_status st = sw_h5_read_placed(r->h5, &p, err);
	if (st != SW_OK)
		return st;
	*done = malloc((p.n_rows ? p.n_rows : 1) * sizeof **done);
	if (!*done)
		st = sw_fail(err, SW_ENOMEM, "no memory for %zu rows", p.n_rows);
	else
		sw_place_done_rows(p.point_id, p.rank, p.session, p.n_rows, p.devices, p.n_devices,
				   *done);
	*n_done = *done ? p.n_rows : 0;
	sw_h5_placed_fini(&p);
	return st;
}

/* Rank 0, even under --quiet: the damaged rows a resume found and marked,
 * whose points it runs again, and a /plan it wrote again. */
static void say_damage(const char *path, const struct sw_h5_damage *d, enum sw_session_mode mode)
{
	if (d->rows)
		fprintf(stderr,
			"sweep: %s: %s; they are marked damaged (status %d) and their points run "
			"again\n",
			path, d->note, SW_H5_DAMAGED_STATUS);
	if (d->plan_damage[0])
		fprintf(stderr,
			"sweep: %s: its /plan is damaged (%s), so no row was judged by it: rows "
			"were judged by %s, and %s\n",
			path, d->plan_damage,
			mode == SW_SESSION_RESUME ? "the job's plan"
						  : "the new job's plan and the families' names",
			mode == SW_SESSION_RESUME ? "/plan is written again"
						  : "the new /plan replaces it");
	else if (d->plan_wrong && mode == SW_SESSION_RESUME)
		fprintf(stderr, "sweep: %s: its /plan was not its plan's; written again\n", path);
}

/* Rank 0: the pairs (plan index, owner) the file lacks, in plan order. */
static enum sw_status missing_pairs(struct sw_rank_ctx *r, struct sw_place_done *done,
				    size_t n_done, struct sw_err *err)
{
	uint64_t *gpu = malloc(r->size * sizeof *gpu), *cls = malloc(r->size * sizeof *cls);
	size_t n = 0;
	enum sw_status st = SW_OK;
	if (gpu && cls) {
		sw_place_hashes(r->devices, r->size, gpu, cls);
		n = sw_place_count(&r->plan, &r->place, gpu, cls, done, n_done);
		sw_place_gpu_changes(done, n_done, gpu, r->size, &r->gpus_absent, &r->gpus_new);
	}
	r->todo = malloc((n ? n : 1) * sizeof *r->todo);
	r->owner = malloc((n ? n : 1) * sizeof *r->owner);
	if (!gpu || !cls || !r->todo || !r->owner)
		st = sw_fail(err, SW_ENOMEM, "no memory for the to-do list");
	else if (n > INT32_MAX)
		st = sw_fail(err, SW_EINVAL, "%zu runs to make: more than one run holds", n);
	else
		r->n_todo = sw_place_todo(&r->plan, &r->place, gpu, cls, done, n_done, r->todo,
					  r->owner);
	free(gpu);
	free(cls);
	return st;
}

/* Rank 0: creates or resumes the file, and finds what is left to run. A
 * resume's or extend's opening ends with sw_h5_resume_begin, after
 * everything else here that can fail: an --extend adopts its job there,
 * so a failed one leaves the file's job as it was. */
static enum sw_status open_file(struct sw_rank_ctx *r, struct sw_err *err)
{
	char version[128];
	struct sw_h5_input in[MAX_INPUTS];
	static struct sw_time_rate_row rates[MAX_RATE_ROWS];
	static struct sw_h5_recording recs[SW_MAX_RECORDINGS];
	struct sw_h5_meta meta = file_meta(r, version, sizeof version, in, rates, recs);
	struct sw_place_done *done = NULL;
	uint64_t *ids = NULL;
	size_t n_done = 0;
	enum sw_status st = injected(r, SW_STAGE_OPEN, SW_OK, err);
	if (st == SW_OK && meta.mode != SW_SESSION_NEW)
		st = sw_h5_resume(r->path, &meta, &r->h5, &ids, &n_done, &r->session, err);
	else if (st == SW_OK)
		st = sw_h5_create(r->path, r->opt->force, &meta, &r->h5, err);
	free(ids);
	if (st == SW_OK)
		say_damage(r->path, sw_h5_damage_found(r->h5), meta.mode);
	n_done = 0;
	if (st == SW_OK && meta.mode != SW_SESSION_NEW)
		st = read_done(r, &done, &n_done, err);
	if (st == SW_OK)
		st = missing_pairs(r, done, n_done, err);
	free(done);
	for (int k = 0; st == SW_OK && k < r->size; k++)
		r->devices[k].session = r->session;
	if (st == SW_OK)
		st = sw_h5_append_devices(r->h5, r->devices, r->size, err);
	if (st == SW_OK && meta.mode != SW_SESSION_NEW)
		st = sw_h5_resume_begin(r->h5, &meta, err);
	else if (st == SW_OK)
		st = sw_h5_flush(r->h5, err);
	if (st != SW_OK) /* closed now, as the last flush left it, not by HDF5 at exit */
		sw_h5_abandon(&r->h5);
	return st;
}

/* What the job needs of the time model that a calibration could not fit
 * (/model_rates records it): said once the output is open, so a refused run
 * says its refusal alone; the run goes on at the datasheet's values. */
static void say_unfitted(const struct sw_rank_ctx *r)
{
	char msg[SW_TIME_PATH_LEN + 512];
	for (int k = 0; k < r->time.n_files; k++)
		if (sw_time_plan_unfitted(&r->time, k, msg, sizeof msg))
			fprintf(stderr, "sweep: %s\n", msg);
}

enum sw_status sw_setup_open(struct sw_rank_ctx *r, int argc, char **argv, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	join_args(argc, argv, r->cmdline, sizeof r->cmdline);
	st = path_fits(r, output_path(r), err);
	if (st == SW_OK && r->rank == 0)
		st = open_file(r, err);
	if ((st = sw_mpi_worst(st)) != SW_OK) /* rank 0's failure is the job's */
		return st;
	if (r->rank == 0)
		say_unfitted(r);
	/* computed on rank 0 and broadcast: ranks agree by construction */
	unsigned long n = r->n_todo;
	MUST_MPI(MPI_Bcast(&r->session, 1, MPI_INT, 0, MPI_COMM_WORLD));
	MUST_MPI(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD));
	if (r->rank != 0) {
		r->todo = malloc((n ? n : 1) * sizeof *r->todo);
		r->owner = malloc((n ? n : 1) * sizeof *r->owner);
		if (!r->todo || !r->owner)
			st = sw_fail(err, SW_ENOMEM, "no memory for the to-do list");
	}
	if ((st = stage_end(r, SW_STAGE_OPEN, st, err)) != SW_OK)
		return st;
	MUST_MPI(MPI_Bcast(r->todo, (int)n, MPI_UINT32_T, 0, MPI_COMM_WORLD));
	MUST_MPI(MPI_Bcast(r->owner, (int)n, MPI_INT32_T, 0, MPI_COMM_WORLD));
	r->n_todo = n;
	return SW_OK;
}

void sw_setup_fini(struct sw_rank_ctx *r)
{
	if (r->backend && r->backend->close)
		r->backend->close(&r->backend_state);
	if (r->share_lock_fd >= 0)
		close(r->share_lock_fd);
	r->share_lock_fd = -1;
	free(r->devices);
	free(r->todo);
	free(r->owner);
	r->owner = NULL;
	sw_place_fini(&r->place);
	free(r->cost_s);
	free(r->class_cost_s);
	free_costs(r);
	sw_time_plan_fini(&r->time);
	r->cost_s = r->class_cost_s = NULL;
	r->devices = NULL;
	r->todo = NULL;
	sw_plan_fini(&r->plan);
	sw_job_fini(&r->job);
}
