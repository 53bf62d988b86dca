"""Schema 8's two tables beside /measurements (docs/hdf5-schema.md): the
names of categorical axes' values (/axis_names), which the axis columns
hold by value, and the model's figures per named access (/model_accesses),
keyed by the /measurements row and point they belong to. A file before
schema 8 has neither: no names (axes read as numbers) and no accesses.
What touches HDF5 is the reader's (`_table`); this builds the frames."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .reader_format import FILL_POINT_ID

AXIS_NAME_COLUMNS = ("family", "axis", "value", "name")
ACCESS_COLUMNS = (
    "row",
    "point_id",
    "cc",
    "access",
    "name",
    "space",
    "is_store",
    "requests",
    "transactions",
    "wavefronts",
    "useful_bytes",
    "moved_bytes",
    "costed",
    "counts",
)
# What a row of /model_accesses says of itself (its `counts`).
COUNTS = ("exact", "requests_exact", "sampled")
# The point's columns an access row carries, besides the axes.
POINT_COLUMNS = ("family", "variant", "backend", "cc", "status")


def axis_names(table: pd.DataFrame | None) -> dict:
    """{(family, axis): {value: name}} from /axis_names, the last row of a
    (family, axis, value) counting; {} for a file without it."""
    out = {}
    if table is None or not len(table):
        return out
    t = table.drop_duplicates(["family", "axis", "value"], keep="last")
    for fam, axis, value, name in t[list(AXIS_NAME_COLUMNS)].itertuples(index=False):
        out.setdefault((str(fam), str(axis)), {})[int(value)] = str(name)
    return out


def with_names(frame: pd.DataFrame, names: dict, axes) -> pd.DataFrame:
    """A copy of frame (with a `family` column) whose categorical axis
    columns hold each value's name where its family names it, the value
    elsewhere (-1, an unused axis, stays -1); frame itself where no axis of
    it is named."""
    named = {a for (_, a) in names} & set(axes) & set(frame.columns)
    if not named or "family" not in frame.columns or not len(frame):
        return frame
    out = frame.copy()
    fam = frame["family"].astype(str).to_numpy()
    for a in sorted(named):
        values = frame[a].to_numpy()
        shown = values.astype(object)
        for (f, axis), by_value in names.items():
            if axis != a:
                continue
            mine = fam == f
            shown[mine] = [by_value.get(int(v), int(v)) for v in values[mine]]
        out[a] = shown
    return out


def accesses(
    table: pd.DataFrame | None, rows: pd.DataFrame, file_rows: np.ndarray, names: dict, axes
) -> pd.DataFrame:
    """/model_accesses joined to the rows it belongs to: each access row
    with its point's family, variant, backend, CC, status and axes (named).
    file_rows[i] is the /measurements index of rows' row i. An access row
    whose key (row, point_id) finds no row kept (a fill row, a damaged row,
    a row a cut lost) is left out; where a key and access repeat, the last
    counts. Empty, with the columns, for a file without the table."""
    carried = [c for c in POINT_COLUMNS if c != "cc"] + [a for a in axes if a in rows]
    empty = pd.DataFrame({c: [] for c in list(ACCESS_COLUMNS) + carried})
    if table is None or not len(table) or not len(rows):
        return empty
    t = table[table["point_id"] != FILL_POINT_ID]
    t = t.drop_duplicates(["row", "point_id", "access"], keep="last")
    order = np.argsort(file_rows, kind="stable")
    at = np.searchsorted(file_rows[order], t["row"].to_numpy(np.uint64))
    at = np.minimum(at, len(order) - 1)
    pos = order[at]
    point = rows["point_id"].to_numpy(np.uint64)
    found = (file_rows[pos] == t["row"].to_numpy(np.uint64)) & (
        point[pos] == t["point_id"].to_numpy(np.uint64)
    )
    t, pos = t[found].reset_index(drop=True), pos[found]
    point_cols = with_names(rows[carried].iloc[pos].reset_index(drop=True), names, axes)
    return pd.concat([t, point_cols], axis=1)
