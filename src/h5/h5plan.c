/*
 * The plan in the file and the rows that are not of it (docs/hdf5-schema.md,
 * "/plan" and "Damaged rows"). /plan (schema 7 on) holds one row per plan
 * point, its id, family and variant, so that a reader without the job (the
 * analysis tools) can tell a row of the plan from a damaged one; sweep
 * writes it at creation and on --extend, and a --resume rewrites it when it
 * is not the plan's. /plan is checked itself before it judges (each point
 * once, none empty, plan_points of them): a damaged one judges nothing. A row of /measurements is damaged when its point is
 * no point of the plan, its family or variant are not that point's (an
 * all-zero row: point 0, no family), or its status is none sweep writes.
 * A resume leaves such rows out of what the file holds, so their points run
 * again, and marks them (point_id the fill value, status -2) so that no
 * reader takes them for measurements. It does not judge the measurements.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "h5/h5internal.h"
#include "job/plan.h"

#define PLAN_CHUNK_ROWS 4096
#define BLOCK_ROWS      65536 /* rows read or written at a time */

static const char plan_about[] =
	"One row per point of the file's plan (the job's families x variants x axis "
	"values, and model targets): its point_id, family and variant. A row of "
	"/measurements whose point is not here, or whose family or variant differ, "
	"is damaged.";

/* A /plan row, in memory as in the file. */
struct plan_row {
	uint64_t point_id;
	char family[SW_TEXT_LEN];
	char variant[SW_TEXT_LEN];
};

#define PCOL(field, kind)                                                                          \
	{                                                                                          \
#field, offsetof(struct plan_row, field), sizeof(((struct plan_row *)0)->field),   \
			kind, NULL                                                                 \
	}
static const struct sw_column plan_columns[] = {
	PCOL(point_id, SW_COL_U64),
	PCOL(family, SW_COL_TEXT),
	PCOL(variant, SW_COL_TEXT),
};
#undef PCOL
#define N_PLAN_COLS (sizeof plan_columns / sizeof plan_columns[0])

/* The columns of /measurements a damage check reads. */
struct meas_row {
	uint64_t point_id;
	int32_t status;
	char family[SW_TEXT_LEN];
	char variant[SW_TEXT_LEN];
};

uint64_t sw_h5_plan_room(size_t n_points)
{
	uint64_t chunks = (n_points + PLAN_CHUNK_ROWS - 1) / PLAN_CHUNK_ROWS;

	return chunks * PLAN_CHUNK_ROWS * sizeof(struct plan_row);
}

/* ---- the plan as rows ---------------------------------------------------- */

static void plan_row_of(const struct sw_plan_point *pt, struct plan_row *r)
{
	const struct sw_family *f = sw_family_at(pt->family);
	memset(r, 0, sizeof *r);
	r->point_id = pt->id;
	snprintf(r->family, sizeof r->family, "%s", f->name);
	snprintf(r->variant, sizeof r->variant, "%s", f->variants[pt->p.variant].name);
}

static int by_id(const void *a, const void *b)
{
	return sw_h5_cmp_u64(&((const struct plan_row *)a)->point_id,
			     &((const struct plan_row *)b)->point_id);
}

/* What rows are checked against: plan rows sorted by id. */
struct ref {
	struct plan_row *rows;
	size_t n;
	/* --extend of a file without /plan: a point outside rows is judged
	 * by its names alone (a registered family with that variant is a
	 * point the new job dropped, which --extend refuses as such) */
	int names_only_outside;
};

static enum sw_status ref_from_plan(const struct sw_plan *plan, struct ref *ref, struct sw_err *err)
{
	ref->rows = malloc((plan->n ? plan->n : 1) * sizeof *ref->rows);
	ref->n = plan->n;
	if (!ref->rows)
		return sw_fail(err, SW_ENOMEM, "no memory for the %zu points of the plan", plan->n);
	for (size_t i = 0; i < plan->n; i++)
		plan_row_of(&plan->points[i], &ref->rows[i]);
	qsort(ref->rows, ref->n, sizeof *ref->rows, by_id);
	return SW_OK;
}

