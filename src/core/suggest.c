/*
 * Edit-distance suggestions (suggest.h). Two rows of the dynamic programme
 * on the stack: names are short, and a chip's metric list is a few thousand
 * of them, so a quadratic distance per candidate is cheap enough.
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */

#include "core/suggest.h"

#include <stdio.h>
#include <string.h>

size_t sw_suggest_distance(const char *a, const char *b)
{
	size_t row[2][SW_SUGGEST_MAX_LEN + 1];
	size_t la = strnlen(a, SW_SUGGEST_MAX_LEN), lb = strnlen(b, SW_SUGGEST_MAX_LEN);

	for (size_t j = 0; j <= lb; j++)
		row[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *prev = row[(i - 1) & 1], *cur = row[i & 1];

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? sub : del;
			if (ins < cur[j])
				cur[j] = ins;
		}
	}
	return row[la & 1][lb];
}

int sw_suggest_nearest(const char *word, const char *const *cands, int n, int *best, int max)
{
	size_t limit = strnlen(word, SW_SUGGEST_MAX_LEN) / 3, dist[16];
	int found = 0;

	if (limit < 2)
		limit = 2;
	if (max > (int)(sizeof dist / sizeof dist[0]))
		max = (int)(sizeof dist / sizeof dist[0]);
	for (int i = 0; i < n && max > 0; i++) {
		if (!cands[i])
			continue;
		size_t d = sw_suggest_distance(word, cands[i]);
		int at = found;

		if (d > limit)
			continue;
		/* insertion into the sorted few; a later equal one goes after */
		while (at > 0 && dist[at - 1] > d)
			at--;
		if (at >= max)
			continue;
		if (found < max)
			found++;
		memmove(&dist[at + 1], &dist[at], (size_t)(found - 1 - at) * sizeof dist[0]);
		memmove(&best[at + 1], &best[at], (size_t)(found - 1 - at) * sizeof best[0]);
		dist[at] = d;
		best[at] = i;
	}
	return found;
}

void sw_suggest_text(const char *word, const char *const *cands, int n, char *buf, size_t len)
{
	int best[3], k = sw_suggest_nearest(word, cands, n, best, 3);
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < k && used < len; i++) {
		const char *sep = i == 0 ? "" : i == k - 1 ? " or " : ", ";
		int w = snprintf(buf + used, len - used, "%s%s", sep, cands[best[i]]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}
