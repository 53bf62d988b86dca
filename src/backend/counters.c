/*
 * Hardware counters through CUPTI's range profiler (counters.h), for the
 * fixed set of --counters or the names --metrics gives, which are checked
 * against the chip's own list first. The host object turns the metric names
 * into a config image once per rank; each point enables the profiler on the
 * context, replays its launch in one user range until every pass is
 * submitted, decodes, evaluates and disables it again, so the timed launches
 * of later points never run under a profiler.
 * Built without CUPTI, creation only says so.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include "backend/counters.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"

/* The metrics, as ncu names them, and where each lands. */
static const struct metric {
	const char *name;
	size_t offset;
} metrics[] = {
/* clang-format would spread this one-line macro over four */
/* clang-format off */
#define M(name, field) { name, offsetof(struct sw_counter_values, field) }
	/* clang-format on */
	M("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", ld_requests),
	M("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", ld_sectors),
	M("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", st_requests),
	M("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", st_sectors),
	M("smsp__inst_executed_op_shared_ld.sum", shared_ld_requests),
	M("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", shared_ld_wavefronts),
	M("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", shared_ld_conflicts),
	M("smsp__inst_executed_op_shared_st.sum", shared_st_requests),
	M("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", shared_st_wavefronts),
	M("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", shared_st_conflicts),
	M("dram__bytes_read.sum", dram_read_bytes),
	M("dram__bytes_write.sum", dram_write_bytes),
#undef M
};
#define N_METRICS (sizeof metrics / sizeof metrics[0])

#ifndef SW_HAVE_CUPTI

enum sw_status sw_counters_create(int device_index, struct sw_counters **out, struct sw_err *err)
{
	(void)device_index;
	*out = NULL;
	return sw_fail(err, SW_SKIP, "counters unavailable: sweep was built without CUPTI");
}

enum sw_status sw_counters_create_named(int device_index, const char *const *names, int n,
					struct sw_counters **out, struct sw_err *err)
{
	(void)device_index, (void)names, (void)n;
	*out = NULL;
	return sw_fail(err, SW_SKIP, "counters unavailable: sweep was built without CUPTI");
}

void sw_counters_destroy(struct sw_counters **c)
{
	*c = NULL;
}

const char *sw_counters_unit(const struct sw_counters *c, int i)
{
	(void)c, (void)i;
	return "";
}

enum sw_status sw_counters_collect_named(struct sw_counters *c, cudaStream_t stream,
					 sw_counted_fn prepare, sw_counted_fn run, void *arg,
					 double *values, int *passes, struct sw_err *err)
{
	(void)c, (void)stream, (void)prepare, (void)run, (void)arg, (void)values, (void)passes;
	return sw_fail(err, SW_SKIP, "counters unavailable: sweep was built without CUPTI");
}

enum sw_status sw_counters_collect(struct sw_counters *c, cudaStream_t stream,
				   sw_counted_fn prepare, sw_counted_fn run, void *arg,
				   struct sw_counter_values *out, struct sw_err *err)
{
	(void)c, (void)stream, (void)prepare, (void)run, (void)arg, (void)out;
	return sw_fail(err, SW_SKIP, "counters unavailable: sweep was built without CUPTI");
}

#else

#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#define UNIT_LEN 32

struct sw_counters {
	CUcontext ctx;
	CUpti_Profiler_Host_Object *host;
	uint8_t *config;
	size_t config_bytes;
	int passes;
	/* the fixed set's names point into metrics[]; --metrics names are owned */
	const char **names;
	int n_names, owns_names;
	char (*units)[UNIT_LEN]; /* --metrics: each name's unit, as CUPTI gives it */
};

static enum sw_status cupti_fail(struct sw_err *err, CUptiResult r, const char *what)
{
	const char *text = NULL;
	if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || !text)
		text = "unknown CUPTI error";
	/* no permission is the common case on shared clusters: say what to do */
	if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
		return sw_fail(err, SW_SKIP,
			       "counters unavailable: %s: %s (the driver restricts profiling to "
			       "administrators: NVreg_RestrictProfilingToAdminUsers=0)",
			       what, text);
	return sw_fail(err, SW_SKIP, "counters unavailable: %s: %s", what, text);
}

