/*
 * Command-line parsing of cli.h with getopt_long, driven by one table row
 * per option (getopt's tables are built from it): a new option is a row and
 * its help text. Checks the options alone (values, conflicts, one job file);
 * what --set assigns and whether the job file exists are for the job loader.
 * Never prints: getopt's own messages are off and every error is returned in
 * struct sw_err.
 */
#define _GNU_SOURCE /* getopt_long */

#include "job/cli.h"

#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "job/job.h"
#include "job/number.h"
#include "job/replay_spec.h"
#include "core/record.h"

#define SW_BATCH_MIN     1
#define SW_BATCH_MAX     64
#define SW_BATCH_DEFAULT 0 /* by expected time, not by count */

static enum sw_status set_output(struct sw_options *o, const char *arg, struct sw_err *err)
{
	if (!*arg)
		return sw_fail(err, SW_EINVAL, "empty --output: expected FILE");
	o->output = arg;
	return SW_OK;
}

/* backend_list.h's names, and the word each takes after '=' (NULL: none). */
static const struct {
	const char *name, *arg, *about;
} backends[] = {
#define X(name, arg, about) { #name, arg, about },
#include "core/backend_list.h"
#undef X
};
#define N_BACKENDS (sizeof backends / sizeof backends[0])

/* Their places in the list, for the options that belong to one backend. */
enum {
#define X(name, arg, about) BACKEND_##name,
#include "core/backend_list.h"
#undef X
};

/* --backend auto: no backend of the list, but the choice between them. */
static const char auto_name[] = "auto";

const char *sw_cli_backend_name(const struct sw_options *o)
{
	return o->backend == SW_BACKEND_AUTO ? auto_name : backends[o->backend].name;
}

/* "cuda, model, auto or replay=FILE" (sep ", ", last " or "): those
 * without a word, auto, the rest. */
static void expected_backends(char *buf, size_t size, const char *sep, const char *last)
{
	const char *item[N_BACKENDS + 1];
	char with_arg[N_BACKENDS][64];
	size_t n = 0, used = 0;

	for (size_t i = 0; i < N_BACKENDS; i++)
		if (!backends[i].arg)
			item[n++] = backends[i].name;
	item[n++] = auto_name;
	for (size_t i = 0; i < N_BACKENDS; i++)
		if (backends[i].arg) {
			snprintf(with_arg[i], sizeof with_arg[i], "%s=%s", backends[i].name,
				 backends[i].arg);
			item[n++] = with_arg[i];
		}
	buf[0] = 0;
	for (size_t i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 i == 0       ? ""
					 : i + 1 == n ? last
						      : sep,
					 item[i]);
}

/* NAME, or NAME=ARG for a backend that takes a word (replay=FILE); a bare
 * NAME of such a backend is checked with the whole line (check_line). */
static enum sw_status set_backend(struct sw_options *o, const char *arg, struct sw_err *err)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	char expected[256];

	if (strcmp(arg, auto_name) == 0) {
		o->backend = SW_BACKEND_AUTO;
		o->backend_arg = NULL;
		return SW_OK;
	}
	for (size_t i = 0; i < N_BACKENDS; i++)
		if (strlen(backends[i].name) == len && !strncmp(arg, backends[i].name, len) &&
		    (backends[i].arg ? !eq || eq[1] : !eq)) {
			o->backend = (int)i;
			o->backend_arg = eq ? eq + 1 : NULL;
			return SW_OK;
		}
	expected_backends(expected, sizeof expected, ", ", " or ");
	return sw_fail(err, SW_EINVAL, "bad --backend '%s': expected %s", arg, expected);
}

static enum sw_status set_schedule(struct sw_options *o, const char *arg, struct sw_err *err)
{
	if (strcmp(arg, "dynamic") == 0)
		o->schedule = SW_SCHED_DYNAMIC;
	else if (strcmp(arg, "static") == 0)
		o->schedule = SW_SCHED_STATIC;
	else
		return sw_fail(err, SW_EINVAL, "bad --schedule '%s': expected dynamic or static",
			       arg);
	return SW_OK;
}

static enum sw_status set_placement(struct sw_options *o, const char *arg, struct sw_err *err)
{
	enum sw_placement p;

	if (sw_placement_parse(arg, &p))
		return sw_fail(err, SW_EINVAL, "bad --placement '%s': expected %s", arg,
			       SW_PLACE_EXPECTED);
	o->placement = (int)p;
	return SW_OK;
}

