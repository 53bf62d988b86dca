/*
 * A whole sweep over MPI_COMM_WORLD (run.h): the job travels from rank 0 to
 * every rank, each rank builds the same plan, binds its GPU and runs points;
 * records stream to rank 0, which alone writes the file and prints. Rank 0
 * also measures: between its own points it answers work requests and writes
 * the records that arrived. Every rank ends by telling rank 0 BYE, so rank 0
 * knows when the last record is in, whatever stopped the others.
 */
#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "device.h"
#include "h5out.h"
#include "job.h"
#include "measure.h"
#include "model.h"
#include "plan.h"
#include "progress.h"
#include "record.h"
#include "sched.h"
#include "version.h"

enum { TAG_RECORD = 1, TAG_REQUEST, TAG_WORK, TAG_RETURN, TAG_BYE };
#define MAX_BATCH        64
#define FLUSH_INTERVAL_S 2.0
#define SEND_POOL        8

/* Set by SIGINT/SIGTERM: stop taking points, keep what was measured. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
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

/* Everything a rank needs while it runs points. */
struct ctx {
	const struct sw_options *opt;
	int rank, size, model;
	int session;
	struct sw_job job;
	struct sw_plan plan;
	struct sw_device_info dev;
	struct sw_gpu *gpu;
	int gpu_lock_fd; /* --share-gpu: flock()ed around each point; -1 otherwise */
	/* records of points in flight: the one measured, the one being checked */
	struct sw_record *slot[2];
	int next_slot;
	int gpu_dead;           /* the context failed: take no more points */
	uint64_t fault_dead_id; /* SW_TEST_FAULT=dead:ID (tests only): act as if ID killed the context */
	struct sw_err gpu_err;
	/* rank 0 only */
	struct sw_h5 *h5;
	struct sw_progress progress;
	size_t written, n_todo;
	size_t counts[4]; /* rows by enum sw_row_status */
	double timed_s;   /* GPU time in timed samples, all ranks */
	double t_start;
	double last_flush;
	enum sw_status write_status;
	struct sw_err write_err;
};

/* ---- running one point ------------------------------------------------ */

static void fill_identity(struct ctx *c, uint32_t index, struct sw_record *rec)
{
	const struct sw_plan_point *pt = &c->plan.points[index];
	const struct sw_family *f = sw_families[pt->family];
	const struct sw_variant *v = &f->variants[pt->p.variant];
	sw_record_init(rec);
	rec->point_id = pt->id;
	rec->plan_index = index;
	rec->rank = c->rank;
	rec->session = c->session;
	snprintf(rec->family, sizeof rec->family, "%s", f->name);
	snprintf(rec->variant, sizeof rec->variant, "%s", v->name);
	snprintf(rec->backend, sizeof rec->backend, "%s", c->model ? "model" : "cuda");
	rec->is_reference = v->is_reference;
	rec->cc = c->model ? pt->cc : c->dev.cc;
	for (int a = 0; a < f->n_axes; a++)
		rec->axis[sw_axis_column_of(pt->family, a)] = pt->p.axis[a];
	rec->useful_bytes = f->useful_bytes(&pt->p);
	rec->flops = f->flops(&pt->p);
	rec->start_unix = unix_s();
}

/* The model's figures for cc into rec. A measured row's model is the GPU's
 * own CC in its default bank mode; a model row's takes the job's. */
static void add_model(const struct ctx *c, const struct sw_variant *v, const struct sw_point *p,
		      int cc, struct sw_record *rec, int model_row)
{
	struct sw_model_figures m;
	struct sw_err err = { 0 };
	int bank_bytes = model_row ? c->job.kepler_bank_bytes : SW_KEPLER_BANK_BYTES_DEFAULT;
	enum sw_status st = sw_model_eval_banked(v, p, cc, bank_bytes, &m, &err);
	if (st == SW_OK) {
		sw_record_set_model(rec, &m);
	} else if (model_row) {
		rec->status = SW_ROW_SKIPPED;
		snprintf(rec->message, sizeof rec->message, "%s", err.msg);
	}
}

/* Serialises timing between ranks that share one GPU (--share-gpu). */
static void gpu_lock(struct ctx *c, int op)
{
	if (c->gpu_lock_fd >= 0)
		while (flock(c->gpu_lock_fd, op) != 0 && errno == EINTR)
			;
}

