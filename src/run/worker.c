/*
 * The worker loop (worker.h) and the MPI channel a worker rank uses. A
 * worker keeps a few points queued past the one running, so the answer to
 * its next ask is back before it needs it; on the GPU a point's CPU check
 * runs while the next point is measured, so its record completes one point
 * later (backend.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "run/worker.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "run/comm.h"
#include "run/place.h"
#include "run/sched.h"

struct worker {
	struct sw_rank_ctx *r;
	const struct sw_channel *ch;
	/* the point measured and those the backend keeps (their checks run) */
	struct sw_record *slot[SW_BACKEND_MAX_KEPT + 1];
	int busy[SW_BACKEND_MAX_KEPT + 1];
	size_t ran;          /* points this rank started */
	enum sw_status dead; /* SW_OK while the backend can take points */
	struct sw_err why;
};

static double unix_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fill_identity(const struct sw_rank_ctx *r, uint32_t index, struct sw_record *rec)
{
	const struct sw_plan_point *pt = &r->plan.points[index];
	const struct sw_family *f = sw_family_at(pt->family);
	sw_record_init(rec);
	rec->point_id = pt->id;
	rec->plan_index = index;
	rec->rank = r->rank;
	rec->session = r->session;
	rec->calibration = pt->calibration;
	snprintf(rec->family, sizeof rec->family, "%s", f->name);
	snprintf(rec->variant, sizeof rec->variant, "%s", f->variants[pt->p.variant].name);
	snprintf(rec->backend, sizeof rec->backend, "%s", r->backend->name);
	rec->is_reference = f->variants[pt->p.variant].is_reference;
	rec->cc = pt->cc ? pt->cc : r->dev.cc; /* a model target, or the device's own */
	for (int a = 0; a < f->n_axes; a++)
		rec->axis[sw_axis_column_of(pt->family, a)] = pt->p.axis[a];
	rec->useful_bytes = f->useful_bytes(&pt->p);
	rec->flops = f->flops(&pt->p);
	rec->start_unix = unix_s();
}

/* The test-only switch: this rank's backend "dies" on this point. */
static int injected_death(struct worker *w, const struct sw_plan_point *pt)
{
	const struct sw_faults *f = &w->r->faults;
	if (f->dead && f->dead_id == pt->id) {
		w->dead = sw_fail(&w->why, SW_ECUDA,
				  "injected fault (SW_TEST_FAULT) on point %016" PRIx64, pt->id);
		return 1;
	}
	if (w->ran == 1 && sw_fault_at(f, SW_STAGE_FIRST, w->r->rank)) {
		w->dead = sw_fail(&w->why, SW_ECUDA, "%s: injected fault (SW_TEST_FAULT)",
				  sw_stage_name(SW_STAGE_FIRST));
		return 1;
	}
	return 0;
}

/* The test-only switch dead:ID:FILE holds rank 0's worker before its
 * first point until FILE exists. */
static void injected_hold(const struct worker *w)
{
	const char *file = w->r->faults.hold_rank0;
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	while (file && w->r->rank == 0 && w->ran == 0 && access(file, F_OK) != 0)
		nanosleep(&tick, NULL);
}

/* Serialises timing between ranks that share one GPU (--share-gpu). */
static void share_lock(const struct sw_rank_ctx *r, int op)
{
	if (r->share_lock_fd >= 0)
		while (flock(r->share_lock_fd, op) != 0 && errno == EINTR)
			;
}

/* A record slot no check holds: there is one, as the backend keeps at most
 * SW_BACKEND_MAX_KEPT; it is busy until handed on. */
static struct sw_record *free_slot(struct worker *w)
{
	int i = 0;
	while (i < SW_COUNT(w->slot) - 1 && w->busy[i])
		i++;
	w->busy[i] = 1;
	return w->slot[i];
}

/* Frees the slot of rec: sent, or never to be. */
static void free_slot_of(struct worker *w, const struct sw_record *rec)
{
	for (int i = 0; i < SW_COUNT(w->slot); i++)
		if (w->slot[i] == rec)
			w->busy[i] = 0;
}

/* Sends a complete record and frees its slot. */
static void hand_on(struct worker *w, struct sw_record *rec)
{
	w->ch->ops->record(w->ch->impl, rec);
	free_slot_of(w, rec);
}