static enum sw_status set_batch(struct sw_options *o, const char *arg, struct sw_err *err)
{
	int64_t v;

	if (sw_number_parse_int(arg, strlen(arg), &v, NULL) || v < SW_BATCH_MIN || v > SW_BATCH_MAX)
		return sw_fail(err, SW_EINVAL,
			       "bad --batch '%s': expected a whole number from %d to %d", arg,
			       SW_BATCH_MIN, SW_BATCH_MAX);
	o->batch = (int)v;
	return SW_OK;
}

static enum sw_status set_costs(struct sw_options *o, const char *arg, struct sw_err *err)
{
	if (!*arg)
		return sw_fail(err, SW_EINVAL, "empty --costs: expected a result FILE");
	o->costs = arg;
	return SW_OK;
}

static enum sw_status set_model_devices(struct sw_options *o, const char *arg, struct sw_err *err)
{
	if (!*arg)
		return sw_fail(err, SW_EINVAL,
			       "empty --model-devices: expected GPU names, NAME,NAME,... "
			       "(sweep --list-devices)");
	if (o->model_devices)
		return sw_fail(err, SW_EINVAL,
			       "--model-devices given twice: name every device in one list");
	o->model_devices = arg;
	return SW_OK;
}

static enum sw_status add_model_calibrate(struct sw_options *o, const char *arg, struct sw_err *err)
{
	if (!*arg)
		return sw_fail(err, SW_EINVAL,
			       "empty --model-calibrate: expected a measured result FILE[:CLASS]");
	const char **list =
		realloc(o->model_calibrate, (size_t)(o->n_model_calibrate + 1) * sizeof *list);
	if (!list)
		return sw_fail(err, SW_ENOMEM, "out of memory storing --model-calibrate");
	list[o->n_model_calibrate++] = arg;
	o->model_calibrate = list;
	return SW_OK;
}

static enum sw_status set_model_from(struct sw_options *o, const char *arg, struct sw_err *err)
{
	if (!*arg)
		return sw_fail(err, SW_EINVAL,
			       "empty --model-from: expected a measured result FILE[:CLASS]");
	if (o->model_from)
		return sw_fail(err, SW_EINVAL, "--model-from given twice: one file predicts");
	o->model_from = arg;
	return SW_OK;
}

static enum sw_status set_replay_speed(struct sw_options *o, const char *arg, struct sw_err *err)
{
	double v;

	if (sw_number_parse_real(arg, strlen(arg), &v, NULL) || !(v >= SW_REPLAY_SPEED_MIN) ||
	    v > SW_REPLAY_SPEED_MAX)
		return sw_fail(err, SW_EINVAL,
			       "bad --replay-speed '%s': expected a number from %g to %.0f", arg,
			       SW_REPLAY_SPEED_MIN, SW_REPLAY_SPEED_MAX);
	o->replay_speed = v;
	return SW_OK;
}

/* add(o, item, its length, err) for each comma-separated item of arg, up to
 * the first failure. */
static enum sw_status each_item(struct sw_options *o, const char *arg,
				enum sw_status (*add)(struct sw_options *, const char *, size_t,
						      struct sw_err *),
				struct sw_err *err)
{
	for (;;) {
		size_t len = strcspn(arg, ",");
		enum sw_status st = add(o, arg, len, err);

		if (st || !arg[len])
			return st;
		arg += len + 1;
	}
}

/* --replay-devices A:2,B:2:0.5; once only: a second SPEC would be a second
 * fleet, not more of the first. */
static enum sw_status set_replay_devices(struct sw_options *o, const char *arg, struct sw_err *err)
{
	if (o->replay_devices)
		return sw_fail(err, SW_EINVAL,
			       "--replay-devices given twice: give every class in one SPEC");
	if (!*arg)
		return sw_fail(err, SW_EINVAL,
			       "empty --replay-devices: expected CLASS:COUNT[:SPEED],... "
			       "(A:2,B:2:0.5)");
	o->replay_devices = arg;
	return each_item(o, arg, sw_replay_spec_add, err);
}

static enum sw_status add_set(struct sw_options *o, const char *arg, struct sw_err *err)
{
	const char **sets = realloc(o->sets, (size_t)(o->n_sets + 1) * sizeof(*sets));

	if (!sets)
		return sw_fail(err, SW_ENOMEM, "out of memory storing --set '%s'", arg);
	sets[o->n_sets++] = arg;
	o->sets = sets;
	return SW_OK;
}

