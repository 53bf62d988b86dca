/* Unit tests for cli.c: every option in its short and long forms, the
 * defaults, each error and its message, the order of repeated --set, several
 * parses in one process, and the --help text. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/cli.h"
#include "job/replay_spec.h"
#include "core/record.h"

#define MAX_ARGS 32

/* argv as main sees it: a writable array (getopt_long permutes it). */
static char *argv_buf[MAX_ARGS + 1];
static struct sw_options opt;
static struct sw_err err;

static enum sw_status parse_list(const char *const *args)
{
	int argc = 0;

	while (args[argc]) {
		ck_assert_int_lt(argc, MAX_ARGS);
		argv_buf[argc] = (char *)args[argc];
		argc++;
	}
	argv_buf[argc] = NULL;
	memset(&err, 0, sizeof(err));
	return sw_cli_parse(argc, argv_buf, &opt, &err);
}

#define PARSE(...) parse_list((const char *const[]){ "sweep", __VA_ARGS__, NULL })

/* Asserts an SW_EINVAL whose message contains want. */
#define ASSERT_FAILS(want, ...)                                                                    \
	do {                                                                                       \
		ck_assert_int_eq(PARSE(__VA_ARGS__), SW_EINVAL);                                   \
		ck_assert_int_eq(err.status, SW_EINVAL);                                           \
		ck_assert_msg(strstr(err.msg, want), "message '%s' lacks '%s'", err.msg, want);    \
		ck_assert_ptr_null(opt.sets);                                                      \
		ck_assert_int_eq(opt.n_sets, 0);                                                   \
	} while (0)

static void teardown(void)
{
	sw_cli_fini(&opt);
}

START_TEST(test_defaults)
{
	ck_assert_int_eq(PARSE("job.yaml"), SW_OK);
	ck_assert_str_eq(opt.job_path, "job.yaml");
	ck_assert_ptr_null(opt.output);
	ck_assert_int_eq(opt.force, 0);
	ck_assert_int_eq(opt.resume, 0);
	ck_assert_int_eq(opt.dry_run, 0);
	ck_assert_int_eq(opt.points, 0);
	ck_assert_int_eq(opt.list, 0);
	ck_assert_int_eq(opt.quiet, 0);
	ck_assert_int_eq(opt.help, 0);
	ck_assert_int_eq(opt.version, 0);
	ck_assert_int_eq(opt.share_gpu, 0);
	ck_assert_str_eq(sw_cli_backend_name(&opt), "auto");
	ck_assert_int_eq(opt.schedule, SW_SCHED_DYNAMIC);
	ck_assert_ptr_null(opt.sets);
	ck_assert_int_eq(opt.n_sets, 0);
	ck_assert_int_eq(opt.batch, 0); /* by expected time */
	ck_assert_ptr_null(opt.costs);
	ck_assert_ptr_null(opt.backend_arg);
	ck_assert_double_eq(opt.replay_speed, 1.0);
	ck_assert_int_eq(err.status, SW_OK);
}
END_TEST

START_TEST(test_flags_short)
{
	ck_assert_int_eq(PARSE("-n", "-f", "-q", "-l", "job.yaml"), SW_OK);
	ck_assert_int_eq(opt.dry_run, 1);
	ck_assert_int_eq(opt.force, 1);
	ck_assert_int_eq(opt.quiet, 1);
	ck_assert_int_eq(opt.list, 1);
	ck_assert_int_eq(opt.resume, 0);
	sw_cli_fini(&opt);

	ck_assert_int_eq(PARSE("-rq", "job.yaml"), SW_OK); /* a cluster */
	ck_assert_int_eq(opt.resume, 1);
	ck_assert_int_eq(opt.quiet, 1);
	sw_cli_fini(&opt);

	ck_assert_int_eq(PARSE("-h"), SW_OK);
	ck_assert_int_eq(opt.help, 1);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("-V"), SW_OK);
	ck_assert_int_eq(opt.version, 1);
}
END_TEST