/* On failure: st says why, and control goes to label (named for what it undoes). */
#define CUPTI_CALL(call, what, label)                                                              \
	do {                                                                                       \
		CUptiResult r_ = (call);                                                           \
		if (r_ != CUPTI_SUCCESS) {                                                         \
			st = cupti_fail(err, r_, what);                                            \
			goto label;                                                                \
		}                                                                                  \
	} while (0)

/* The context cudart made current, without linking libcuda (absent where no
 * GPU is, and the model backend must still run there). */
static enum sw_status current_context(CUcontext *ctx, struct sw_err *err)
{
	CUresult (*get_current)(CUcontext *) = NULL;
	enum cudaDriverEntryPointQueryResult found;
	cudaError_t e = cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", (void **)&get_current,
							 12000, cudaEnableDefault, &found);
	if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !get_current)
		return sw_fail(err, SW_SKIP,
			       "counters unavailable: no cuCtxGetCurrent in the driver");
	if (get_current(ctx) != CUDA_SUCCESS || !*ctx)
		return sw_fail(err, SW_SKIP, "counters unavailable: no current CUDA context");
	return SW_OK;
}

/* When the metric set does not configure, finds the first metric this GPU
 * lacks, so the message names it. */
static void name_missing_metric(struct sw_counters *c, const char *chip, const uint8_t *avail,
				struct sw_err *err)
{
	for (int i = 0; i < c->n_names; i++) {
		CUpti_Profiler_Host_Initialize_Params init = {
			.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
			.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER,
			.pChipName = chip,
			.pCounterAvailabilityImage = avail,
		};
		if (cuptiProfilerHostInitialize(&init) != CUPTI_SUCCESS)
			return;
		CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
			.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
			.pHostObject = init.pHostObject,
			.ppMetricNames = &c->names[i],
			.numMetrics = 1,
		};
		CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add);
		CUpti_Profiler_Host_Deinitialize_Params fini = {
			.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
			.pHostObject = init.pHostObject,
		};
		cuptiProfilerHostDeinitialize(&fini);
		if (r != CUPTI_SUCCESS) {
			sw_fail(err, SW_SKIP, "counters unavailable: chip %s has no metric %s",
				chip, c->names[i]);
			return;
		}
	}
}

/* Makes cudart's context and takes it for the profiler. */
static enum sw_status bind_context(struct sw_counters *c, struct sw_err *err)
{
	if (cudaFree(NULL) != cudaSuccess) /* makes the context */
		return sw_fail(err, SW_SKIP, "counters unavailable: no CUDA context");
	return current_context(&c->ctx, err);
}

/* Starts the profiler and asks for the chip's name and which counters it has
 * (*avail, the caller frees it, also on failure). */
static enum sw_status chip_and_availability(const struct sw_counters *c, int device_index,
					    const char **chip, uint8_t **avail, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	CUpti_Profiler_Initialize_Params pinit = {
		.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE
	};
	CUPTI_CALL(cuptiProfilerInitialize(&pinit), "initialising the profiler", out);
	CUpti_Device_GetChipName_Params name = {
		.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
		.deviceIndex = (size_t)device_index,
	};
	CUPTI_CALL(cuptiDeviceGetChipName(&name), "asking the chip name", out);
	*chip = name.pChipName;
	CUpti_Profiler_GetCounterAvailability_Params av = {
		.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE,
		.ctx = c->ctx,
	};
	CUPTI_CALL(cuptiProfilerGetCounterAvailability(&av), "asking counter availability", out);
	if (!(*avail = malloc(av.counterAvailabilityImageSize)))
		return sw_fail(err, SW_ENOMEM, "no memory for the counter availability image");
	av.pCounterAvailabilityImage = *avail;
	CUPTI_CALL(cuptiProfilerGetCounterAvailability(&av), "reading counter availability", out);
out:
	return st;
}

