/*
 * What every family's CPU suite does alike, so that a suite holds only what
 * is its family's own (the outputs it builds independently, the cases that
 * matter for that family): the family and its points by name, the family's
 * check run on such an output, what a passing and a failing check look like,
 * a point's buffers, the model's figures, and running the suite. Every
 * helper asserts with check's ck_assert, so a failure fails the calling test.
 */
#ifndef SW_FAMILY_SCAFFOLD_H
#define SW_FAMILY_SCAFFOLD_H

#include <stddef.h>
#include <stdint.h>

#include <check.h>

#include "kernel.h"
#include "model/model.h"

/* A family under test and how its check is fed. */
struct sw_ftest {
	const char *family;   /* registry name */
	int out;              /* the buffer index of the output the check reads */
	uint64_t sample_seed; /* which elements a sampled check picks */
};

/* The family, asserted registered. */
const struct sw_family *sw_ftest_family(const struct sw_ftest *t);

/* The index of variant name, asserted to exist. */
int sw_ftest_variant(const struct sw_ftest *t, const char *name);

/* A point of variant name (asserted to exist) with the axis values that
 * follow, in the family's axis order. */
#define SW_FTEST_POINT(t, name, ...)                                                               \
	((struct sw_point){ .variant = sw_ftest_variant(t, name), .axis = { __VA_ARGS__ } })

/* The family's check of p on out, bytes long, the input drawn from seed. */
struct sw_check sw_ftest_check(const struct sw_ftest *t, const struct sw_point *p, const void *out,
			       size_t bytes, uint64_t seed);

/* The check of p on out passes, in mode, comparing `checked` elements;
 * returned for the suite's own asserts (max_rel_err). */
struct sw_check sw_ftest_passes(const struct sw_ftest *t, const struct sw_point *p, const void *out,
				size_t bytes, uint64_t seed, enum sw_check_mode mode,
				uint64_t checked);

/* The check of p on out fails, and its message holds what (unless NULL). */
void sw_ftest_fails(const struct sw_ftest *t, const struct sw_point *p, const void *out,
		    size_t bytes, uint64_t seed, const char *what);

/* The check of p finds element i of out set to wrong, its message holding
 * what; out[i] is as it was afterwards. For float and for uint32_t outputs. */
void sw_ftest_finds(const struct sw_ftest *t, const struct sw_point *p, float *out, size_t bytes,
		    uint64_t seed, size_t i, float wrong, const char *what);
void sw_ftest_finds_u32(const struct sw_ftest *t, const struct sw_point *p, uint32_t *out,
			size_t bytes, uint64_t seed, size_t i, uint32_t wrong, const char *what);
/* The same for double outputs (elem_bytes 8). */
void sw_ftest_finds_f64(const struct sw_ftest *t, const struct sw_point *p, double *out,
			size_t bytes, uint64_t seed, size_t i, double wrong, const char *what);

/* A sum-per-thread output of n_out threads in floats (elem_bytes 4) or
 * doubles (8), zeroed, for a suite to add the elements each thread reads;
 * sw_ftest_add adds input value v to thread t's sum in the type's own
 * precision, as the kernel does. Free with free(). */
void *sw_ftest_sums(size_t n_out, unsigned elem_bytes);
void sw_ftest_add(void *out, unsigned elem_bytes, size_t t, double v);
/* Element i of such an output, widened. */
double sw_ftest_get(const void *out, unsigned elem_bytes, size_t i);

/* The check of p passes on out, a sums output of n_out threads of elem_bytes,
 * compares `checked` threads in mode, and fails when thread i is off by 0.5
 * or the input came from another seed. */
void sw_ftest_sums_checked(const struct sw_ftest *t, const struct sw_point *p, void *out,
			   size_t n_out, unsigned elem_bytes, uint64_t seed,
			   enum sw_check_mode mode, uint64_t checked, size_t i);

/* The buffers p needs: n_buffers, the first n_inputs of them inputs;
 * returned for the suite's asserts on their bytes. */
struct sw_sizes sw_ftest_sizes(const struct sw_ftest *t, const struct sw_point *p, int n_buffers,
			       int n_inputs);

/* The model's figures for p on CC cc, asserted to evaluate. */
struct sw_model_figures sw_ftest_model(const struct sw_ftest *t, const struct sw_point *p, int cc);

/* The block axis of a family whose block only reshapes the launch: for p
 * (its block at the baseline 0), every power-of-two block of 32 to 1024
 * threads that divides `total` (0: any) runs, needs the same buffers, is
 * modelled as the variant's own launch is, and, when out is given (bytes
 * long, input from seed), passes the same check; 48 threads (not whole
 * warps) are refused, and so are 96 where total is a power of two. */
void sw_ftest_block_reshapes(const struct sw_ftest *t, struct sw_point p, uint64_t total,
			     const void *out, size_t bytes, uint64_t seed);

/* Runs the n tests as one case (60 s each) of one suite; main's exit status. */
int sw_ftest_run(const char *suite, const char *tcase, const TTest *const *tests, int n);

#endif