/* The /plan rows, or SW_EINVAL when /plan cannot be read as sweep writes it. */
static enum sw_status read_plan(hid_t dset, struct ref *ref, const char *path, struct sw_err *err)
{
	hid_t space = H5Dget_space(dset), mtype;
	hsize_t n = 0;
	enum sw_status st = SW_OK;

	if (space < 0 || H5Sget_simple_extent_ndims(space) != 1 ||
	    H5Sget_simple_extent_dims(space, &n, NULL) < 0)
		st = sw_fail(err, SW_EINVAL, "%s: /plan is not a table", path);
	if (space >= 0)
		H5Sclose(space);
	if (st)
		return st;
	ref->rows = calloc(n ? n : 1, sizeof *ref->rows);
	ref->n = (size_t)n;
	if (!ref->rows)
		return sw_fail(err, SW_ENOMEM, "no memory for the %llu rows of /plan",
			       (unsigned long long)n);
	mtype = sw_h5_table_type(plan_columns, N_PLAN_COLS, sizeof(struct plan_row), 0, err);
	if (mtype < 0)
		return err ? err->status : SW_EHDF5;
	if (n && H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, ref->rows) < 0)
		st = sw_h5_fail(err, SW_EINVAL, "%s: cannot read /plan", path);
	H5Tclose(mtype);
	for (size_t i = 0; i < ref->n; i++) /* a damaged /plan may hold no NUL */
		ref->rows[i].family[SW_TEXT_LEN - 1] = ref->rows[i].variant[SW_TEXT_LEN - 1] = '\0';
	qsort(ref->rows, ref->n, sizeof *ref->rows, by_id);
	return st;
}

/* 1: the file's schema has /plan (7 on). */
static int has_plan_schema(hid_t file)
{
	int schema = 0;
	return sw_h5_get_attr(file, "schema_version", H5T_NATIVE_INT, &schema) == 1 && schema >= 7;
}

/* Why /plan cannot tell damaged rows, into why; 0 when it can: no row
 * empty, each point once, and as many rows as the file's plan_points. A
 * /plan with a point twice lacks another, whose good rows it would call
 * damaged, so it is checked itself before it judges. ref sorted by id. */
static int plan_damaged(hid_t file, const struct ref *ref, char *why, size_t len)
{
	uint64_t points = 0;
	size_t empty = 0;

	for (size_t i = 0; i < ref->n; i++)
		empty += ref->rows[i].point_id == FILL_POINT_ID || !ref->rows[i].family[0] ||
			 !ref->rows[i].variant[0];
	if (empty) {
		snprintf(why, len, "%zu of its rows %s empty", empty, empty == 1 ? "is" : "are");
		return 1;
	}
	for (size_t i = 1; i < ref->n; i++)
		if (ref->rows[i].point_id == ref->rows[i - 1].point_id) {
			snprintf(why, len, "point %016" PRIx64 " is in it twice",
				 ref->rows[i].point_id);
			return 1;
		}
	if (sw_h5_get_attr(file, "plan_points", H5T_NATIVE_UINT64, &points) != 1 ||
	    points != ref->n) {
		snprintf(why, len, "it has %zu rows, plan_points says %" PRIu64, ref->n, points);
		return 1;
	}
	return 0;
}

/* ---- /plan written --------------------------------------------------------- */

