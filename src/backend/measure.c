/*
 * The cuda backend's measurement of one point (measure.h). Samples are taken
 * in batches of SAMPLE_BATCH event pairs between host synchronisations, so
 * the GPU is rarely idle while the host checks the stopping rule. A point's
 * CPU check runs on a thread beside the GPU while it measures the next
 * points (checks.h): the output copies go to pinned host sets in turn, one
 * per check queued.
 */
#define _POSIX_C_SOURCE 200809L
#include "backend/measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "backend/checks.h"
#include "backend/counters.h"
#include "backend/pinned_pool.h"
#include <sweep/family.h>
#include "core/stats.h"
#include "job/limits.h"

#define SAMPLE_BATCH 16
_Static_assert(SW_CHECK_SETS + 1 <= SW_MEASURE_MAX_DONE,
	       "a call completes at most every slot and one");
/* The fewest samples a point takes when time_cap_s stops it: three give a
 * median and a spread; nvbench's ten would cost the H200 full job about 450
 * s where three cost about 370 (one launch of its atomics takes 1.9 s). */
#define SW_CAPPED_MIN_SAMPLES   3
#define MAX_LAUNCHES_PER_SAMPLE 1000

/* Events at the GPU phases of a point, read back with the warm-up's end. */
enum { EV_FILL, EV_CHECKED, EV_COPIED, N_PHASE_EVENTS };

struct sw_measure {
	struct sw_device_info dev;
	cudaStream_t stream;
	cudaEvent_t start[SAMPLE_BATCH], stop[SAMPLE_BATCH];
	cudaEvent_t flushed[SAMPLE_BATCH]; /* before each sample's flush, for flush_s */
	cudaEvent_t phase[N_PHASE_EVENTS]; /* the point's phase boundaries, for the row */
	void *buf[SW_MAX_BUFFERS];
	size_t cap[SW_MAX_BUFFERS];
	/* pinned copies of outputs, for checks: one set per check slot, its
	 * blocks from the pool while the slot's check is queued */
	void *host[SW_CHECK_SETS][SW_MAX_BUFFERS];
	struct sw_pinned_pool pinned;
	/* the call of sw_measure_start_point under way: where records that
	 * complete during it go, in order */
	struct sw_record **done;
	int *n_done;
	double pinned_wait_s;         /* in it, waiting for checks to free pinned blocks */
	void *gather[SW_MAX_BUFFERS]; /* the sampled elements on the device, packed */
	size_t gather_cap[SW_MAX_BUFFERS];
	/* the checks running beside the GPU; checks.next: the next point's set */
	struct sw_checks checks;
	void *flush; /* written before a sample to evict L2 */
	size_t flush_bytes;
	uint64_t nonce;
	/* --counters: the profiler, or why there is none */
	int counters_wanted;
	struct sw_counters *counters;
	char counters_why[SW_MSG_LEN];
	/* --metrics: their profiler, NULL without them */
	struct sw_counters *metrics;
	int n_metrics;
	/* SW_TEST_FAULT=launch:ID or trap:ID (tests only): the fault for point ID */
	int fault_kind;
	uint64_t fault_id;
};

/* Host time for the phase columns: monotonic, unlike the rows' unix times. */
static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Seconds between two completed events on the stream; 0 if they cannot say. */
static double event_s(cudaEvent_t from, cudaEvent_t to)
{
	float ms = 0;
	return cudaEventElapsedTime(&ms, from, to) == cudaSuccess ? ms * 1e-3 : 0;
}

static enum sw_status cuda_fail(struct sw_err *err, cudaError_t e, const char *what)
{
	return sw_fail(err, SW_ECUDA, "%s: %s (%s)", what, cudaGetErrorString(e),
		       cudaGetErrorName(e));
}

/* Page-locked bytes the queued checks' output copies may hold together:
 * a 64 MB output (transpose's largest copied whole) in sixteen checks. */
#define SW_PINNED_BUDGET ((size_t)1 << 30)

static void *pinned_alloc(size_t bytes)
{
	void *p = NULL;
	if (cudaMallocHost(&p, bytes) != cudaSuccess) {
		cudaGetLastError();
		return NULL;
	}
	return p;
}

static void pinned_release(void *p)
{
	cudaFreeHost(p);
}

/* A queued check has returned its record: its slot's copies are free. */
static void slot_retired(void *ctx, int slot)
{
	struct sw_measure *g = ctx;
	for (int i = 0; i < SW_MAX_BUFFERS; i++) {
		sw_pinned_put(&g->pinned, g->host[slot][i]);
		g->host[slot][i] = NULL;
	}
}