static enum sw_status add_plugin(struct sw_options *o, const char *arg, struct sw_err *err)
{
	const char **plugins = realloc(o->plugins, (size_t)(o->n_plugins + 1) * sizeof(*plugins));

	if (!plugins)
		return sw_fail(err, SW_ENOMEM, "out of memory storing --plugin '%s'", arg);
	plugins[o->n_plugins++] = arg;
	o->plugins = plugins;
	return SW_OK;
}

/* One --metrics name: as ncu spells them, letters, digits, '_' and '.'. */
static enum sw_status add_metric(struct sw_options *o, const char *name, size_t len,
				 struct sw_err *err)
{
	int q = (int)(len < 80 ? len : 80);

	if (!len)
		return sw_fail(err, SW_EINVAL, "--metrics: an empty name; expected NAME,NAME,...");
	if (len >= SW_METRIC_NAME_LEN)
		return sw_fail(err, SW_EINVAL, "--metrics: name '%.*s...' is longer than %d bytes",
			       q, name, SW_METRIC_NAME_LEN - 1);
	if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") < len)
		return sw_fail(err, SW_EINVAL,
			       "--metrics: bad name '%.*s': a metric name holds letters, digits, "
			       "'_' and '.' (as ncu --query-metrics lists them)",
			       q, name);
	for (int i = 0; i < o->n_metrics; i++)
		if (strlen(o->metrics[i]) == len && !strncmp(o->metrics[i], name, len))
			return sw_fail(err, SW_EINVAL, "--metrics: %.*s named twice", q, name);
	if (o->n_metrics == SW_MAX_METRICS)
		return sw_fail(err, SW_EINVAL, "--metrics: more than %d names", SW_MAX_METRICS);
	char **m = realloc(o->metrics, (size_t)(o->n_metrics + 1) * sizeof *m);
	if (!m)
		return sw_fail(err, SW_ENOMEM, "out of memory storing --metrics");
	o->metrics = m;
	if (!(m[o->n_metrics] = strndup(name, len)))
		return sw_fail(err, SW_ENOMEM, "out of memory storing --metrics");
	o->n_metrics++;
	return SW_OK;
}

/* --metrics a,b,c; repeated, the lists add up. */
static enum sw_status add_metrics(struct sw_options *o, const char *arg, struct sw_err *err)
{
	return each_item(o, arg, add_metric, err);
}

static enum sw_status add_family(struct sw_options *o, const char *arg, struct sw_err *err)
{
	if (!*arg)
		return sw_fail(err, SW_EINVAL,
			       "empty --family: expected a family NAME (sweep --list)");
	const char **f = realloc(o->families, (size_t)(o->n_families + 1) * sizeof *f);
	if (!f)
		return sw_fail(err, SW_ENOMEM, "out of memory storing --family '%s'", arg);
	f[o->n_families++] = arg;
	o->families = f;
	return SW_OK;
}

static enum sw_status set_check_plugin(struct sw_options *o, const char *arg, struct sw_err *err)
{
	if (!*arg)
		return sw_fail(err, SW_EINVAL, "empty --check-plugin: expected a plug-in FILE.so");
	if (o->check_plugin)
		return sw_fail(err, SW_EINVAL,
			       "--check-plugin given twice: check one plug-in at a time");
	o->check_plugin = arg;
	return add_plugin(o, arg, err);
}

/*
 * Every option, one row each, in --help's order: a flag sets the int at
 * `flag`; an option with a value has the word --help shows after its name
 * (arg), what its "needs a value" message asks for (hint; NULL: arg) and
 * the function that takes the value. The getopt tables and the option lines
 * of --help are built from these rows; the rows' order is also the order an
 * ambiguous abbreviation's candidates are listed in.
 */
struct cli_opt {
	const char *name;
	char letter; /* 0: long only */
	size_t flag; /* offset of the int a flag sets */
	const char *arg, *hint;
	enum sw_status (*take)(struct sw_options *o, const char *arg, struct sw_err *err);
	const char *help; /* one paragraph; --help wraps it */
};

/* clang-format would spread these one-line macros over four lines each */
/* clang-format off */
#define FLAG(name, letter, field, help)                                                            \
	{ name, letter, offsetof(struct sw_options, field), NULL, NULL, NULL, help }
