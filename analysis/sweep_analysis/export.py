"""sweep-export FILE.h5 --csv|--json [-o OUT]: flat tables for other tools.

--csv writes one table (default: measurements, each row with its device's
columns joined and strings decoded; or --table
devices|samples|accesses|model_rates). --json writes the whole file as one
object: attributes, units, devices, measurements (with --samples, each
measurement's raw samples too) and, schema 8 on, the categorical axes'
names, the model's per-access figures and the time model's rates
(/model_rates). A model row's `device` says which target it is: `model CC
9.0` for a CC target, `model H100-SXM (CC 9.0)` for a device target
(`--model-devices`, model_device set). A categorical axis keeps its value
column (ids and joins use it) with the value's name beside it, in a column
`<axis>_name`. NaN is
empty in CSV and null in JSON. point_id, a uint64, is exact in every table:
a decimal integer in CSV, a string of that decimal integer in JSON (so that
tools reading JSON numbers as doubles keep it exact). sweep's own output
(`--dry-run`) prints the same number as 16 hex digits. Fill rows are never
exported, nor are damaged rows (docs/hdf5-schema.md, "Damaged rows"): each file's
count of them is a warning on stderr. Output goes to stdout without -o.
--csv of the measurements is read and written a slice of rows at a time
(CSV_SLICE_ROWS), so its memory does not grow with the file.
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pandas as pd

from .cli import ArgumentParser, emit, entry, warn_run
from .output import atomic_file, check_output
from .reader import read, read_slices
from .text import shown

TOOL = "sweep-export"


def measurements(run) -> pd.DataFrame:
    """/measurements with each categorical axis's names in `<axis>_name`
    beside its value column."""
    m = run.rows.drop(columns=["file", *run.absent_columns])
    named = run.with_names(m)
    categorical = {a for (_, a) in run.axis_names}
    for a in reversed([a for a in run.axes if a in m and a in categorical]):
        shown = named[a].where(m[a] != -1, "")
        m.insert(m.columns.get_loc(a) + 1, f"{a}_name", shown.astype(str))
    return m


def accesses(run) -> pd.DataFrame:
    """/model_accesses, each row with its point's family, variant and axes
    (by name): schema 8's per-access figures; empty before."""
    return run.accesses


SAMPLE_COLUMNS = ["point_id", "backend", "family", "variant"]


def samples(run) -> pd.DataFrame:
    """One row per raw sample. Built column-wise from the rows' own columns, so
    point_id keeps its uint64 dtype (a row-wise build turns it into a float)."""
    rows = run.rows
    off = rows["sample_offset"].to_numpy(np.int64)
    n = rows["n_samples"].to_numpy(np.int64)
    n = np.where((n > 0) & (off + n <= len(run.samples)), n, 0)  # as Run.samples_of
    which = np.repeat(np.arange(len(rows)), n)
    sample = np.arange(len(which)) - np.repeat(np.cumsum(n) - n, n)
    out = rows.iloc[which][SAMPLE_COLUMNS].reset_index(drop=True)
    out["sample"] = sample
    out["ns"] = run.samples[np.repeat(off, n) + sample]
    return out


def _clean(v):
    """A JSON value: NaN and infinities null; arrays (an attribute may be one)
    lists; anything else JSON has no type for, its text."""
    if isinstance(v, (np.integer, np.bool_)):
        return v.item()
    if isinstance(v, (np.floating, float)):
        return None if not math.isfinite(float(v)) else float(v)
    if isinstance(v, np.ndarray):
        return [_clean(x) for x in v.tolist()] if v.ndim else _clean(v.item())
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if isinstance(v, bytes):
        return v.decode("utf-8", errors="replace")
    if isinstance(v, str):  # a name's bytes that are not UTF-8 as \xNN (text.py)
        return shown(v)
    if v is None or isinstance(v, (int, bool)):
        return v
    return str(v)


def _records(df: pd.DataFrame) -> list:
    cols = list(df.columns)
    return [{c: _clean(v) for c, v in zip(cols, row)} for row in df.itertuples(index=False)]