START_TEST(test_flags_long)
{
	ck_assert_int_eq(
		PARSE("--dry-run", "--force", "--quiet", "--list", "--share-gpu", "job.yaml"),
		SW_OK);
	ck_assert_int_eq(opt.dry_run, 1);
	ck_assert_int_eq(opt.force, 1);
	ck_assert_int_eq(opt.quiet, 1);
	ck_assert_int_eq(opt.list, 1);
	ck_assert_int_eq(opt.share_gpu, 1);
	sw_cli_fini(&opt);

	ck_assert_int_eq(PARSE("--resume", "job.yaml"), SW_OK);
	ck_assert_int_eq(opt.resume, 1);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--help"), SW_OK);
	ck_assert_int_eq(opt.help, 1);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--version"), SW_OK);
	ck_assert_int_eq(opt.version, 1);
	sw_cli_fini(&opt);
	/* Unique prefixes of long options are accepted (getopt_long). */
	ck_assert_int_eq(PARSE("--sh", "--dry", "job.yaml"), SW_OK);
	ck_assert_int_eq(opt.share_gpu, 1);
	ck_assert_int_eq(opt.dry_run, 1);
}
END_TEST

/* --points: a dry run's full listing; the summary alone is the default. */
START_TEST(test_points)
{
	ck_assert_int_eq(PARSE("--dry-run", "job.yaml"), SW_OK);
	ck_assert_int_eq(opt.points, 0);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--dry-run", "--points", "job.yaml"), SW_OK);
	ck_assert_int_eq(opt.dry_run, 1);
	ck_assert_int_eq(opt.points, 1);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("job.yaml", "--po", "-n"), SW_OK); /* a prefix, after the job */
	ck_assert_int_eq(opt.points, 1);
	ck_assert_int_eq(opt.dry_run, 1);
}
END_TEST

START_TEST(test_output)
{
	ck_assert_int_eq(PARSE("-o", "a.h5", "job.yaml"), SW_OK);
	ck_assert_str_eq(opt.output, "a.h5");
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("-ob.h5", "job.yaml"), SW_OK);
	ck_assert_str_eq(opt.output, "b.h5");
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--output", "c.h5", "job.yaml"), SW_OK);
	ck_assert_str_eq(opt.output, "c.h5");
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--output=d.h5", "job.yaml"), SW_OK);
	ck_assert_str_eq(opt.output, "d.h5");
	sw_cli_fini(&opt);
	/* The last one wins. */
	ck_assert_int_eq(PARSE("-o", "e.h5", "-o", "f.h5", "job.yaml"), SW_OK);
	ck_assert_str_eq(opt.output, "f.h5");
}
END_TEST

START_TEST(test_options_after_job)
{
	ck_assert_int_eq(PARSE("jobs/seeds.yaml", "-o", "seeds.h5", "--batch", "4"), SW_OK);
	ck_assert_str_eq(opt.job_path, "jobs/seeds.yaml");
	ck_assert_str_eq(opt.output, "seeds.h5");
	ck_assert_int_eq(opt.batch, 4);
	sw_cli_fini(&opt);

	/* After "--" everything is positional. */
	ck_assert_int_eq(PARSE("-q", "--", "-odd.yaml"), SW_OK);
	ck_assert_str_eq(opt.job_path, "-odd.yaml");
	ck_assert_ptr_null(opt.output);
}
END_TEST

START_TEST(test_backend)
{
	ck_assert_int_eq(PARSE("-b", "cuda", "job.yaml"), SW_OK);
	ck_assert_str_eq(sw_cli_backend_name(&opt), "cuda");
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--backend", "model", "job.yaml"), SW_OK);
	ck_assert_str_eq(sw_cli_backend_name(&opt), "model");
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--backend=cuda", "-b", "auto", "job.yaml"), SW_OK);
	ck_assert_str_eq(sw_cli_backend_name(&opt), "auto");
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("-bmodel", "job.yaml"), SW_OK);
	ck_assert_str_eq(sw_cli_backend_name(&opt), "model");
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--backend", "replay=x.h5", "job.yaml"), SW_OK);
	ck_assert_str_eq(sw_cli_backend_name(&opt), "replay");
	ck_assert_str_eq(opt.backend_arg, "x.h5");
}
END_TEST

START_TEST(test_schedule_and_batch)
{
	ck_assert_int_eq(PARSE("--schedule", "static", "job.yaml"), SW_OK);
	ck_assert_int_eq(opt.schedule, SW_SCHED_STATIC);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--schedule=static", "--schedule=dynamic", "job.yaml"), SW_OK);
	ck_assert_int_eq(opt.schedule, SW_SCHED_DYNAMIC);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--batch", "1", "job.yaml"), SW_OK);
	ck_assert_int_eq(opt.batch, 1);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--batch=64", "job.yaml"), SW_OK);
	ck_assert_int_eq(opt.batch, 64);
}
END_TEST