static enum sw_status check_names(struct sw_counters *c, const char *chip, struct sw_err *err);

/* Makes the metric host object, checks --metrics names against the chip's
 * list, and gives it every metric; names the first one the chip lacks when
 * they do not configure. */
static enum sw_status add_metrics(struct sw_counters *c, const char *chip, const uint8_t *avail,
				  struct sw_err *err)
{
	enum sw_status st = SW_OK;
	CUpti_Profiler_Host_Initialize_Params hinit = {
		.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
		.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER,
		.pChipName = chip,
		.pCounterAvailabilityImage = avail,
	};
	CUPTI_CALL(cuptiProfilerHostInitialize(&hinit), "setting up the metric host", out);
	c->host = hinit.pHostObject;
	if (c->units && (st = check_names(c, chip, err)) != SW_OK)
		return st;
	CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
		.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
		.pHostObject = c->host,
		.ppMetricNames = c->names,
		.numMetrics = (size_t)c->n_names,
	};
	CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add);
	if (r != CUPTI_SUCCESS) {
		st = cupti_fail(err, r, "configuring the metrics");
		name_missing_metric(c, chip, avail, err);
		/* names that passed check_names but do not configure (a base metric
		 * without its rollup): the user's to change, not the machine's */
		if (c->units) {
			char why[sizeof err->msg];
			snprintf(why, sizeof why, "%s", err ? err->msg : "");
			st = sw_fail(
				err, SW_EINVAL,
				"--metrics: %s (each name needs its rollup: .sum, .avg, .min or "
				".max, as ncu --query-metrics shows)",
				why);
		}
	}
out:
	return st;
}

/* Every base metric of the chip, of each type, into *list (the strings are
 * CUPTI's; the caller frees the array). -1 without memory. */
static int base_metrics(CUpti_Profiler_Host_Object *host, const char ***list, size_t *n)
{
	*list = NULL;
	*n = 0;
	for (int t = 0; t < CUPTI_METRIC_TYPE__COUNT; t++) {
		CUpti_Profiler_Host_GetBaseMetrics_Params p = {
			.structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE,
			.pHostObject = host,
			.metricType = (CUpti_MetricType)t,
		};
		if (cuptiProfilerHostGetBaseMetrics(&p) != CUPTI_SUCCESS || !p.numMetrics)
			continue;
		const char **grown = realloc(*list, (*n + p.numMetrics) * sizeof **list);
		if (!grown)
			return -1;
		*list = grown;
		memcpy(*list + *n, p.ppMetricNames, p.numMetrics * sizeof **list);
		*n += p.numMetrics;
	}
	return 0;
}

/* The nearest of up to n candidates, each made of a base and suffix, to name. */
static void suggest_among(const char *name, const char *const *bases, const int *pick, int n,
			  const char *const *suffixes, const char *suffix, char *buf, size_t len)
{
	char full[8][SW_SUGGEST_MAX_LEN + 1];
	const char *cands[8];

	if (n > 8)
		n = 8;
	for (int i = 0; i < n; i++) {
		const char *sfx = suffixes ? suffixes[pick[i]] : suffix;
		const char *base = suffixes ? bases[0] : bases[pick[i]];

		/* CUPTI may list submetrics with or without their leading '.' */
		snprintf(full[i], sizeof full[i], "%s%s%s", base,
			 sfx[0] && sfx[0] != '.' ? "." : "", sfx);
		cands[i] = full[i];
	}
	sw_suggest_text(name, cands, n, buf, len);
}

/* "did you mean" for a name the chip lacks: when its base metric exists,
 * the nearest of that metric's submetrics; else the nearest base metrics,
 * with the name's own suffix (".sum"). "" when nothing is near. */
