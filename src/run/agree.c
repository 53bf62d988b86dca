/*
 * The agreement of agree.h: a fixed-size vote per rank, gathered to every
 * rank in one MPI_Allgather, so every rank reaches the same conclusion from
 * the same table and none leaves another waiting. It checks what ranks were
 * given; whether a rank can run (a GPU, the output) is for setup.c's stages.
 */
#include "run/agree.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "core/hash.h"
#include "core/faults.h"
#include "run/comm.h"
#include "run/plugin_try.h"
#include "job/job.h"
#include "job/limits.h"
#include "job/plan.h"
#include "job/plugin.h"
#include "job/plugin_ident.h"
#include "h5/h5out.h"

#define VERDICT_CHARS 200  /* of a rank's own error, quoted in the refusal */
#define IDENT_TAG     7301 /* the plug-in identity one rank sends rank 0 */

/* What one rank was started with, and what it made of it. */
struct vote {
	uint64_t options;  /* the parsed options, normalised; the raw words if they failed */
	uint64_t job_text; /* 0: no job read */
	uint64_t plan;     /* the plan's fingerprint; 0: none built */
	uint64_t plugins;  /* sw_plugins_digest() once plug-ins exist; 0 until then */
	uint64_t verdict;  /* hash of status and message; 0 when fine */
	int32_t status;    /* this rank's verdict */
	int32_t unread;    /* 1: the job file could not be opened or read here */
	char msg[VERDICT_CHARS];
};

/* A string and its end, so "ab","c" and "a","bc" differ; NULL is not "". */
static uint64_t hash_str(uint64_t h, const char *s)
{
	static const unsigned char none = 0xFF, end = 0;
	if (!s)
		return sw_fnv1a(h, &none, 1);
	return sw_fnv1a(sw_fnv1a(h, s, strlen(s)), &end, 1);
}

static uint64_t hash_int(uint64_t h, long long v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", v);
	return hash_str(h, buf);
}

/* The options as parsed, so "-o x" and "--output=x" agree. */
static uint64_t options_digest(const struct sw_options *o)
{
	const int flags[] = { o->force,        o->resume,   o->dry_run, o->list,
			      o->list_devices, o->quiet,    o->help,    o->version,
			      o->share_gpu,    o->counters, o->points,  o->backend,
			      o->schedule,     o->batch,    o->n_sets,  o->n_metrics,
			      o->n_families };
	char speed[40];
	uint64_t h = SW_FNV1A_OFFSET;

	/* not the job's path: its text and plan are compared, wherever it lies */
	h = hash_str(h, o->output);
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		h = hash_int(h, flags[i]);
	for (int i = 0; i < o->n_sets; i++)
		h = hash_str(h, o->sets[i]);
	for (int i = 0; i < o->n_metrics; i++)
		h = hash_str(h, o->metrics[i]);
	for (int i = 0; i < o->n_families; i++)
		h = hash_str(h, o->families[i]);
	h = hash_str(h, o->costs);
	h = hash_str(h, o->model_devices);
	h = hash_str(h, o->model_from);
	for (int i = 0; i < o->n_model_calibrate; i++)
		h = hash_str(h, o->model_calibrate[i]);
	h = hash_str(h, o->backend_arg);
	h = hash_str(h, o->replay_devices); /* its classes' recordings too */
	snprintf(speed, sizeof speed, "%a", o->replay_speed);
	return hash_str(h, speed);
}

/* The words after the program name, when they did not parse. */
static uint64_t words_digest(int argc, char **argv)
{
	uint64_t h = hash_str(SW_FNV1A_OFFSET, "unparsed");
	for (int i = 1; i < argc; i++)
		h = hash_str(h, argv[i]);
	return h;
}

/* --model-devices NAME,...: each a device target beside the job's. */
static enum sw_status add_devices(struct sw_job *job, const char *list, struct sw_err *err)
{
	for (;;) {
		size_t len = strcspn(list, ",");
		char name[128];
		snprintf(name, sizeof name, "%.*s",
			 (int)(len < sizeof name ? len : sizeof name - 1), list);
		if (sw_job_add_device(job, name, err))
			return sw_wrap(err, "--model-devices");
		if (!list[len])
			return SW_OK;
		list += len + 1;
	}
}

/* The job (--set applied) into *job, and its plan's fingerprint, as this
 * rank sees them, into v; the first failure. The job stays for the run:
 * once the ranks agree on its text, each rank's own copy is the job. */