enum sw_status sw_measure_create(const struct sw_device_info *dev, struct sw_measure **out,
				 struct sw_err *err)
{
	struct sw_measure *g = calloc(1, sizeof *g);
	if (!g)
		return sw_fail(err, SW_ENOMEM, "no memory for the GPU context");
	g->dev = *dev;
	sw_checks_init(&g->checks);
	g->checks.retired = slot_retired;
	g->checks.retired_ctx = g;
	g->pinned = (struct sw_pinned_pool){ .alloc = pinned_alloc,
					     .release = pinned_release,
					     .budget = SW_PINNED_BUDGET };
	cudaError_t e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking);
	for (int i = 0; i < SAMPLE_BATCH && e == cudaSuccess; i++) {
		e = cudaEventCreate(&g->start[i]);
		if (e == cudaSuccess)
			e = cudaEventCreate(&g->stop[i]);
		if (e == cudaSuccess)
			e = cudaEventCreate(&g->flushed[i]);
	}
	for (int i = 0; i < N_PHASE_EVENTS && e == cudaSuccess; i++)
		e = cudaEventCreate(&g->phase[i]);
	/* Twice the L2: a write of it leaves none of a point's data cached. */
	g->flush_bytes = dev->l2_bytes > 0 ? 2 * (size_t)dev->l2_bytes : 0;
	if (e == cudaSuccess && g->flush_bytes)
		e = cudaMalloc(&g->flush, g->flush_bytes);
	const char *fault = getenv("SW_TEST_FAULT");
	unsigned long long id;
	if (fault && sscanf(fault, "launch:%llx", &id) == 1)
		g->fault_kind = SW_FAULT_LAUNCH, g->fault_id = id;
	else if (fault && sscanf(fault, "trap:%llx", &id) == 1)
		g->fault_kind = SW_FAULT_TRAP, g->fault_id = id;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	g->nonce =
		sw_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)dev->rank);
	if (e != cudaSuccess) {
		sw_measure_destroy(&g);
		return cuda_fail(err, e, "cannot set up the GPU context");
	}
	*out = g;
	return SW_OK;
}

void sw_measure_destroy(struct sw_measure **gp)
{
	struct sw_measure *g = *gp;
	if (!g)
		return;
	while (sw_measure_settle(g))
		;
	sw_checks_fini(&g->checks);
	sw_pinned_free_all(&g->pinned);
	sw_counters_destroy(&g->counters);
	sw_counters_destroy(&g->metrics);
	for (int i = 0; i < SW_MAX_BUFFERS; i++) {
		cudaFree(g->buf[i]);
		cudaFree(g->gather[i]);
	}
	cudaFree(g->flush);
	for (int i = 0; i < SAMPLE_BATCH; i++) {
		if (g->start[i])
			cudaEventDestroy(g->start[i]);
		if (g->stop[i])
			cudaEventDestroy(g->stop[i]);
		if (g->flushed[i])
			cudaEventDestroy(g->flushed[i]);
	}
	for (int i = 0; i < N_PHASE_EVENTS; i++)
		if (g->phase[i])
			cudaEventDestroy(g->phase[i]);
	if (g->stream)
		cudaStreamDestroy(g->stream);
	free(g);
	*gp = NULL;
}

void sw_measure_use_counters(struct sw_measure *g)
{
	struct sw_err err = { 0 };
	g->counters_wanted = 1;
	if (sw_counters_create(g->dev.device_index, &g->counters, &err) != SW_OK)
		snprintf(g->counters_why, sizeof g->counters_why, "%s", err.msg);
}

const char *sw_measure_counters_unavailable(const struct sw_measure *g)
{
	return g->counters_wanted && !g->counters ? g->counters_why : NULL;
}

/* What creating a named counter set said, as --metrics reports it. */
static enum sw_status metrics_verdict(enum sw_status st, const struct sw_err *why,
				      struct sw_err *err)
{
	/* asked for by name, they are no optional extra: no profiler, no run */
	if (st == SW_SKIP)
		return sw_fail(err, SW_ECUDA, "--metrics: %s", why->msg);
	if (st != SW_OK)
		return sw_fail(err, st, "%s", why->msg);
	return SW_OK;
}

enum sw_status sw_measure_use_metrics(struct sw_measure *g, const char *const *names, int n,
				      struct sw_err *err)
{
	struct sw_err why = { 0 };
	enum sw_status st;

	if (n > SW_MAX_METRICS)
		return sw_fail(err, SW_EINVAL, "--metrics: more than %d names", SW_MAX_METRICS);
	st = sw_counters_create_named(g->dev.device_index, names, n, &g->metrics, &why);
	if ((st = metrics_verdict(st, &why, err)))
		return st;
	g->n_metrics = n;
	return SW_OK;
}

enum sw_status sw_measure_check_metrics(int device_index, const char *const *names, int n,
					struct sw_err *err)
{
	struct sw_counters *c = NULL;
	struct sw_err why = { 0 };
	enum sw_status st;
	cudaError_t e = cudaSetDevice(device_index);

