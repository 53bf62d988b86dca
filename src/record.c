/* Blank records and the mapping of family axes onto the union of columns. */
#include "record.h"

#include <math.h>
#include <string.h>

#include "kernel.h"

void sw_record_init(struct sw_record *r)
{
	memset(r, 0, sizeof *r);
	for (int c = 0; c < SW_MAX_AXIS_COLUMNS; c++)
		r->axis[c] = -1;
	strcpy(r->check_mode, "none");
	r->max_rel_err = NAN;
	r->median_ns = r->min_ns = r->mean_ns = r->stddev_ns = r->rse = NAN;
	r->useful_bytes = r->flops = r->gbps = r->gflops = NAN;
	r->model_requests = r->model_sectors_per_request = NAN;
	r->model_transactions_per_request = r->model_conflict_degree = NAN;
	r->model_moved_bytes = r->model_efficiency = r->model_time_bound_ns = NAN;
	r->model_ld_requests = r->model_ld_transactions = NAN;
	r->model_st_requests = r->model_st_transactions = NAN;
	r->model_shared_ld_requests = r->model_shared_ld_wavefronts = NAN;
	r->model_shared_ld_conflicts = NAN;
	sw_record_no_counters(r);
}

void sw_record_no_counters(struct sw_record *r)
{
	r->counter_passes = 0;
	r->ctr_ld_requests = r->ctr_ld_sectors = r->ctr_st_requests = r->ctr_st_sectors = NAN;
	r->ctr_shared_ld_requests = r->ctr_shared_ld_wavefronts = r->ctr_shared_ld_conflicts = NAN;
	r->ctr_shared_st_requests = r->ctr_shared_st_wavefronts = r->ctr_shared_st_conflicts = NAN;
	r->ctr_dram_read_bytes = r->ctr_dram_write_bytes = NAN;
}

/* Recomputed on each call: a few dozen string compares, and no global state. */
static int collect_columns(const char **columns)
{
	int n = 0;
	for (int f = 0; f < sw_n_families; f++)
		for (int a = 0; a < sw_families[f]->n_axes; a++) {
			const char *name = sw_families[f]->axes[a].name;
			int seen = 0;
			for (int c = 0; c < n; c++)
				seen |= strcmp(columns[c], name) == 0;
			if (!seen && n < SW_MAX_AXIS_COLUMNS)
				columns[n++] = name;
		}
	return n;
}

int sw_axis_column_count(void)
{
	const char *columns[SW_MAX_AXIS_COLUMNS];
	return collect_columns(columns);
}

const char *sw_axis_column_name(int c)
{
	const char *columns[SW_MAX_AXIS_COLUMNS];
	int n = collect_columns(columns);
	return c >= 0 && c < n ? columns[c] : NULL;
}

int sw_axis_column_of(int family, int axis)
{
	const char *columns[SW_MAX_AXIS_COLUMNS];
	int n = collect_columns(columns);
	const char *name = sw_families[family]->axes[axis].name;
	for (int c = 0; c < n; c++)
		if (strcmp(columns[c], name) == 0)
			return c;
	return -1;
}