#define VALUE(name, letter, arg, hint, take, help) { name, letter, 0, arg, hint, take, help }
static const struct cli_opt opts[] = {
	VALUE("output", 'o', "FILE", NULL, set_output,
	      "write the results to FILE (default: <job name>.h5 in the current directory, "
	      "<job name> from the job's name: field)"),
	FLAG("force", 'f', force,
	     "replace FILE if it exists; an existing file is never overwritten without --force, "
	     "and never by any run when it is a file the run reads (the job, --backend "
	     "replay=FILE, --costs or a plug-in, under any of its names)"),
	FLAG("resume", 'r', resume,
	     "continue FILE: keep the points it holds and run the rest; not with --force"),
	FLAG("extend", 0, extend,
	     "grow FILE to an enlarged job: run only the points it lacks; every point it holds "
	     "must be in the job and the measure settings the same; not with --force or --resume"),
	VALUE("set", 's', "FAMILY.AXIS=VALUES", NULL, add_set,
	      "replace one axis of the job with VALUES (below); repeatable, applied in order; "
	      "FAMILY.variants=a,b picks variants (default: none, the job as written)"),
	VALUE("family", 0, "NAME", NULL, add_family,
	      "run family NAME with its default axes and variants, without a job file; "
	      "repeatable; --set edits it; the job is named after the families (a-b), so the "
	      "default output is a-b.h5 (default: the job file)"),
	/* arg, hint and help: backend_list.h's (backend_help) */
	VALUE("backend", 'b', NULL, NULL, set_backend, NULL),
	VALUE("replay-speed", 0, "X", "X, 0.001 to 1000000", set_replay_speed,
	      "replay X times faster than recorded, X from 0.001 to 1000000, and show "
	      "--dry-run's times so (default: 1)"),
	VALUE("replay-devices", 0, "SPEC", "CLASS:COUNT[:SPEED][=FILE],...", set_replay_devices,
	      "replay backend: emulate devices, CLASS:COUNT[:SPEED][=FILE] comma-separated, "
	      "given to ranks in order from rank 0 (A:2,B:2:0.5: ranks 0-1 of class A, ranks "
	      "2-3 of class B at half speed, each point taking twice its recorded time), SPEED "
	      "from 0.01 to 100 (default 1); =FILE is the class's own recording (no comma in "
	      "it), else --backend replay=FILE's; the counts must add up to the number of "
	      "ranks; each device is named CLASS in /devices, with a UUID EMU-CLASS-INDEX, and "
	      "its recording's device (emulates), CC, SMs, memory and bandwidth; rows carry the "
	      "recorded samples divided by SPEED, and --dry-run's times too (default: the "
	      "recorded device, no samples)"),
	FLAG("dry-run", 'n', dry_run,
	     "check the job and show what would run: points per family and variant and the "
	     "expected time on the ranks given, saying where the estimate comes from (see "
	     "--costs); measures and writes nothing"),
	FLAG("points", 0, points,
	     "with --dry-run: also list every point, with its index, id and (static schedule) "
	     "rank"),
	FLAG("counters", 0, counters,
	     "cuda backend: after timing each point, count one more launch of it with the GPU's "
	     "hardware counters (CUPTI: global load/store requests and sectors, shared-memory "
	     "wavefronts and bank conflicts, DRAM bytes) into the same row, beside the model's "
	     "figures; a row says why where counters are unavailable (default: off)"),
	VALUE("metrics", 0, "NAME,NAME,...", NULL, add_metrics,
	      "cuda backend: count these CUPTI metrics, as ncu names them "
	      "(dram__bytes_read.sum), in launches of their own after each point's timing, into "
	      "the file's /metrics table; names are checked on the GPU before any point runs "
	      "(--dry-run too), an unknown one refused with the nearest; at most 16; repeatable "
	      "(default: none)"),
	FLAG("list", 'l', list, "list the kernel families, their variants and axes"),
	FLAG("list-devices", 0, list_devices,
	     "list the GPUs the time model knows, their datasheet figures and where each comes "
	     "from, and what each CC's SM holds (--li is now ambiguous: write --list)"),
	VALUE("plugin", 0, "FILE.so", NULL, add_plugin,
	      "load the kernel families of a plug-in built with sweep_add_plugin (CMake package "
	      "sweep); repeatable, before the job's own plugins: key; with --list, lists its "
	      "families too"),
	VALUE("check-plugin", 0, "FILE.so", NULL, set_check_plugin,
	      "check a plug-in on the host, no GPU needed, instead of a run: for every point of "
	      "its families in the job (without a job: at their default axes), call sizes(), "
	      "refuse(), useful_bytes(), flops() and shape(), walk the requests of its variant "
	      "(every one up to 262144 a point, else 262144 of them, the first and last "
	      "quarter and the rest spread) and refuse a lane past the buffer its request "
	      "names; where a family has a reference hook, hold its output to check(): it must "
	      "pass, and fail with every byte inverted; prints a summary per variant, exit 0 "
	      "when all pass, 2 at the first failure (default: none)"),
	VALUE("model-devices", 0, "NAME,NAME,...", NULL, set_model_devices,
	      "model backend: add a device target for each GPU named (as --list-devices or "
	      "the driver names it: H100-SXM, \"NVIDIA H200\"), beside the job's model.ccs and "
	      "model.devices; its rows carry the predicted median time, model_time_ns, and the "
	      "term that bound it (default: the job's model.devices)"),
	VALUE("model-calibrate", 0, "FILE[:CLASS]", NULL, add_model_calibrate,
	      "fit the time model's rates for one GPU class to the measured rows of FILE (a "
	      "fleet check's, or any result of that class; CLASS when FILE holds several) and "
	      "predict with them; the fit and FILE's path and hash are recorded; repeatable, "
	      "one a class (default: the datasheet's rates)"),
	VALUE("model-from", 0, "FILE[:CLASS]", NULL, set_model_from,
	      "predict each point from FILE's measured time of the same point, scaled by the "
	      "model's ratio between FILE's GPU and the target, so what the model misses on "
	      "both cancels; points FILE lacks are predicted by the model alone, and say so "
	      "(default: the model alone)"),
	VALUE("schedule", 0, "dynamic|static", "dynamic or static", set_schedule,
	      "dynamic: ranks take points as they finish them, longest expected first; static: "
	      "a split decided up front that balances expected time (greedy LPT) (default: "
	      "dynamic)"),
	VALUE("placement", 0, "MODE", SW_PLACE_EXPECTED, set_placement,
	      "where each point runs: once (on any GPU), per_class (once on every device "
	      "class: GPU model, CC and memory) or every_gpu (once on every rank's GPU); the "
	      "job's calibrate points run on every GPU first whatever the mode; --resume and "
	      "--extend must give the file's (default: the job's placement key, else once)"),
	VALUE("costs", 0, "FILE", NULL, set_costs,
	      "expected point times from an earlier result FILE, matched by point id (the last "
	      "run of the same job is the natural one); without it, rates per variant learned "
	      "from the committed H200 results where installed, else each point's bytes and "
	      "flops"),
	VALUE("batch", 0, "N", "N, 1 to 64", set_batch,
	      "dynamic schedule: at most N points queued ahead of the one running, 1 to 64 "
	      "(default: as many as keep about 50 ms of expected work queued)"),
	FLAG("share-gpu", 0, share_gpu,
	     "let several ranks use one GPU, taking turns: one point at a time is timed on it "
	     "(default: off, and two ranks on one GPU is an error)"),
	FLAG("quiet", 'q', quiet, "no progress line (default: progress on stderr)"),
	FLAG("help", 'h', help, "print this help and exit"),
	FLAG("version", 'V', version, "print the version and git revision and exit"),
};
#undef FLAG
#undef VALUE
/* clang-format on */
#define N_OPTS (sizeof opts / sizeof opts[0])