START_TEST(test_set_order)
{
	ck_assert_int_eq(PARSE("-s", "a.x=1", "job.yaml", "--set", "b.y=1:128:x2",
			       "--set=c.z=0:32:4", "-sd.w=4K", "-s", "a.x=2"),
			 SW_OK);
	ck_assert_str_eq(opt.job_path, "job.yaml");
	ck_assert_int_eq(opt.n_sets, 5);
	ck_assert_ptr_nonnull(opt.sets);
	ck_assert_str_eq(opt.sets[0], "a.x=1");
	ck_assert_str_eq(opt.sets[1], "b.y=1:128:x2");
	ck_assert_str_eq(opt.sets[2], "c.z=0:32:4");
	ck_assert_str_eq(opt.sets[3], "d.w=4K");
	ck_assert_str_eq(opt.sets[4], "a.x=2");
	sw_cli_fini(&opt);
	ck_assert_ptr_null(opt.sets);
	ck_assert_int_eq(opt.n_sets, 0);
	sw_cli_fini(&opt); /* twice is harmless */
	sw_cli_fini(NULL);
}
END_TEST

START_TEST(test_no_job_needed)
{
	ck_assert_int_eq(PARSE("--list"), SW_OK);
	ck_assert_ptr_null(opt.job_path);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--list", "job.yaml"), SW_OK);
	ck_assert_str_eq(opt.job_path, "job.yaml");
	sw_cli_fini(&opt);
	/* --help and --version answer whatever else is on the line. */
	ck_assert_int_eq(PARSE("--help", "a.yaml", "b.yaml"), SW_OK);
	ck_assert_int_eq(opt.help, 1);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("-f", "-r", "--version"), SW_OK);
	ck_assert_int_eq(opt.version, 1);
}
END_TEST

START_TEST(test_err_unknown)
{
	ASSERT_FAILS("unknown option '-x'", "-x", "job.yaml");
	ASSERT_FAILS("unknown option '--frobnicate'", "--frobnicate", "job.yaml");
	/* The value is not part of the name reported. */
	ASSERT_FAILS("unknown option '--frobnicate' (see sweep --help)", "--frobnicate=3",
		     "job.yaml");
	/* Mid-cluster: the letter, not the word before it. */
	ASSERT_FAILS("unknown option '-x'", "--quiet", "-qxn", "job.yaml");
	/* Sets already stored are freed on error. */
	ASSERT_FAILS("unknown option '-z'", "-s", "a.x=1", "-z", "job.yaml");
}
END_TEST

START_TEST(test_err_ambiguous)
{
	ASSERT_FAILS("ambiguous option '--s'", "--s", "x", "job.yaml");
	ck_assert_ptr_nonnull(strstr(err.msg, "--set"));
	ck_assert_ptr_nonnull(strstr(err.msg, "--schedule"));
	ck_assert_ptr_nonnull(strstr(err.msg, "--share-gpu"));
}
END_TEST

START_TEST(test_err_no_value_allowed)
{
	ASSERT_FAILS("option '--quiet' takes no value", "--quiet=1", "job.yaml");
	ASSERT_FAILS("option '--share-gpu' takes no value", "--share-gpu=yes", "job.yaml");
	/* Abbreviations are named in full. */
	ASSERT_FAILS("option '--dry-run' takes no value", "--dry=1", "job.yaml");
}
END_TEST

START_TEST(test_err_missing_argument)
{
	ASSERT_FAILS("option '-o' needs a value: FILE", "job.yaml", "-o");
	ASSERT_FAILS("option '--output' needs a value: FILE", "job.yaml", "--output");
	ASSERT_FAILS("option '-b' needs a value: cuda, model, auto or replay=FILE", "job.yaml",
		     "-b");
	ASSERT_FAILS("option '--backend' needs a value", "job.yaml", "--backend");
	ASSERT_FAILS("option '-s' needs a value: FAMILY.AXIS=VALUES", "job.yaml", "-qs");
	ASSERT_FAILS("option '--set' needs a value", "job.yaml", "--set");
	ASSERT_FAILS("option '--schedule' needs a value: dynamic or static", "job.yaml",
		     "--schedule");
	ASSERT_FAILS("option '--batch' needs a value: N, 1 to 64", "job.yaml", "--batch");
	ASSERT_FAILS("option '--batch' needs a value", "job.yaml", "--bat");
	ASSERT_FAILS("empty --output", "--output=", "job.yaml");
}
END_TEST

