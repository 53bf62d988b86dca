/*
 * A small plug-in family, `hostile`, in plain C (no kernel: it runs on the
 * model backend only), and the ways a hostile or careless plug-in can go
 * wrong, one per build: tests/CMakeLists.txt builds it once per HOSTILE_*
 * switch (plugin_hostile_<switch>.so), and tests/test_bad_input.c and
 * tests/test_plugin.c load them (docs/bad-inputs.md, "Plug-ins").
 * Without a switch it is a good plug-in.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sweep/family.h>

#ifdef HOSTILE_DEP
int sw_test_dep_value(void); /* tests/plugins/dep.c, another build on each rank */
#define SCALE sw_test_dep_value()
#else
#define SCALE 1
#endif

#ifdef HOSTILE_EXIT_CTOR
/* Runs at dlopen, while the ranks agree on their plug-ins. */
__attribute__((constructor)) static void leave_at_load(void)
{
	exit(0);
}
#endif

#ifdef HOSTILE_MARK
/* Runs at dlopen: leaves MARK in the working directory, so a test sees
 * whether this file was loaded at all (tests/test_plugin.c). */
__attribute__((constructor)) static void mark_at_load(void)
{
	FILE *f = fopen("MARK", "w");

	if (f)
		fclose(f);
}
#endif

static cudaError_t launch(const struct sw_point *p, const struct sw_buffers *b, cudaStream_t s)
{
	(void)p, (void)b, (void)s;
	return cudaSuccess; /* never called: the model backend runs no kernel */
}

#if defined(HOSTILE_EXIT_HOOK) || defined(HOSTILE_SWAP_OUTPUT)
/* The hostile act, at the point n = 3K (the model asks for its requests
 * during the run, never while the run is planned). */
static void act(const struct sw_point *p)
{
	static int done;

	if (p->axis[0] != 3072 || done++)
		return;
#ifdef HOSTILE_EXIT_HOOK
	exit(0);
#else
	/* the output is replaced by the test's early.h5, a complete sweep
	 * file of a smaller run: the summary finds this run's points missing */
	if (rename("out.h5", "moved.h5") != 0 || link("early.h5", "out.h5") != 0)
		abort();
#endif
}
#else
#define act(p) ((void)(p))
#endif

/* A request that leaves its buffer (issue 38): one float too far, so the
 * last request's lane 31 reads past the array (--check-plugin and the
 * model refuse it; HOSTILE_BUFFER_UNKNOWN names a buffer the point lacks). */
#ifdef HOSTILE_BUFFER_PAST
#define PAST 1
#else
#define PAST 0
#endif

/* One float per element, read once: n / 32 warp loads of 128 bytes. */
static uint64_t requests(const struct sw_point *p, uint64_t r, struct sw_request *req)
{
	act(p);
	if (!req) /* the model asks for the count first */
		return (uint64_t)p->axis[0] / 32;
	sw_request_begin(req, SW_SPACE_GLOBAL, 4, 0);
#ifdef HOSTILE_ACCESS_PAST
	sw_request_access(req, 1); /* the variant names one access, 0 */
#endif
	sw_request_buffer(req, 0); /* the array it reads, its one buffer */
#ifdef HOSTILE_BUFFER_UNKNOWN
	sw_request_buffer(req, 1); /* one the point lacks: it has buffer 0 */
#endif
	for (unsigned l = 0; l < 32; l++)
		sw_request_lane(req, l, (r * 32 + l + PAST) * 4, 1);
	return (uint64_t)p->axis[0] / 32;
}

#if defined(HOSTILE_BUFFERS_LATER) || defined(HOSTILE_WRITE_PAST_LATER)
/* Nonzero from the second call at n = 3K on: the plan's check, which calls
 * sizes() once a point, sees a good plug-in; the time model, which calls
 * it again as it predicts the point, does not (issue 36, cause 2). */
static int later_at_3k(const struct sw_point *p)
{
	static int calls;
	return p->axis[0] == 3072 && ++calls > 1;
}
#endif

/* The limits of struct sw_sizes broken (issue 30 cause 8): more buffers
 * than SW_MAX_BUFFERS, at every point or only at n = 3K (so its first
 * default point, which loading checks, passes), or only when called again
 * there; a write past the struct, at once or only when called again at
 * 3K; more inputs than buffers. */