/* /plan, opened, or made empty; a /plan of another layout goes first. */
static hid_t open_plan(struct sw_h5 *h, hid_t mtype, struct sw_err *err)
{
	htri_t exists = H5Lexists(h->file, "plan", H5P_DEFAULT);
	hid_t dset = H5I_INVALID_HID;
	struct sw_err why = { 0 };

	if (exists > 0 && (dset = H5Dopen2(h->file, "plan", H5P_DEFAULT)) >= 0 &&
	    sw_h5_check_layout(dset, h->path, "plan", &why) == SW_OK &&
	    sw_h5_check_columns(dset, h->path, "plan", plan_columns, N_PLAN_COLS, 0, &why) == SW_OK)
		return dset;
	if (dset >= 0)
		H5Dclose(dset);
	if (exists > 0 && H5Ldelete(h->file, "plan", H5P_DEFAULT) < 0) {
		sw_h5_fail(err, SW_EHDF5, "%s: cannot remove a damaged /plan", h->path);
		return H5I_INVALID_HID;
	}
	const struct plan_row none = { .point_id = FILL_POINT_ID };
	const struct sw_h5_table t = {
		"plan", plan_about, plan_columns, N_PLAN_COLS, PLAN_CHUNK_ROWS, mtype, &none,
	};
	return sw_h5_create_table(h->file, &t, err);
}

static enum sw_status write_rows(hid_t dset, hid_t mtype, const struct sw_plan *plan,
				 struct sw_err *err)
{
	hsize_t n = plan->n, at = 0;
	struct plan_row *buf = malloc(BLOCK_ROWS * sizeof *buf);
	enum sw_status st = SW_OK;

	if (!buf)
		return sw_fail(err, SW_ENOMEM, "no memory for /plan");
	if (H5Dset_extent(dset, &n) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "cannot size /plan to %llu rows",
				(unsigned long long)n);
	while (st == SW_OK && at < n) {
		hsize_t k = n - at < BLOCK_ROWS ? n - at : BLOCK_ROWS;
		hid_t space = H5Dget_space(dset), mem = H5Screate_simple(1, &k, NULL);
		for (hsize_t i = 0; i < k; i++)
			plan_row_of(&plan->points[at + i], &buf[i]);
		if (space < 0 || mem < 0 ||
		    H5Sselect_hyperslab(space, H5S_SELECT_SET, &at, NULL, &k, NULL) < 0 ||
		    H5Dwrite(dset, mtype, mem, space, H5P_DEFAULT, buf) < 0)
			st = sw_h5_fail(err, SW_EHDF5, "cannot write /plan");
		if (mem >= 0)
			H5Sclose(mem);
		if (space >= 0)
			H5Sclose(space);
		at += k;
	}
	free(buf);
	return st;
}

enum sw_status sw_h5_write_plan(struct sw_h5 *h, const struct sw_plan *plan, struct sw_err *err)
{
	hid_t mtype = sw_h5_table_type(plan_columns, N_PLAN_COLS, sizeof(struct plan_row), 0, err);
	enum sw_status st;
	hid_t dset;

	if (mtype < 0)
		return sw_wrap(err, "cannot build the /plan type");
	dset = open_plan(h, mtype, err);
	st = dset < 0 ? (err ? err->status : SW_EHDF5) : write_rows(dset, mtype, plan, err);
	if (dset >= 0)
		H5Dclose(dset);
	H5Tclose(mtype);
	return st ? sw_wrap(err, "%s", h->path) : SW_OK;
}

/* 1: /plan holds exactly the plan's rows (in any order). Otherwise, where
 * /plan is damaged in itself, why says how (plan_damaged); else "". */
static int plan_is(hid_t file, const struct sw_plan *plan, char *why, size_t len)
{
	struct ref in_file = { 0 };
	struct sw_err ignored = { 0 };
	hid_t dset = H5Lexists(file, "plan", H5P_DEFAULT) > 0 ? H5Dopen2(file, "plan", H5P_DEFAULT)
							      : H5I_INVALID_HID;
	int same = 0;

	why[0] = '\0';
	if (dset >= 0 &&
	    sw_h5_check_columns(dset, "", "plan", plan_columns, N_PLAN_COLS, 0, &ignored) ==
		    SW_OK &&
	    read_plan(dset, &in_file, "", &ignored) == SW_OK &&
	    !plan_damaged(file, &in_file, why, len) && in_file.n == plan->n) {
		struct ref want = { 0 };
		same = ref_from_plan(plan, &want, &ignored) == SW_OK;
		for (size_t i = 0; same && i < plan->n; i++) /* both sorted by id */
			same = !memcmp(&want.rows[i], &in_file.rows[i], sizeof want.rows[i]);
		free(want.rows);
	}
	free(in_file.rows);
	if (dset >= 0)
		H5Dclose(dset);
	return same;
}