	if (n > SW_MAX_METRICS)
		return sw_fail(err, SW_EINVAL, "--metrics: more than %d names", SW_MAX_METRICS);
	if (e == cudaSuccess)
		e = cudaFree(NULL); /* the context CUPTI's profiler needs */
	if (e != cudaSuccess)
		return cuda_fail(err, e, "--metrics: cannot open the GPU to check the names on");
	st = sw_counters_create_named(device_index, names, n, &c, &why);
	sw_counters_destroy(&c);
	return metrics_verdict(st, &why, err);
}

/* Grows device buffer i to at least bytes; buffers are kept between points
 * because cudaMalloc of gigabytes costs more than many short points. */
static cudaError_t ensure_buffer(struct sw_measure *g, int i, size_t bytes)
{
	if (g->cap[i] >= bytes)
		return cudaSuccess;
	cudaFree(g->buf[i]);
	g->buf[i] = NULL;
	g->cap[i] = 0;
	cudaError_t e = cudaMalloc(&g->buf[i], bytes);
	if (e == cudaSuccess)
		g->cap[i] = bytes;
	return e;
}

/* A pinned block of bytes for output i of the next point's set. Over the
 * pool's budget, the oldest queued check returns first (its record joins
 * this call's completed ones); with none queued, the budget gives way. */
static cudaError_t take_host(struct sw_measure *g, int i, size_t bytes)
{
	int set = g->checks.next, force = 0;
	void *p = NULL;
	sw_pinned_put(&g->pinned, g->host[set][i]);
	g->host[set][i] = NULL;
	for (;;) {
		enum sw_pinned_got got = sw_pinned_get(&g->pinned, bytes, force, &p);
		if (got == SW_PINNED_OK)
			break;
		if (got == SW_PINNED_NOMEM || force)
			return cudaErrorMemoryAllocation;
		double t0 = mono_s();
		struct sw_record *rec = sw_checks_settle(&g->checks);
		g->pinned_wait_s += mono_s() - t0;
		if (rec)
			g->done[(*g->n_done)++] = rec;
		else
			force = 1;
	}
	g->host[set][i] = p;
	return cudaSuccess;
}

/* Whether output i comes back as its sampled elements only. */
static int sampled(const struct sw_sizes *sz, int i)
{
	return sz->sampled_elem[i] && sz->bytes[i] >= sz->sampled_elem[i];
}

/* The next point's pinned host copies, taken before any of its GPU work so
 * that a wait for the pool never falls between its events. */
static cudaError_t take_host_copies(struct sw_measure *g, const struct sw_sizes *sz)
{
	cudaError_t e = cudaSuccess;
	for (int i = sz->n_inputs; i < sz->n_buffers && e == cudaSuccess; i++)
		e = take_host(g, i,
			      sampled(sz, i) ? (size_t)SW_CHECK_SAMPLES * sz->sampled_elem[i]
					     : sz->bytes[i]);
	return e;
}

/* The packed sampled elements of output i on the device. */
static cudaError_t ensure_gather(struct sw_measure *g, int i, size_t bytes)
{
	if (g->gather_cap[i] >= bytes)
		return cudaSuccess;
	cudaFree(g->gather[i]);
	g->gather[i] = NULL;
	g->gather_cap[i] = 0;
	cudaError_t e = cudaMalloc(&g->gather[i], bytes);
	if (e == cudaSuccess)
		g->gather_cap[i] = bytes;
	return e;
}

static void release_buffers(struct sw_measure *g)
{
	for (int i = 0; i < SW_MAX_BUFFERS; i++) {
		cudaFree(g->buf[i]);
		g->buf[i] = NULL;
		g->cap[i] = 0;
	}
}

/* After a failed CUDA call: nonzero when the context is still usable. A
 * launch-configuration error clears; an illegal address poisons the context. */
static int context_alive(void)
{
	cudaGetLastError();
	return cudaDeviceSynchronize() == cudaSuccess;
}

/* Records a CUDA failure in the row; SW_ECUDA only when the rank must stop. */
static enum sw_status point_failed(struct sw_record *rec, cudaError_t e, const char *what,
				   struct sw_err *err)
{
	rec->status = SW_ROW_FAILED;
	snprintf(rec->message, sizeof rec->message, "%s: %s: %s", what, cudaGetErrorName(e),
		 cudaGetErrorString(e));
	if (context_alive())
		return SW_OK;
	return sw_fail(err, SW_ECUDA, "the GPU context is unusable after %s: %s", what,
		       cudaGetErrorString(e));
}