/* Where a finished record goes: rank 0 writes it, a worker sends it. */
typedef void (*emit_fn)(struct ctx *c, void *to, struct sw_record *rec);

/* Runs plan point index and emits every record that completes meanwhile:
 * on the GPU a point's CPU check runs while the next point is measured, so
 * its record completes one point later (sw_gpu_start_point). */
static void run_point(struct ctx *c, uint32_t index, emit_fn emit, void *to)
{
	struct sw_record *rec = c->slot[c->next_slot];
	const struct sw_plan_point *pt = &c->plan.points[index];
	const struct sw_family *f = sw_families[pt->family];
	const struct sw_variant *v = &f->variants[pt->p.variant];
	fill_identity(c, index, rec);

	char why[SW_MSG_LEN];
	if (c->fault_dead_id == pt->id && !c->gpu_dead) {
		/* the test-only switch: this rank's device "dies" on this point */
		c->gpu_dead = 1;
		sw_fail(&c->gpu_err, SW_ECUDA,
			"injected fault (SW_TEST_FAULT) on point %016" PRIx64, pt->id);
		rec->status = SW_ROW_FAILED;
		snprintf(rec->message, sizeof rec->message, "%s", c->gpu_err.msg);
	} else if (f->refuse(&pt->p, why, sizeof why)) {
		rec->status = SW_ROW_SKIPPED;
		snprintf(rec->message, sizeof rec->message, "%s", why);
	} else if (c->model) {
		add_model(c, v, &pt->p, pt->cc, rec, 1);
	} else if (c->gpu_dead) {
		rec->status = SW_ROW_FAILED;
		snprintf(rec->message, sizeof rec->message, "not run: %s", c->gpu_err.msg);
	} else {
		if (sw_model_supports(rec->cc)) {
			add_model(c, v, &pt->p, rec->cc, rec, 0);
			/* a lower bound: predicted bytes at the device's peak (GB/s = bytes/ns) */
			if (c->dev.peak_gbps > 0)
				rec->model_time_bound_ns =
					rec->model_moved_bytes / c->dev.peak_gbps;
		}
		int queued = 0;
		struct sw_record *done = NULL;
		gpu_lock(c, LOCK_EX);
		enum sw_status st = sw_gpu_start_point(c->gpu, f, &pt->p, &c->job.measure, rec,
						       &queued, &done, &c->gpu_err);
		gpu_lock(c, LOCK_UN);
		if (st != SW_OK)
			c->gpu_dead = 1;
		if (done)
			emit(c, to, done);
		if (queued) { /* rec completes later; the other slot is free now */
			c->next_slot ^= 1;
			return;
		}
	}
	emit(c, to, rec);
}

/* Emits the record whose check is still running, if any. */
static void drain(struct ctx *c, emit_fn emit, void *to)
{
	struct sw_record *rec = sw_gpu_settle(c->gpu);
	if (rec)
		emit(c, to, rec);
}

/* ---- rank 0: writing ----------------------------------------------------- */

static void write_record(struct ctx *c, struct sw_record *rec)
{
	if (rec->status >= 0 && rec->status < 4)
		c->counts[rec->status]++;
	if (rec->timed_s > 0)
		c->timed_s += rec->timed_s;
	c->written++;
	if (c->write_status == SW_OK)
		c->write_status = sw_h5_append(c->h5, rec, &c->write_err);
	double t = now_s();
	if (c->write_status == SW_OK && t - c->last_flush >= FLUSH_INTERVAL_S) {
		c->write_status = sw_h5_flush(c->h5, &c->write_err);
		c->last_flush = t;
	}
	/* A file that cannot take rows (disk full, I/O error): stop measuring
	 * what could not be kept; the rows flushed so far stay readable. */
	if (c->write_status != SW_OK)
		interrupted = 1;
	sw_progress_update(&c->progress, c->written, t);
}

static void emit_write(struct ctx *c, void *to, struct sw_record *rec)
{
	write_record(c, rec);
}

/* ---- the exchange -------------------------------------------------------- */

struct coordinator {
	struct sw_dispenser disp;
	int byes; /* workers that said BYE */
	int dynamic;
	struct sw_record *rec;
};