/* ---- damaged rows ----------------------------------------------------------- */

static const struct plan_row *find(const struct ref *ref, uint64_t id)
{
	struct plan_row key = { .point_id = id };
	return ref->rows ? bsearch(&key, ref->rows, ref->n, sizeof key, by_id) : NULL;
}

/* 1: a registered family has this variant. */
static int registered(const char *family, const char *variant)
{
	const struct sw_family *f = family[0] ? sw_family_find(family) : NULL;
	for (int v = 0; f && v < f->n_variants; v++)
		if (!strcmp(f->variants[v].name, variant))
			return 1;
	return 0;
}

/* Why row r is damaged, into why; 0 when it is not. */
static int damaged(const struct meas_row *r, const struct ref *ref, char *why, size_t len)
{
	const struct plan_row *p;

	if (r->status < SW_ROW_OK || r->status > SW_ROW_FAILED) {
		snprintf(why, len, "its status %d is none sweep writes", (int)r->status);
		return 1;
	}
	if (!r->family[0] || !r->variant[0]) {
		snprintf(why, len, "its %s is empty", r->family[0] ? "variant" : "family");
		return 1;
	}
	if (!ref->rows) /* no plan to judge by: the names are there */
		return 0;
	if (!(p = find(ref, r->point_id)) && ref->names_only_outside) {
		if (registered(r->family, r->variant))
			return 0;
		snprintf(why, len, "'%.31s/%.31s' is no family and variant of this sweep",
			 r->family, r->variant);
		return 1;
	}
	if (!p) {
		snprintf(why, len, "point %016" PRIx64 " is no point of the file's plan",
			 r->point_id);
		return 1;
	}
	if (strcmp(p->family, r->family) || strcmp(p->variant, r->variant)) {
		snprintf(why, len, "it says '%.31s/%.31s', point %016" PRIx64 " is %s/%s",
			 r->family, r->variant, r->point_id, p->family, p->variant);
		return 1;
	}
	return 0;
}

/* "16 to 31, 40, 52" of the first few runs of bad, at most len bytes. */
static void row_list(const uint8_t *bad, uint64_t n, char *out, size_t len)
{
	size_t used = 0;
	int runs = 0;

	out[0] = '\0';
	for (uint64_t i = 0; i < n && used < len; i++) {
		uint64_t j = i;
		if (!bad[i])
			continue;
		while (j + 1 < n && bad[j + 1])
			j++;
		if (runs++ == 4) {
			used += (size_t)snprintf(out + used, len - used, ", ...");
			break;
		}
		used += (size_t)snprintf(out + used, len - used,
					 runs > 1 ? ", %" PRIu64 : "%" PRIu64, i);
		if (j > i && used < len)
			used += (size_t)snprintf(out + used, len - used, " to %" PRIu64, j);
		i = j;
	}
}

/* Reads rows [at, at + k) of /measurements' checked columns into buf. */
static enum sw_status read_block(struct sw_h5 *h, hid_t mtype, hsize_t at, hsize_t k,
				 struct meas_row *buf, struct sw_err *err)
{
	hid_t space = H5Dget_space(h->measurements), mem = H5Screate_simple(1, &k, NULL);
	enum sw_status st = SW_OK;

	if (space < 0 || mem < 0 ||
	    H5Sselect_hyperslab(space, H5S_SELECT_SET, &at, NULL, &k, NULL) < 0 ||
	    H5Dread(h->measurements, mtype, mem, space, H5P_DEFAULT, buf) < 0)
		st = sw_h5_fail(err, SW_EHDF5, "%s: cannot read /measurements", h->path);
	if (mem >= 0)
		H5Sclose(mem);
	if (space >= 0)
		H5Sclose(space);
	for (hsize_t i = 0; i < k; i++) /* a damaged row may hold no NUL */
		buf[i].family[SW_TEXT_LEN - 1] = buf[i].variant[SW_TEXT_LEN - 1] = '\0';
	return st;
}