START_TEST(test_err_bad_values)
{
	ASSERT_FAILS("bad --backend 'gpu': expected cuda, model, auto or replay=FILE", "-b", "gpu",
		     "job.yaml");
	ASSERT_FAILS("bad --backend 'replay='", "--backend", "replay=", "job.yaml");
	ASSERT_FAILS("bad --backend 'replay': expected", "--backend", "replay", "job.yaml");
	ASSERT_FAILS("bad --backend 'cuda=x': expected", "--backend", "cuda=x", "job.yaml");
	ASSERT_FAILS("bad --backend 'cud': expected", "--backend", "cud", "job.yaml");
	ASSERT_FAILS("bad --replay-speed '0'", "--backend", "replay=x.csv", "--replay-speed", "0",
		     "job.yaml");
	ASSERT_FAILS("bad --replay-speed 'fast'", "--backend", "replay=x.csv", "--replay-speed",
		     "fast", "job.yaml");
	ASSERT_FAILS("--replay-speed needs --backend replay=FILE", "--replay-speed", "10",
		     "job.yaml");
	ASSERT_FAILS("empty --costs", "--costs=", "job.yaml");
	ASSERT_FAILS("bad --backend 'CUDA'", "--backend=CUDA", "job.yaml");
	ASSERT_FAILS("bad --schedule 'random': expected dynamic or static", "--schedule", "random",
		     "job.yaml");
}
END_TEST

START_TEST(test_err_batch)
{
	static const char *const bad[] = { "0",   "65",  "-1",
					   "abc", "2x",  "",
					   " ",   "1.5", "99999999999999999999" };
	char want[64];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want),
			 "bad --batch '%s': expected a whole number from 1 to 64", bad[i]);
		ASSERT_FAILS(want, "--batch", bad[i], "job.yaml");
	}
}
END_TEST

/* The numeric options read numbers as the job does (number.h): decimal,
 * never hexadecimal, which strtod took in --replay-speed. */
START_TEST(test_numbers_one_way)
{
	static const char *const bad_speed[] = { "0x2", "0X1p1", "inf", "+2", "2e", "1,5" };
	static const char *const bad_batch[] = { "0x4", "+4", "010x", "4e0" };
	char want[96];

	for (size_t i = 0; i < sizeof bad_speed / sizeof bad_speed[0]; i++) {
		snprintf(want, sizeof want, "bad --replay-speed '%s'", bad_speed[i]);
		ASSERT_FAILS(want, "--backend", "replay=x.csv", "--replay-speed", bad_speed[i],
			     "job.yaml");
	}
	for (size_t i = 0; i < sizeof bad_batch / sizeof bad_batch[0]; i++) {
		snprintf(want, sizeof want, "bad --batch '%s'", bad_batch[i]);
		ASSERT_FAILS(want, "--batch", bad_batch[i], "job.yaml");
	}
	ck_assert_int_eq(PARSE("--backend", "replay=x.csv", "--replay-speed", ".5", "job.yaml"),
			 SW_OK);
	ck_assert_double_eq(opt.replay_speed, 0.5);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--backend", "replay=x.csv", "--replay-speed", "1e3", "job.yaml"),
			 SW_OK);
	ck_assert_double_eq(opt.replay_speed, 1000.0);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--batch", "010", "job.yaml"), SW_OK);
	ck_assert_int_eq(opt.batch, 10); /* decimal, not octal */
}
END_TEST

/* --replay-devices: classes in order, speed 1 unless given, and each
 * rank's device with its index among the devices of its class name. */