static cudaError_t fill_inputs(struct sw_measure *g, const struct sw_family *f,
			       const struct sw_point *p, const struct sw_sizes *sz,
			       const struct sw_buffers *b)
{
	if (f->fill)
		return f->fill(p, b, g->stream);
	for (int i = 0; i < sz->n_inputs; i++) {
		/* input i from seed + i: its own stream of values (kernel.h) */
		cudaError_t e = sw_fill_uniform(b->dev[i], sz->bytes[i] / sizeof(float),
						b->seed + (uint64_t)i, g->stream);
		if (e != cudaSuccess)
			return e;
	}
	return cudaSuccess;
}

/* Enqueues the gather of output i's sampled elements and their copy to
 * pinned host memory: SW_CHECK_SAMPLES elements, not the whole output. */
static cudaError_t copy_sampled(struct sw_measure *g, const struct sw_sizes *sz,
				const struct sw_buffers *b, int i, struct outcopy *oc,
				struct sw_record *rec)
{
	size_t eb = sz->sampled_elem[i], packed = (size_t)SW_CHECK_SAMPLES * eb;
	uint64_t n = sz->bytes[i] / eb;
	double t0 = mono_s();
	cudaError_t e = ensure_gather(g, i, packed);
	rec->alloc_s += mono_s() - t0;
	if (e == cudaSuccess)
		e = sw_gather_sampled(b->dev[i], eb, n, oc->out.sample_seed, SW_CHECK_SAMPLES,
				      g->gather[i], g->stream);
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(g->host[g->checks.next][i], g->gather[i], packed,
				    cudaMemcpyDeviceToHost, g->stream);
	oc->part[i] = (struct packed_out){ g->host[g->checks.next][i], eb, n };
	return e;
}

/* Enqueues copies of the outputs to pinned host memory, for the check:
 * whole, or only the elements a sampled check compares. */
static enum sw_status copy_outputs(struct sw_measure *g, const struct sw_sizes *sz,
				   const struct sw_buffers *b, struct outcopy *oc,
				   struct sw_record *rec, struct sw_err *err)
{
	*oc = (struct outcopy){ .out = { .seed = b->seed,
					 .sample_seed = sw_mix64(b->seed ^ 0x5eed) } };
	for (int i = sz->n_inputs; i < sz->n_buffers; i++) {
		cudaError_t e;
		oc->out.bytes[i] = sz->bytes[i];
		if (sampled(sz, i)) {
			e = copy_sampled(g, sz, b, i, oc, rec);
		} else {
			e = cudaMemcpyAsync(g->host[g->checks.next][i], b->dev[i], sz->bytes[i],
					    cudaMemcpyDeviceToHost, g->stream);
			oc->out.out[i] = g->host[g->checks.next][i];
		}
		if (e != cudaSuccess)
			return point_failed(rec, e, "copying the output back", err);
	}
	return SW_OK;
}

/* Enqueues one sample: an optional flush, then the timed launches. flush:
 * 0, or 1 + enum sw_flush_method. */
static cudaError_t enqueue_sample(struct sw_measure *g, const struct sw_variant *v,
				  const struct sw_point *p, const struct sw_buffers *b, int flush,
				  int launches, int slot)
{
	cudaError_t e = flush ? cudaEventRecord(g->flushed[slot], g->stream) : cudaSuccess;
	if (e != cudaSuccess)
		return e;
	if (flush == 1 + SW_FLUSH_BY_READ)
		e = sw_evict_l2(g->flush, g->flush_bytes, g->stream);
	else if (flush == 1 + SW_FLUSH_BY_MEMSET)
		e = cudaMemsetAsync(g->flush, slot, g->flush_bytes, g->stream);
	if (e == cudaSuccess)
		e = cudaEventRecord(g->start[slot], g->stream);
	for (int l = 0; l < launches && e == cudaSuccess; l++)
		e = v->launch(p, b, g->stream);
	if (e == cudaSuccess)
		e = cudaEventRecord(g->stop[slot], g->stream);
	return e;
}

static enum sw_status time_point(struct sw_measure *g, const struct sw_family *f,
				 const struct sw_point *p, const struct sw_sizes *szp,
				 const struct sw_buffers *bp, const struct sw_measure_cfg *cfg,
				 struct sw_record *rec, struct outcopy *oc, struct sw_err *err);

/* What a counted pass needs: the point's launch, and the L2 to evict first. */
struct counted {
	struct sw_measure *g;
	const struct sw_variant *v;
	const struct sw_point *p;
	const struct sw_buffers *b;
};

static cudaError_t counted_evict(void *arg, cudaStream_t s)
{
	struct counted *c = arg;
	return c->g->flush ? sw_evict_l2(c->g->flush, c->g->flush_bytes, s) : cudaSuccess;
}

static cudaError_t counted_launch(void *arg, cudaStream_t s)
{
	struct counted *c = arg;
	return c->v->launch(c->p, c->b, s);
}

/* Counts one launch of a point already timed, from an L2 holding none of its
 * data, into rec. A profiler failure only marks the row's counters. */