/* Rank 0: handles every message waiting; 1 if it handled any. */
static int serve(struct ctx *c, struct coordinator *co)
{
	int handled = 0, flag;
	MPI_Status st;
	while (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS &&
	       flag) {
		handled = 1;
		int src = st.MPI_SOURCE;
		switch (st.MPI_TAG) {
		case TAG_RECORD:
			MPI_Recv(co->rec, sizeof *co->rec, MPI_BYTE, src, TAG_RECORD,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			write_record(c, co->rec);
			break;
		case TAG_REQUEST: {
			int want;
			uint32_t idx[MAX_BATCH];
			MPI_Recv(&want, 1, MPI_INT, src, TAG_REQUEST, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			size_t k =
				interrupted ? 0 : sw_dispenser_take(&co->disp, (size_t)want, idx);
			MPI_Send(idx, (int)k, MPI_UINT32_T, src, TAG_WORK, MPI_COMM_WORLD);
			break;
		}
		case TAG_RETURN: {
			int n;
			MPI_Get_count(&st, MPI_UINT32_T, &n);
			uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
			MPI_Recv(idx, n, MPI_UINT32_T, src, TAG_RETURN, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (idx)
				sw_dispenser_give_back(&co->disp, idx, (size_t)n);
			free(idx);
			break;
		}
		case TAG_BYE:
			MPI_Recv(NULL, 0, MPI_BYTE, src, TAG_BYE, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			co->byes++;
			break;
		default: /* unknown tag: drain it rather than spin */
			MPI_Recv(NULL, 0, MPI_BYTE, src, st.MPI_TAG, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		}
	}
	return handled;
}

static void coordinate(struct ctx *c, const uint32_t *todo, size_t n_todo, int dynamic)
{
	struct coordinator co = { .dynamic = dynamic };
	co.rec = malloc(sizeof *co.rec);
	uint32_t *mine = malloc((n_todo ? n_todo : 1) * sizeof *mine);
	size_t n_mine = 0, next = 0;
	if (!co.rec || !mine) {
		c->write_status = sw_fail(&c->write_err, SW_ENOMEM, "no memory on rank 0");
		interrupted = 1;
	}
	if (dynamic) {
		if (sw_dispenser_init(&co.disp, todo, n_todo) != 0)
			interrupted = 1;
	} else {
		sw_dispenser_init(&co.disp, NULL, 0); /* receives a dead rank's points */
		for (size_t i = 0; i < n_todo && mine; i++)
			if (sw_sched_static_owner(i, c->size, 1) == 0)
				mine[n_mine++] = todo[i];
	}

	for (;;) {
		serve(c, &co);
		int own_work = !interrupted && !c->gpu_dead && mine;
		if (own_work && next == n_mine && c->size > 1 && !dynamic &&
		    sw_dispenser_left(&co.disp))
			n_mine = next = 0, n_mine = sw_dispenser_take(&co.disp, 1, mine);
		if (own_work && next == n_mine && (dynamic || c->size == 1))
			n_mine = next = 0, n_mine = sw_dispenser_take(&co.disp, 1, mine);
		if (own_work && next < n_mine) {
			run_point(c, mine[next++], emit_write, NULL);
			continue;
		}
		drain(c, emit_write, NULL); /* nothing of our own left: finish the last check */
		if (co.byes == c->size - 1 && (next == n_mine || interrupted || c->gpu_dead))
			break;
		/* Nothing of our own to run: wait for messages, flushing when due. */
		if (!serve(c, &co)) {
			double t = now_s();
			if (c->write_status == SW_OK && t - c->last_flush >= FLUSH_INTERVAL_S) {
				c->write_status = sw_h5_flush(c->h5, &c->write_err);
				c->last_flush = t;
			}
			if (c->write_status != SW_OK)
				interrupted = 1;
			nanosleep(&(struct timespec){ 0, 200000 }, NULL);
		}
	}
	drain(c, emit_write, NULL);
	sw_dispenser_fini(&co.disp);
	free(co.rec);
	free(mine);
}

/* A worker's sends in flight: records wait here until rank 0 takes them. */
struct send_pool {
	struct sw_record *rec[SEND_POOL];
	MPI_Request req[SEND_POOL];
	int next;
};

static struct sw_record *pool_slot(struct send_pool *p)
{
	int i = p->next;
	p->next = (p->next + 1) % SEND_POOL;
	if (p->req[i] != MPI_REQUEST_NULL)
		MPI_Wait(&p->req[i], MPI_STATUS_IGNORE);
	return p->rec[i];
}

/* A worker's emitter: a copy goes to rank 0, the slot is free again. */
static void emit_send(struct ctx *c, void *to, struct sw_record *rec)
{
	struct send_pool *p = to;
	int i = p->next;
	struct sw_record *copy = pool_slot(p);
	memcpy(copy, rec, sizeof *copy);
	MPI_Isend(copy, sizeof *copy, MPI_BYTE, 0, TAG_RECORD, MPI_COMM_WORLD, &p->req[i]);
}

static void work(struct ctx *c, const uint32_t *todo, size_t n_todo, int dynamic)
{
	struct send_pool pool = { .next = 0 };
	int ok = 1;
	for (int i = 0; i < SEND_POOL; i++) {
		pool.req[i] = MPI_REQUEST_NULL;
		ok &= (pool.rec[i] = malloc(sizeof(struct sw_record))) != NULL;
	}
	uint32_t *queue = malloc((dynamic ? MAX_BATCH * 2 : (n_todo ? n_todo : 1)) * sizeof *queue);
	size_t head = 0, n = 0;
	ok &= queue != NULL;
	if (!dynamic && ok)
		for (size_t i = 0; i < n_todo; i++)
			if (sw_sched_static_owner(i, c->size, 1) == c->rank)
				queue[n++] = todo[i];

	int ahead = c->opt->batch > 0 ? c->opt->batch : 2;
	if (ahead > MAX_BATCH)
		ahead = MAX_BATCH;
	uint32_t incoming[MAX_BATCH];
	MPI_Request req = MPI_REQUEST_NULL;
	int no_more = !dynamic;
	while (ok) {
		if (dynamic && !no_more && req == MPI_REQUEST_NULL && !interrupted &&
		    !c->gpu_dead && n - head <= (size_t)ahead) {
			/* compact, then ask for enough to stay `ahead` past the point running */
			memmove(queue, queue + head, (n - head) * sizeof *queue);
			n -= head;
			head = 0;
			int want = ahead + 1 - (int)n;
			MPI_Irecv(incoming, MAX_BATCH, MPI_UINT32_T, 0, TAG_WORK, MPI_COMM_WORLD,
				  &req);
			MPI_Send(&want, 1, MPI_INT, 0, TAG_REQUEST, MPI_COMM_WORLD);
		}
		if (req != MPI_REQUEST_NULL) {
			int flag = 0, got;
			MPI_Status st;
			if (head == n) /* nothing to run meanwhile */
				MPI_Wait(&req, &st), flag = 1;
			else
				MPI_Test(&req, &flag, &st);
			if (flag) {
				MPI_Get_count(&st, MPI_UINT32_T, &got);
				if (got == 0)
					no_more = 1;
				memcpy(queue + n, incoming, got * sizeof *incoming);
				n += got;
			}
		}
		if (head == n && (no_more || interrupted || c->gpu_dead))
			break;
		if (interrupted || c->gpu_dead)
			break;
		if (head < n)
			run_point(c, queue[head++], emit_send, &pool);
		else
			drain(c, emit_send, &pool); /* waiting for work: finish the last check */
	}
	if (req != MPI_REQUEST_NULL) { /* the reply we asked for: take it, hand it back */
		MPI_Status st;
		int got;
		MPI_Wait(&req, &st);
		MPI_Get_count(&st, MPI_UINT32_T, &got);
		memcpy(queue + n, incoming, got * sizeof *incoming);
		n += got;
	}
	drain(c, emit_send, &pool);
	/* Points this rank will not run go back to rank 0, which may give them to
	 * another rank (a dead GPU) or leave them for --resume (an interrupt). */
	if (n > head && queue)
		MPI_Send(queue + head, (int)(n - head), MPI_UINT32_T, 0, TAG_RETURN,
			 MPI_COMM_WORLD);
	for (int i = 0; i < SEND_POOL; i++)
		if (pool.req[i] != MPI_REQUEST_NULL)
			MPI_Wait(&pool.req[i], MPI_STATUS_IGNORE);
	MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_BYE, MPI_COMM_WORLD);
	for (int i = 0; i < SEND_POOL; i++)
		free(pool.rec[i]);
	free(queue);
}

/* ---- setup ------------------------------------------------------------ */

/* The worst status over all ranks; collective. */
static enum sw_status worst(enum sw_status mine)
{
	int in = (int)mine, out = (int)SW_EMPI;
	if (MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
		return SW_EMPI;
	return (enum sw_status)out;
}

/* Rank 0 reads the job file; every rank parses the same text. Collective. */
static enum sw_status load_job(struct ctx *c, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	long len = 0;
	if (c->rank == 0) {
		st = sw_job_load(c->opt->job_path, &c->job, err);
		len = st == SW_OK ? (long)strlen(c->job.text) : 0;
	}
	if ((st = worst(st)) != SW_OK)
		return st;
	MPI_Bcast(&len, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	if (c->rank != 0) {
		char *text = malloc(len + 1);
		if (!text)
			return sw_fail(err, SW_ENOMEM, "no memory for the job text");
		MPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
		text[len] = 0;
		st = sw_job_parse(c->opt->job_path, text, (size_t)len, &c->job, err);
		free(text);
	} else {
		MPI_Bcast(c->job.text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
	}
	for (int i = 0; st == SW_OK && i < c->opt->n_sets; i++)
		st = sw_job_set(&c->job, c->opt->sets[i], err);
	return worst(st);
}

/* auto: the GPU when every rank has one, else the model, saying so. */
static enum sw_status choose_backend(struct ctx *c, struct sw_err *err)
{
	int have = sw_device_count() > 0, all = 0, any = 0;
	MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	MPI_Allreduce(&have, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (c->opt->counters && c->opt->backend == SW_BACKEND_MODEL)
		return sw_fail(err, SW_EINVAL,
			       "--counters needs the cuda backend: hardware counters "
			       "come from a GPU, not from the model");
	if (c->opt->counters && !all && !c->opt->dry_run)
		return sw_fail(err, SW_ECUDA, "--counters: %s has no usable CUDA device",
			       any ? "at least one rank" : "this machine");
	switch (c->opt->backend) {
	case SW_BACKEND_MODEL: c->model = 1; return SW_OK;
	case SW_BACKEND_CUDA:
		if (!all && !c->opt->dry_run) /* a plan needs no GPU */
			return sw_fail(err, SW_ECUDA,
				       "--backend cuda: %s has no usable CUDA device",
				       any ? "at least one rank" : "this machine");
		return SW_OK;
	case SW_BACKEND_AUTO:
		c->model = !all;
		if (c->model && c->rank == 0 && !c->opt->quiet)
			fprintf(stderr,
				"sweep: %s: using the model backend (predictions, no timings)\n",
				any ? "not every rank has a CUDA device" : "no CUDA device found");
		return SW_OK;
	}
	return SW_OK;
}

static void print_plan(struct ctx *c, const uint32_t *todo, size_t n_todo)
{
	const char *sched = c->opt->schedule == SW_SCHED_STATIC ? "static" : "dynamic";
	printf("job %s (%s): backend %s, %d rank%s, schedule %s\n", c->job.name, c->job.path,
	       c->model ? "model" : "cuda", c->size, c->size == 1 ? "" : "s", sched);
	printf("plan: %zu points, fingerprint %016" PRIx64 "\n", c->plan.n, c->plan.fingerprint);
	for (int j = 0; j < c->job.n_families; j++) {
		const struct sw_family *f = c->job.families[j].family;
		for (int v = 0; v < f->n_variants; v++) {
			size_t k = 0;
			for (size_t i = 0; i < c->plan.n; i++)
				k += c->plan.points[i].family == c->job.families[j].index &&
				     c->plan.points[i].p.variant == v;
			if (k)
				printf("  %-14s %-14s %6zu points\n", f->name, f->variants[v].name,
				       k);
		}
	}
	if (c->opt->schedule == SW_SCHED_STATIC) {
		for (int r = 0; r < c->size; r++) {
			size_t k = 0;
			for (size_t i = 0; i < n_todo; i++)
				k += sw_sched_static_owner(i, c->size, 1) == r;
			printf("  rank %d runs %zu points\n", r, k);
		}
	} else {
		printf("  points are handed out on request, each worker keeping %d ahead; rank 0 "
		       "measures too\n",
		       c->opt->batch > 0 ? c->opt->batch : 2);
	}
	printf("%-6s %-16s %-6s %s\n", "index", "id", "rank", "point");
	for (size_t i = 0; i < n_todo; i++) {
		char label[256], who[8] = "any";
		sw_point_label(&c->plan.points[todo[i]], label, sizeof label);
		if (c->opt->schedule == SW_SCHED_STATIC)
			snprintf(who, sizeof who, "%d", sw_sched_static_owner(i, c->size, 1));
		printf("%-6u %016" PRIx64 " %-6s %s\n", todo[i], c->plan.points[todo[i]].id, who,
		       label);
	}
}

/* Binds GPUs, gathers the device table to every rank and refuses two ranks
 * timing on one GPU unless --share-gpu. Collective. */
static enum sw_status bind_devices(struct ctx *c, struct sw_device_info **table, struct sw_err *err)
{
	MPI_Comm local;
	int local_rank = 0;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL,
				&local) != MPI_SUCCESS)
		return sw_fail(err, SW_EMPI, "MPI_Comm_split_type failed");
	MPI_Comm_rank(local, &local_rank);
	MPI_Comm_free(&local);

	enum sw_status st = SW_OK;
	struct sw_err mine = { 0 };
	if (c->model)
		sw_device_model_info(local_rank, &c->dev);
	else
		st = sw_device_bind(local_rank, &c->dev, &mine);
	c->dev.rank = c->rank;
	c->dev.session = c->session;
	if (st == SW_OK && !c->model)
		st = sw_gpu_create(&c->dev, &c->gpu, &mine);
	if (st == SW_OK && c->gpu && c->opt->counters) {
		sw_gpu_use_counters(c->gpu);
		const char *why = sw_gpu_counters_unavailable(c->gpu);
		if (why) /* the run goes on; each row says why too */
			fprintf(stderr, "sweep: rank %d on %s: %s\n", c->rank, c->dev.host, why);
	}
	/* Say which rank failed, not only that one did. */
	if (st != SW_OK)
		fprintf(stderr, "sweep: rank %d on %s: %s\n", c->rank, c->dev.host, mine.msg);
	if ((st = worst(st)) != SW_OK)
		return sw_fail(err, st, "binding devices failed (see the messages above)");

	*table = calloc(c->size, sizeof **table);
	if (!*table)
		return sw_fail(err, SW_ENOMEM, "no memory for the device table");
	MPI_Allgather(&c->dev, sizeof c->dev, MPI_BYTE, *table, sizeof c->dev, MPI_BYTE,
		      MPI_COMM_WORLD);
	if (c->model)
		return SW_OK;

	int shared_with = -1;
	for (int r = 0; r < c->size; r++)
		if (r != c->rank && strcmp((*table)[r].uuid, c->dev.uuid) == 0 &&
		    strcmp((*table)[r].host, c->dev.host) == 0 && shared_with < 0)
			shared_with = r;
	if (shared_with >= 0 && !c->opt->share_gpu) {
		st = sw_fail(err, SW_EINVAL,
			     "ranks %d and %d would time kernels on the same GPU (%s, %s on %s): "
			     "give each "
			     "rank its own GPU, or pass --share-gpu to take turns on it",
			     shared_with < c->rank ? shared_with : c->rank,
			     shared_with < c->rank ? c->rank : shared_with, c->dev.name,
			     c->dev.uuid, c->dev.host);
	} else if (shared_with >= 0) {
		char path[256];
		const char *tmp = getenv("TMPDIR");
		snprintf(path, sizeof path, "%s/sweep-%s.lock", tmp && *tmp ? tmp : "/tmp",
			 c->dev.uuid);
		c->gpu_lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
		if (c->gpu_lock_fd < 0)
			st = sw_fail(err, SW_EIO, "--share-gpu: cannot open lock file %s: %s", path,
				     strerror(errno));
	}
	/* Rank 0 prints the one message for the whole job. */
	struct sw_err first = *err;
	enum sw_status all = worst(st);
	if (all != SW_OK && st == SW_OK)
		sw_fail(err, all, "another rank shares a GPU or could not lock it");
	else if (st != SW_OK)
		*err = first;
	return all;
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

static void join_args(int argc, char **argv, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < argc && n + 1 < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? " " : "", argv[i]);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Rank 0 opens the file (new or resumed); every rank learns the session and
 * the plan indices still to run. Collective. */
static enum sw_status open_output(struct ctx *c, const char *path, char *cmdline, uint32_t **todo,
				  size_t *n_todo, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	uint64_t *done = NULL;
	size_t n_done = 0;
	if (c->rank == 0) {
		char version[128];
		snprintf(version, sizeof version, "sweep %s (git %s)", SW_VERSION, SW_GIT_REV);
		struct sw_h5_meta meta = {
			.tool_version = version,
			.job_text = c->job.text,
			.job_path = c->job.path,
			.command_line = cmdline,
			.backend = c->model ? "model" : "cuda",
			.mpi_size = c->size,
			.plan_fingerprint = c->plan.fingerprint,
			.plan_points = c->plan.n,
			.start_unix = unix_s(),
		};
		if (c->opt->resume)
			st = sw_h5_resume(path, &meta, &c->h5, &done, &n_done, &c->session, err);
		else
			st = sw_h5_create(path, c->opt->force, &meta, &c->h5, err);
	}
	if ((st = worst(st)) != SW_OK) {
		free(done);
		return st;
	}
	MPI_Bcast(&c->session, 1, MPI_INT, 0, MPI_COMM_WORLD);

	/* The to-do list, computed on rank 0 and broadcast: ranks agree by construction. */
	unsigned long n = 0;
	*todo = malloc((c->plan.n ? c->plan.n : 1) * sizeof **todo);
	if (!*todo)
		st = sw_fail(err, SW_ENOMEM, "no memory for the to-do list");
	if (c->rank == 0 && *todo) {
		qsort(done, n_done, sizeof *done, cmp_u64);
		for (size_t i = 0; i < c->plan.n; i++)
			if (!done ||
			    !bsearch(&c->plan.points[i].id, done, n_done, sizeof *done, cmp_u64))
				(*todo)[n++] = (uint32_t)i;
	}
	free(done);
	if ((st = worst(st)) != SW_OK)
		return st;
	MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
	MPI_Bcast(*todo, (int)n, MPI_UINT32_T, 0, MPI_COMM_WORLD);
	*n_todo = n;
	return SW_OK;
}

enum sw_status sw_run(const struct sw_options *opt, int argc, char **argv, struct sw_err *err)
{
	struct ctx c = { .opt = opt, .gpu_lock_fd = -1 };
	struct sw_device_info *table = NULL;
	uint32_t *todo = NULL;
	size_t n_todo = 0;
	char path[4096], cmdline[4096];
	enum sw_status st;

	c.slot[0] = malloc(sizeof *c.slot[0]);
	c.slot[1] = malloc(sizeof *c.slot[1]);
	if (!c.slot[0] || !c.slot[1]) {
		st = sw_fail(err, SW_ENOMEM, "no memory for records");
		goto out;
	}
	const char *fault = getenv("SW_TEST_FAULT");
	unsigned long long fault_id;
	if (fault && sscanf(fault, "dead:%llx", &fault_id) == 1)
		c.fault_dead_id = fault_id;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &c.size);
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if ((st = load_job(&c, err)) != SW_OK)
		goto out;
	if ((st = worst(choose_backend(&c, err))) != SW_OK)
		goto out_job;
	if ((st = worst(sw_plan_build(&c.job, c.model, &c.plan, err))) != SW_OK)
		goto out_job;

	if (opt->dry_run) {
		if (c.rank == 0) {
			uint32_t *all = malloc(c.plan.n * sizeof *all);
			if (!all) {
				st = sw_fail(err, SW_ENOMEM, "no memory for the plan listing");
			} else {
				for (size_t i = 0; i < c.plan.n; i++)
					all[i] = (uint32_t)i;
				print_plan(&c, all, c.plan.n);
				free(all);
			}
		}
		st = worst(st);
		goto out_plan;
	}

	if (opt->output)
		snprintf(path, sizeof path, "%s", opt->output);
	else
		snprintf(path, sizeof path, "%s.h5", c.job.name);
	join_args(argc, argv, cmdline, sizeof cmdline);
	/* Devices first: a run that cannot bind leaves no file behind. */
	if ((st = bind_devices(&c, &table, err)) != SW_OK)
		goto out_devices;
	if ((st = open_output(&c, path, cmdline, &todo, &n_todo, err)) != SW_OK)
		goto out_devices;
	if (c.rank == 0) {
		for (int r = 0; r < c.size; r++)
			table[r].session = c.session;
		if ((st = sw_h5_append_devices(c.h5, table, c.size, err)) == SW_OK)
			st = sw_h5_flush(c.h5, err);
	}
	if ((st = worst(st)) != SW_OK)
		goto out_file;

	if (c.rank == 0) {
		if (!opt->quiet)
			print_bindings(table, c.size);
		if (!opt->quiet) {
			fprintf(stderr,
				"sweep: %s: %zu of %zu points to run on %d rank%s (%s), writing "
				"%s\n",
				c.job.name, n_todo, c.plan.n, c.size, c.size == 1 ? "" : "s",
				c.model ? "model" : c.dev.name, path);
			if (opt->resume)
				fprintf(stderr, "sweep: resuming: %zu points already in the file\n",
					c.plan.n - n_todo);
		}
		c.n_todo = n_todo;
		c.last_flush = c.t_start = now_s();
		sw_progress_init(&c.progress, stderr, n_todo, opt->quiet, c.last_flush);
	}
	int dynamic = opt->schedule == SW_SCHED_DYNAMIC && c.size > 1;
	if (c.rank == 0)
		coordinate(&c, todo, n_todo, dynamic);
	else
		work(&c, todo, n_todo, dynamic);

	enum sw_status mine = SW_OK;
	if (c.rank == 0) {
		sw_progress_finish(&c.progress, c.written, now_s());
		mine = c.write_status;
		if (mine != SW_OK)
			*err = c.write_err;
	}
	if (c.gpu_dead) {
		fprintf(stderr, "sweep: rank %d stopped taking points: %s\n", c.rank,
			c.gpu_err.msg);
		mine = mine > SW_ECUDA ? mine : SW_ECUDA;
		if (c.rank == 0 && c.write_status == SW_OK)
			*err = c.gpu_err;
	}
	st = worst(mine);
	if (st != SW_OK && mine == SW_OK)
		sw_fail(err, st, "another rank failed (see the messages above)");

out_file:
	if (c.rank == 0 && c.h5) {
		struct sw_err cerr = { 0 };
		enum sw_status cst = sw_h5_close(&c.h5, unix_s(), &cerr);
		if (cst != SW_OK && st == SW_OK) {
			st = cst;
			*err = cerr;
		}
		if (st == SW_OK || st == SW_ECUDA || c.written) {
			if (!opt->quiet || st != SW_OK)
				fprintf(stderr,
					"sweep: %zu rows written to %s: %zu ok, %zu skipped, %zu "
					"invalid, %zu failed\n",
					c.written, path, c.counts[SW_ROW_OK],
					c.counts[SW_ROW_SKIPPED], c.counts[SW_ROW_INVALID],
					c.counts[SW_ROW_FAILED]);
			double wall = now_s() - c.t_start;
			if (!c.model && c.written && wall > 0 && !opt->quiet)
				fprintf(stderr,
					"sweep: timed GPU time %.2f s of %.2f s wall x %d rank%s: "
					"sweep efficiency %.2f\n",
					c.timed_s, wall, c.size, c.size == 1 ? "" : "s",
					c.timed_s / (wall * c.size));
			if (c.written < c.n_todo)
				fprintf(stderr,
					"sweep: %zu points not run; `--resume -o %s` completes the "
					"file\n",
					c.n_todo - c.written, path);
		}
	}
	if (st == SW_OK) {
		/* Rows that did not measure make the exit status say so. */
		int bad = c.rank == 0 ? (c.counts[SW_ROW_INVALID] ? SW_EVALIDATE : 0) : 0;
		if (c.rank == 0 && c.counts[SW_ROW_FAILED])
			bad = SW_ECUDA;
		MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (bad) {
			st = (enum sw_status)bad;
			sw_fail(err, st, "%s",
				bad == SW_EVALIDATE
					? "some points failed validation (status 2 rows)"
					: "some points failed on the GPU (status 3 rows)");
		}
	}
	int stopped = interrupted, any_stopped = 0;
	MPI_Allreduce(&stopped, &any_stopped, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (any_stopped && st == SW_OK)
		st = sw_fail(err, SW_EIO, "interrupted; the file holds what was measured");
out_devices:
	sw_gpu_destroy(&c.gpu);
	if (c.gpu_lock_fd >= 0)
		close(c.gpu_lock_fd);
	free(table);
	free(todo);
out_plan:
	sw_plan_fini(&c.plan);
out_job:
	sw_job_fini(&c.job);
out:
	free(c.slot[0]);
	free(c.slot[1]);
	return st;
}