static void run_on_backend(struct worker *w, uint32_t index, struct sw_record *rec)
{
	struct sw_rank_ctx *r = w->r;
	const struct sw_plan_point *pt = &r->plan.points[index];
	struct sw_record *done[SW_BACKEND_MAX_DONE];
	int n_done = 0;
	share_lock(r, LOCK_EX);
	enum sw_status st = r->backend->run(r->backend_state, pt, rec, done, &n_done, &w->why);
	share_lock(r, LOCK_UN);
	if (st == SW_SKIP) { /* given up as the run stops: no row, the point goes back */
		free_slot_of(w, rec);
		w->ch->ops->give_back(w->ch->impl, &index, 1);
		for (int i = 0; i < n_done; i++)
			hand_on(w, done[i]);
		return;
	}
	if (st != SW_OK)
		w->dead = st;
	if (!(rec->end_unix > 0)) /* a pipelined backend set it before its check */
		rec->end_unix = unix_s();
	for (int i = 0; i < n_done; i++)
		hand_on(w, done[i]);
}

static void run_point(struct worker *w, uint32_t index)
{
	const struct sw_plan_point *pt = &w->r->plan.points[index];
	struct sw_record *rec = free_slot(w);
	char why[SW_MSG_LEN];
	injected_hold(w);
	fill_identity(w->r, index, rec);
	w->ran++;
	if (injected_death(w, pt)) {
		rec->status = SW_ROW_FAILED;
		snprintf(rec->message, sizeof rec->message, "%s", w->why.msg);
	} else if (sw_family_at(pt->family)->refuse(&pt->p, why, sizeof why)) {
		rec->status = SW_ROW_SKIPPED;
		snprintf(rec->message, sizeof rec->message, "%s", why);
	} else {
		run_on_backend(w, index, rec);
		return;
	}
	rec->end_unix = unix_s();
	hand_on(w, rec);
}

/* Hands on the records whose checks are still running, oldest first. */
static void drain(struct worker *w)
{
	const struct sw_backend *b = w->r->backend;
	struct sw_record *rec;
	while (b->settle && (rec = b->settle(w->r->backend_state)))
		hand_on(w, rec);
}

/* The points a static schedule gives this rank: its calibration points,
 * then its part of its group's (LPT by expected time on the group's class,
 * the same on every rank), in to-do order; -1 without memory. */
static long static_share(const struct sw_rank_ctx *r, uint32_t *queue)
{
	return sw_place_static_share(&r->place, sw_rank_costs(r, r->place.group_of[r->rank]),
				     r->todo, r->owner, r->n_todo, r->rank, queue);
}

struct queue {
	uint32_t *idx;
	size_t head, n;
	int asked, no_more;
};

/* Expected seconds queued past the point running. */
static double queued_s(const struct worker *w, const struct queue *q)
{
	const double *cost_s = sw_rank_costs(w->r, SW_PLACE_OWN(w->r->rank));
	double s = 0;
	for (size_t i = q->head; i < q->n; i++)
		s += cost_s[q->idx[i]];
	return s;
}

/* Asks while less than SW_WORKER_AHEAD_S of expected work is queued past
 * the point running (and, with --batch N, fewer than N points); a static
 * worker asks only once its own share is done (for a stopped rank's
 * points). */
static void top_up(struct worker *w, struct queue *q, int dynamic, int ahead)
{
	if (q->asked || q->no_more || sw_run_interrupted || w->dead)
		return;
	size_t left = q->n - q->head;
	if (dynamic ? left >= (size_t)ahead || (left && queued_s(w, q) >= SW_WORKER_AHEAD_S)
		    : left > 0)
		return;
	memmove(q->idx, q->idx + q->head, left * sizeof *q->idx);
	q->n = left;
	q->head = 0;
	w->ch->ops->ask(w->ch->impl, ahead - (int)left);
	q->asked = 1;
}

static void take_reply(struct worker *w, struct queue *q, int block)
{
	int got = 0;
	if (!q->asked ||
	    !w->ch->ops->reply(w->ch->impl, block, q->idx + q->n, SW_WORKER_MAX_BATCH, &got))
		return;
	q->asked = 0;
	q->n += (size_t)got;
	if (got == 0)
		q->no_more = 1;
}