static void sizes(const struct sw_point *p, struct sw_sizes *s)
{
	int n = 1;
#if defined(HOSTILE_MANY_BUFFERS)
	n = SW_MAX_BUFFERS + 1;
#elif defined(HOSTILE_BUFFERS_AT_3K)
	n = p->axis[0] == 3072 ? SW_MAX_BUFFERS + 1 : 1;
#elif defined(HOSTILE_BUFFERS_LATER)
	n = later_at_3k(p) ? SW_MAX_BUFFERS + 1 : 1;
#endif
#ifdef HOSTILE_REF
	n = 2; /* the array, and its copy: the output the reference makes */
#endif
	s->n_buffers = n;
	s->n_inputs = 1;
	for (int i = 0; i < n; i++) { /* bytes[SW_MAX_BUFFERS] lands in sampled_elem */
		size_t b = (size_t)p->axis[0] * 4;
		memcpy((char *)s + offsetof(struct sw_sizes, bytes) + (size_t)i * sizeof b, &b,
		       sizeof b);
	}
#ifdef HOSTILE_WRITE_PAST
	s->sampled_elem[SW_MAX_BUFFERS + 1] = 4; /* past the struct */
#elif defined(HOSTILE_WRITE_PAST_LATER)
	if (later_at_3k(p)) /* 64 bytes past the struct: a stack struct's neighbours */
		memset(s + 1, 0x41, 64);
#endif
#ifdef HOSTILE_INPUTS
	s->n_inputs = 2;
#endif
#ifdef HOSTILE_REF_SAMPLED
	s->sampled_elem[1] = sizeof(float); /* but its check compares every element */
#endif
}

#if defined(HOSTILE_BUFFERS_LATER) || defined(HOSTILE_WRITE_PAST_LATER) ||                         \
	defined(HOSTILE_ZERO_BLOCKS)
/* A launch for the time model: a block of 128 threads for each 1024
 * elements, or, HOSTILE_ZERO_BLOCKS, a grid of no block at n = 2K. */
static const char *shape(const struct sw_point *p, int sm_count, struct sw_launch_shape *sh)
{
	(void)sm_count;
	sh->blocks = (uint64_t)p->axis[0] / 1024;
#ifdef HOSTILE_ZERO_BLOCKS
	if (p->axis[0] == 2048)
		sh->blocks = 0;
#endif
	sh->threads = 128;
	sh->shared_bytes = 0;
	sh->in_flight = 1;
	return NULL;
}
#define SHAPE shape
#else
#define SHAPE NULL
#endif
/* A host reference (family API 3) and its check, for sweep --check-plugin,
 * in a build with HOSTILE_REF: the output is a copy of the input. Broken
 * as a switch says: HOSTILE_REF_WRONG, a reference one off from what the
 * check wants; HOSTILE_REF_BLIND, a check that compares nothing;
 * HOSTILE_REF_SAMPLED, an output copied back as samples (sampled_elem)
 * whose check reads every element. */
#ifdef HOSTILE_REF
static const char *reference(const struct sw_point *p, struct sw_host_buffers *b)
{
	const float *in = b->buf[0];
	float *out = b->buf[1];
	int off = 0;
#ifdef HOSTILE_REF_WRONG
	off = 1;
#endif
	for (int64_t i = 0; i < p->axis[0]; i++)
		out[i] = in[i] + (float)off;
	return NULL;
}

static void check(const struct sw_point *p, const struct sw_host_out *o, struct sw_check *c)
{
	const float *out = o->out[1];
	uint64_t n = (uint64_t)p->axis[0];
	uint64_t count = sw_check_begin(c, n, 1);
#ifdef HOSTILE_REF_BLIND
	count = 0;
#endif
	for (uint64_t k = 0; k < count; k++) {
		uint64_t i = sw_check_pick(c, o, k, n);
		sw_check_element(c, i, out[i], sw_input_value(o->seed, i), 0);
	}
}
#define REFERENCE reference
#define CHECK     check
#else
#define REFERENCE NULL
#define CHECK     NULL
#endif

static int refuse(const struct sw_point *p, char *why, size_t len)
{
	(void)p, (void)why, (void)len;
	return 0;
}

static double useful_bytes(const struct sw_point *p)
{
	return 4.0 * (double)p->axis[0] * SCALE;
}

static double flops(const struct sw_point *p)
{
	(void)p;
	return 0;
}

#ifndef HOSTILE_AXIS_NAME
#define HOSTILE_AXIS_NAME "n"
#endif
#ifndef HOSTILE_AXIS_UNITS
#define HOSTILE_AXIS_UNITS "elements"
#endif
#ifndef HOSTILE_VARIANT_NAME
#define HOSTILE_VARIANT_NAME "plain"
#endif
#ifndef HOSTILE_NAME
#define HOSTILE_NAME "hostile"
#endif
#ifndef HOSTILE_ABOUT
#define HOSTILE_ABOUT "a test plug-in that reads an array once"
#endif

/* A categorical axis named wrongly: one name short of its range, or a
 * name the command line cannot write. */
