/*
 * The coordinator (coord.h). One round of serving: take every message
 * waiting (a record's receive is only started, never waited for, so a large
 * record still in its sender's hands blocks nothing), write the records
 * whose receives completed, and flush when due. All state is under one
 * mutex, which rank 0's worker takes for its own calls.
 */
#define _POSIX_C_SOURCE 200809L
#include "run/coord.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/comm.h"
#include "h5/h5out.h"
#include "run/progress.h"
#include "run/sched.h"

#define FLUSH_INTERVAL_S 2.0

struct sw_coord {
	struct sw_rank_ctx *r;
	/* the points still to hand out: each group's shared ones (place.h),
	 * and each rank's own calibration points, handed out first */
	struct sw_dispenser *group, *own;
	char *gone;      /* per rank: said bye */
	int remote_left; /* worker ranks that have not said bye */
	int local_done;  /* rank 0's worker said bye */
	int local_want;  /* rank 0's outstanding ask, or 0 */
	int local_idle;  /* rank 0's worker waits for work, holding no point */
	/* Requests held back, per rank: the points wanted, 0 for none. A worker
	 * hears "none left" only once rank 0's worker can give no point back
	 * (may_say_none_left): rank 0's GPU may die with points queued. */
	int *deferred;
	int n_deferred;
	int threaded;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t changed; /* points came back or a worker left */
	/* packs of records on their way in: receives started, the buffers they
	 * land in (grown to the largest pack), and one record to unpack into */
	MPI_Request *recv;
	char **buf;
	size_t *cap;
	int n_recv;
	struct sw_record *unpacked;
	/* what was written */
	struct sw_coord_totals t;
	struct sw_progress progress;
	double last_flush;
	enum sw_status write_status;
	struct sw_err write_err;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- writing ------------------------------------------------------------- */

static void flush_if_due(struct sw_coord *co, double t)
{
	if (co->write_status == SW_OK && t - co->last_flush >= FLUSH_INTERVAL_S) {
		co->write_status = sw_h5_flush(co->r->h5, &co->write_err);
		co->last_flush = t;
	}
	/* A file that cannot take rows (disk full, I/O error): stop measuring
	 * what could not be kept; the rows flushed so far stay readable. */
	if (co->write_status != SW_OK)
		sw_run_interrupted = 1;
}

/* An ok device-target row without a time, and its reason ("no time: ..." in
 * its message), for the run's last lines. */
static void note_untimed(struct sw_coord_totals *t, const struct sw_record *rec)
{
	const char *why = strstr(rec->message, "no time: ");
	if (rec->status != SW_ROW_OK || !rec->model_device[0] ||
	    strcmp(rec->model_time_term, "none"))
		return;
	if (!t->untimed++ && why)
		snprintf(t->untimed_why, sizeof t->untimed_why, "%s", why);
}

static void write_record(struct sw_coord *co, struct sw_record *rec)
{
	if (rec->status >= 0 && rec->status < 4)
		co->t.counts[rec->status]++;
	if (rec->status == SW_ROW_OK && !strcmp(rec->check_mode, "none"))
		co->t.unchecked++;
	note_untimed(&co->t, rec);
	if (rec->timed_s > 0)
		co->t.timed_s += rec->timed_s;
	co->t.written++;
	if (rec->plan_index < co->r->plan.n)
		co->progress.done_s += co->r->cost_s[rec->plan_index];
	if (co->write_status == SW_OK)
		co->write_status = sw_h5_append(co->r->h5, rec, &co->write_err);
	double t = now_s();
	flush_if_due(co, t);
	const struct sw_plan *plan = &co->r->plan;
	sw_progress_update_last(&co->progress, co->t.written, t,
				rec->plan_index < plan->n ? &plan->points[rec->plan_index] : NULL,
				rec);
}

/* ---- serving workers over MPI ---------------------------------------------- */

/* A free receive slot, growing the pool when all are in use; -1: no memory. */
static int free_slot(struct sw_coord *co)
{
	for (int i = 0; i < co->n_recv; i++)
		if (co->recv[i] == MPI_REQUEST_NULL)
			return i;
	int n = co->n_recv ? 2 * co->n_recv : 8;
	MPI_Request *recv = realloc(co->recv, n * sizeof *recv);
	if (recv)
		co->recv = recv;
	char **buf = recv ? realloc(co->buf, n * sizeof *buf) : NULL;
	if (buf)
		co->buf = buf;
	size_t *cap = buf ? realloc(co->cap, n * sizeof *cap) : NULL;
	if (!cap)
		return -1;
	co->cap = cap;
	for (int i = co->n_recv; i < n; i++) {
		co->recv[i] = MPI_REQUEST_NULL;
		co->buf[i] = NULL;
		co->cap[i] = 0;
	}
	int first = co->n_recv;
	co->n_recv = n;
	return first;
}

/* Rank 0 cannot hold what a worker sent: nothing else can keep it. */
static void out_of_memory(const char *what)
{
	fprintf(stderr, "sweep: rank 0: no memory for %s; aborting the job\n", what);
	sw_mpi_abort(sw_status_exit_code(SW_EMPI));
}

static void start_pack(struct sw_coord *co, MPI_Message *msg, MPI_Status *st)
{
	int bytes = 0, i = free_slot(co);
	MUST_MPI(MPI_Get_count(st, MPI_BYTE, &bytes));
	if (i < 0)
		out_of_memory("a receive");
	if (co->cap[i] < (size_t)bytes) {
		free(co->buf[i]);
		co->cap[i] = 0;
		if (!(co->buf[i] = malloc(bytes)))
			out_of_memory("a pack of records");
		co->cap[i] = (size_t)bytes;
	}
	MUST_MPI(MPI_Imrecv(co->buf[i], bytes, MPI_BYTE, msg, &co->recv[i]));
}

/* Writes every record of a received pack of the given size. */
static void write_pack(struct sw_coord *co, const char *pack, size_t bytes)
{
	const size_t head = offsetof(struct sw_record, samples_ns);
	for (size_t at = 0; at + head <= bytes;) {
		memcpy(co->unpacked, pack + at, head);
		size_t len = sw_record_wire_bytes(co->unpacked);
		if (at + len > bytes)
			break; /* cannot happen: every rank runs the same binary */
		memcpy(co->unpacked, pack + at, len);
		write_record(co, co->unpacked);
		at += len;
	}
}

/* Up to want points for rank src: its own calibration points first, then
 * its group's; 0 when none are left or the run stops. */
static size_t hand_out(struct sw_coord *co, int src, int want, uint32_t *idx)
{
	struct sw_dispenser *d = &co->own[src];
	if (sw_run_interrupted || want <= 0)
		return 0;
	if (want > SW_WORKER_MAX_BATCH)
		want = SW_WORKER_MAX_BATCH;
	if (!sw_dispenser_left(d))
		d = &co->group[co->r->place.group_of[src]];
	return sw_dispenser_take_batch(d, SW_WORKER_AHEAD_S, (size_t)want, idx, NULL);
}

/* "None left" is final: the worker leaves. Rank 0's worker runs what a
 * stopped worker of its group gives back (local_answer), but if rank 0's
 * own backend dies, its queued points need a worker that is still there:
 * so in rank 0's group none are left only once rank 0's worker has left,
 * or waits with nothing queued. Another group has no such last resort:
 * what a stopped rank of it gives back after the others left waits for
 * --resume (docs/job-format.md, "placement"). */
static int may_say_none_left(const struct sw_coord *co, int src)
{
	const int *g = co->r->place.group_of;
	return sw_run_interrupted || co->local_done || co->local_idle || g[src] != g[0];
}

/* Worker ranks of group g that have not said bye. */
static int remote_left_in(const struct sw_coord *co, int g)
{
	int n = 0;
	for (int k = 1; k < co->r->size; k++)
		n += !co->gone[k] && co->r->place.group_of[k] == g;
	return n;
}

/* Points rank src took and will not run: a shared one goes back to its
 * group's dispenser, a calibration point (only src could run it) waits
 * for --resume. */
static void put_back(struct sw_coord *co, int src, const uint32_t *idx, size_t n)
{
	struct sw_dispenser *d = &co->group[co->r->place.group_of[src]];
	const struct sw_plan_point *pt = co->r->plan.points;
	/* each stretch of shared points in one give-back: a stopped rank's
	 * whole static share (200,000 points) goes back in one call */
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && !pt[idx[j]].calibration; j++)
			;
		if (j > i && sw_dispenser_give_back(d, &idx[i], j - i) != 0)
			co->t.unrun += j - i;
		if (j < n) { /* a calibration point: only src could run it */
			co->t.unrun++;
			j++;
		}
	}
}