/* The memory type of struct meas_row, or with only point_id and status. */
static hid_t meas_type(int names, struct sw_err *err)
{
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct meas_row));
	hid_t s = names ? sw_h5_str_type(SW_TEXT_LEN, err) : H5I_INVALID_HID;
	int bad = t < 0 || (names && s < 0) ||
		  H5Tinsert(t, "point_id", offsetof(struct meas_row, point_id), H5T_NATIVE_UINT64) <
			  0 ||
		  H5Tinsert(t, "status", offsetof(struct meas_row, status), H5T_NATIVE_INT32) < 0;
	if (names && !bad)
		bad = H5Tinsert(t, "family", offsetof(struct meas_row, family), s) < 0 ||
		      H5Tinsert(t, "variant", offsetof(struct meas_row, variant), s) < 0;
	if (s >= 0)
		H5Tclose(s);
	if (bad && t >= 0) {
		H5Tclose(t);
		t = H5I_INVALID_HID;
	}
	if (t < 0)
		sw_h5_fail(err, SW_EHDF5, "cannot build the type of a damage check");
	return t;
}

/* Every row of /measurements against ref: bad[i] set for a damaged row. */
static enum sw_status scan(struct sw_h5 *h, const struct ref *ref, uint8_t *bad,
			   struct sw_h5_damage *dmg, struct sw_err *err)
{
	struct meas_row *buf = malloc(BLOCK_ROWS * sizeof *buf);
	hid_t mtype = meas_type(1, err);
	enum sw_status st = buf && mtype >= 0 ? SW_OK
			    : buf             ? (err ? err->status : SW_EHDF5)
				  : sw_fail(err, SW_ENOMEM, "no memory for a damage check");
	char why[160] = "";

	for (hsize_t at = 0; st == SW_OK && at < h->n_meas; at += BLOCK_ROWS) {
		hsize_t k = h->n_meas - at < BLOCK_ROWS ? h->n_meas - at : BLOCK_ROWS;
		if ((st = read_block(h, mtype, at, k, buf, err)) != SW_OK)
			break;
		for (hsize_t i = 0; i < k; i++) {
			char other[sizeof why], *say = dmg->rows ? other : why;
			if (buf[i].point_id == FILL_POINT_ID)
				continue; /* never written, or marked by an earlier resume */
			bad[at + i] = (uint8_t)damaged(&buf[i], ref, say, sizeof why);
			if (bad[at + i] && dmg->rows++ == 0)
				dmg->first_row = at + i;
		}
	}
	if (st == SW_OK && dmg->rows) {
		char rows[160];
		row_list(bad, h->n_meas, rows, sizeof rows);
		snprintf(dmg->note, sizeof dmg->note,
			 "%" PRIu64 " row%s of /measurements %s damaged (row%s %s; row %" PRIu64
			 ": %s)",
			 dmg->rows, dmg->rows == 1 ? "" : "s", dmg->rows == 1 ? "is" : "are",
			 dmg->rows == 1 ? "" : "s", rows, dmg->first_row, why);
	}
	if (mtype >= 0)
		H5Tclose(mtype);
	free(buf);
	return st;
}

/* What rows are judged by: the job's plan on a resume; on --extend the
 * file's own /plan, or, in a file without it or with a damaged one (said in
 * dmg->plan_damage), the new plan and, for points outside it, the
 * registry's names; without a plan, the names alone. */
static enum sw_status make_ref(struct sw_h5 *h, const struct sw_h5_meta *meta, struct ref *ref,
			       struct sw_h5_damage *dmg, struct sw_err *err)
{
	hid_t dset;
	enum sw_status st;