#if defined(HOSTILE_NAMES_SHORT)
static const char *const value_names[] = { "small", NULL };
#define VALUE_NAMES   value_names
#define AXIS_MAX      1025
#define AXIS_DEFAULTS "1024"
#elif defined(HOSTILE_NAMES_BAD)
static const char *const value_names[] = { "small", "not-a-name", NULL };
#define VALUE_NAMES   value_names
#define AXIS_MAX      1025
#define AXIS_DEFAULTS "1024"
/* A range that holds -1, SW_AXIS_UNUSED, the value of an axis a variant
 * does not use (issue 36 cause 7): named, or a plain number. */
#elif defined(HOSTILE_UNUSED_NAMED)
static const char *const value_names[] = { "auto", "off", "on", NULL };
#define VALUE_NAMES   value_names
#define AXIS_MIN      (-1)
#define AXIS_MAX      1
#define AXIS_DEFAULTS "off"
#elif defined(HOSTILE_UNUSED_RANGE)
#define VALUE_NAMES NULL
#define AXIS_MIN    (-4)
#define AXIS_MAX    (INT64_C(1) << 20)
#else
#define VALUE_NAMES NULL
#define AXIS_MAX    (INT64_C(1) << 20)
#endif
#ifndef AXIS_MIN
#define AXIS_MIN 1024
#endif
#ifndef AXIS_DEFAULTS
#define AXIS_DEFAULTS "1K,2K,3K,4K"
#endif
static const struct sw_axis_def axes[] = {
	{ HOSTILE_AXIS_NAME,
	  HOSTILE_AXIS_UNITS,
	  AXIS_MIN,
	  AXIS_MAX,
	  AXIS_DEFAULTS,
	  "elements read",
	  { 0, 0 },
	  VALUE_NAMES },
};

/* More named accesses than SW_MAX_ACCESSES, or a request of an access the
 * variant does not name (the model refuses the point). */
#ifdef HOSTILE_MANY_ACCESSES
static const char *const accesses[] = {
	"a0", "a1",  "a2",  "a3",  "a4",  "a5",  "a6",  "a7",  "a8",
	"a9", "a10", "a11", "a12", "a13", "a14", "a15", "a16", NULL
};
#define ACCESSES accesses
#else
static const char *const accesses[] = { "data", NULL };
#define ACCESSES accesses
#endif

/* Room after the one real variant, all zeros: a count past the table reads
 * a variant with no name and no launch. */
static const struct sw_variant variants[4] = {
	{ HOSTILE_VARIANT_NAME, "reads every element once", launch, requests, 1u, 0, ACCESSES },
};

#ifdef HOSTILE_VARIANTS_PAST
#define N_VARIANTS 2 /* one more than the table holds */
#elif defined(HOSTILE_MANY_VARIANTS)
#define N_VARIANTS 1000000
#else
#define N_VARIANTS 1
#endif
#ifdef HOSTILE_MANY_AXES
#define N_AXES 9
#else
#define N_AXES 1
#endif
#ifdef HOSTILE_NAME_GARBAGE
#define NAME ((const char *)(uintptr_t)0x1000) /* no page is mapped there */
#else
#define NAME HOSTILE_NAME
#endif
#ifdef HOSTILE_HOOK_DATA
static const char not_code[] = "data, not code";
#define SIZES ((void (*)(const struct sw_point *, struct sw_sizes *))(uintptr_t)not_code)
#else
#define SIZES sizes
#endif

static const struct sw_family hostile __attribute__((unused)) = {
	.name = NAME,
	.about = HOSTILE_ABOUT,
	.axes = axes,
	.n_axes = N_AXES,
	.variants = variants,
	.n_variants = N_VARIANTS,
	.sizes = SIZES,
	.refuse = refuse,
	.useful_bytes = useful_bytes,
	.flops = flops,
	.shape = SHAPE,
	.check = CHECK,
#ifndef HOSTILE_API2
	.reference = REFERENCE,
#endif
#ifdef HOSTILE_API2
	/* past an API 2 descriptor's end: sweep must neither read nor call it */
	.reference = (const char *(*)(const struct sw_point *, struct sw_host_buffers *))(
		uintptr_t)0x1000,
#endif
};

#ifdef HOSTILE_API2
/* Built as a plug-in of family API 2 says it is: the descriptor's bytes
 * end before `reference` (SW_FAMILY_BYTES_API2). */
static const struct sw_family *const api2_families[] = { &hostile };
SW_PLUGIN_EXPORT const struct sw_plugin sweep_plugin = {
	2,
	SW_FAMILY_BYTES_API2,
	1,
	api2_families,
};
#elif defined(HOSTILE_FAMILIES_GARBAGE)
/* A list pointer that points nowhere: written out, as SW_PLUGIN never would. */
SW_PLUGIN_EXPORT const struct sw_plugin sweep_plugin = {
	SW_API_VERSION,
	(int)sizeof(struct sw_family),
	1,
	(const struct sw_family *const *)(uintptr_t)0x1000,
};
#else
SW_PLUGIN(hostile);
#endif
