/*
 * Command-line parsing of cli.h with getopt_long. Checks the options alone
 * (values, conflicts, one job file); what --set assigns and whether the job
 * file exists are for the job loader. Never prints: getopt's own messages
 * are off and every error is returned in struct sw_err.
 */
#define _GNU_SOURCE /* getopt_long */

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define SW_BATCH_MIN     1
#define SW_BATCH_MAX     64
#define SW_BATCH_DEFAULT 2

/* Long-only options take values past any character. */
enum { OPT_SCHEDULE = 256, OPT_BATCH, OPT_SHARE_GPU, OPT_COUNTERS };

/* The leading ':' makes a missing argument return ':' rather than '?'. */
static const char short_opts[] = ":hVlno:frb:s:q";

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "list", no_argument, NULL, 'l' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "resume", no_argument, NULL, 'r' },
	{ "backend", required_argument, NULL, 'b' },
	{ "set", required_argument, NULL, 's' },
	{ "schedule", required_argument, NULL, OPT_SCHEDULE },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "share-gpu", no_argument, NULL, OPT_SHARE_GPU },
	{ "counters", no_argument, NULL, OPT_COUNTERS },
	{ "quiet", no_argument, NULL, 'q' },
	{ NULL, 0, NULL, 0 },
};

/* What an option's argument looks like, for "needs an argument" messages. */
static const char *arg_hint(int val)
{
	switch (val) {
	case 'o': return "FILE";
	case 'b': return "cuda, model or auto";
	case 's': return "FAMILY.AXIS=VALUES";
	case OPT_SCHEDULE: return "dynamic or static";
	case OPT_BATCH: return "N, 1 to 64";
	}
	return "a value";
}

/* The long option whose value is val; NULL for an unknown letter. */
static const struct option *find_val(int val)
{
	const struct option *lo;

	for (lo = long_opts; lo->name; lo++)
		if (lo->val == val)
			return lo;
	return NULL;
}

/* The option as typed, without "=value"; buf is NUL-terminated. */
static void typed_name(char *buf, size_t len, const char *arg)
{
	size_t n = strcspn(arg, "=");

	if (n >= len)
		n = len - 1;
	memcpy(buf, arg, n);
	buf[n] = '\0';
}

/*
 * getopt returned '?'. Three causes: an unknown or ambiguous long option
 * (optopt 0, argv[optind - 1] is it), "--flag=value" for a flag (optopt is
 * that flag's value), or an unknown short option (optopt is the letter;
 * argv[optind - 1] may be an earlier word when the letter sits mid-cluster).
 */
static enum sw_status bad_option(char **argv, struct sw_err *err)
{
	char name[64], list[256] = "";
	const struct option *lo;
	size_t n;
	int matches = 0;

	if (optopt && !find_val(optopt)) {
		if (optopt > ' ' && optopt < 127)
			return sw_fail(err, SW_EINVAL, "unknown option '-%c' (see sweep --help)",
				       optopt);
		return sw_fail(err, SW_EINVAL, "unknown option (see sweep --help)");
	}
	if (optopt)
		return sw_fail(err, SW_EINVAL, "option '--%s' takes no value",
			       find_val(optopt)->name);

	typed_name(name, sizeof(name), argv[optind - 1]);

	n = strlen(name);
	if (n > 2 && strncmp(name, "--", 2) == 0) {
		for (lo = long_opts; lo->name; lo++) {
			if (strncmp(lo->name, name + 2, n - 2))
				continue;
			matches++;
			if (strlen(list) + strlen(lo->name) + 5 < sizeof(list)) {
				strcat(list, matches > 1 ? ", --" : "--");
				strcat(list, lo->name);
			}
		}
	}
	if (matches > 1)
		return sw_fail(err, SW_EINVAL, "ambiguous option '%s': could be %s", name, list);
	return sw_fail(err, SW_EINVAL, "unknown option '%s' (see sweep --help)", name);
}

/* getopt returned ':'. The option ended its word, so argv[optind - 1] holds
 * it; a long one is named in full even when abbreviated. */
static enum sw_status missing_arg(char **argv, struct sw_err *err)
{
	const struct option *lo = find_val(optopt);
	char name[64];

	if (strncmp(argv[optind - 1], "--", 2) == 0 && lo)
		snprintf(name, sizeof(name), "--%s", lo->name);
	else
		snprintf(name, sizeof(name), "-%c", optopt);
	return sw_fail(err, SW_EINVAL, "option '%s' needs a value: %s", name, arg_hint(optopt));
}