START_TEST(test_replay_devices)
{
	const struct sw_replay_class *c;
	int index = -1;

	ck_assert_int_eq(PARSE("--backend", "replay=x.h5", "--replay-devices",
			       "A:3,B-2.x:1:0.5,A:1:0.8", "job.yaml"),
			 SW_OK);
	ck_assert_int_eq(opt.n_replay_classes, 3);
	ck_assert_int_eq(opt.n_replay_devices, 5);
	ck_assert_str_eq(opt.replay_devices, "A:3,B-2.x:1:0.5,A:1:0.8");
	ck_assert_str_eq(opt.replay_classes[1].name, "B-2.x");
	ck_assert_double_eq(opt.replay_classes[0].speed, 1.0);
	ck_assert_double_eq(opt.replay_classes[1].speed, 0.5);
	c = sw_replay_spec_device(&opt, 2, &index);
	ck_assert_str_eq(c->name, "A");
	ck_assert_int_eq(index, 2);
	c = sw_replay_spec_device(&opt, 3, &index);
	ck_assert_str_eq(c->name, "B-2.x");
	ck_assert_int_eq(index, 0);
	c = sw_replay_spec_device(&opt, 4, &index); /* A again, after B: the fourth A */
	ck_assert_str_eq(c->name, "A");
	ck_assert_int_eq(index, 3);
	ck_assert_double_eq(c->speed, 0.8);
	ck_assert_ptr_null(sw_replay_spec_device(&opt, 5, &index));
	sw_cli_fini(&opt);
	ck_assert_ptr_null(opt.replay_classes);
	ck_assert_int_eq(PARSE("--backend", "replay=x.h5", "--replay-devices",
			       "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef:1K", "job.yaml"),
			 SW_OK); /* 32 bytes, the most */
	ck_assert_int_eq(opt.n_replay_devices, 1024);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("job.yaml"), SW_OK);
	ck_assert_int_eq(opt.n_replay_classes, 0);
	ck_assert_ptr_null(opt.replay_devices);
}
END_TEST

#define ASSERT_SPEC_FAILS(want, spec)                                                              \
	ASSERT_FAILS(want, "--backend", "replay=x.h5", "--replay-devices", spec, "job.yaml")

START_TEST(test_err_replay_devices)
{
	ASSERT_FAILS("--replay-devices needs --backend replay=FILE", "--replay-devices", "A:1",
		     "job.yaml");
	ASSERT_FAILS("--replay-devices needs --backend replay=FILE", "--backend", "model",
		     "--replay-devices", "A:1", "job.yaml");
	ASSERT_SPEC_FAILS("empty --replay-devices: expected CLASS:COUNT[:SPEED],...", "");
	ASSERT_SPEC_FAILS("--replay-devices: an empty entry in 'A:1,'", "A:1,");
	ASSERT_SPEC_FAILS("--replay-devices: an empty entry in ',A:1'", ",A:1");
	ASSERT_SPEC_FAILS("--replay-devices: 'A' has no count", "A");
	ASSERT_SPEC_FAILS("--replay-devices: 'A:' has no count", "A:");
	ASSERT_SPEC_FAILS("bad count '0' in 'A:0'", "A:0");
	ASSERT_SPEC_FAILS("bad count '-1' in 'A:-1'", "A:-1");
	ASSERT_SPEC_FAILS("bad count '1.5' in 'A:1.5'", "A:1.5");
	ASSERT_SPEC_FAILS("bad count '0x2' in 'A:0x2'", "A:0x2");
	ASSERT_SPEC_FAILS("bad count '65537' in 'A:65537'", "A:65537");
	ASSERT_SPEC_FAILS("bad speed '0' in 'A:1:0'", "A:1:0");
	ASSERT_SPEC_FAILS("bad speed '-0.5' in 'A:1:-0.5'", "A:1:-0.5");
	ASSERT_SPEC_FAILS("bad speed 'x' in 'A:1:x'", "A:1:x");
	ASSERT_SPEC_FAILS("bad speed '' in 'A:1:'", "A:1:");
	ASSERT_SPEC_FAILS("bad speed '0.5:2' in 'A:1:0.5:2'", "A:1:0.5:2");
	ASSERT_SPEC_FAILS("bad speed 'inf' in 'A:1:inf'", "A:1:inf");
	ASSERT_SPEC_FAILS("':1' has no class name", ":1");
	ASSERT_SPEC_FAILS("bad class name 'A B'", "A B:1");
	ASSERT_SPEC_FAILS("bad class name 'A/B'", "A/B:1");
	ASSERT_SPEC_FAILS("bad class name '\"A\"'", "\"A\":1");
	ASSERT_SPEC_FAILS("is longer than 32 bytes", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg:1");
	ASSERT_SPEC_FAILS("--replay-devices: more than 65536 devices", "A:65536,B:1");
	ASSERT_FAILS("--replay-devices given twice", "--backend", "replay=x.h5", "--replay-devices",
		     "A:1", "--replay-devices", "B:1", "job.yaml");
}
END_TEST

/* Issue 30, cause 10: --replay-speed and SPEED within their ranges, each
 * end taken, a step past it refused with the range (H4P rows); a rank's
 * rate, which the dry run divides its times by, is the product. */
START_TEST(test_replay_speed_ranges)
{
	static const char *const bad_x[] = { "1e-300", "0.0009", "1000001", "1e300" };
	static const char *const bad_speed[] = { "1e-300", "0.009", "100.5", "1e6" };
	char want[128], spec[64];

	for (size_t i = 0; i < sizeof bad_x / sizeof bad_x[0]; i++) {
		snprintf(want, sizeof want,
			 "bad --replay-speed '%s': expected a number from 0.001 to 1000000",
			 bad_x[i]);
		ASSERT_FAILS(want, "--backend", "replay=x.h5", "--replay-speed", bad_x[i],
			     "job.yaml");
	}
	for (size_t i = 0; i < sizeof bad_speed / sizeof bad_speed[0]; i++) {
		snprintf(spec, sizeof spec, "A:1:%s", bad_speed[i]);
		snprintf(want, sizeof want,
			 "bad speed '%s' in '%s': expected a number from 0.01 to 100", bad_speed[i],
			 spec);
		ASSERT_SPEC_FAILS(want, spec);
	}
	ck_assert_int_eq(PARSE("--backend", "replay=x.h5", "--replay-speed", "0.001",
			       "--replay-devices", "A:1:0.01,B:1:100", "job.yaml"),
			 SW_OK);
	ck_assert_double_eq_tol(sw_replay_spec_rate(&opt, 0), 1e-5, 1e-18);
	ck_assert_double_eq_tol(sw_replay_spec_rate(&opt, 1), 0.1, 1e-15);
	ck_assert_double_eq_tol(sw_replay_spec_rate(&opt, 2), 0.001, 1e-15); /* no device */
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("--backend", "replay=x.h5", "--replay-speed", "1000000", "job.yaml"),
			 SW_OK);
	ck_assert_double_eq(sw_replay_spec_rate(&opt, 0), 1e6);
	sw_cli_fini(&opt);
	ck_assert_int_eq(PARSE("job.yaml"), SW_OK);
	ck_assert_double_eq(sw_replay_spec_rate(&opt, 0), 1.0);
	sw_cli_fini(&opt);
}
END_TEST

