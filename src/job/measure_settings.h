/*
 * The measure settings, the keys of a job file's `measure:` section, in the
 * order messages list them: the one list from which struct sw_measure_cfg,
 * its defaults, the YAML reading with its range errors and resume's
 * comparison are all made (measure_cfg.h, measure_cfg.c).
 * docs/job-format.md's `measure` table describes each, in this order;
 * test_measure_cfg fails when it names one the list lacks, misses one, or
 * gives another type, default or range. Include it with the entries you need defined; it defines the
 * others, then undefines all:
 *
 *   X_REAL(name, units, dflt, lo, lo_open, hi, hi_open, help)
 *       a double from lo to hi, an end left out when its _open is 1;
 *       units NULL or "seconds"
 *   X_INT(name, dflt, lo, hi, help)
 *       an int from lo to hi
 *   X_WORD(name, type, dflt, words, help)
 *       an enum `type` written as one of words ("a b c", in the enum's
 *       order); dflt is an enum constant
 */
#ifndef X_REAL
#define X_REAL(name, units, dflt, lo, lo_open, hi, hi_open, help)
#endif
#ifndef X_INT
#define X_INT(name, dflt, lo, hi, help)
#endif
#ifndef X_WORD
#define X_WORD(name, type, dflt, words, help)
#endif

X_REAL(rse_target, NULL, 0.005, 0, 1, 1, 1,
       "stop sampling a point when the relative standard error of its mean is below this")
X_REAL(time_cap_s, "seconds", 1.0, 0, 1, 3600, 0,
       "timed GPU time per point before sampling stops, once it has 3 samples")
X_REAL(min_sample_s, "seconds", 20e-6, 0, 0, 1, 0,
       "batch launches so that one sample lasts at least this long")
X_INT(min_samples, 10, 1, SW_MAX_SAMPLES, "take at least this many timed samples")
X_INT(max_samples, 200, 1, SW_MAX_SAMPLES, "never take more; not below min_samples")
X_INT(warmup, 2, 0, 1000, "untimed launches before the first sample")
X_WORD(flush_l2, enum sw_flush_l2, SW_FLUSH_AUTO, "auto always never",
       "flush L2 before each sample; auto: when the working set could fit in L2")
X_WORD(flush_method, enum sw_flush_method, SW_FLUSH_BY_READ, "read memset",
       "how L2 is flushed: read a buffer twice its size, or memset it (to measure that bias)")

#undef X_REAL
#undef X_INT
#undef X_WORD