static void suggest_metric(CUpti_Profiler_Host_Object *host, const char *name, char *buf,
			   size_t len)
{
	const char *dot = strchr(name, '.'), *suffix = dot ? dot : "";
	char base[SW_SUGGEST_MAX_LEN + 1];
	int pick[8];

	buf[0] = '\0';
	snprintf(base, sizeof base, "%.*s", (int)(dot ? dot - name : (ptrdiff_t)strlen(name)),
		 name);
	CUpti_Profiler_Host_GetMetricProperties_Params prop = {
		.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE,
		.pHostObject = host,
		.pMetricName = base,
	};
	if (cuptiProfilerHostGetMetricProperties(&prop) == CUPTI_SUCCESS) {
		CUpti_Profiler_Host_GetSubMetrics_Params sub = {
			.structSize = CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE,
			.pHostObject = host,
			.metricType = prop.metricType,
			.pMetricName = base,
		};
		if (cuptiProfilerHostGetSubMetrics(&sub) != CUPTI_SUCCESS || !sub.numOfSubmetrics)
			return;
		/* the submetric nearest to the suffix given, then the full names */
		const char *bases[] = { base };
		int k = sw_suggest_nearest(suffix[0] ? suffix + 1 : suffix, sub.ppSubMetrics,
					   (int)sub.numOfSubmetrics, pick, 8);
		for (int i = 0; i < (int)sub.numOfSubmetrics && k == 0 && i < 3; i++)
			pick[k++] = i; /* nothing near: the first few, to show the form */
		suggest_among(name, bases, pick, k, sub.ppSubMetrics, NULL, buf, len);
		return;
	}
	const char **list;
	size_t n;
	if (base_metrics(host, &list, &n) == 0) {
		int k = sw_suggest_nearest(base, list, (int)n, pick, 3);
		suggest_among(name, list, pick, k, NULL, suffix, buf, len);
	}
	free(list);
}

/* Each --metrics name is one the chip has, checked one by one, so an unknown
 * one is named with the nearest it has; keeps each name's unit. */
static enum sw_status check_names(struct sw_counters *c, const char *chip, struct sw_err *err)
{
	for (int i = 0; i < c->n_names; i++) {
		CUpti_Profiler_Host_GetMetricProperties_Params prop = {
			.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE,
			.pHostObject = c->host,
			.pMetricName = c->names[i],
		};
		if (cuptiProfilerHostGetMetricProperties(&prop) == CUPTI_SUCCESS) {
			snprintf(c->units[i], sizeof c->units[i], "%s",
				 prop.pDimUnit ? prop.pDimUnit : "");
			continue;
		}
		char near[400];
		suggest_metric(c->host, c->names[i], near, sizeof near);
		if (near[0])
			return sw_fail(err, SW_EINVAL,
				       "--metrics: chip %s has no metric %s; did you mean %s?",
				       chip, c->names[i], near);
		return sw_fail(err, SW_EINVAL,
			       "--metrics: chip %s has no metric %s (ncu --query-metrics --chip "
			       "%s lists them)",
			       chip, c->names[i], chip);
	}
	return SW_OK;
}

/* The config image every point's profiler is set up with, and the passes
 * it takes. */
static enum sw_status make_config_image(struct sw_counters *c, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	CUpti_Profiler_Host_GetConfigImageSize_Params size = {
		.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
		.pHostObject = c->host,
	};
	CUPTI_CALL(cuptiProfilerHostGetConfigImageSize(&size), "sizing the config image", out);
	if (!(c->config = malloc(size.configImageSize)))
		return sw_fail(err, SW_ENOMEM, "no memory for the config image");
	c->config_bytes = size.configImageSize;
	CUpti_Profiler_Host_GetConfigImage_Params image = {
		.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE,
		.pHostObject = c->host,
		.configImageSize = c->config_bytes,
		.pConfigImage = c->config,
	};
	CUPTI_CALL(cuptiProfilerHostGetConfigImage(&image), "making the config image", out);
	CUpti_Profiler_Host_GetNumOfPasses_Params passes = {
		.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
		.configImageSize = c->config_bytes,
		.pConfigImage = c->config,
	};
	CUPTI_CALL(cuptiProfilerHostGetNumOfPasses(&passes), "counting passes", out);
	c->passes = (int)passes.numOfPasses;
out:
	return st;
}