/* Answers rank src's request for want points; 0 when it must wait. */
static int try_answer(struct sw_coord *co, int src, int want)
{
	uint32_t idx[SW_WORKER_MAX_BATCH];
	size_t k = hand_out(co, src, want, idx);
	if (k == 0 && want > 0 && !may_say_none_left(co, src))
		return 0;
	MUST_MPI(MPI_Send(idx, (int)k, MPI_UINT32_T, src, SW_TAG_WORK, MPI_COMM_WORLD));
	return 1;
}

static void answer_request(struct sw_coord *co, int src, MPI_Message *msg)
{
	int want = 0;
	MUST_MPI(MPI_Mrecv(&want, 1, MPI_INT, msg, MPI_STATUS_IGNORE));
	if (!try_answer(co, src, want)) {
		co->deferred[src] = want;
		co->n_deferred++;
	}
}

/* The requests held back that can be answered now; 1 if any was. */
static int answer_deferred(struct sw_coord *co)
{
	int any = 0;
	for (int src = 1; co->n_deferred && src < co->r->size; src++)
		if (co->deferred[src] && try_answer(co, src, co->deferred[src])) {
			co->deferred[src] = 0;
			co->n_deferred--;
			any = 1;
		}
	return any;
}

static void take_back(struct sw_coord *co, int src, MPI_Message *msg, MPI_Status *st)
{
	int n = 0;
	MUST_MPI(MPI_Get_count(st, MPI_UINT32_T, &n));
	uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
	if (!idx) {
		fprintf(stderr, "sweep: rank 0: no memory for returned points; aborting the job\n");
		sw_mpi_abort(sw_status_exit_code(SW_EMPI));
	}
	MUST_MPI(MPI_Mrecv(idx, n, MPI_UINT32_T, msg, MPI_STATUS_IGNORE));
	put_back(co, src, idx, (size_t)n);
	free(idx);
}