static enum sw_status count_point(struct sw_measure *g, const struct sw_variant *v,
				  const struct sw_point *p, const struct sw_buffers *b,
				  struct sw_record *rec, struct sw_err *err)
{
	if (!g->counters) {
		snprintf(rec->counter_note, sizeof rec->counter_note, "%s", g->counters_why);
		return SW_OK;
	}
	struct counted arg = { g, v, p, b };
	struct sw_counter_values cv;
	struct sw_err why = { 0 };
	enum sw_status st = sw_counters_collect(g->counters, g->stream, counted_evict,
						counted_launch, &arg, &cv, &why);
	if (st == SW_ECUDA) { /* the point's own launch failed this time */
		rec->status = SW_ROW_FAILED;
		snprintf(rec->message, sizeof rec->message, "counting: %s", why.msg);
		if (context_alive())
			return SW_OK;
		return sw_fail(err, SW_ECUDA, "the GPU context is unusable after counting: %s",
			       why.msg);
	}
	if (st != SW_OK) {
		snprintf(rec->counter_note, sizeof rec->counter_note, "%s", why.msg);
		return SW_OK;
	}
	snprintf(rec->counter_note, sizeof rec->counter_note, "ok");
	sw_record_set_counters(rec, &cv);
	return SW_OK;
}

/* Counts the --metrics of a point already timed into rec->metrics, as
 * count_point counts; a profiler failure leaves it without metrics and says
 * why in counter_note, after what --counters put there. */
static enum sw_status count_metrics(struct sw_measure *g, const struct sw_variant *v,
				    const struct sw_point *p, const struct sw_buffers *b,
				    struct sw_record *rec, struct sw_err *err)
{
	struct counted arg = { g, v, p, b };
	struct sw_err why = { 0 };
	int passes = 0;
	enum sw_status st =
		sw_counters_collect_named(g->metrics, g->stream, counted_evict, counted_launch,
					  &arg, rec->metrics.values, &passes, &why);
	if (st == SW_ECUDA) {
		rec->status = SW_ROW_FAILED;
		snprintf(rec->message, sizeof rec->message, "counting metrics: %s", why.msg);
		if (context_alive())
			return SW_OK;
		return sw_fail(err, SW_ECUDA, "the GPU context is unusable after counting: %s",
			       why.msg);
	}
	if (st != SW_OK) {
		size_t used = strlen(rec->counter_note);
		snprintf(rec->counter_note + used, sizeof rec->counter_note - used, "%smetrics: %s",
			 used ? "; " : "", why.msg);
		return SW_OK;
	}
	for (int i = 0; i < g->n_metrics; i++)
		snprintf(rec->metrics.units[i], sizeof rec->metrics.units[i], "%s",
			 sw_counters_unit(g->metrics, i));
	rec->metrics.n = g->n_metrics;
	return SW_OK;
}

/* The GPU part of a point: buffers, fresh input, the checked launch with its
 * output copied to the host, warm-up and samples. *checkable says whether
 * out holds an output for the CPU check. */
static enum sw_status gpu_part(struct sw_measure *g, const struct sw_family *f,
			       const struct sw_point *p, const struct sw_measure_cfg *cfg,
			       struct sw_record *rec, struct outcopy *oc, int *checkable,
			       struct sw_err *err)
{
	struct sw_sizes sz = { 0 };
	struct sw_err why = { 0 };
	if (sw_family_sizes(f, p, &sz, &why) != SW_OK) { /* the plan's check passed it */
		rec->status = SW_ROW_FAILED;
		snprintf(rec->message, sizeof rec->message, "%s", why.msg);
		return SW_OK;
	}

	size_t working_set = 0;
	for (int i = 0; i < sz.n_buffers; i++)
		working_set += sz.bytes[i];
	if (working_set + g->flush_bytes > (size_t)(0.9 * (double)g->dev.mem_bytes)) {
		rec->status = SW_ROW_SKIPPED;
		snprintf(rec->message, sizeof rec->message,
			 "needs %.2f GiB of GPU memory; the device has %.2f GiB",
			 working_set / 1073741824.0, g->dev.mem_bytes / 1073741824.0);
		return SW_OK;
	}

