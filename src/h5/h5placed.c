/*
 * Where the rows of a file ran (h5out.h, sw_h5_read_placed): each row's
 * point, rank and session, and the /devices rows that say which GPU and
 * class a rank of a session was, so a resume under a placement knows which
 * pairs (point, GPU) or (point, class) the file holds.
 */
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "h5/h5internal.h"
#include "h5/h5out.h"

void sw_h5_placed_fini(struct sw_h5_placed *p)
{
	free(p->point_id);
	free(p->rank);
	free(p->session);
	free(p->devices);
	memset(p, 0, sizeof *p);
}

static enum sw_status read_devices(struct sw_h5 *h, struct sw_h5_placed *p, struct sw_err *err)
{
	p->devices = calloc(h->n_dev ? h->n_dev : 1, sizeof *p->devices);
	if (!p->devices)
		return sw_fail(err, SW_ENOMEM, "no memory for %llu device rows",
			       (unsigned long long)h->n_dev);
	p->n_devices = h->n_dev;
	if (h->n_dev &&
	    H5Dread(h->devices, h->dev_mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, p->devices) < 0)
		return sw_h5_fail(err, SW_EHDF5, "%s: cannot read /devices", h->path);
	return SW_OK;
}

/* Drops the rows never written (fill rows) and, where bad is not NULL,
 * the damaged ones it sets, keeping the order. */
static void drop_rows(struct sw_h5_placed *p, const uint8_t *bad)
{
	size_t k = 0;
	for (size_t i = 0; i < p->n_rows; i++)
		if (p->point_id[i] != FILL_POINT_ID && !(bad && bad[i])) {
			p->point_id[k] = p->point_id[i];
			p->rank[k] = p->rank[i];
			p->session[k++] = p->session[i];
		}
	p->n_rows = k;
}

enum sw_status sw_h5_read_placed(struct sw_h5 *h, struct sw_h5_placed *p, struct sw_err *err)
{
	return sw_h5_read_placed_kept(h, NULL, p, err);
}

enum sw_status sw_h5_read_placed_kept(struct sw_h5 *h, const uint8_t *bad, struct sw_h5_placed *p,
				      struct sw_err *err)
{
	enum sw_status st;
	size_t n = h->n_meas ? h->n_meas : 1;

	memset(p, 0, sizeof *p);
	p->point_id = malloc(n * sizeof *p->point_id);
	p->rank = malloc(n * sizeof *p->rank);
	p->session = malloc(n * sizeof *p->session);
	if (!p->point_id || !p->rank || !p->session) {
		sw_h5_placed_fini(p);
		return sw_fail(err, SW_ENOMEM, "no memory for %llu rows",
			       (unsigned long long)h->n_meas);
	}
	p->n_rows = h->n_meas;
	st = read_devices(h, p, err);
	if (st == SW_OK && h->n_meas)
		st = sw_h5_read_column(h->measurements, "measurements", "point_id",
				       H5T_NATIVE_UINT64, h->n_meas, p->point_id, err);
	if (st == SW_OK && h->n_meas)
		st = sw_h5_read_column(h->measurements, "measurements", "rank", H5T_NATIVE_INT32,
				       h->n_meas, p->rank, err);
	if (st == SW_OK && h->n_meas)
		st = sw_h5_read_column(h->measurements, "measurements", "session", H5T_NATIVE_INT32,
				       h->n_meas, p->session, err);
	if (st != SW_OK) {
		sw_h5_placed_fini(p);
		return sw_wrap(err, "%s", h->path);
	}
	drop_rows(p, bad);
	return SW_OK;
}