START_TEST(test_err_force_resume)
{
	ASSERT_FAILS("--force and --resume conflict", "-f", "-r", "job.yaml");
	ASSERT_FAILS("--force and --resume conflict", "--resume", "--force", "job.yaml");
	ASSERT_FAILS("--force and --resume conflict", "-fr", "--list");
}
END_TEST

START_TEST(test_err_points_alone)
{
	ASSERT_FAILS("--points needs --dry-run", "--points", "job.yaml");
	ASSERT_FAILS("option '--points' takes no value", "--points=all", "-n", "job.yaml");
}
END_TEST

START_TEST(test_err_job_count)
{
	ck_assert_int_eq(parse_list((const char *const[]){ "sweep", NULL }), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "missing job file"));
	ASSERT_FAILS("missing job file", "-q", "-o", "out.h5");
	ASSERT_FAILS("one job file expected, got 'a.yaml' and 'b.yaml'", "a.yaml", "-q", "b.yaml");
	ASSERT_FAILS("got 'a.yaml' and '2' and more", "-s", "x.y=1,", "a.yaml", "2", "4");
	/* Not even argv[0]. */
	ck_assert_int_eq(sw_cli_parse(0, NULL, &opt, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "missing job file"));
}
END_TEST

START_TEST(test_metrics)
{
	ck_assert_int_eq(PARSE("--metrics", "dram__bytes_read.sum,lts__t_sectors.sum", "j.yaml",
			       "--metrics=sm__cycles_elapsed.avg"),
			 SW_OK);
	ck_assert_int_eq(opt.n_metrics, 3);
	ck_assert_str_eq(opt.metrics[0], "dram__bytes_read.sum");
	ck_assert_str_eq(opt.metrics[1], "lts__t_sectors.sum");
	ck_assert_str_eq(opt.metrics[2], "sm__cycles_elapsed.avg");
	sw_cli_fini(&opt);
	ck_assert_ptr_null(opt.metrics);
	ck_assert_int_eq(opt.n_metrics, 0);
	ck_assert_int_eq(PARSE("j.yaml"), SW_OK);
	ck_assert_int_eq(opt.n_metrics, 0);
}
END_TEST