/* --help's headings, each before the option it names. */
static const struct {
	const char *first, *heading;
} sections[] = {
	{ "output", "Output:" },
	{ "set", "What to run:" },
	{ "model-devices", "The time model:" },
	{ "schedule", "Sharing the work between MPI ranks:" },
	{ "quiet", "Other:" },
};

/* --backend's help: "cuda: measure on the GPU; ...; auto: ...; replay=FILE:
 * ... (default: auto)", in the order expected_backends gives. */
static const char *backend_help(char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = 0;
	for (int pass = 0; pass < 3; pass++) {
		if (pass == 1) {
			used += (size_t)snprintf(
				buf + used, size - used,
				"%s: %s when every rank has a GPU, else %s, saying so; ", auto_name,
				backends[BACKEND_cuda].name, backends[BACKEND_model].name);
			continue;
		}
		for (size_t i = 0; i < N_BACKENDS && used < size; i++)
			if (!backends[i].arg == (pass == 0))
				used += (size_t)snprintf(
					buf + used, size - used, "%s%s%s: %s; ", backends[i].name,
					backends[i].arg ? "=" : "",
					backends[i].arg ? backends[i].arg : "", backends[i].about);
		if (used >= size)
			return buf;
	}
	snprintf(buf + used - 2, size - used + 2, " (default: %s)", auto_name);
	return buf;
}