	memset(ref, 0, sizeof *ref);
	if (!meta->plan)
		return SW_OK;
	if (meta->mode != SW_SESSION_EXTEND || !has_plan_schema(h->file) ||
	    H5Lexists(h->file, "plan", H5P_DEFAULT) <= 0 ||
	    (dset = H5Dopen2(h->file, "plan", H5P_DEFAULT)) < 0) {
		ref->names_only_outside = meta->mode == SW_SESSION_EXTEND;
		return ref_from_plan(meta->plan, ref, err);
	}
	st = sw_h5_check_columns(dset, h->path, "plan", plan_columns, N_PLAN_COLS, 0, err);
	if (st == SW_OK)
		st = read_plan(dset, ref, h->path, err);
	H5Dclose(dset);
	if (st != SW_OK)
		return sw_wrap(err, "cannot extend: /plan, the file's own plan, is damaged");
	if (!plan_damaged(h->file, ref, dmg->plan_damage, sizeof dmg->plan_damage))
		return SW_OK;
	/* no row is dropped on the word of a /plan that is itself damaged */
	free(ref->rows);
	memset(ref, 0, sizeof *ref);
	ref->names_only_outside = 1;
	return ref_from_plan(meta->plan, ref, err);
}

enum sw_status sw_h5_find_damage(struct sw_h5 *h, const struct sw_h5_meta *meta, uint8_t **bad,
				 struct sw_h5_damage *dmg, struct sw_err *err)
{
	struct ref ref;
	enum sw_status st;

	memset(dmg, 0, sizeof *dmg);
	*bad = calloc(h->n_meas ? h->n_meas : 1, 1);
	if (!*bad)
		return sw_fail(err, SW_ENOMEM, "no memory for a damage check of %llu rows",
			       (unsigned long long)h->n_meas);
	st = make_ref(h, meta, &ref, dmg, err);
	if (st == SW_OK)
		st = scan(h, &ref, *bad, dmg, err);
	free(ref.rows);
	/* a resume keeps /plan the plan's; an --extend writes the new one */
	if (st == SW_OK && meta->plan && meta->mode != SW_SESSION_NEW && has_plan_schema(h->file)) {
		char why[sizeof dmg->plan_damage];
		dmg->plan_wrong = !plan_is(h->file, meta->plan, why, sizeof why);
		if (meta->mode == SW_SESSION_RESUME) /* an extend's is said by make_ref */
			snprintf(dmg->plan_damage, sizeof dmg->plan_damage, "%s", why);
	}
	if (st != SW_OK) {
		free(*bad);
		*bad = NULL;
	}
	return st;
}

enum sw_status sw_h5_mark_damage(struct sw_h5 *h, const uint8_t *bad, struct sw_err *err)
{
	hsize_t *at = malloc(BLOCK_ROWS * sizeof *at);
	struct meas_row *rows = calloc(BLOCK_ROWS, sizeof *rows);
	hid_t mtype = meas_type(0, err);
	enum sw_status st = at && rows && mtype >= 0 ? SW_OK
			    : at && rows
				    ? (err ? err->status : SW_EHDF5)
				    : sw_fail(err, SW_ENOMEM, "no memory to mark damaged rows");

	for (hsize_t i = 0; i < BLOCK_ROWS; i++) {
		rows[i].point_id = FILL_POINT_ID;
		rows[i].status = SW_H5_DAMAGED_STATUS;
	}
	for (uint64_t i = 0; st == SW_OK && i < h->n_meas;) {
		hsize_t k = 0;
		for (; i < h->n_meas && k < BLOCK_ROWS; i++)
			if (bad[i])
				at[k++] = i;
		if (!k)
			break;
		hid_t space = H5Dget_space(h->measurements), mem = H5Screate_simple(1, &k, NULL);
		if (space < 0 || mem < 0 ||
		    H5Sselect_elements(space, H5S_SELECT_SET, (size_t)k, at) < 0 ||
		    H5Dwrite(h->measurements, mtype, mem, space, H5P_DEFAULT, rows) < 0)
			st = sw_h5_fail(err, SW_EHDF5, "%s: cannot mark damaged rows", h->path);
		if (mem >= 0)
			H5Sclose(mem);
		if (space >= 0)
			H5Sclose(space);
	}
	if (mtype >= 0)
		H5Tclose(mtype);
	free(at);
	free(rows);
	return st;
}