START_TEST(test_err_metrics)
{
	char many[20 * 8] = "", longname[SW_METRIC_NAME_LEN + 1];

	ASSERT_FAILS("--metrics: an empty name", "--metrics", "a.sum,,b.sum", "j.yaml");
	ASSERT_FAILS("--metrics: an empty name", "--metrics", "a.sum,", "j.yaml");
	ASSERT_FAILS("--metrics: an empty name", "--metrics=", "j.yaml");
	ASSERT_FAILS("bad name 'dram bytes'", "--metrics", "dram bytes", "j.yaml");
	ASSERT_FAILS("--metrics: a.sum named twice", "--metrics", "a.sum,b.sum", "--metrics",
		     "a.sum", "j.yaml");
	for (int i = 0; i < SW_MAX_METRICS + 1; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many), "%sm%d.sum", i ? "," : "",
			 i);
	ASSERT_FAILS("--metrics: more than 16 names", "--metrics", many, "j.yaml");
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	ASSERT_FAILS("is longer than 95 bytes", "--metrics", longname, "j.yaml");
	ASSERT_FAILS("option '--metrics' needs a value: NAME,NAME,...", "j.yaml", "--metrics");
	/* a failed parse frees what it stored */
	ck_assert_ptr_null(opt.metrics);
}
END_TEST

START_TEST(test_family)
{
	ck_assert_int_eq(PARSE("--family", "strided_read", "--family=transpose", "-s",
			       "strided_read.stride=1,2"),
			 SW_OK);
	ck_assert_ptr_null(opt.job_path);
	ck_assert_int_eq(opt.n_families, 2);
	ck_assert_str_eq(opt.families[0], "strided_read");
	ck_assert_str_eq(opt.families[1], "transpose");
	ck_assert_int_eq(opt.n_sets, 1);
	sw_cli_fini(&opt);
	ck_assert_ptr_null(opt.families);
	/* the name is checked against the registry by the job, not here */
	ck_assert_int_eq(PARSE("--family", "no_such"), SW_OK);
	ck_assert_str_eq(opt.families[0], "no_such");
	sw_cli_fini(&opt);
	ASSERT_FAILS("give --family or job.yaml, not both", "--family", "reduce", "job.yaml");
	ASSERT_FAILS("empty --family", "--family=");
	ASSERT_FAILS("or --family NAME", "-q");
}
END_TEST

START_TEST(test_null_err)
{
	char *argv[] = { (char *)"sweep", (char *)"--bogus", NULL };

	ck_assert_int_eq(sw_cli_parse(2, argv, &opt, NULL), SW_EINVAL);
}
END_TEST

START_TEST(test_parse_twice)
{
	/* An error mid-cluster leaves getopt halfway through "-qxn"... */
	ASSERT_FAILS("unknown option '-x'", "-qxn", "job.yaml");
	/* ...and the next parse must still start from scratch. */
	ck_assert_int_eq(PARSE("-n", "other.yaml"), SW_OK);
	ck_assert_str_eq(opt.job_path, "other.yaml");
	ck_assert_int_eq(opt.dry_run, 1);
	ck_assert_int_eq(opt.quiet, 0);
	sw_cli_fini(&opt);

	ck_assert_int_eq(PARSE("-s", "a.x=1", "-b", "model", "one.yaml"), SW_OK);
	ck_assert_int_eq(opt.n_sets, 1);
	ck_assert_str_eq(sw_cli_backend_name(&opt), "model");
	sw_cli_fini(&opt);
	/* Nothing from the previous parse carries over. */
	ck_assert_int_eq(PARSE("two.yaml"), SW_OK);
	ck_assert_str_eq(opt.job_path, "two.yaml");
	ck_assert_int_eq(opt.n_sets, 0);
	ck_assert_str_eq(sw_cli_backend_name(&opt), "auto");
	sw_cli_fini(&opt);
	ASSERT_FAILS("option '--output' needs a value", "two.yaml", "--output");
	ck_assert_int_eq(PARSE("three.yaml", "-o", "x.h5"), SW_OK);
	ck_assert_str_eq(opt.output, "x.h5");
}
END_TEST