static void loop(struct worker *w, struct queue *q, int dynamic)
{
	int ahead = w->r->opt->batch > 0 ? w->r->opt->batch : SW_WORKER_MAX_BATCH;
	if (ahead > SW_WORKER_MAX_BATCH)
		ahead = SW_WORKER_MAX_BATCH;
	for (;;) {
		top_up(w, q, dynamic, ahead);
		take_reply(w, q, q->head == q->n);
		if (sw_run_interrupted || w->dead || (q->head == q->n && q->no_more))
			break;
		if (q->head < q->n &&
		    sw_rank_costs(w->r, SW_PLACE_OWN(w->r->rank))[q->idx[q->head]] >=
			    SW_WORKER_AHEAD_S)
			w->ch->ops->flush(w->ch->impl); /* a long point: send what is done first */
		if (q->head < q->n)
			run_point(w, q->idx[q->head++]);
		else
			drain(w); /* waiting for work: finish the last check */
	}
}

/* Points this rank will not run go back to rank 0, which may give them to
 * another rank (a dead backend) or leave them for --resume (an interrupt). */
static void give_back_queue(struct worker *w, struct queue *q)
{
	if (q->n > q->head)
		w->ch->ops->give_back(w->ch->impl, q->idx + q->head, (int)(q->n - q->head));
	q->head = q->n;
}

static enum sw_status finish(struct worker *w, struct queue *q)
{
	/* before waiting for the answer: a worker that waits holds no point
	 * (coord.c tells the others none are left only then) */
	give_back_queue(w, q);
	take_reply(w, q, 1); /* the answer asked for: take it, to hand it back */
	give_back_queue(w, q);
	drain(w);
	if (!w->dead && w->ran && sw_fault_at(&w->r->faults, SW_STAGE_LAST, w->r->rank))
		w->dead = sw_fail(&w->why, SW_ECUDA, "%s: injected fault (SW_TEST_FAULT)",
				  sw_stage_name(SW_STAGE_LAST));
	w->ch->ops->bye(w->ch->impl);
	return w->dead;
}

enum sw_status sw_worker_run(struct sw_rank_ctx *r, const struct sw_channel *ch, int dynamic,
			     struct sw_err *err)
{
	struct worker w = { .r = r, .ch = ch };
	struct queue q = { 0 };
	size_t cap = (dynamic ? 0 : r->n_todo) + 2 * SW_WORKER_MAX_BATCH;
	int slots_ok = 1;
	for (int i = 0; i < SW_COUNT(w.slot); i++)
		slots_ok &= (w.slot[i] = malloc(sizeof *w.slot[i])) != NULL;
	q.idx = malloc(cap * sizeof *q.idx);
	if (!slots_ok || !q.idx)
		w.dead = sw_fail(&w.why, SW_ENOMEM, "no memory for the worker's queue");
	else if (!dynamic) {
		long n = static_share(r, q.idx);
		if (n < 0)
			w.dead = sw_fail(&w.why, SW_ENOMEM, "no memory for the static schedule");
		else
			q.n = (size_t)n;
	}
	if (!w.dead)
		loop(&w, &q, dynamic);
	enum sw_status st = finish(&w, &q);
	if (st != SW_OK)
		*err = w.why;
	for (int i = 0; i < SW_COUNT(w.slot); i++)
		free(w.slot[i]);
	free(q.idx);
	return st;
}

/* ---- the MPI channel ------------------------------------------------------ */

/* Records travel in packs, each record with only the samples it has: one
 * message per pack, not per point, so rank 0 serves thousands of short
 * points a second. A pack goes when it is full, when it holds its oldest
 * record for PACK_AGE_S, before a long point, and with every ask. */
#define PACK_BYTES   (256 * 1024)
#define PACK_RECORDS 64
#define PACK_AGE_S   0.25

