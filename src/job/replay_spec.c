/*
 * --replay-devices SPEC, a list of CLASS:COUNT[:SPEED][=FILE] entries: the
 * emulated devices the replay backend gives to ranks in order from rank 0,
 * and the recording each class replays (its own FILE, else --backend
 * replay=FILE's). Pure parsing and look-up over struct sw_options (cli.h);
 * what an emulated device then is lives in backend/backend_replay.c.
 */
#define _POSIX_C_SOURCE 200809L /* strndup */
#include "job/replay_spec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job/number.h"

/* CLASS of one --replay-devices entry (len bytes of e): it is a GPU's name
 * in /devices and part of a UUID, so plain characters that fit both. */
static enum sw_status replay_class_name(const char *e, size_t len, struct sw_replay_class *c,
					struct sw_err *err)
{
	int q = (int)(len < 40 ? len : 40);

	if (!len)
		return sw_fail(err, SW_EINVAL,
			       "--replay-devices: '%.*s' has no class name; expected "
			       "CLASS:COUNT[:SPEED]",
			       (int)strcspn(e, ","), e);
	if (len >= SW_REPLAY_CLASS_LEN)
		return sw_fail(err, SW_EINVAL,
			       "--replay-devices: class name '%.*s...' is longer than %d bytes", q,
			       e, SW_REPLAY_CLASS_LEN - 1);
	if (strspn(e, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") < len)
		return sw_fail(err, SW_EINVAL,
			       "--replay-devices: bad class name '%.*s': a class name holds "
			       "letters, digits, '_', '.' and '-'",
			       q, e);
	memcpy(c->name, e, len);
	c->name[len] = '\0';
	return SW_OK;
}

/* COUNT[:SPEED] of entry e (len bytes), after its class name. */
static enum sw_status replay_count_speed(const char *e, size_t len, const char *num,
					 struct sw_replay_class *c, struct sw_err *err)
{
	size_t n_len = strcspn(num, ":,="), rest = (size_t)(e + len - num);
	int64_t v;

	if (!n_len && rest == 0)
		return sw_fail(err, SW_EINVAL,
			       "--replay-devices: '%.*s' has no count; expected "
			       "CLASS:COUNT[:SPEED] (A:2)",
			       (int)len, e);
	if (sw_number_parse_int(num, n_len, &v, NULL) || v < 1 || v > SW_REPLAY_MAX_DEVICES)
		return sw_fail(err, SW_EINVAL,
			       "--replay-devices: bad count '%.*s' in '%.*s': expected a whole "
			       "number from 1 to %d",
			       (int)n_len, num, (int)len, e, SW_REPLAY_MAX_DEVICES);
	c->count = (int)v;
	c->speed = 1.0;
	if (n_len == rest)
		return SW_OK;
	const char *sp = num + n_len + 1;
	size_t sp_len = (size_t)(e + len - sp);
	if (sw_number_parse_real(sp, sp_len, &c->speed, NULL) ||
	    !(c->speed >= SW_REPLAY_DEVICE_SPEED_MIN) || c->speed > SW_REPLAY_DEVICE_SPEED_MAX)
		return sw_fail(err, SW_EINVAL,
			       "--replay-devices: bad speed '%.*s' in '%.*s': expected a number "
			       "from %g to %.0f",
			       (int)sp_len, sp, (int)len, e, SW_REPLAY_DEVICE_SPEED_MIN,
			       SW_REPLAY_DEVICE_SPEED_MAX);
	return SW_OK;
}

/* 1 when two strings are both NULL or equal. */
static int same_file(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* =FILE of entry e (after its first '='; len bytes in all) into c->file. */
static enum sw_status replay_file(const char *e, size_t len, const char *eq,
				  struct sw_replay_class *c, struct sw_err *err)
{
	size_t f_len = (size_t)(e + len - eq - 1);

	if (!f_len)
		return sw_fail(err, SW_EINVAL,
			       "--replay-devices: '%.*s' names no recording after '='; expected "
			       "CLASS:COUNT[:SPEED]=FILE (A:2=a.h5)",
			       (int)len, e);
	c->file = strndup(eq + 1, f_len);
	if (!c->file)
		return sw_fail(err, SW_ENOMEM, "out of memory storing --replay-devices");
	return SW_OK;
}

/* A class is one kind of device, so one recording: c's name given before
 * with another is refused. */
static enum sw_status one_recording(const struct sw_options *o, const struct sw_replay_class *c,
				    struct sw_err *err)
{
	for (int i = 0; i < o->n_replay_classes; i++) {
		const struct sw_replay_class *k = &o->replay_classes[i];
		if (!strcmp(k->name, c->name) && !same_file(k->file, c->file))
			return sw_fail(err, SW_EINVAL,
				       "--replay-devices: class %s replays %s and %s: a class "
				       "replays one recording",
				       c->name, k->file ? k->file : "--backend replay=FILE's",
				       c->file ? c->file : "--backend replay=FILE's");
	}
	return SW_OK;
}

/* The classes of o that name a recording of their own, c counted: each
 * is a row of the output's /replays. */
static int own_recordings(const struct sw_options *o, const struct sw_replay_class *c)
{
	int n = 0;
	for (int i = 0; i <= o->n_replay_classes; i++) {
		const struct sw_replay_class *k =
			i < o->n_replay_classes ? &o->replay_classes[i] : c;
		int seen = !k->file;
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(o->replay_classes[j].name, k->name);
		n += !seen;
	}
	return n;
}

/* One CLASS:COUNT[:SPEED][=FILE] (len bytes of e) onto o's list: split at
 * its first '=', FILE the rest. */
enum sw_status sw_replay_spec_add(struct sw_options *o, const char *e, size_t len,
				  struct sw_err *err)
{
	struct sw_replay_class c = { 0 };
	const char *eq = memchr(e, '=', len);
	size_t head = eq ? (size_t)(eq - e) : len;
	const char *colon = memchr(e, ':', head);
	size_t name_len = colon ? (size_t)(colon - e) : head;
	enum sw_status st;

	if (!len)
		return sw_fail(err, SW_EINVAL,
			       "--replay-devices: an empty entry in '%s'; expected "
			       "CLASS:COUNT[:SPEED],... (A:2,B:2:0.5)",
			       o->replay_devices);
	if ((st = replay_class_name(e, name_len, &c, err)) != SW_OK)
		return st;
	if ((st = replay_count_speed(e, head, colon ? colon + 1 : e + head, &c, err)) != SW_OK)
		return st;
	if (o->n_replay_devices + c.count > SW_REPLAY_MAX_DEVICES)
		return sw_fail(err, SW_EINVAL, "--replay-devices: more than %d devices",
			       SW_REPLAY_MAX_DEVICES);
	if ((eq && (st = replay_file(e, len, eq, &c, err)) != SW_OK) ||
	    (st = one_recording(o, &c, err)) != SW_OK)
		goto free_file;
	if (own_recordings(o, &c) > SW_REPLAY_MAX_FILES) {
		st = sw_fail(err, SW_EINVAL,
			     "--replay-devices: more than %d classes with a recording of their own",
			     SW_REPLAY_MAX_FILES);
		goto free_file;
	}
	struct sw_replay_class *m =
		realloc(o->replay_classes, (size_t)(o->n_replay_classes + 1) * sizeof *m);
	if (!m) {
		st = sw_fail(err, SW_ENOMEM, "out of memory storing --replay-devices");
		goto free_file;
	}
	o->replay_classes = m;
	m[o->n_replay_classes++] = c;
	o->n_replay_devices += c.count;
	return SW_OK;
free_file:
	free(c.file);
	return st;
}

const char *sw_replay_spec_recording(const struct sw_options *o, int rank)
{
	int index;
	const struct sw_replay_class *c = sw_replay_spec_device(o, rank, &index);
	return c && c->file ? c->file : o->backend_arg;
}

int sw_replay_spec_own_files(const struct sw_options *o)
{
	int n = 0;
	for (int i = 0; i < o->n_replay_classes; i++)
		n += o->replay_classes[i].file != NULL;
	return n;
}

const struct sw_replay_class *sw_replay_spec_device(const struct sw_options *o, int rank,
						    int *index)
{
	int first = 0;

	for (int i = 0; i < o->n_replay_classes; i++) {
		const struct sw_replay_class *c = &o->replay_classes[i];
		if (rank < first + c->count) {
			*index = rank - first;
			for (int k = 0; k < i; k++) /* the same class earlier in the SPEC */
				if (!strcmp(o->replay_classes[k].name, c->name))
					*index += o->replay_classes[k].count;
			return c;
		}
		first += c->count;
	}
	return NULL;
}

double sw_replay_spec_rate(const struct sw_options *o, int rank)
{
	int index;
	const struct sw_replay_class *c = sw_replay_spec_device(o, rank, &index);
	double speed = o->replay_speed > 0 ? o->replay_speed : 1.0;

	return c ? speed * c->speed : speed;
}