	struct sw_buffers b = { .sm_count = g->dev.sm_count };
	double t0 = mono_s();
	for (int i = 0; i < sz.n_buffers; i++) {
		cudaError_t e = ensure_buffer(g, i, sz.bytes[i]);
		if (e == cudaErrorMemoryAllocation) { /* fragmentation: start over once */
			cudaGetLastError();
			release_buffers(g);
			e = ensure_buffer(g, i, sz.bytes[i]);
		}
		if (e == cudaErrorMemoryAllocation) {
			cudaGetLastError();
			rec->status = SW_ROW_SKIPPED;
			snprintf(rec->message, sizeof rec->message,
				 "cannot allocate %.2f GiB on the GPU", sz.bytes[i] / 1073741824.0);
			return SW_OK;
		}
		if (e != cudaSuccess)
			return point_failed(rec, e, "allocating buffers", err);
		b.dev[i] = g->buf[i];
		b.bytes[i] = sz.bytes[i];
	}
	cudaError_t e = take_host_copies(g, &sz);
	rec->alloc_s = mono_s() - t0 - g->pinned_wait_s;
	if (e != cudaSuccess)
		return point_failed(rec, e, "allocating host copies of the output", err);
	b.seed = sw_mix64(rec->point_id ^ g->nonce++);
	rec->seed = b.seed;

	/* Fresh input, one checked launch: the timing counts only if it is right. */
	e = cudaEventRecord(g->phase[EV_FILL], g->stream);
	if (e == cudaSuccess)
		e = fill_inputs(g, f, p, &sz, &b);
	if (e != cudaSuccess)
		return point_failed(rec, e, "filling the input", err);
	if (f->prepare && (e = f->prepare(p, &b, g->stream)) != cudaSuccess)
		return point_failed(rec, e, "preparing the point", err);
	if ((e = cudaEventRecord(g->phase[EV_CHECKED], g->stream)) != cudaSuccess)
		return point_failed(rec, e, "recording an event", err);
	enum sw_status st = time_point(g, f, p, &sz, &b, cfg, rec, oc, err);
	if (f->release)
		f->release(p, &b);
	*checkable = st == SW_OK && rec->status == SW_ROW_OK;
	return st;
}

struct sw_record *sw_measure_settle(struct sw_measure *g)
{
	return g ? sw_checks_settle(&g->checks) : NULL;
}

enum sw_status sw_measure_start_point(struct sw_measure *g, const struct sw_family *f,
				      const struct sw_point *p, const struct sw_measure_cfg *cfg,
				      struct sw_record *rec, struct sw_record **done, int *n_done,
				      struct sw_err *err)
{
	struct outcopy oc;
	int checkable = 0;
	rec->alloc_s = rec->fill_s = rec->check_launch_s = rec->warmup_s = 0;
	rec->flush_s = rec->sampling_s = rec->check_wait_s = rec->check_cpu_s = 0;
	/* This point copies its outputs into host set c->next (and may grow
	 * it): a check still reading that set must return first. Only when
	 * SW_CHECKS_IN_FLIGHT checks are pending does the GPU wait here. */
	*n_done = 0;
	g->done = done;
	g->n_done = n_done;
	g->pinned_wait_s = 0;
	double t0 = mono_s();
	if (sw_checks_next_held(&g->checks))
		done[(*n_done)++] = sw_checks_settle(&g->checks);
	rec->check_wait_s = mono_s() - t0;
	enum sw_status st = gpu_part(g, f, p, cfg, rec, &oc, &checkable, err);
	rec->check_wait_s += g->pinned_wait_s;
	struct timespec ts; /* the rank is free for the next point from here */
	clock_gettime(CLOCK_REALTIME, &ts);
	rec->end_unix = ts.tv_sec + ts.tv_nsec * 1e-9;
	/* every record takes its turn, checked or not: they complete in order */
	sw_checks_queue(&g->checks, checkable ? f : NULL, p, &oc, rec);
	struct sw_record *ready;
	while ((ready = sw_checks_ready(&g->checks)))
		done[(*n_done)++] = ready;
	return st;
}

enum sw_status sw_measure_run_point(struct sw_measure *g, const struct sw_family *f,
				    const struct sw_point *p, const struct sw_measure_cfg *cfg,
				    struct sw_record *rec, struct sw_err *err)
{
	struct sw_record *done[SW_MEASURE_MAX_DONE];
	int n_done;
	enum sw_status st = sw_measure_start_point(g, f, p, cfg, rec, done, &n_done, err);
	while (sw_measure_settle(g))
		;
	return st;
}

/* What every sample of one point enqueues. */
struct timing {
	struct sw_measure *g;
	const struct sw_variant *v;
	const struct sw_point *p;
	const struct sw_buffers *b;
	int flush;    /* L2 flushed before each sample: 0, or 1 + enum sw_flush_method */
	int launches; /* back to back within a sample */
};

/* Running sums of the samples taken so far. */
struct tally {
	int n;
	double sum, sum_sq; /* of the samples, in ns */
	double timed_s;     /* GPU time spent sampling */
};

/* The launch whose output is checked, flushed and timed like a sample in
 * slot 0 (it is the first warm-up launch), or the test-only fault in its
 * place. */