static enum sw_status job_vote(const struct sw_options *o, struct vote *v, struct sw_job *job,
			       struct sw_err *err)
{
	struct sw_plan plan = { 0 };
	enum sw_status st = o->n_families
				    ? sw_job_from_families(o->families, o->n_families, job, err)
			    : o->job_path ? sw_job_load(o->job_path, job, err)
					  : sw_plugin_try_job(o->check_plugin, job, err);

	if (st != SW_OK) {
		v->unread = st == SW_EIO;
		return st;
	}
	v->job_text = hash_str(SW_FNV1A_OFFSET, job->text);
	for (int i = 0; st == SW_OK && i < o->n_sets; i++)
		st = sw_job_set(job, o->sets[i], err);
	if (st == SW_OK && o->model_devices)
		st = add_devices(job, o->model_devices, err);
	/* model targets or not, the backend's choice later: the ids are what tell
	 * two registries or two --set apart */
	if (st == SW_OK)
		st = sw_plan_build(job, 0, &plan, err);
	/* a plug-in's sizes() past sweep's limits, before any backend (the
	 * model's, a dry run's) could pass it by */
	if (st == SW_OK)
		st = sw_plan_check_limits(&plan, err);
	if (st == SW_OK)
		v->plan = plan.fingerprint;
	sw_plan_fini(&plan);
	return st;
}

static void make_vote(int argc, char **argv, const struct sw_options *o, enum sw_status parsed,
		      struct vote *v, struct sw_job *job, struct sw_err *err)
{
	enum sw_status st = parsed;

	memset(v, 0, sizeof *v);
	if (o) {
		v->options = options_digest(o);
		/* --plugin files first: --list shows their families, the job names them */
		for (int i = 0; st == SW_OK && !o->help && !o->version && i < o->n_plugins; i++)
			st = sw_plugin_load(o->plugins[i], err);
		if (st == SW_OK && !o->help && !o->version && !o->list && !o->list_devices)
			st = job_vote(o, v, job, err);
		/* by content and family names: the same files anywhere agree */
		v->plugins = sw_plugins_digest();
	} else {
		v->options = words_digest(argc, argv);
	}
	v->status = (int32_t)st;
	if (st != SW_OK) {
		snprintf(v->msg, sizeof v->msg, "%s", err->msg);
		v->verdict = hash_str(hash_int(SW_FNV1A_OFFSET, st), err->msg);
	}
}

/* What rank k was given that rank 0 was not; NULL when the same. */
static const char *differs(const struct vote *a, const struct vote *b)
{
	if (a->options != b->options)
		return "options";
	if (a->job_text != b->job_text)
		return "job text";
	if (a->plan != b->plan)
		return "plan";
	if (a->plugins != b->plugins)
		return "plug-ins";
	return NULL;
}

/* The refusal, from the table every rank holds, so every rank returns the
 * same status. */
static enum sw_status judge(const struct vote *all, int size, struct sw_err *err)
{
	const struct vote *zero = &all[0];
	int k = 1;

	while (k < size && !differs(zero, &all[k]) && all[k].verdict == zero->verdict)
		k++;
	if (k == size) /* all alike: rank 0's verdict is everyone's, err holds it */
		return (enum sw_status)zero->status;
	const struct vote *odd = &all[k];
	const char *what = differs(zero, odd);
	/* quote whichever of the two has an error to tell */
	const struct vote *told = odd->status != SW_OK ? odd : zero;
	char quote[VERDICT_CHARS + 32] = "";
	if (told->status != SW_OK)
		snprintf(quote, sizeof quote, " (rank %d: %s)", told == odd ? k : 0, told->msg);
	/* the job where one rank cannot see it: the common case on a cluster */
	if (!(what && !strcmp(what, "options")) && zero->unread != odd->unread)
		return sw_fail(err, SW_EINVAL,
			       "rank %d cannot read the job file that rank %d reads%s; every rank "
			       "reads it itself, so it must be on a file system every rank's "
			       "node sees",
			       zero->unread ? 0 : k, zero->unread ? k : 0, quote);
	if (what)
		return sw_fail(err, SW_EINVAL,
			       "rank %d differs from rank 0 in its %s%s; every rank must be "
			       "started with the same options, job file and plug-ins",
			       k, what, quote);
	enum sw_status worst = SW_OK;
	for (int i = 0; i < size; i++)
		worst = all[i].status > (int32_t)worst ? (enum sw_status)all[i].status : worst;
	return sw_fail(err, worst, "rank %d and rank 0 disagree on the job%s", k, quote);
}

/* The rank that differs from rank 0 in its plug-ins alone, both fine
 * otherwise (judge's odd rank), so that rank 0 can say what differs; 0
 * when there is none. */
