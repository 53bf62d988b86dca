/* SW_TEST_FAULT's grammar (faults.h). */
#include "core/faults.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *token, *name;
} stages[SW_STAGE_COUNT] = {
	[SW_STAGE_JOB] = { "job", "job" },
	[SW_STAGE_BIND] = { "bind", "binding" },
	[SW_STAGE_OPEN] = { "open", "opening the output" },
	[SW_STAGE_FIRST] = { "first", "first point" },
	[SW_STAGE_LAST] = { "last", "last point" },
	[SW_STAGE_CLOSE] = { "close", "closing the output" },
};

const char *sw_stage_name(enum sw_stage s)
{
	return s >= 0 && s < SW_STAGE_COUNT ? stages[s].name : "?";
}

void sw_faults_parse(const char *text, struct sw_faults *f)
{
	memset(f, 0, sizeof *f);
	f->stage = f->stage_rank = -1;
	f->enospc_rows = -1;
	f->agree_mpi_rank = -1;
	unsigned long long id;
	long long rows;
	int rank;
	if (!text)
		return;
	if (sscanf(text, "agree-mpi:%d", &rank) == 1 && rank >= 0) {
		f->agree_mpi_rank = rank;
		return;
	}
	if (strncmp(text, "publish-wait:", 13) == 0 && text[13]) {
		f->publish_wait = text + 13;
		return;
	}
	if (strncmp(text, "close-wait:", 11) == 0 && text[11]) {
		f->close_wait = text + 11;
		return;
	}
	if (strncmp(text, "full:", 5) == 0 && text[5]) {
		f->full_at = text + 5;
		return;
	}
	if (sscanf(text, "enospc:%lld", &rows) == 1 && rows >= 0) {
		f->enospc_rows = rows;
		return;
	}
	int end = 0;
	if (sscanf(text, "dead:%llx%n", &id, &end) == 1) {
		f->dead = 1;
		f->dead_id = id;
		if (text[end] == ':' && text[end + 1])
			f->hold_rank0 = text + end + 1;
		return;
	}
	if (strncmp(text, "stage:", 6) != 0)
		return;
	const char *name = text + 6, *at = strchr(name, '@');
	size_t len = at ? (size_t)(at - name) : strlen(name);
	for (int s = 0; s < SW_STAGE_COUNT; s++)
		if (strlen(stages[s].token) == len && strncmp(stages[s].token, name, len) == 0)
			f->stage = s;
	if (f->stage >= 0 && at)
		f->stage_rank = atoi(at + 1);
}

int sw_fault_at(const struct sw_faults *f, enum sw_stage s, int rank)
{
	return f->stage == (int)s && (f->stage_rank < 0 || f->stage_rank == rank);
}