/* The profiler for c's names, set up once c holds them. */
static enum sw_status set_up(struct sw_counters *c, int device_index, struct sw_err *err)
{
	const char *chip = NULL;
	uint8_t *avail = NULL;
	enum sw_status st = bind_context(c, err);
	if (st == SW_OK)
		st = chip_and_availability(c, device_index, &chip, &avail, err);
	if (st == SW_OK)
		st = add_metrics(c, chip, avail, err);
	if (st == SW_OK)
		st = make_config_image(c, err);
	free(avail);
	return st;
}

enum sw_status sw_counters_create(int device_index, struct sw_counters **out, struct sw_err *err)
{
	*out = NULL;
	struct sw_counters *c = calloc(1, sizeof *c);
	if (!c || !(c->names = calloc(N_METRICS, sizeof *c->names))) {
		free(c);
		return sw_fail(err, SW_ENOMEM, "no memory for the counters");
	}
	c->n_names = (int)N_METRICS;
	for (size_t i = 0; i < N_METRICS; i++)
		c->names[i] = metrics[i].name;
	enum sw_status st = set_up(c, device_index, err);
	if (st != SW_OK)
		sw_counters_destroy(&c);
	*out = c;
	return st;
}

enum sw_status sw_counters_create_named(int device_index, const char *const *names, int n,
					struct sw_counters **out, struct sw_err *err)
{
	enum sw_status st = SW_OK;

	*out = NULL;
	struct sw_counters *c = calloc(1, sizeof *c);
	if (!c)
		return sw_fail(err, SW_ENOMEM, "no memory for the counters");
	c->owns_names = 1;
	c->names = calloc((size_t)n, sizeof *c->names);
	c->units = calloc((size_t)n, sizeof *c->units);
	if (!c->names || !c->units)
		st = sw_fail(err, SW_ENOMEM, "no memory for the counters");
	for (int i = 0; st == SW_OK && i < n; i++, c->n_names++)
		if (!(c->names[i] = strdup(names[i])))
			st = sw_fail(err, SW_ENOMEM, "no memory for the counters");
	if (st == SW_OK)
		st = set_up(c, device_index, err);
	if (st != SW_OK)
		sw_counters_destroy(&c);
	*out = c;
	return st;
}

const char *sw_counters_unit(const struct sw_counters *c, int i)
{
	return c && c->units && i >= 0 && i < c->n_names ? c->units[i] : "";
}

void sw_counters_destroy(struct sw_counters **cp)
{
	struct sw_counters *c = *cp;
	if (!c)
		return;
	if (c->host) {
		CUpti_Profiler_Host_Deinitialize_Params fini = {
			.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
			.pHostObject = c->host,
		};
		cuptiProfilerHostDeinitialize(&fini);
	}
	free(c->config);
	for (int i = 0; c->owns_names && i < c->n_names; i++)
		free((char *)c->names[i]);
	free(c->names);
	free(c->units);
	free(c);
	*cp = NULL;
}