def to_json(run, with_samples=False) -> dict:
    m = measurements(run)
    recs = _records(m)
    for rec, (_, r) in zip(recs, m.iterrows()):
        rec["point_id"] = str(rec["point_id"])
        if with_samples:
            rec["samples_ns"] = [float(x) for x in run.samples_of(r)]
    return {
        "file": shown(run.path),
        "attributes": {k: _clean(v) for k, v in run.attrs.items()},
        "units": run.units,
        "axes": run.axes,
        "devices": _records(run.devices),
        "model_rates": _records(run.model_rates),
        "measurements": recs,
        "axis_names": [
            {"family": f, "axis": a, "value": v, "name": n}
            for (f, a), by_value in run.axis_names.items()
            for v, n in by_value.items()
        ],
        "model_accesses": _records(run.accesses),
    }


CSV = {"index": False, "na_rep": "", "lineterminator": "\n"}
# File rows read, and written as CSV, at a time by --csv of the measurements:
# a slice of 16K rows adds some 55 MiB to the peak, one of 64K some 220 MiB
# (rows of about 1 KiB: each is read, copied into columns, shown, written
# as text; docs/results/export-memory.md).
CSV_SLICE_ROWS = 1 << 14


def _stream_measurements(path, output):
    """--csv of /measurements a slice of rows at a time (read_slices), each
    written before the next is read: the bytes of measurements(read(path))
    as one CSV, in memory bounded by the slice, not by the file."""
    slices = read_slices(path, CSV_SLICE_ROWS)
    try:
        warn_run(TOOL, slices)  # damaged rows: left out, and said, before any row
        if output is None:
            _write_slices(slices, emit)
            return 0
        with atomic_file(output, inputs=[path]) as fh:
            _write_slices(slices, fh.write)
    finally:
        slices.close()
    print(f"{TOOL}: wrote {output}", file=sys.stderr)
    return 0


def _write_slices(slices, write):
    for i, run in enumerate(slices):
        write(measurements(run).to_csv(header=i == 0, **CSV))


@entry(TOOL)
def main(argv=None):
    ap = ArgumentParser(
        prog=TOOL,
        description="Export a sweep result file as flat "
        "tables: CSV (one table) or JSON (everything). Exit status 2 on any failure "
        "(also when stdout is closed before the end, e.g. by head).",
    )
    ap.add_argument("file", metavar="FILE.h5")
    fmt = ap.add_mutually_exclusive_group(required=True)
    fmt.add_argument("--csv", action="store_true", help="one table as CSV")
    fmt.add_argument("--json", action="store_true", help="the whole file as one JSON object")
    ap.add_argument(
        "--table",
        choices=["measurements", "devices", "samples", "accesses", "model_rates"],
        default="measurements",
        help="which table --csv writes (default measurements, with device columns joined; "
        "accesses: the model's figures per named access, schema 8; model_rates: the time "
        "model's rates, empty before schema 8)",
    )
    ap.add_argument("--samples", action="store_true", help="JSON: add each row's raw samples")
    ap.add_argument("-o", "--output", metavar="OUT", help="output file (default stdout)")
    a = ap.parse_args(argv)
    to_file = a.output and a.output != "-"
    if to_file:  # before reading: a refused output costs nothing
        check_output(a.output, [a.file])
    if a.csv and a.table == "measurements":
        return _stream_measurements(a.file, a.output if to_file else None)
    run = read(a.file)
    warn_run(TOOL, run)  # damaged rows: left out, and said
    if a.csv:
        tables = {
            "measurements": measurements,
            "devices": lambda r: r.devices,
            "samples": samples,
            "accesses": accesses,
            "model_rates": lambda r: r.model_rates,
        }
        df = tables[a.table](run)
        text = df.to_csv(**CSV)
    else:
        text = json.dumps(to_json(run, a.samples), indent=1, allow_nan=False) + "\n"
    if to_file:
        with atomic_file(a.output, inputs=[a.file]) as fh:
            fh.write(text)
        print(f"{TOOL}: wrote {a.output}", file=sys.stderr)
    else:
        emit(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