static enum sw_status parse_batch(const char *text, int *batch, struct sw_err *err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (end == text || *end || errno || v < SW_BATCH_MIN || v > SW_BATCH_MAX)
		return sw_fail(err, SW_EINVAL,
			       "bad --batch '%s': expected a whole number from %d to %d", text,
			       SW_BATCH_MIN, SW_BATCH_MAX);
	*batch = (int)v;
	return SW_OK;
}

static enum sw_status add_set(struct sw_options *o, const char *assignment, struct sw_err *err)
{
	const char **sets = realloc(o->sets, (size_t)(o->n_sets + 1) * sizeof(*sets));

	if (!sets)
		return sw_fail(err, SW_ENOMEM, "out of memory storing --set '%s'", assignment);
	sets[o->n_sets++] = assignment;
	o->sets = sets;
	return SW_OK;
}

enum sw_status sw_cli_parse(int argc, char **argv, struct sw_options *o, struct sw_err *err)
{
	enum sw_status st = SW_OK;
	int c, n_pos;

	memset(o, 0, sizeof(*o));
	o->backend = SW_BACKEND_AUTO;
	o->schedule = SW_SCHED_DYNAMIC;
	o->batch = SW_BATCH_DEFAULT;
	if (err) {
		err->status = SW_OK;
		err->msg[0] = '\0';
	}
	if (argc < 1 || !argv)
		return sw_fail(err, SW_EINVAL,
			       "missing job file (usage: sweep [OPTIONS] JOB.yaml)");

	/* Parsing may run more than once per process (tests do): restart getopt.
	 * glibc reinitialises fully only on 0, which also clears a half-read
	 * cluster of short options left by an earlier error. */
	opterr = 0;
#ifdef __GLIBC__
	optind = 0;
#else
	optind = 1;
#endif
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		switch (c) {
		case 'h': o->help = 1; break;
		case 'V': o->version = 1; break;
		case 'l': o->list = 1; break;
		case 'n': o->dry_run = 1; break;
		case 'o':
			if (!*optarg) {
				st = sw_fail(err, SW_EINVAL, "empty --output: expected FILE");
				goto fail;
			}
			o->output = optarg;
			break;
		case 'f': o->force = 1; break;
		case 'r': o->resume = 1; break;
		case 'q': o->quiet = 1; break;
		case OPT_SHARE_GPU: o->share_gpu = 1; break;
		case OPT_COUNTERS: o->counters = 1; break;
		case 'b':
			if (strcmp(optarg, "auto") == 0) {
				o->backend = SW_BACKEND_AUTO;
			} else if (strcmp(optarg, "cuda") == 0) {
				o->backend = SW_BACKEND_CUDA;
			} else if (strcmp(optarg, "model") == 0) {
				o->backend = SW_BACKEND_MODEL;
			} else {
				st = sw_fail(err, SW_EINVAL,
					     "bad --backend '%s': expected cuda, model or auto",
					     optarg);
				goto fail;
			}
			break;
		case OPT_SCHEDULE:
			if (strcmp(optarg, "dynamic") == 0) {
				o->schedule = SW_SCHED_DYNAMIC;
			} else if (strcmp(optarg, "static") == 0) {
				o->schedule = SW_SCHED_STATIC;
			} else {
				st = sw_fail(err, SW_EINVAL,
					     "bad --schedule '%s': expected dynamic or static",
					     optarg);
				goto fail;
			}
			break;
		case OPT_BATCH:
			st = parse_batch(optarg, &o->batch, err);
			if (st)
				goto fail;
			break;
		case 's':
			st = add_set(o, optarg, err);
			if (st)
				goto fail;
			break;
		case ':': st = missing_arg(argv, err); goto fail;
		default: st = bad_option(argv, err); goto fail;
		}
	}

	/* --help and --version answer whatever else the line holds. */
	if (o->help || o->version)
		return SW_OK;

	if (o->force && o->resume) {
		st = sw_fail(err, SW_EINVAL,
			     "--force and --resume conflict: --force replaces the output file, "
			     "--resume continues it");
		goto fail;
	}

	/* getopt_long moved the positional arguments to the end, in order. */
	n_pos = argc - optind;
	if (n_pos > 1) {
		st = sw_fail(err, SW_EINVAL,
			     "one job file expected, got '%s' and '%s'%s (quote --set values "
			     "that contain spaces)",
			     argv[optind], argv[optind + 1], n_pos > 2 ? " and more" : "");
		goto fail;
	}
	if (n_pos == 1)
		o->job_path = argv[optind];
	else if (!o->list) {
		st = sw_fail(
			err, SW_EINVAL,
			"missing job file (usage: sweep [OPTIONS] JOB.yaml; see sweep --help)");
		goto fail;
	}
	return SW_OK;

fail:
	sw_cli_fini(o);
	return st;
}