/* The replay loop: one pass per iteration until CUPTI has all it needs. */
static enum sw_status replay(struct sw_counters *c, CUpti_RangeProfiler_Object *obj,
			     cudaStream_t stream, sw_counted_fn prepare, sw_counted_fn run,
			     void *arg, int *passes, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	int submitted = 0;
	/* bounded: a profiler that never reports completion must not hang a rank */
	for (*passes = 0; !submitted && *passes < c->passes + 2; ++*passes) {
		cudaError_t e = prepare ? prepare(arg, stream) : cudaSuccess;
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(stream);
		if (e != cudaSuccess)
			return sw_fail(err, SW_ECUDA, "before a counted pass: %s",
				       cudaGetErrorString(e));
		CUpti_RangeProfiler_Start_Params start = {
			.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE,
			.pRangeProfilerObject = obj,
		};
		CUPTI_CALL(cuptiRangeProfilerStart(&start), "starting a pass", out);
		CUpti_RangeProfiler_PushRange_Params push = {
			.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE,
			.pRangeProfilerObject = obj,
			.pRangeName = "point",
		};
		CUPTI_CALL(cuptiRangeProfilerPushRange(&push), "opening the range", out);
		e = run(arg, stream);
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(stream);
		CUpti_RangeProfiler_PopRange_Params pop = {
			.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE,
			.pRangeProfilerObject = obj,
		};
		CUptiResult pr = cuptiRangeProfilerPopRange(&pop);
		CUpti_RangeProfiler_Stop_Params stop = {
			.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
			.pRangeProfilerObject = obj,
		};
		CUptiResult sr = cuptiRangeProfilerStop(&stop);
		if (e != cudaSuccess)
			return sw_fail(err, SW_ECUDA, "in a counted pass: %s",
				       cudaGetErrorString(e));
		CUPTI_CALL(pr, "closing the range", out);
		CUPTI_CALL(sr, "stopping a pass", out);
		submitted = stop.isAllPassSubmitted;
	}
	if (!submitted)
		st = sw_fail(err, SW_SKIP,
			     "counters unavailable: the profiler wanted more than %d passes",
			     c->passes + 2);
out:
	return st;
}

/* One point's profiling: the profiler enabled on the context, and the
 * counter data its one range is recorded into. */
struct session {
	CUpti_RangeProfiler_Object *obj;
	uint8_t *data; /* owned */
	size_t data_bytes;
};

static enum sw_status enable_profiler(const struct sw_counters *c, struct session *ses,
				      struct sw_err *err)
{
	enum sw_status st = SW_OK;
	CUpti_RangeProfiler_Enable_Params enable = {
		.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
		.ctx = c->ctx,
	};
	CUPTI_CALL(cuptiRangeProfilerEnable(&enable), "enabling the range profiler", out);
	ses->obj = enable.pRangeProfilerObject;
out:
	return st;
}

/* A counter-data image for one range of every metric. */
static enum sw_status make_counter_data(struct sw_counters *c, struct session *ses,
					struct sw_err *err)
{
	enum sw_status st = SW_OK;
	CUpti_RangeProfiler_GetCounterDataSize_Params size = {
		.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE,
		.pRangeProfilerObject = ses->obj,
		.pMetricNames = c->names,
		.numMetrics = (size_t)c->n_names,
		.maxNumOfRanges = 1,
		.maxNumRangeTreeNodes = 1,
	};
	CUPTI_CALL(cuptiRangeProfilerGetCounterDataSize(&size), "sizing the counter data", out);
	if (!(ses->data = malloc(size.counterDataSize)))
		return sw_fail(err, SW_ENOMEM, "no memory for the counter data");
	ses->data_bytes = size.counterDataSize;
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
		.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE,
		.pRangeProfilerObject = ses->obj,
		.counterDataSize = ses->data_bytes,
		.pCounterData = ses->data,
	};
	CUPTI_CALL(cuptiRangeProfilerCounterDataImageInitialize(&init),
		   "initialising the counter data", out);
out:
	return st;
}

/* One user range, replayed by us, into the session's counter data. */
static enum sw_status set_config(const struct sw_counters *c, const struct session *ses,
				 struct sw_err *err)
{
	enum sw_status st = SW_OK;
	CUpti_RangeProfiler_SetConfig_Params config = {
		.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE,
		.pRangeProfilerObject = ses->obj,
		.configSize = c->config_bytes,
		.pConfig = c->config,
		.counterDataImageSize = ses->data_bytes,
		.pCounterDataImage = ses->data,
		.range = CUPTI_UserRange,
		.replayMode = CUPTI_UserReplay,
		.maxRangesPerPass = 1,
		.numNestingLevels = 1,
		.minNestingLevel = 1,
		.passIndex = 0,
		.targetNestingLevel = 1,
	};
	CUPTI_CALL(cuptiRangeProfilerSetConfig(&config), "configuring the range profiler", out);
out:
	return st;
}