static cudaError_t checked_launch(const struct timing *tm, uint64_t point_id)
{
	struct sw_measure *g = tm->g;
	if (g->fault_kind && g->fault_id == point_id)
		return sw_inject_fault(g->fault_kind, g->stream);
	return enqueue_sample(g, tm->v, tm->p, tm->b, tm->flush, 1, 0);
}

/* auto: flush while the working set is under four L2 sizes (twice the
 * flush buffer): below that, lines from the last launch can still hit. */
static int wants_flush(const struct sw_measure *g, const struct sw_sizes *sz,
		       const struct sw_measure_cfg *cfg)
{
	size_t working_set = 0;
	for (int i = 0; i < sz->n_buffers; i++)
		working_set += sz->bytes[i];
	return g->flush && (cfg->flush_l2 == SW_FLUSH_ALWAYS ||
			    (cfg->flush_l2 == SW_FLUSH_AUTO && working_set < 2 * g->flush_bytes));
}

/* The warm-up launches after the checked one (warmup counts it), then the
 * wait for all of it; its end also means the checked output has reached the
 * host (same stream). *one_s: the checked launch, in s, sizes the samples. */
static cudaError_t warm_up(const struct timing *tm, int more, double *one_s, struct sw_record *rec)
{
	struct sw_measure *g = tm->g;
	float ms = 0;
	cudaError_t e =
		more > 0 ? enqueue_sample(g, tm->v, tm->p, tm->b, tm->flush, more, 1) : cudaSuccess;
	if (e == cudaSuccess)
		e = cudaEventSynchronize(more > 0 ? g->stop[1] : g->phase[EV_COPIED]);
	if (e == cudaSuccess)
		e = cudaEventElapsedTime(&ms, g->start[0], g->stop[0]);
	*one_s = ms * 1e-3;
	if (e == cudaSuccess) {
		rec->fill_s = event_s(g->phase[EV_FILL], g->phase[EV_CHECKED]);
		rec->check_launch_s = event_s(g->phase[EV_CHECKED], g->phase[EV_COPIED]);
		rec->warmup_s = more > 0 ? event_s(g->phase[EV_COPIED], g->stop[1]) : 0;
	}
	return e;
}

/* Without a flush, short kernels run back to back within a sample so that
 * event resolution (about a microsecond) does not dominate. */
static int launches_per_sample(const struct sw_measure_cfg *cfg, int flush, double one_s)
{
	int launches = 1;
	if (!flush && one_s > 0 && one_s < cfg->min_sample_s) {
		launches = (int)ceil(cfg->min_sample_s / one_s);
		if (launches > MAX_LAUNCHES_PER_SAMPLE)
			launches = MAX_LAUNCHES_PER_SAMPLE;
	}
	return launches;
}

static void record_clocks(const struct sw_measure *g, struct sw_record *rec)
{
	struct sw_clocks clk;
	sw_device_clocks(&g->dev, &clk);
	rec->sm_clock_mhz = clk.sm_mhz;
	rec->mem_clock_mhz = clk.mem_mhz;
	rec->throttle_reasons = clk.throttle_reasons;
}

/* Enqueues batch samples, waits for the last and adds them all to rec and t.
 * The clocks are read while the first batch runs: under load, and off the
 * GPU's path (an NVML read takes the host a while). */
static cudaError_t sample_batch(const struct timing *tm, int batch, struct sw_record *rec,
				struct tally *t)
{
	struct sw_measure *g = tm->g;
	cudaError_t e = cudaSuccess;
	float ms = 0;
	for (int s = 0; s < batch && e == cudaSuccess; s++)
		e = enqueue_sample(g, tm->v, tm->p, tm->b, tm->flush, tm->launches, s);
	if (e != cudaSuccess)
		return e;
	if (t->n == 0)
		record_clocks(g, rec);
	e = cudaEventSynchronize(g->stop[batch - 1]);
	for (int s = 0; s < batch && e == cudaSuccess; s++) {
		e = cudaEventElapsedTime(&ms, g->start[s], g->stop[s]);
		double ns = ms * 1e6 / tm->launches;
		rec->samples_ns[t->n++] = ns;
		t->sum += ns;
		t->sum_sq += ns * ns;
		t->timed_s += ms * 1e-3;
		if (tm->flush)
			rec->flush_s += event_s(g->flushed[s], g->start[s]);
	}
	return e;
}

/* The stopping rule: time_cap_s of GPU time spent bounds a point, once it
 * has SW_CAPPED_MIN_SAMPLES; otherwise, after min_samples, the relative
 * standard error of the mean under rse_target. */
static int settled(const struct tally *t, const struct sw_measure_cfg *cfg)
{
	if (t->timed_s >= cfg->time_cap_s && t->n >= SW_CAPPED_MIN_SAMPLES)
		return 1;
	if (t->n < cfg->min_samples)
		return 0;
	double mean = t->sum / t->n;
	double var = (t->sum_sq - t->n * mean * mean) / (t->n - 1);
	double rse = sqrt(var > 0 ? var : 0) / sqrt((double)t->n) / mean;
	return rse < cfg->rse_target;
}