/* What opt's value is written as: for --help (usage) "cuda|model|...", for
 * "needs a value" "cuda, model, ... or ...". */
static const char *value_words(const struct cli_opt *opt, int usage, char *buf, size_t len)
{
	if (opt->take == set_backend) {
		expected_backends(buf, len, usage ? "|" : ", ", usage ? "|" : " or ");
		return buf;
	}
	return usage || !opt->hint ? opt->arg : opt->hint;
}

/* What getopt_long returns for row i: its letter, or past any character. */
static int opt_val(size_t i)
{
	return opts[i].letter ? opts[i].letter : 256 + (int)i;
}

/* The row whose getopt value is val; NULL for an unknown letter. */
static const struct cli_opt *find_val(int val)
{
	for (size_t i = 0; i < N_OPTS; i++)
		if (opt_val(i) == val)
			return &opts[i];
	return NULL;
}

/* getopt's tables from the rows. The leading ':' makes a missing argument
 * return ':' rather than '?'. */
static void getopt_tables(struct option *longs, char *shorts)
{
	*shorts++ = ':';
	for (size_t i = 0; i < N_OPTS; i++) {
		longs[i] = (struct option){ opts[i].name,
					    opts[i].take ? required_argument : no_argument, NULL,
					    opt_val(i) };
		if (!opts[i].letter)
			continue;
		*shorts++ = opts[i].letter;
		if (opts[i].take)
			*shorts++ = ':';
	}
	longs[N_OPTS] = (struct option){ NULL, 0, NULL, 0 };
	*shorts = '\0';
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

/* "--a, --b" for the options whose names start with prefix; how many do. */
static int candidates(const char *prefix, size_t n, char *list, size_t len)
{
	int matches = 0;

	list[0] = '\0';
	for (size_t i = 0; i < N_OPTS; i++) {
		if (strncmp(opts[i].name, prefix, n))
			continue;
		matches++;
		if (strlen(list) + strlen(opts[i].name) + 5 < len) {
			strcat(list, matches > 1 ? ", --" : "--");
			strcat(list, opts[i].name);
		}
	}
	return matches;
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
	if (n > 2 && strncmp(name, "--", 2) == 0)
		matches = candidates(name + 2, n - 2, list, sizeof(list));
	if (matches > 1)
		return sw_fail(err, SW_EINVAL, "ambiguous option '%s': could be %s", name, list);
	return sw_fail(err, SW_EINVAL, "unknown option '%s' (see sweep --help)", name);
}

/* getopt returned ':'. The option ended its word, so argv[optind - 1] holds
 * it; a long one is named in full even when abbreviated. */
static enum sw_status missing_arg(char **argv, struct sw_err *err)
{
	const struct cli_opt *opt = find_val(optopt);
	char name[64], words[256];

	if (strncmp(argv[optind - 1], "--", 2) == 0 && opt)
		snprintf(name, sizeof(name), "--%s", opt->name);
	else
		snprintf(name, sizeof(name), "-%c", optopt);
	return sw_fail(err, SW_EINVAL, "option '%s' needs a value: %s", name,
		       opt ? value_words(opt, 0, words, sizeof words) : "a value");
}

/* Runs getopt_long over argv, applying each option's row to o. */
static enum sw_status parse_options(int argc, char **argv, struct sw_options *o, struct sw_err *err)
{
	struct option longs[N_OPTS + 1];
	char shorts[2 * N_OPTS + 2];
	int c;

	getopt_tables(longs, shorts);
	/* Parsing may run more than once per process (tests do): restart getopt.
	 * glibc reinitialises fully only on 0, which also clears a half-read
	 * cluster of short options left by an earlier error. */
	opterr = 0;
#ifdef __GLIBC__
	optind = 0;
#else
	optind = 1;
#endif
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct cli_opt *opt = find_val(c); /* NULL for '?' */
		enum sw_status st;

		if (c == ':')
			return missing_arg(argv, err);
		if (!opt)
			return bad_option(argv, err);
		if (!opt->take) {
			*(int *)((char *)o + opt->flag) = 1;
			continue;
		}
		st = opt->take(o, optarg, err);
		if (st)
			return st;
	}
	return SW_OK;
}

/* --backend replay=FILE is the recording of the --replay-devices classes
 * without one of their own (CLASS:COUNT=FILE): needed when one has none,
 * and refused when every class has its own, as a recording no rank replays. */
static enum sw_status check_recordings(const struct sw_options *o, struct sw_err *err)
{
	int own = sw_replay_spec_own_files(o);
	const char *name = backends[BACKEND_replay].name, *arg = backends[BACKEND_replay].arg;