/* Decodes the passes into the counter data, which must hold our one range. */
static enum sw_status decode_range(const struct session *ses, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	CUpti_RangeProfiler_DecodeData_Params decode = {
		.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE,
		.pRangeProfilerObject = ses->obj,
	};
	CUPTI_CALL(cuptiRangeProfilerDecodeData(&decode), "decoding the counters", out);
	CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
		.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE,
		.pCounterDataImage = ses->data,
		.counterDataImageSize = ses->data_bytes,
	};
	CUPTI_CALL(cuptiRangeProfilerGetCounterDataInfo(&info), "reading the counter data", out);
	if (decode.numOfRangeDropped || info.numTotalRanges != 1)
		st = sw_fail(err, SW_SKIP, "counters unavailable: %zu ranges recorded, %zu dropped",
			     info.numTotalRanges, decode.numOfRangeDropped);
out:
	return st;
}

/* The metrics' values of the range, values[i] of c->names[i]. */
static enum sw_status evaluate(struct sw_counters *c, const struct session *ses, double *values,
			       struct sw_err *err)
{
	enum sw_status st = SW_OK;
	CUpti_Profiler_Host_EvaluateToGpuValues_Params eval = {
		.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE,
		.pHostObject = c->host,
		.pCounterDataImage = ses->data,
		.counterDataImageSize = ses->data_bytes,
		.rangeIndex = 0,
		.ppMetricNames = c->names,
		.numMetrics = (size_t)c->n_names,
		.pMetricValues = values,
	};
	CUPTI_CALL(cuptiProfilerHostEvaluateToGpuValues(&eval), "evaluating the metrics", out);
out:
	return st;
}

/* Disables the profiler, so later timed launches run without it; st is the
 * session's status so far, which a failure here replaces only if it was ok. */
static enum sw_status disable_profiler(const struct session *ses, enum sw_status st,
				       struct sw_err *err)
{
	CUpti_RangeProfiler_Disable_Params disable = {
		.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
		.pRangeProfilerObject = ses->obj,
	};
	CUptiResult dr = cuptiRangeProfilerDisable(&disable);
	if (st == SW_OK && dr != CUPTI_SUCCESS)
		st = cupti_fail(err, dr, "disabling the range profiler");
	return st;
}

enum sw_status sw_counters_collect_named(struct sw_counters *c, cudaStream_t stream,
					 sw_counted_fn prepare, sw_counted_fn run, void *arg,
					 double *values, int *passes, struct sw_err *err)
{
	struct session ses = { 0 };
	enum sw_status st;

	*passes = 0;
	st = enable_profiler(c, &ses, err);
	if (st != SW_OK)
		return st;
	st = make_counter_data(c, &ses, err);
	if (st == SW_OK)
		st = set_config(c, &ses, err);
	if (st == SW_OK)
		st = replay(c, ses.obj, stream, prepare, run, arg, passes, err);
	if (st == SW_OK)
		st = decode_range(&ses, err);
	if (st == SW_OK)
		st = evaluate(c, &ses, values, err);
	st = disable_profiler(&ses, st, err);
	free(ses.data);
	return st;
}

enum sw_status sw_counters_collect(struct sw_counters *c, cudaStream_t stream,
				   sw_counted_fn prepare, sw_counted_fn run, void *arg,
				   struct sw_counter_values *out, struct sw_err *err)
{
	double values[N_METRICS];

	memset(out, 0, sizeof *out);
	if (c->n_names != (int)N_METRICS || c->units)
		return sw_fail(err, SW_EINVAL, "counters: not the --counters set");
	enum sw_status st =
		sw_counters_collect_named(c, stream, prepare, run, arg, values, &out->passes, err);
	if (st != SW_OK)
		return st;
	for (size_t i = 0; i < N_METRICS; i++)
		*(double *)((char *)out + metrics[i].offset) = values[i];
	return SW_OK;
}

#endif
