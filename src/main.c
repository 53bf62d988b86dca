/* sweep: parse the command line, run the sweep, map the worst status to an exit code. */
#define _GNU_SOURCE /* on_exit: the status an early exit() was given */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <mpi.h>

#include "run/agree.h"
#include "run/comm.h"
#include "job/cli.h"
#include "kernel.h"
#include "core/record.h"
#include "run/run.h"
#include "core/status.h"
#include "version.h"

/* "      LEAD a, b (1), c": a NULL-ended list of names on one line, each
 * with its value from first on when values is set. */
static void print_names(const char *lead, const char *const *names, int64_t first, int values)
{
	for (int k = 0; names && names[k]; k++) {
		printf("%s%s", k ? ", " : lead, names[k]);
		if (values)
			printf(" (%lld)", (long long)(first + k));
	}
	if (names && names[0])
		printf("\n");
}

static void print_family(const struct sw_family *f)
{
	printf("\n%s: %s\n  variants:\n", f->name, f->about);
	for (int v = 0; v < f->n_variants; v++) {
		printf("    %-16s%s%s\n", f->variants[v].name,
		       f->variants[v].is_reference ? "(reference) " : "", f->variants[v].about);
		print_names("      accesses: ", f->variants[v].accesses, 0, 0);
	}
	printf("  axes:\n");
	for (int a = 0; a < f->n_axes; a++) {
		const struct sw_axis_def *ax = &f->axes[a];
		printf("    %-10s default %-10s range %lld..%lld %s: %s\n", ax->name, ax->defaults,
		       (long long)ax->min, (long long)ax->max, ax->units, ax->about);
		print_names("      values by name: ", ax->names, ax->min, 1);
	}
}

static void print_list(void)
{
	printf("Kernel families (%d). Axis values: a list 1,2,4, a range 1:128, a step 0:32:4,\n"
	       "a geometric range 1:128:x2; K/M/G = powers of 1024; a categorical axis's\n"
	       "names. Set with --set FAMILY.AXIS=VALUES.\n",
	       sw_family_count());
	for (int i = 0; i < sw_family_count(); i++)
		print_family(sw_family_at(i));
}

static enum sw_status print_version(struct sw_err *err)
{
	int rt = 0, maj = 0, min = 0;
	enum sw_status st = CHECK_MPI(MPI_Get_version(&maj, &min), err);
	if (st != SW_OK)
		return st;
	cudaRuntimeGetVersion(&rt);
	printf("sweep %s (git %s)\n", SW_VERSION, SW_GIT_REV);
	if (!strcmp(SW_GIT_REV_FROM, "none"))
		printf("revision unknown: built outside a git work tree of its own (an export);\n"
		       "configure with -DSWEEP_GIT_REV=REV to record it\n");
	else if (!strcmp(SW_GIT_REV_FROM, "-DSWEEP_GIT_REV"))
		printf("revision as given at configure time (-DSWEEP_GIT_REV)\n");
	printf("built with CUDA runtime %d.%d, MPI %d.%d\n", rt / 1000, rt % 1000 / 10, maj, min);
	return SW_OK;
}

/* Where main is, for a process ended by someone else's exit() (a plug-in's
 * constructor or hook, a library): only main's own return is sweep's end. */
static struct {
	int rank;
	const char *stage;  /* what sweep was doing; NULL once main returns */
	const char *output; /* the file a run may have begun; NULL before */
} where = { 0, "starting", NULL };

/* Never a success: exit(0) from a plug-in ends sweep with status 1, and
 * says what sweep was doing and what the output holds. */
static void ended_early(int status, void *arg)
{
	(void)arg;
	if (!where.stage)
		return;
	fflush(stdout);
	fprintf(stderr,
		"sweep: rank %d ended before sweep's end: exit(%d) was called %s, by a plug-in "
		"or a library; %s%s%s\n",
		where.rank, status, where.stage,
		where.output ? "the run is not complete: `--resume -o " : "nothing was run",
		where.output ? where.output : "", where.output ? "` runs what is missing" : "");
	_exit(status ? status : 1);
}

static void quick_ended_early(void)
{
	ended_early(0, NULL);
}

/* Rank 0's answer to --help, --version or --list. */
static enum sw_status answer(const struct sw_options *opt, struct sw_err *err)
{
	if (opt->help)
		sw_cli_usage(stdout);
	else if (opt->version)
		return print_version(err);
	else
		print_list();
	return SW_OK;
}

int main(int argc, char **argv)
{
	struct sw_options opt;
	struct sw_job job;
	struct sw_err err = { 0 };
	static char default_out[80]; /* <job name>.h5, the file -o defaults to */
	int rank = 0, code;

	on_exit(ended_early, NULL);
	at_quick_exit(quick_ended_early);
	enum sw_status st = sw_mpi_init(&argc, &argv, &rank, &err);
	if (st != SW_OK) {
		fprintf(stderr, "sweep: %s\n", err.msg);
		where.stage = NULL;
		return sw_status_exit_code(st);
	}
	where.rank = rank;
	st = sw_cli_parse(argc, argv, &opt, &err);
	/* before any rank can leave: --list, --dry-run or an error on one rank
	 * alone would leave the others waiting in a collective */
	where.stage = "while loading the job and its plug-ins (their constructors run then)";
	st = sw_agree_check(argc, argv, st == SW_OK ? &opt : NULL, st, &job, &err);
	if (st == SW_OK && (opt.help || opt.version || opt.list)) {
		where.stage = "while answering";
		st = rank == 0 ? answer(&opt, &err) : SW_OK;
	} else if (st == SW_OK) {
		/* plug-ins were checked as they loaded; this is the built-ins' check */
		st = sw_registry_check(sw_family_list(), sw_family_count(), &err);
		where.stage = "during the run";
		snprintf(default_out, sizeof default_out, "%s.h5", job.name);
		where.output = opt.output ? opt.output : default_out;
		if (st == SW_OK)
			st = sw_run(&opt, &job, argc, argv, &err);
	}
	if (st != SW_OK && rank == 0)
		fprintf(stderr, "sweep: %s\n", err.msg);
	where.stage = "while unloading the plug-ins (their destructors run then)";
	sw_job_fini(&job); /* loaded for --list's sake, or the run's check failed */
	sw_cli_fini(&opt);
	code = sw_status_exit_code(sw_mpi_fini(rank, st));
	where.stage = NULL; /* sweep's own end */
	return code;
}