START_TEST(test_usage)
{
	static const char *const want[] = {
		"Usage: sweep [OPTIONS] JOB.yaml",
		"-h, --help",
		"-V, --version",
		"-l, --list",
		"-n, --dry-run",
		"--points",
		"expected time",
		"-o, --output FILE",
		"-f, --force",
		"-r, --resume",
		"-b, --backend cuda|model|auto",
		"(default: auto)",
		"-s, --set FAMILY.AXIS=VALUES",
		"--schedule dynamic|static",
		"(default: dynamic)",
		"--batch N",
		"about 50 ms of expected work",
		"--costs FILE",
		"replay=FILE",
		"--replay-speed X",
		"X from 0.001 to 1000000",
		"SPEED from 0.01 to 100",
		"--share-gpu",
		"-q, --quiet",
		"1,2,4",
		"1:128 ",
		"0:32:4",
		"1:128:x2",
		"K, M or G",
		"powers of 1024",
		"is decimal: 0x10 is refused",
		"mpirun -np 8 sweep jobs/seeds.yaml -o seeds.h5",
		"sweep --backend model jobs/ci.yaml",
		"sweep --dry-run --set strided_read.stride=1:32:x2 jobs/quick.yaml",
		"sweep --resume -o run.h5 jobs/full.yaml",
		"<job name>.h5",
		"current directory",
		"existing file is never",
		"overwritten without --force",
		"  0  success",
		"  1  ",
		"  2  bad input",
		"  3  ",
		"validation",
		"  4  I/O or HDF5",
		"  5  CUDA",
		"  6  MPI",
		"docs/job-format.md",
		"docs/hdf5-schema.md",
	};
	char buf[16384], flat[16384], *line;
	FILE *f = tmpfile();
	size_t n, i, k;

	ck_assert_ptr_nonnull(f);
	sw_cli_usage(f);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	ck_assert_uint_lt(n, sizeof(buf) - 1);
	buf[n] = '\0';
	/* An option's help wraps wherever its words fall: look for the
	 * phrases in it with each line break and indent read as one space. */
	for (i = 0, k = 0; i < n; k++) {
		flat[k] = buf[i++];
		if (flat[k] == '\n' && !strncmp(buf + i, "                        ", 24)) {
			flat[k] = ' ';
			i += 24;
		}
	}
	flat[k] = '\0';
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(flat, want[i]), "--help lacks '%s'", want[i]);
	ck_assert(n > 0 && buf[n - 1] == '\n');
	/* Fits an 80-column terminal. */
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		ck_assert_msg(strlen(line) <= 80, "line over 80 columns: '%s'", line);
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *ok = tcase_create("options");
	TCase *bad = tcase_create("errors");
	TCase *help = tcase_create("usage");

	tcase_add_checked_fixture(ok, NULL, teardown);
	tcase_add_test(ok, test_metrics);
	tcase_add_test(ok, test_family);
	tcase_add_test(ok, test_defaults);
	tcase_add_test(ok, test_flags_short);
	tcase_add_test(ok, test_flags_long);
	tcase_add_test(ok, test_points);
	tcase_add_test(ok, test_output);
	tcase_add_test(ok, test_options_after_job);
	tcase_add_test(ok, test_backend);
	tcase_add_test(ok, test_schedule_and_batch);
	tcase_add_test(ok, test_set_order);
	tcase_add_test(ok, test_no_job_needed);
	tcase_add_test(ok, test_parse_twice);
	suite_add_tcase(s, ok);

	tcase_add_checked_fixture(bad, NULL, teardown);
	tcase_add_test(bad, test_err_unknown);
	tcase_add_test(bad, test_err_ambiguous);
	tcase_add_test(bad, test_err_no_value_allowed);
	tcase_add_test(bad, test_err_missing_argument);
	tcase_add_test(bad, test_err_bad_values);
	tcase_add_test(bad, test_err_batch);
	tcase_add_test(bad, test_numbers_one_way);
	tcase_add_test(bad, test_err_force_resume);
	tcase_add_test(bad, test_err_points_alone);
	tcase_add_test(bad, test_err_job_count);
	tcase_add_test(bad, test_null_err);
	tcase_add_test(bad, test_err_metrics);
	tcase_add_test(bad, test_err_replay_devices);
	tcase_add_test(bad, test_replay_devices);
	tcase_add_test(bad, test_replay_speed_ranges);
	suite_add_tcase(s, bad);

	tcase_add_test(help, test_usage);

	suite_add_tcase(s, help);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cli_suite());
	int failed;

	/* Parsing twice must work within one process: keep every test in it. */
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
