/*
 * --replay-devices SPEC, a list of CLASS:COUNT[:SPEED] entries: the
 * emulated devices the replay backend gives to ranks in order from rank 0.
 * Pure parsing and look-up over struct sw_options (cli.h); what an emulated
 * device then is lives in backend/backend_replay.c.
 */
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
	size_t n_len = strcspn(num, ":,"), rest = (size_t)(e + len - num);
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

/* One CLASS:COUNT[:SPEED] (len bytes of e) onto o's list. */
enum sw_status sw_replay_spec_add(struct sw_options *o, const char *e, size_t len,
				  struct sw_err *err)
{
	struct sw_replay_class c = { 0 };
	const char *colon = memchr(e, ':', len);
	size_t name_len = colon ? (size_t)(colon - e) : len;
	enum sw_status st;

	if (!len)
		return sw_fail(err, SW_EINVAL,
			       "--replay-devices: an empty entry in '%s'; expected "
			       "CLASS:COUNT[:SPEED],... (A:2,B:2:0.5)",
			       o->replay_devices);
	if ((st = replay_class_name(e, name_len, &c, err)) != SW_OK)
		return st;
	if ((st = replay_count_speed(e, len, colon ? colon + 1 : e + len, &c, err)) != SW_OK)
		return st;
	if (o->n_replay_devices + c.count > SW_REPLAY_MAX_DEVICES)
		return sw_fail(err, SW_EINVAL, "--replay-devices: more than %d devices",
			       SW_REPLAY_MAX_DEVICES);
	struct sw_replay_class *m =
		realloc(o->replay_classes, (size_t)(o->n_replay_classes + 1) * sizeof *m);
	if (!m)
		return sw_fail(err, SW_ENOMEM, "out of memory storing --replay-devices");
	o->replay_classes = m;
	m[o->n_replay_classes++] = c;
	o->n_replay_devices += c.count;
	return SW_OK;
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
