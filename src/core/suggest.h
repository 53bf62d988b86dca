/*
 * "Did you mean": the candidates nearest to a mistyped name by edit
 * distance, for messages that refuse an unknown family or metric. Pure: no
 * allocation, never prints.
 */
#ifndef SW_SUGGEST_H
#define SW_SUGGEST_H

#include <stddef.h>

/* Longest name compared in full; longer names are compared by this prefix. */
#define SW_SUGGEST_MAX_LEN 255

/* Levenshtein distance of a and b (insertions, deletions, substitutions,
 * each costing 1), over their first SW_SUGGEST_MAX_LEN bytes. */
size_t sw_suggest_distance(const char *a, const char *b);

/* The indices of at most max of the n candidates nearest to word, closest
 * first, ties in candidate order, into best; returns how many. Only
 * candidates within a third of word's length (at least 2) count, so a
 * name that resembles nothing gets no suggestion. NULL candidates are
 * skipped. */
int sw_suggest_nearest(const char *word, const char *const *cands, int n, int *best, int max);

/* "a, b or c": the (up to 3) nearest candidates into buf, or "" when none
 * is near. Always NUL-terminates buf (len > 0). */
void sw_suggest_text(const char *word, const char *const *cands, int n, char *buf, size_t len);

#endif
