/* sweep: parse the command line, run the sweep, map the worst status to an exit code. */
#include <stdio.h>
#include <string.h>

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

static void print_list(void)
{
	printf("Kernel families (%d). Axis values: a list 1,2,4, a range 1:128, a step 0:32:4,\n"
	       "a geometric range 1:128:x2; K/M/G = powers of 1024. Set with --set "
	       "FAMILY.AXIS=VALUES.\n",
	       sw_family_count());
	for (int i = 0; i < sw_family_count(); i++) {
		const struct sw_family *f = sw_family_at(i);
		printf("\n%s: %s\n  variants:\n", f->name, f->about);
		for (int v = 0; v < f->n_variants; v++)
			printf("    %-16s%s%s\n", f->variants[v].name,
			       f->variants[v].is_reference ? "(reference) " : "",
			       f->variants[v].about);
		printf("  axes:\n");
		for (int a = 0; a < f->n_axes; a++) {
			const struct sw_axis_def *ax = &f->axes[a];
			printf("    %-10s default %-10s range %lld..%lld %s: %s\n", ax->name,
			       ax->defaults, (long long)ax->min, (long long)ax->max, ax->units,
			       ax->about);
		}
	}
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
	int rank = 0;

	enum sw_status st = sw_mpi_init(&argc, &argv, &rank, &err);
	if (st != SW_OK) {
		fprintf(stderr, "sweep: %s\n", err.msg);
		return sw_status_exit_code(st);
	}
	st = sw_cli_parse(argc, argv, &opt, &err);
	/* before any rank can leave: --list, --dry-run or an error on one rank
	 * alone would leave the others waiting in a collective */
	st = sw_agree_check(argc, argv, st == SW_OK ? &opt : NULL, st, &job, &err);
	if (st == SW_OK && (opt.help || opt.version || opt.list)) {
		st = rank == 0 ? answer(&opt, &err) : SW_OK;
	} else if (st == SW_OK) {
		/* plug-ins were checked as they loaded; this is the built-ins' check */
		st = sw_registry_check(sw_family_list(), sw_family_count(), &err);
		if (st == SW_OK)
			st = sw_run(&opt, &job, argc, argv, &err);
	}
	if (st != SW_OK && rank == 0)
		fprintf(stderr, "sweep: %s\n", err.msg);
	sw_job_fini(&job); /* loaded for --list's sake, or the run's check failed */
	sw_cli_fini(&opt);
	return sw_status_exit_code(sw_mpi_fini(rank, st));
}
