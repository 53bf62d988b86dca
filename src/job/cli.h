/*
 * Command-line options (getopt_long). Pure: parsing fills struct sw_options
 * and never prints or exits; sw_cli_usage writes the --help text.
 */
#ifndef SW_CLI_H
#define SW_CLI_H

#include <stdio.h>

#include "core/status.h"

/* --backend auto; any other --backend is its line's place in backend_list.h */
#define SW_BACKEND_AUTO (-1)
enum sw_schedule { SW_SCHED_DYNAMIC, SW_SCHED_STATIC };

/* --replay-devices: a class name's bytes, NUL included (it is the device's
 * name in /devices and part of its UUID), and the most devices of a SPEC. */
#define SW_REPLAY_CLASS_LEN   33
#define SW_REPLAY_MAX_DEVICES 65536

/* The range of --replay-speed X and of a --replay-devices SPEED: a point
 * sleeps its recorded time (at most a week, sw_duration_wall_ok) divided by
 * both, so every sleep stays finite and every scaled sample a number;
 * farther than 100 times from the recorded device is no device a run meets. */
#define SW_REPLAY_SPEED_MIN        1e-3
#define SW_REPLAY_SPEED_MAX        1e6
#define SW_REPLAY_DEVICE_SPEED_MIN 1e-2
#define SW_REPLAY_DEVICE_SPEED_MAX 1e2

/* One CLASS:COUNT[:SPEED] of --replay-devices. */
struct sw_replay_class {
	char name[SW_REPLAY_CLASS_LEN];
	int count;    /* devices, 1 or more */
	double speed; /* 1: the recorded times; 0.5: each point takes twice as long */
	char *file;   /* =FILE, the class's own recording (owned); NULL: --backend replay=FILE */
};

/* The most classes of a SPEC with a recording of their own
 * (CLASS:COUNT[:SPEED]=FILE): each is an input of the run and a row of the
 * output's /replays. */
#define SW_REPLAY_MAX_FILES 32

struct sw_options {
	const char *job_path; /* the one positional argument */
	const char *output;   /* -o; NULL: <job name>.h5 in the current directory */
	int force, resume, dry_run, list, quiet, help, version, share_gpu, counters;
	int list_devices; /* --list-devices: the time model's GPU table */
	int extend;       /* --extend: add an enlarged job's new points to an existing file */
	int points;       /* --points: a dry run lists every point, not only the summary */
	int backend;      /* SW_BACKEND_AUTO, or an index into backend_list.h */
	enum sw_schedule schedule;
	int placement;     /* --placement: an enum sw_placement (job.h); -1: the job's */
	const char **sets; /* --set values, in order (owned array, borrowed strings) */
	int n_sets;
	const char **plugins; /* --plugin files, in order (owned array, borrowed strings) */
	int n_plugins;
	int batch;         /* dynamic: at most this many points queued ahead; 0: by time */
	const char *costs; /* --costs FILE: expected point times from an earlier result */
	/* --backend NAME=ARG: the part after '=' (replay's file: the recording
	 * of the --replay-devices classes without one of their own); NULL for
	 * a bare `--backend replay` whose every class has its own */
	const char *backend_arg;
	double replay_speed; /* --replay-speed X; 1 by default */
	/* --replay-devices SPEC: emulated devices, given to ranks in order from
	 * rank 0 (owned array); none: the recorded device */
	const char *replay_devices; /* SPEC as written, for messages */
	struct sw_replay_class *replay_classes;
	int n_replay_classes;
	int n_replay_devices; /* the counts' sum */
	/* --metrics a,b: CUPTI metric names, in order, no repeats, at most
	 * SW_MAX_METRICS (record.h) (owned array of owned strings) */
	char **metrics;
	int n_metrics;
	/* The time model (docs/model.md, "Time"): --model-devices NAME,... adds
	 * device targets to the job's; --model-calibrate FILE[:CLASS] (owned
	 * array, borrowed strings) fits a class's rates to a measured file;
	 * --model-from FILE[:CLASS] predicts from FILE's times of each point. */
	const char *model_devices;
	const char **model_calibrate;
	int n_model_calibrate;
	const char *model_from;
	/* --family NAME: families to run with their default axes, instead of a
	 * job file (owned array, borrowed strings) */
	const char **families;
	int n_families;
	/* --check-plugin FILE.so: check the plug-in's hooks on the host
	 * (run/plugin_try.h) instead of a run; FILE.so is in plugins too, and
	 * the job file is optional (its families' defaults without one) */
	const char *check_plugin;
};

/* SW_EINVAL with a message naming the bad option. --help, --version and
 * --list need no job file, nor does --family, which takes its place. */
/* The --backend name o holds: "auto", or a name of backend_list.h. */
const char *sw_cli_backend_name(const struct sw_options *o);

enum sw_status sw_cli_parse(int argc, char **argv, struct sw_options *o, struct sw_err *err);

void sw_cli_usage(FILE *f);

void sw_cli_fini(struct sw_options *o);

#endif
