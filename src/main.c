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
#include "model/gpus.h"
#include "core/record.h"
#include "run/plugin_try.h"
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

/* A source key as cited: "DERIVED-FP32(DQ-A100)" is DERIVED-FP32's. */
static void print_source(const char *key, size_t len)
{
	char k[64];
	snprintf(k, sizeof k, "%.*s", (int)(len < sizeof k ? len : sizeof k - 1), key);
	k[strcspn(k, "(")] = '\0';
	const char *c = sw_gpu_source(k);
	printf("  %-14s %s\n", k, c ? c : "?");
}

/* --list-devices: the GPU table, its sources, and the limits per CC. */
static void print_devices(void)
{
	printf("GPUs the time model knows (%d): --model-devices and model.devices take a name\n"
	       "or the name the driver reports; a name that fits two entries is refused.\n"
	       "Sources, one a figure: SMs, clock, DRAM, L2, FP32 (docs/model.md, "
	       "\"Devices\").\n\n",
	       sw_gpu_count());
	printf("%-15s %5s %4s %6s %8s %7s %9s  %s\n", "name", "CC", "SMs", "MHz", "DRAM GB/s",
	       "L2 MiB", "FP32 GF/s", "driver name; sources");
	for (int i = 0; i < sw_gpu_count(); i++) {
		const struct sw_gpu *g = sw_gpu_at(i);
		printf("%-15s %3d.%d %4d %6.0f %9.1f %7.1f %9.0f  %.*s; %s\n", g->name, g->cc / 10,
		       g->cc % 10, g->sms, g->boost_mhz, g->dram_gbps, g->l2_bytes / 1048576,
		       g->fp32_gflops, (int)strcspn(g->aliases, "|"), g->aliases, g->sources);
	}
	printf("\nSources:\n");
	char seen[2048] = " ";
	for (int i = 0; i < sw_gpu_count(); i++)
		for (const char *s = sw_gpu_at(i)->sources; *s;) {
			size_t len = strcspn(s, " ");
			char key[80];
			snprintf(key, sizeof key, " %.*s ", (int)strcspn(s, " ("), s);
			if (!strstr(seen, key) && strlen(seen) + strlen(key) < sizeof seen) {
				strcat(seen, key + 1);
				print_source(s, len);
			}
			s += len + (s[len] == ' ');
		}
	printf("\nWhat an SM holds at once, by CC (a CC between two rows takes the lower):\n");
	for (int cc = 0; cc <= 120; cc++) {
		const struct sw_cc_limits *l = sw_cc_limits_of(cc);
		if (l && l->cc == cc)
			printf("  %3d.%d: %4d threads, %2d blocks, %6d bytes of shared memory "
			       "(%s)\n",
			       cc / 10, cc % 10, l->threads, l->blocks, l->shared_bytes, l->source);
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

/* Rank 0's answer to --help, --version, --list or --list-devices. */
static enum sw_status answer(const struct sw_options *opt, struct sw_err *err)
{
	if (opt->help)
		sw_cli_usage(stdout);
	else if (opt->version)
		return print_version(err);
	else if (opt->list_devices)
		print_devices();
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
	if (st == SW_OK && (opt.help || opt.version || opt.list || opt.list_devices)) {
		where.stage = "while answering";
		st = rank == 0 ? answer(&opt, &err) : SW_OK;
	} else if (st == SW_OK && opt.check_plugin) {
		where.stage = "while checking the plug-in's hooks (--check-plugin)";
		st = rank == 0 ? sw_plugin_try(opt.check_plugin, &job, stdout, &err) : SW_OK;
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