static void discard(MPI_Message *msg, MPI_Status *st)
{
	int n = 0;
	MUST_MPI(MPI_Get_count(st, MPI_BYTE, &n));
	char *junk = malloc(n ? n : 1);
	if (!junk)
		sw_mpi_abort(sw_status_exit_code(SW_EMPI));
	MUST_MPI(MPI_Mrecv(junk, n, MPI_BYTE, msg, MPI_STATUS_IGNORE));
	free(junk);
}

/* Takes every message waiting; 1 if there was any. */
static int take_messages(struct sw_coord *co)
{
	int any = 0, flag = 0;
	MPI_Message msg;
	MPI_Status st;
	for (;;) {
		MUST_MPI(
			MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
		if (!flag)
			return any;
		any = 1;
		switch (st.MPI_TAG) {
		case SW_TAG_RECORD: start_pack(co, &msg, &st); break;
		case SW_TAG_REQUEST: answer_request(co, st.MPI_SOURCE, &msg); break;
		case SW_TAG_RETURN: take_back(co, st.MPI_SOURCE, &msg, &st); break;
		case SW_TAG_BYE:
			MUST_MPI(MPI_Mrecv(NULL, 0, MPI_BYTE, &msg, MPI_STATUS_IGNORE));
			co->gone[st.MPI_SOURCE] = 1;
			co->remote_left--;
			break;
		default: discard(&msg, &st); /* not ours: drain it rather than spin */
		}
	}
}

/* Writes the packs whose receives completed; 1 if there was any. Tests in
 * windows of 64, so the arrays stay on the stack. */
static int take_records(struct sw_coord *co)
{
	int any = 0, done = 0, idx[64];
	MPI_Status st[64];
	for (int base = 0; base < co->n_recv; base += 64) {
		int len = co->n_recv - base < 64 ? co->n_recv - base : 64;
		MUST_MPI(MPI_Testsome(len, co->recv + base, &done, idx, st));
		if (done == MPI_UNDEFINED)
			continue;
		for (int k = 0; k < done; k++) {
			int bytes = 0;
			MUST_MPI(MPI_Get_count(&st[k], MPI_BYTE, &bytes));
			write_pack(co, co->buf[base + idx[k]], (size_t)bytes);
		}
		any |= done > 0;
	}
	return any;
}

static int records_in_flight(const struct sw_coord *co)
{
	for (int i = 0; i < co->n_recv; i++)
		if (co->recv[i] != MPI_REQUEST_NULL)
			return 1;
	return 0;
}

/* One round; 1 if anything happened. Called with the mutex held. */
static int serve_round(struct sw_coord *co)
{
	int busy = 0;
	if (co->r->size > 1)
		busy = take_messages(co) | take_records(co) | answer_deferred(co);
	flush_if_due(co, now_s());
	if (busy)
		pthread_cond_broadcast(&co->changed);
	return busy;
}

static int all_gone(const struct sw_coord *co)
{
	return co->remote_left == 0 && co->local_done && !records_in_flight(co);
}

static void *serve_thread(void *arg)
{
	struct sw_coord *co = arg;
	int idle = 0;
	pthread_mutex_lock(&co->mu);
	while (!all_gone(co)) {
		if (serve_round(co)) {
			idle = 0;
			continue;
		}
		pthread_mutex_unlock(&co->mu);
		sw_idle_pause(&idle);
		pthread_mutex_lock(&co->mu);
	}
	pthread_mutex_unlock(&co->mu);
	return NULL;
}

/* ---- rank 0's own worker: the local channel ---------------------------------- */

static void local_ask(void *impl, int want)
{
	struct sw_coord *co = impl;
	pthread_mutex_lock(&co->mu);
	co->local_want = want;
	pthread_mutex_unlock(&co->mu);
}

/* Rank 0's worker hears "none left" only once no other worker of its group
 * can give points back: it is the one that runs what a stopped rank left. */
static int local_answer(struct sw_coord *co, uint32_t *idx, int max, int *n)
{
	int want = co->local_want < max ? co->local_want : max;
	size_t k = hand_out(co, 0, want, idx);
	if (k == 0 && !sw_run_interrupted && remote_left_in(co, co->r->place.group_of[0]) > 0)
		return 0;
	*n = (int)k;
	co->local_want = 0;
	return 1;
}

static int local_reply(void *impl, int block, uint32_t *idx, int max, int *n)
{
	struct sw_coord *co = impl;
	int got, idle = 0;
	pthread_mutex_lock(&co->mu);
	if (!co->threaded)
		serve_round(co);
	/* blocking, rank 0's worker has nothing queued (worker.c gives its queue
	 * back before it waits in finish): requests held back may hear none left */
	while (!(got = local_answer(co, idx, max, n)) && block) {
		co->local_idle = 1;
		if (co->threaded) {
			struct timespec until;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += 10000000; /* a bound, should a wake-up be missed */
			until.tv_sec += until.tv_nsec / 1000000000;
			until.tv_nsec %= 1000000000;
			pthread_cond_timedwait(&co->changed, &co->mu, &until);
		} else if (!serve_round(co)) {
			pthread_mutex_unlock(&co->mu);
			sw_idle_pause(&idle);
			pthread_mutex_lock(&co->mu);
		}
	}
	co->local_idle = 0;
	pthread_mutex_unlock(&co->mu);
	return got;
}

static void local_record(void *impl, const struct sw_record *rec)
{
	struct sw_coord *co = impl;
	pthread_mutex_lock(&co->mu);
	write_record(co, (struct sw_record *)rec);
	if (!co->threaded)
		serve_round(co);
	pthread_mutex_unlock(&co->mu);
}

static void local_flush(void *impl)
{
	(void)impl; /* rank 0's records are written as they come */
}

static void local_give_back(void *impl, const uint32_t *idx, int n)
{
	struct sw_coord *co = impl;
	pthread_mutex_lock(&co->mu);
	put_back(co, 0, idx, (size_t)n);
	pthread_mutex_unlock(&co->mu);
}

static void local_bye(void *impl)
{
	struct sw_coord *co = impl;
	pthread_mutex_lock(&co->mu);
	co->local_done = 1;
	pthread_mutex_unlock(&co->mu);
}

static const struct sw_channel_ops local_ops = {
	.ask = local_ask,
	.reply = local_reply,
	.record = local_record,
	.flush = local_flush,
	.give_back = local_give_back,
	.bye = local_bye,
};

void sw_coord_channel(struct sw_coord *co, struct sw_channel *ch)
{
	ch->ops = &local_ops;
	ch->impl = co;
}

/* ---- life cycle ---------------------------------------------------------------- */

static void coord_free(struct sw_coord *co)
{
	for (int i = 0; i < co->n_recv; i++)
		free(co->buf[i]);
	free(co->buf);
	free(co->cap);
	free(co->recv);
	free(co->unpacked);
	free(co->deferred);
	free(co->gone);
	for (int g = 0; co->group && g < co->r->place.n_groups; g++)
		sw_dispenser_fini(&co->group[g]);
	for (int k = 0; co->own && k < co->r->size; k++)
		sw_dispenser_fini(&co->own[k]);
	free(co->group);
	free(co->own);
	pthread_cond_destroy(&co->changed);
	pthread_mutex_destroy(&co->mu);
	free(co);
}

/* The pairs of owner o, as plan indices; dynamic only (static: the
 * dispensers receive only what stopped ranks give back). */
static enum sw_status init_one(struct sw_coord *co, struct sw_dispenser *d, int32_t o, int dynamic,
			       uint32_t *buf)
{
	const struct sw_rank_ctx *r = co->r;
	size_t n = 0;
	for (size_t i = 0; dynamic && i < r->n_todo; i++)
		if (r->owner[i] == o)
			buf[n++] = r->todo[i];
	/* longest expected first, on the owner's class */
	return sw_dispenser_init_cost(d, buf, n, sw_rank_costs(r, o), r->plan.n);
}

static enum sw_status fill_dispensers(struct sw_coord *co, int dynamic)
{
	const struct sw_rank_ctx *r = co->r;
	enum sw_status st = SW_OK;
	uint32_t *buf = malloc((r->n_todo ? r->n_todo : 1) * sizeof *buf);
	co->group = calloc((size_t)r->place.n_groups, sizeof *co->group);
	co->own = calloc((size_t)r->size, sizeof *co->own);
	if (!buf || !co->group || !co->own) {
		free(buf);
		return SW_ENOMEM;
	}
	for (int g = 0; st == SW_OK && g < r->place.n_groups; g++)
		st = init_one(co, &co->group[g], g, dynamic, buf);
	for (int k = 0; st == SW_OK && k < r->size; k++)
		st = init_one(co, &co->own[k], SW_PLACE_OWN(k), dynamic, buf);
	free(buf);
	return st;
}

enum sw_status sw_coord_start(struct sw_rank_ctx *r, int dynamic, struct sw_coord **out,
			      struct sw_err *err)
{
	struct sw_coord *co = calloc(1, sizeof *co);
	if (!co)
		return sw_fail(err, SW_ENOMEM, "no memory for the coordinator");
	co->r = r;
	co->remote_left = r->size - 1;
	pthread_mutex_init(&co->mu, NULL);
	pthread_cond_init(&co->changed, NULL);
	co->unpacked = malloc(sizeof *co->unpacked);
	co->deferred = calloc((size_t)r->size, sizeof *co->deferred);
	co->gone = calloc((size_t)r->size, sizeof *co->gone);
	if (!co->unpacked || !co->deferred || !co->gone || fill_dispensers(co, dynamic) != SW_OK) {
		coord_free(co);
		return sw_fail(err, SW_ENOMEM, "no memory for the coordinator");
	}
	co->last_flush = now_s();
	sw_progress_init(&co->progress, stderr, r->n_todo, r->opt->quiet, co->last_flush);
	for (size_t i = 0; i < r->n_todo; i++)
		co->progress.total_s += r->cost_s[r->todo[i]];
	int level = MPI_THREAD_SINGLE;
	MUST_MPI(MPI_Query_thread(&level));
	co->threaded = level >= MPI_THREAD_SERIALIZED &&
		       pthread_create(&co->thread, NULL, serve_thread, co) == 0;
	*out = co;
	return SW_OK;
}

enum sw_status sw_coord_finish(struct sw_coord **cop, struct sw_coord_totals *t, struct sw_err *err)
{
	struct sw_coord *co = *cop;
	if (co->threaded) {
		pthread_join(co->thread, NULL);
	} else {
		int idle = 0;
		pthread_mutex_lock(&co->mu);
		while (!all_gone(co))
			if (!serve_round(co)) {
				pthread_mutex_unlock(&co->mu);
				sw_idle_pause(&idle);
				pthread_mutex_lock(&co->mu);
			}
		pthread_mutex_unlock(&co->mu);
	}
	sw_progress_finish(&co->progress, co->t.written, now_s());
	/* what no worker took: a stopped rank's own points, or an interrupt's */
	for (int g = 0; g < co->r->place.n_groups; g++)
		co->t.unrun += sw_dispenser_left(&co->group[g]);
	for (int k = 0; k < co->r->size; k++)
		co->t.unrun += sw_dispenser_left(&co->own[k]);
	*t = co->t;
	enum sw_status st = co->write_status;
	if (st != SW_OK)
		*err = co->write_err;
	coord_free(co);
	*cop = NULL;
	return st;
}