struct mpi_channel {
	char *pack[2]; /* one filling, one maybe still in flight */
	MPI_Request send[2];
	int cur, n_packed;
	size_t used;
	double first_s; /* when the oldest packed record came */
	MPI_Request reply;
	uint32_t incoming[SW_WORKER_MAX_BATCH];
};

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void mpi_flush(void *impl)
{
	struct mpi_channel *m = impl;
	if (m->n_packed == 0)
		return;
	MUST_MPI(MPI_Isend(m->pack[m->cur], (int)m->used, MPI_BYTE, 0, SW_TAG_RECORD,
			   MPI_COMM_WORLD, &m->send[m->cur]));
	m->cur ^= 1;
	if (m->send[m->cur] != MPI_REQUEST_NULL)
		sw_mpi_wait_idle(&m->send[m->cur], NULL);
	m->used = 0;
	m->n_packed = 0;
}

static void mpi_record(void *impl, const struct sw_record *rec)
{
	struct mpi_channel *m = impl;
	size_t bytes = sw_record_wire_bytes(rec);
	if (m->used + bytes > PACK_BYTES)
		mpi_flush(m);
	memcpy(m->pack[m->cur] + m->used, rec, bytes);
	m->used += bytes;
	double t = mono_s();
	if (m->n_packed++ == 0)
		m->first_s = t;
	if (m->n_packed >= PACK_RECORDS || t - m->first_s >= PACK_AGE_S)
		mpi_flush(m);
}

static void mpi_ask(void *impl, int want)
{
	struct mpi_channel *m = impl;
	mpi_flush(m);
	MUST_MPI(MPI_Irecv(m->incoming, SW_WORKER_MAX_BATCH, MPI_UINT32_T, 0, SW_TAG_WORK,
			   MPI_COMM_WORLD, &m->reply));
	MUST_MPI(MPI_Send(&want, 1, MPI_INT, 0, SW_TAG_REQUEST, MPI_COMM_WORLD));
}

static int mpi_reply(void *impl, int block, uint32_t *idx, int max, int *n)
{
	struct mpi_channel *m = impl;
	MPI_Status st;
	int flag = 1;
	if (block)
		sw_mpi_wait_idle(&m->reply, &st);
	else
		MUST_MPI(MPI_Test(&m->reply, &flag, &st));
	if (!flag)
		return 0;
	MUST_MPI(MPI_Get_count(&st, MPI_UINT32_T, n));
	if (*n > max)
		*n = max;
	memcpy(idx, m->incoming, (size_t)*n * sizeof *idx);
	return 1;
}

static void mpi_give_back(void *impl, const uint32_t *idx, int n)
{
	(void)impl;
	MUST_MPI(MPI_Send(idx, n, MPI_UINT32_T, 0, SW_TAG_RETURN, MPI_COMM_WORLD));
}

static void mpi_bye(void *impl)
{
	struct mpi_channel *m = impl;
	mpi_flush(m);
	for (int i = 0; i < 2; i++)
		if (m->send[i] != MPI_REQUEST_NULL)
			sw_mpi_wait_idle(&m->send[i], NULL);
	MUST_MPI(MPI_Send(NULL, 0, MPI_BYTE, 0, SW_TAG_BYE, MPI_COMM_WORLD));
}

static const struct sw_channel_ops mpi_ops = {
	.ask = mpi_ask,
	.reply = mpi_reply,
	.record = mpi_record,
	.flush = mpi_flush,
	.give_back = mpi_give_back,
	.bye = mpi_bye,
};

enum sw_status sw_channel_mpi_open(struct sw_channel *ch, struct sw_err *err)
{
	struct mpi_channel *m = calloc(1, sizeof *m);
	ch->ops = &mpi_ops;
	ch->impl = m;
	if (m) {
		m->pack[0] = malloc(PACK_BYTES);
		m->pack[1] = malloc(PACK_BYTES);
		m->send[0] = m->send[1] = m->reply = MPI_REQUEST_NULL;
	}
	if (!m || !m->pack[0] || !m->pack[1]) {
		sw_channel_mpi_close(ch);
		return sw_fail(err, SW_ENOMEM, "no memory for the worker's sends");
	}
	return SW_OK;
}

void sw_channel_mpi_close(struct sw_channel *ch)
{
	struct mpi_channel *m = ch->impl;
	if (m) {
		free(m->pack[0]);
		free(m->pack[1]);
	}
	free(m);
	ch->impl = NULL;
}