	if (!o->backend_arg && (!o->n_replay_classes || own < o->n_replay_classes))
		return sw_fail(err, SW_EINVAL,
			       "--backend %s needs =%s, the recording to replay%s (or give every "
			       "class of --replay-devices its own, CLASS:COUNT=%s)",
			       name, arg, own ? " for the classes without one" : "", arg);
	if (o->backend_arg && o->n_replay_classes && own == o->n_replay_classes)
		return sw_fail(err, SW_EINVAL,
			       "--backend %s=%s would replay nothing: every class of "
			       "--replay-devices names its own recording; give --backend %s",
			       name, o->backend_arg, name);
	return SW_OK;
}

/* What the options say together, and the one job file. */
static enum sw_status check_line(int argc, char **argv, struct sw_options *o, struct sw_err *err)
{
	/* getopt_long moved the positional arguments to the end, in order. */
	int n_pos = argc - optind;
	enum sw_status st;

	if (o->replay_speed != 1.0 && o->backend != BACKEND_replay)
		return sw_fail(err, SW_EINVAL, "--replay-speed needs --backend %s=%s",
			       backends[BACKEND_replay].name, backends[BACKEND_replay].arg);
	if (o->replay_devices && o->backend != BACKEND_replay)
		return sw_fail(err, SW_EINVAL, "--replay-devices needs --backend %s=%s",
			       backends[BACKEND_replay].name, backends[BACKEND_replay].arg);
	if (o->backend == BACKEND_replay && (st = check_recordings(o, err)) != SW_OK)
		return st;
	if (o->points && !o->dry_run)
		return sw_fail(err, SW_EINVAL,
			       "--points needs --dry-run: it lists a plan's points");
	if (o->force && o->resume)
		return sw_fail(err, SW_EINVAL,
			       "--force and --resume conflict: --force replaces the output file, "
			       "--resume continues it");
	if (o->extend && (o->force || o->resume))
		return sw_fail(err, SW_EINVAL,
			       "--extend and --%s conflict: --extend adds the job's new points to "
			       "the output file and completes the old ones, as --resume would",
			       o->force ? "force" : "resume");
	if (n_pos > 1)
		return sw_fail(err, SW_EINVAL,
			       "one job file expected, got '%s' and '%s'%s (quote --set values "
			       "that contain spaces)",
			       argv[optind], argv[optind + 1], n_pos > 2 ? " and more" : "");
	if (n_pos == 1 && o->n_families)
		return sw_fail(err, SW_EINVAL,
			       "--family runs families without a job file: give --family or %s, "
			       "not both",
			       argv[optind]);
	if (o->check_plugin && (o->dry_run || o->resume || o->extend || o->list ||
				o->list_devices || o->force || o->output))
		return sw_fail(err, SW_EINVAL,
			       "--check-plugin checks a plug-in and runs nothing: not with --%s",
			       o->dry_run        ? "dry-run"
			       : o->resume       ? "resume"
			       : o->extend       ? "extend"
			       : o->list         ? "list"
			       : o->list_devices ? "list-devices"
			       : o->force        ? "force"
						 : "output");
	if (n_pos == 1)
		o->job_path = argv[optind];
	else if (!o->list && !o->list_devices && !o->n_families && !o->check_plugin)
		return sw_fail(
			err, SW_EINVAL,
			"missing job file (usage: sweep [OPTIONS] JOB.yaml, or --family NAME; "
			"see sweep --help)");
	return SW_OK;
}

enum sw_status sw_cli_parse(int argc, char **argv, struct sw_options *o, struct sw_err *err)
{
	enum sw_status st;

	memset(o, 0, sizeof(*o));
	o->backend = SW_BACKEND_AUTO;
	o->schedule = SW_SCHED_DYNAMIC;
	o->placement = -1;
	o->batch = SW_BATCH_DEFAULT;
	o->replay_speed = 1.0;
	if (err) {
		err->status = SW_OK;
		err->msg[0] = '\0';
	}
	if (argc < 1 || !argv)
		return sw_fail(err, SW_EINVAL,
			       "missing job file (usage: sweep [OPTIONS] JOB.yaml)");