static int plugins_odd_rank(const struct vote *all, int size)
{
	int k = 1;

	while (k < size && !differs(&all[0], &all[k]) && all[k].verdict == all[0].verdict)
		k++;
	if (k == size || all[0].status != SW_OK || all[k].status != SW_OK)
		return 0;
	const char *what = differs(&all[0], &all[k]);
	return what && !strcmp(what, "plug-ins") ? k : 0;
}

/* Ranks 0 and odd loaded other plug-ins or libraries (by content): odd
 * sends rank 0 its identity, and rank 0 adds the first difference to err,
 * "the library libx.so of the plug-in p.so: rank 0 loads ..., rank 1 loads
 * ...". The other ranks take no part. A rank that cannot say sends none. */
static void name_plugin_difference(int rank, int odd, struct sw_err *err)
{
	struct sw_plugin_ident mine = { 0 }, theirs = { 0 };
	char *buf = NULL, zero[40], other[40], say[400] = "";
	size_t len = 0;
	int n = 0;
	MPI_Status got;

	if (rank != 0 && rank != odd)
		return;
	if (sw_plugin_ident_loaded(&mine, NULL) == SW_OK && rank == odd)
		sw_plugin_ident_pack(&mine, &buf, &len, NULL);
	if (rank == odd) {
		MUST_MPI(MPI_Send(buf, len > INT32_MAX ? 0 : (int)len, MPI_BYTE, 0, IDENT_TAG,
				  MPI_COMM_WORLD));
	} else {
		MUST_MPI(MPI_Probe(odd, IDENT_TAG, MPI_COMM_WORLD, &got));
		MUST_MPI(MPI_Get_count(&got, MPI_BYTE, &n));
		if (!(buf = malloc(n ? (size_t)n : 1)))
			sw_mpi_abort(sw_status_exit_code(SW_ENOMEM));
		MUST_MPI(MPI_Recv(buf, n, MPI_BYTE, odd, IDENT_TAG, MPI_COMM_WORLD,
				  MPI_STATUS_IGNORE));
		snprintf(zero, sizeof zero, "rank 0 loads");
		snprintf(other, sizeof other, "rank %d loads", odd);
		if (sw_plugin_ident_unpack(buf, (size_t)n, &theirs, NULL) == SW_OK &&
		    (sw_plugin_ident_differ(&mine, &theirs, zero, other, say, sizeof say) ||
		     sw_plugin_ident_differ(&theirs, &mine, other, zero, say, sizeof say)))
			sw_fail(err, err->status,
				"rank %d differs from rank 0 in its plug-ins (%s); every rank must "
				"be started with the same options, job file and plug-ins",
				odd, say);
	}
	free(buf);
	sw_plugin_ident_fini(&mine);
	sw_plugin_ident_fini(&theirs);
}

enum sw_status sw_agree_check(int argc, char **argv, const struct sw_options *opt,
			      enum sw_status parsed, struct sw_job *job, struct sw_err *err)
{
	struct vote mine, *all;
	int size = 1, rank = 0;
	enum sw_status st;
	struct sw_faults faults;

	memset(job, 0, sizeof *job);
	make_vote(argc, argv, opt, parsed, &mine, job, err);
	MUST_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
	MUST_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	sw_faults_parse(getenv("SW_TEST_FAULT"), &faults);
	/* the test-only switch agree-mpi:RANK: a count MPI refuses, so the check
	 * below must report it (MPI_ERRORS_RETURN, set by sw_mpi_init) */
	int count = faults.agree_mpi_rank == rank ? -1 : (int)sizeof mine;
	all = malloc((size_t)size * sizeof *all);
	if (!all) { /* this rank cannot take part in the one collective: stop all */
		fprintf(stderr, "sweep: no memory to compare the %d ranks' options\n", size);
		sw_mpi_abort(sw_status_exit_code(SW_ENOMEM));
	}
	MUST_MPI(MPI_Allgather(&mine, count, MPI_BYTE, all, sizeof mine, MPI_BYTE, MPI_COMM_WORLD));
	st = judge(all, size, err);
	int odd = plugins_odd_rank(all, size);
	free(all);
	if (odd)
		name_plugin_difference(rank, odd, err);
	/* a resume whose job names a family of a plug-in it did not load */
	if (st == SW_EINVAL && rank == 0 && opt && (opt->resume || opt->extend))
		st = sw_h5_explain_plugins(opt->output, opt->extend, st, err);
	if (st != SW_OK)
		sw_job_fini(job);
	return st;
}