/* The next batch: at most SAMPLE_BATCH, and no more samples than end the
 * cap's budget by the expected sample time (the warm-up's at first, then
 * the mean so far), so a point passes time_cap_s by at most about one
 * sample, or by the floor of SW_CAPPED_MIN_SAMPLES of a very long launch. */
static int next_batch(const struct tally *t, const struct sw_measure_cfg *cfg, int max,
		      double sample_s)
{
	int batch = max - t->n < SAMPLE_BATCH ? max - t->n : SAMPLE_BATCH;
	if (t->n)
		sample_s = t->timed_s / t->n;
	if (sample_s > 0) {
		double left = ceil((cfg->time_cap_s - t->timed_s) / sample_s);
		int floor_left = SW_CAPPED_MIN_SAMPLES - t->n;
		int budget = left > floor_left ? (left < batch ? (int)left : batch) : floor_left;
		if (budget < batch)
			batch = budget > 1 ? budget : 1;
	}
	return batch;
}

/* Batches of samples until the stopping rule or max_samples. */
static cudaError_t take_samples(const struct timing *tm, const struct sw_measure_cfg *cfg,
				struct sw_record *rec, struct tally *t, double one_s)
{
	int max = cfg->max_samples < SW_MAX_SAMPLES ? cfg->max_samples : SW_MAX_SAMPLES;
	for (;;) {
		int batch = next_batch(t, cfg, max, one_s * tm->launches);
		cudaError_t e = sample_batch(tm, batch, rec, t);
		if (e != cudaSuccess)
			return e;
		if (t->n >= max || settled(t, cfg))
			return cudaSuccess;
	}
}

/* Statistics of the samples, and rates from the median. */
static void record_stats(struct sw_record *rec, const struct tally *t)
{
	struct sw_stats s;
	sw_stats_compute(rec->samples_ns, (size_t)t->n, &s);
	rec->n_samples = (uint32_t)t->n;
	rec->median_ns = s.median;
	rec->min_ns = s.min;
	rec->mean_ns = s.mean;
	rec->stddev_ns = s.stddev;
	rec->rse = s.rse;
	rec->timed_s = t->timed_s;
	rec->gbps = rec->useful_bytes / s.median; /* bytes per ns = GB/s */
	rec->gflops = rec->flops / s.median;
}

/* The checked launch, warm-up and samples of a prepared point. */
static enum sw_status time_point(struct sw_measure *g, const struct sw_family *f,
				 const struct sw_point *p, const struct sw_sizes *szp,
				 const struct sw_buffers *bp, const struct sw_measure_cfg *cfg,
				 struct sw_record *rec, struct outcopy *oc, struct sw_err *err)
{
	const struct sw_variant *v = &f->variants[p->variant];
	const struct sw_sizes sz = *szp;
	const struct sw_buffers b = *bp;
	struct timing tm = { .g = g, .v = v, .p = p, .b = &b };
	struct tally t = { 0 };
	double one_s;

	/* The checked launch is the first warm-up launch too: a long kernel
	 * (reduce's atomics, 0.3 s) runs once before its samples, not twice.
	 * The test-only switch puts its fault where it goes. */
	tm.flush = wants_flush(g, &sz, cfg) ? 1 + (int)cfg->flush_method : 0;
	rec->l2_flushed = tm.flush != 0;
	cudaError_t e = checked_launch(&tm, rec->point_id);
	if (e != cudaSuccess)
		return point_failed(rec, e, "launching", err);
	enum sw_status st = copy_outputs(g, &sz, &b, oc, rec, err);
	if (st != SW_OK)
		return st;
	if ((e = cudaEventRecord(g->phase[EV_COPIED], g->stream)) != cudaSuccess)
		return point_failed(rec, e, "recording an event", err);

	e = warm_up(&tm, cfg->warmup - 1, &one_s, rec);
	if (e != cudaSuccess)
		return point_failed(rec, e, "running the checked launch and warm-up", err);
	tm.launches = launches_per_sample(cfg, tm.flush, one_s);
	rec->launches_per_sample = tm.launches;
	double t0 = mono_s();
	e = take_samples(&tm, cfg, rec, &t, one_s);
	rec->sampling_s = mono_s() - t0;
	if (e != cudaSuccess)
		return point_failed(rec, e, "timing", err);

	record_stats(rec, &t);
	/* after the timing, in launches of their own */
	st = g->counters_wanted ? count_point(g, v, p, &b, rec, err) : SW_OK;
	if (st == SW_OK && g->metrics && rec->status != SW_ROW_FAILED)
		st = count_metrics(g, v, p, &b, rec, err);
	return st;
}