void sw_cli_fini(struct sw_options *o)
{
	if (!o)
		return;
	free(o->sets);
	o->sets = NULL;
	o->n_sets = 0;
}

void sw_cli_usage(FILE *f)
{
	fputs("Usage: sweep [OPTIONS] JOB.yaml\n"
	      "       mpirun -np N sweep [OPTIONS] JOB.yaml\n"
	      "       sweep --list | --help | --version\n"
	      "\n"
	      "Measures GPU memory access patterns: runs every point of the sweep JOB.yaml\n"
	      "describes (kernel families x variants x axis values), spread over the MPI\n"
	      "ranks, and writes the timings to one HDF5 file. Options may come before or\n"
	      "after JOB.yaml.\n"
	      "\n"
	      "Output:\n"
	      "  -o, --output FILE     write the results to FILE (default: <job name>.h5 in\n"
	      "                        the current directory, <job name> from the job's\n"
	      "                        name: field)\n"
	      "  -f, --force           replace FILE if it exists; an existing file is never\n"
	      "                        overwritten without --force\n"
	      "  -r, --resume          continue FILE: keep the points it holds and run the\n"
	      "                        rest; not with --force\n"
	      "\n"
	      "What to run:\n"
	      "  -s, --set FAMILY.AXIS=VALUES\n"
	      "                        replace one axis of the job with VALUES (below);\n"
	      "                        repeatable, applied in order; FAMILY.variants=a,b\n"
	      "                        picks variants (default: none, the job as written)\n"
	      "  -b, --backend cuda|model|auto\n"
	      "                        cuda: measure on the GPU; model: predict from each\n"
	      "                        kernel's access pattern, no GPU needed; auto: cuda\n"
	      "                        when every rank has a GPU, else model, saying so\n"
	      "                        (default: auto)\n"
	      "  -n, --dry-run         check the job and show what would run; measures and\n"
	      "                        writes nothing\n"
	      "      --counters        cuda backend: after timing each point, count one more\n"
	      "                        launch of it with the GPU's hardware counters (CUPTI:\n"
	      "                        global load/store requests and sectors, shared-memory\n"
	      "                        wavefronts and bank conflicts, DRAM bytes) into the\n"
	      "                        same row, beside the model's figures; a row says why\n"
	      "                        where counters are unavailable (default: off)\n"
	      "  -l, --list            list the kernel families, their variants and axes\n"
	      "\n"
	      "Sharing the work between MPI ranks:\n"
	      "      --schedule dynamic|static\n"
	      "                        dynamic: ranks take points as they finish them;\n"
	      "                        static: a fixed block-cyclic split decided up front\n"
	      "                        (default: dynamic)\n"
	      "      --batch N         dynamic schedule: points a worker keeps ahead, 1 to 64\n"
	      "                        (default: 2)\n"
	      "      --share-gpu       let several ranks use one GPU, taking turns: one\n"
	      "                        point at a time is timed on it (default: off, and\n"
	      "                        two ranks on one GPU is an error)\n"
	      "\n"
	      "Other:\n"
	      "  -q, --quiet           no progress line (default: progress on stderr)\n"
	      "  -h, --help            print this help and exit\n"
	      "  -V, --version         print the version and git revision and exit\n"
	      "\n"
	      "VALUES, in --set and in job files:\n"
	      "  1,2,4                 a list\n"
	      "  1:128                 every integer from 1 to 128\n"
	      "  0:32:4                0 to 32 in steps of 4\n"
	      "  1:128:x2              geometric: 1, 2, 4, ... 128\n"
	      "  Integers take a suffix K, M or G, powers of 1024: 4K = 4096, 1M = 1048576.\n"
	      "\n"
	      "Examples:\n"
	      "  mpirun -np 8 sweep jobs/seeds.yaml -o seeds.h5\n"
	      "  sweep --backend model jobs/ci.yaml\n"
	      "  sweep --dry-run --set strided_read.stride=1:32:x2 jobs/quick.yaml\n"
	      "  sweep --resume -o run.h5 jobs/full.yaml\n"
	      "  sweep --counters jobs/seeds.yaml -o counters.h5\n"
	      "\n"
	      "Exit status:\n"
	      "  0  success, including points skipped with a reason\n"
	      "  1  any other failure (e.g. out of memory)\n"
	      "  2  bad input: options, job file, --set values\n"
	      "  3  a result failed validation against the CPU reference\n"
	      "  4  I/O or HDF5 error\n"
	      "  5  CUDA error\n"
	      "  6  MPI error\n"
	      "\n"
	      "Documentation, in the sweep source tree:\n"
	      "  docs/job-format.md    writing job files: families, axes, measure settings\n"
	      "  docs/hdf5-schema.md   what the output file holds and how to read it\n",
	      f);
}