	st = parse_options(argc, argv, o, err);
	/* --help and --version answer whatever else the line holds. */
	if (st == SW_OK && !o->help && !o->version)
		st = check_line(argc, argv, o, err);
	if (st != SW_OK)
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
	free(o->plugins);
	o->plugins = NULL;
	o->n_plugins = 0;
	for (int i = 0; i < o->n_metrics; i++)
		free(o->metrics[i]);
	free(o->metrics);
	o->metrics = NULL;
	o->n_metrics = 0;
	free(o->families);
	o->families = NULL;
	o->n_families = 0;
	free(o->model_calibrate);
	o->model_calibrate = NULL;
	o->n_model_calibrate = 0;
	for (int i = 0; i < o->n_replay_classes; i++)
		free(o->replay_classes[i].file);
	free(o->replay_classes);
	o->replay_classes = NULL;
	o->n_replay_classes = o->n_replay_devices = 0;
	o->replay_devices = NULL;
}

/* The text of a row's help from column 24, wrapped before column 80. */
static void print_help(FILE *f, const char *help, int col)
{
	enum { INDENT = 24, WIDTH = 78 };

	while (*help) {
		size_t w = strcspn(help, " ");

		if (col > INDENT && col + 1 + (int)w > WIDTH) {
			fprintf(f, "\n%*s", INDENT, "");
			col = INDENT;
		} else if (col > INDENT) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)w, help);
		col += (int)w;
		help += w + (help[w] == ' ');
	}
	fputc('\n', f);
}

/* "  -o, --output FILE     write ...": the name column, then the help. */
static void print_option(FILE *f, const struct cli_opt *opt)
{
	char words[512];
	int col;

	if (opt->letter)
		col = fprintf(f, "  -%c, --%s", opt->letter, opt->name);
	else
		col = fprintf(f, "      --%s", opt->name);
	if (opt->take)
		col += fprintf(f, " %s", value_words(opt, 1, words, sizeof words));
	if (col > 22) {
		fprintf(f, "\n");
		col = 0;
	}
	fprintf(f, "%*s", 24 - col, "");
	print_help(f, opt->take == set_backend ? backend_help(words, sizeof words) : opt->help, 24);
}

void sw_cli_usage(FILE *f)
{
	fputs("Usage: sweep [OPTIONS] JOB.yaml\n"
	      "       sweep [OPTIONS] --family NAME [--family NAME...]\n"
	      "       mpirun -np N sweep [OPTIONS] JOB.yaml\n"
	      "       sweep --check-plugin FILE.so [JOB.yaml]\n"
	      "       sweep --list | --help | --version\n"
	      "\n"
	      "Measures GPU memory access patterns: runs every point of the sweep JOB.yaml\n"
	      "describes (kernel families x variants x axis values), spread over the MPI\n"
	      "ranks, and writes the timings to one HDF5 file. Options may come before or\n"
	      "after JOB.yaml.\n",
	      f);
	for (size_t i = 0; i < N_OPTS; i++) {
		for (size_t k = 0; k < sizeof sections / sizeof sections[0]; k++)
			if (!strcmp(sections[k].first, opts[i].name))
				fprintf(f, "\n%s\n", sections[k].heading);
		print_option(f, &opts[i]);
	}
	fputs("\n"
	      "VALUES, in --set and in job files:\n"
	      "  1,2,4                 a list\n"
	      "  1:128                 every integer from 1 to 128\n"
	      "  0:32:4                0 to 32 in steps of 4\n"
	      "  1:128:x2              geometric: 1, 2, 4, ... 128\n"
	      "  Integers take a suffix K, M or G, powers of 1024: 4K = 4096, 1M = 1048576.\n"
	      "  Every number, in job files and options alike, is decimal: 0x10 is refused.\n"
	      "\n"
	      "Examples:\n"
	      "  mpirun -np 8 sweep jobs/seeds.yaml -o seeds.h5\n"
	      "  sweep --backend model jobs/ci.yaml\n"
	      "  sweep --dry-run --set strided_read.stride=1:32:x2 jobs/quick.yaml\n"
	      "  mpirun -np 4 sweep --dry-run --costs last.h5 jobs/full.yaml\n"
	      "  sweep --resume -o run.h5 jobs/full.yaml\n"
	      "  sweep --counters jobs/seeds.yaml -o counters.h5\n"
	      "  sweep --family strided_read --set strided_read.stride=1,2,4\n"
	      "  sweep --family offset_read --metrics dram__bytes_read.sum\n"
	      "  sweep --check-plugin build/spmv.so examples/spmv/spmv.yaml\n"
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
	      "  docs/own-kernel.md    measuring your own kernel as a plug-in\n"
	      "  docs/hdf5-schema.md   what the output file holds and how to read it\n",
	      f);
}
