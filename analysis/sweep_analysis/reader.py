"""The one place that opens sweep result files (docs/hdf5-schema.md).

`read(path)` checks that the file is HDF5, that it is a sweep file and that
its `schema_version` is one this package knows, then returns a `Run`: root
attributes, the /devices and /measurements tables as DataFrames with their
fixed-length strings decoded, the raw samples, the units of every column,
the /metrics table of a file made with --metrics (empty otherwise), and
/sessions (one row per new, resume or extend session; empty in files older
than schema 3). Schema 5 adds placement: the `placement` root attribute, a
`calibration` column of /measurements and a `device_class` column of
/devices; older files read as `once`, no calibration rows and classes
derived from (name, CC, memory) as the writer derives them. Schema 7 adds
the plug-in record (`plugin_paths`, `plugin_hashes`; `Run.plugins`); a
schema 6 file reads as one whose job named no plug-in it recorded.
Unwritten fill rows (status -1) are dropped here, so no caller sees them.
A file a sweep is still writing reads as of its last flush (SWMR).
It does not interpret the measurements: that is tables.py and the tools.
This module holds what touches HDF5; reader_format.py (the schema and Run),
reader_checks.py (the rows dropped) and reader_rows.py (the device join and
the row selections) hold the rest, and every public name is exported here.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import signal
import stat
import time

import h5py
import numpy as np
import pandas as pd

from .cli import CHILD_ENV
from .reader_checks import _add_damage_notes, _add_notes, _complete, _written, timed, zero_time
from .reader_format import (
    AXES_ATTR,
    AXES_ATTR_SCHEMA,
    CALIBRATION,
    DAMAGED_STATUS,
    DEVICE_CLASS,
    DEVICE_COLUMNS,
    EMULATES,
    FILL_POINT_ID,
    MEASUREMENT_COLUMNS,
    METRIC_COLUMNS,
    MODEL_DEVICE,
    MODEL_RATES_COLUMNS,
    OPTIONAL_MEASUREMENT_COLUMNS,
    OPTIONAL_TEXT_COLUMNS,
    PLACEMENT_ATTR,
    PLACEMENTS,
    PLAN_COLUMNS,
    PLAN_SCHEMA,
    PLUGIN_HASHES_ATTR,
    PLUGIN_PATHS_ATTR,
    RATE_FIT_SUFFIX,
    RATE_NOT_IDENTIFIABLE,
    SCHEMA_VERSION,
    SESSION_COLUMNS,
    STATUS_NAMES,
    Run,
    SweepFileError,
    _text,
)
from .reader_names import ACCESS_COLUMNS, AXIS_NAME_COLUMNS, accesses, axis_names
from .reader_rows import (
    COPY_ON_WRITE,
    DEVICE_JOINED,
    PER_GPU,
    _join_devices,
    cc_text,
    class_labels,
    class_rows,
    device_targets,
    latest,
    latest_per_gpu,
    shallow,
    take,
)

# The reader's public names, wherever they live (reader_format.py,
# reader_rows.py): every tool imports them from here.
__all__ = [
    "AXES_ATTR",
    "AXES_ATTR_SCHEMA",
    "CALIBRATION",
    "COPY_ON_WRITE",
    "DAMAGE",
    "DAMAGED_STATUS",
    "DEVICE_CLASS",
    "DEVICE_COLUMNS",
    "EMULATES",
    "FILE_KINDS",
    "FILL_POINT_ID",
    "HDF5_SIGNATURE",
    "MEASUREMENT_COLUMNS",
    "METADATA_READ_ATTEMPTS",
    "METRIC_COLUMNS",
    "MODEL_DEVICE",
    "MODEL_RATES_COLUMNS",
    "NOT_SWMR",
    "OPEN_TRIES",
    "OPEN_WAIT_S",
    "OPTIONAL_MEASUREMENT_COLUMNS",
    "OPTIONAL_TEXT_COLUMNS",
    "OWN_COLUMNS",
    "PER_GPU",
    "PLACEMENTS",
    "PLACEMENT_ATTR",
    "PLAN_COLUMNS",
    "PLAN_SCHEMA",
    "PLUGIN_HASHES_ATTR",
    "PLUGIN_PATHS_ATTR",
    "RATE_FIT_SUFFIX",
    "RATE_NOT_IDENTIFIABLE",
    "READ_LIMIT_S",
    "READ_SLICE_ROWS",
    "Run",
    "SCHEMA_VERSION",
    "SESSION_COLUMNS",
    "STATUS_NAMES",
    "STRING_COLUMNS",
    "SweepFileError",
    "VLEN_COLUMNS",
    "cc_text",
    "class_labels",
    "class_rows",
    "device_targets",
    "latest",
    "latest_per_gpu",
    "open_regular",
    "read",
    "read_slices",
    "RowSlices",
    "SCAN_COLUMNS",
    "shallow",
    "take",
    "timed",
    "zero_time",
]

READ_LIMIT_S = 300  # a whole file, the largest committed one reads in seconds
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"

# A sweep leaves SWMR mode for a moment when it resumes a file and when it
# writes the end time; a SWMR reader that opens the file then is refused
# with this, and tries again a little later.
NOT_SWMR = "not already open for SWMR writing"
OPEN_TRIES = 10
OPEN_WAIT_S = 0.2
# A SWMR reader reads metadata again when its checksum is wrong (the writer may
# be midway), 100 times by default with a doubling wait: a damaged file then
# holds each read for minutes. 16 tries wait some 65 ms in all.
METADATA_READ_ATTEMPTS = 16


def _attr_items(obj):
    """Attributes with str names: h5py gives bytes for a name that is not
    UTF-8 (a damaged file), which no caller expects."""
    return [(_text(k) if isinstance(k, bytes) else k, v) for k, v in obj.attrs.items()]


# Rows read at a time: a table is read in slices, each slice's columns copied
# out, so that the whole record array (some 1 KiB a row) is never in memory.
READ_SLICE_ROWS = 1 << 16


def _check_table(ds, name, required, path):
    """A table with the columns the schema requires, each of its type."""
    if ds.dtype.names is None or ds.ndim != 1:
        raise SweepFileError(f"{path}: /{name} is not a table: not a sweep result file")
    missing = [c for c in required if c not in ds.dtype.names]
    if missing:
        raise SweepFileError(
            f"{path}: /{name} lacks the column(s) {', '.join(missing)}: "
            f"not a sweep result file of schema version {SCHEMA_VERSION}"
        )
    _check_types(ds.dtype, name, path)


def _table(ds, name, required, path, live, keep=None) -> tuple[pd.DataFrame, dict]:
    """The table as a DataFrame (only the columns in keep, if given) and the
    units of its columns."""
    if live:  # a SWMR reader sees rows flushed since the open only after this
        ds.refresh()
    _check_table(ds, name, required, path)
    names = [c for c in ds.dtype.names if keep is None or c in keep]
    cols = _rows(ds, 0, ds.shape[0], names, {})
    return pd.DataFrame(cols, copy=False), _units(ds)


def _units(ds) -> dict:
    """The units of a table's columns (its `units:COLUMN` attributes)."""
    return {k[len("units:") :]: str(_text(v)) for k, v in _attr_items(ds) if k.startswith("units:")}


def _rows(ds, start, stop, names, texts, only=False) -> dict:
    """Rows start..stop of table ds as columns (names, in that order), read
    READ_SLICE_ROWS at a time. texts: each distinct string decoded once, one
    str object for all its rows (kept by the caller across calls). only: read
    just these columns from the file (HDF5 picks them out of each row)."""
    cols = {c: _column(ds.dtype.fields[c][0], stop - start) for c in names}
    src = ds.fields(list(names)) if only else ds
    for at in range(start, stop, READ_SLICE_ROWS):
        part = src[at : min(at + READ_SLICE_ROWS, stop)]
        for c, col in cols.items():
            col[at - start : at - start + len(part)] = _decoded(part[c], texts)
    return cols


def _column(t, n) -> np.ndarray:
    """An empty column of n rows for values of HDF5 type t: strings as Python
    str (object), numbers in native byte order (pandas takes no other)."""
    if t.kind in "SO":
        return np.empty(n, dtype=object)
    return np.empty(n, dtype=t.newbyteorder("=") if t.byteorder not in "=|" else t)


def _decoded(col, texts) -> np.ndarray:
    """A slice of a column as the DataFrame holds it: fixed-length strings
    decoded (UTF-8, bad bytes replaced), each distinct one once."""
    if col.dtype.kind == "S":
        distinct, where = np.unique(col, return_inverse=True)
        strs = np.empty(len(distinct), dtype=object)
        for i, b in enumerate(distinct):
            t = texts.get(b)
            if t is None:
                t = texts[b] = b.decode("utf-8", errors="replace")
            strs[i] = t
        return strs[where.reshape(-1)]
    if col.dtype.kind == "O":  # variable-length strings (/sessions)
        return np.array([_text(v) for v in col], dtype=object)
    return col


FILE_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def open_regular(path) -> int:
    """A read-only descriptor of path, refused at once unless it is a regular
    file: O_NONBLOCK, so that a FIFO without a writer does not block the open,
    then fstat of what was opened (no race with a path that changes)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise SweepFileError(f"{path}: no such file") from None
    except OSError as e:
        raise SweepFileError(f"{path}: cannot open: {e.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = FILE_KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise SweepFileError(f"{path}: is {kind}, not a result file")
    return fd


STRING_COLUMNS = frozenset(
    ("family", "variant", "backend", "message", "check_mode", "counter_note")
    + ("host", "pci_bus_id", "uuid", "name", "visible_devices", DEVICE_CLASS, EMULATES)
    + ("mode", "start_time", "unit")  # /sessions, /metrics
    + OPTIONAL_TEXT_COLUMNS  # schema 8's time model
    + ("axis", "space", "counts")  # schema 8's /axis_names, /model_accesses
    + ("device", "role", "basis", "file", "file_class")  # /model_rates
)


VLEN_COLUMNS = frozenset(("tool_version", "job_text"))  # /sessions: variable-length strings


def _check_types(dtype, name, path):
    """Strings where the schema has strings, single numbers elsewhere, and an
    integer point_id (a float one cannot hold every id exactly)."""
    for c in dtype.names:
        t = dtype.fields[c][0]
        text = c in STRING_COLUMNS or (name == "model_rates" and c.endswith(RATE_FIT_SUFFIX))
        want = "S" if text else "iu" if c == "point_id" else "iufb"
        want = "O" if c in VLEN_COLUMNS else want
        if t.shape or t.kind not in want:
            what = "a fixed-length string" if want == "S" else "a single number"
            what = "an integer" if want == "iu" else what
            what = "a variable-length string" if want == "O" else what
            raise SweepFileError(
                f"{path}: /{name} column {c} is {t} where the schema has {what}: "
                "a damaged or foreign file"
            )


def _open(path):
    fd = open_regular(path)
    try:
        # HDF5 opens the file checked above, not whatever path names by now
        h5path = f"/proc/self/fd/{fd}" if os.path.isdir("/proc/self/fd") else path
        try:
            head = os.pread(fd, 8, 0)
        except OSError as e:
            raise SweepFileError(f"{path}: cannot read: {e.strerror}") from None
        if head != HDF5_SIGNATURE and not h5py.is_hdf5(h5path):
            raise SweepFileError(f"{path}: not an HDF5 file, so not a sweep result file")
        return _open_h5(path, h5path)
    finally:
        os.close(fd)


@functools.lru_cache(maxsize=1)
def _set_read_attempts():
    """H5Pset_metadata_read_attempts of the libhdf5 h5py uses (h5py does not
    wrap it), found among the libraries this process has loaded; None when
    it cannot be found, and HDF5's default applies."""
    try:
        with open("/proc/self/maps") as fh:
            libs = {ln.split()[-1] for ln in fh if "/libhdf5" in ln and "_hl" not in ln}
        for lib in sorted(libs):
            fn = ctypes.CDLL(lib).H5Pset_metadata_read_attempts
            fn.argtypes, fn.restype = [ctypes.c_int64, ctypes.c_uint], ctypes.c_int
            return fn
    except (OSError, AttributeError):
        pass
    return None


def _fapl():
    fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
    fapl.set_fclose_degree(h5py.h5f.CLOSE_STRONG)
    fapl.set_file_locking(False, True)
    fn = _set_read_attempts()
    if fn is not None:
        fn(fapl.id, METADATA_READ_ATTEMPTS)
    return fapl


def _open_h5(path, h5path):
    for attempt in range(OPEN_TRIES):
        try:
            # SWMR reads a file a sweep is writing, and one a killed sweep left,
            # which a plain open refuses on HDF5's consistency flags; it also opens the
            # 1.8-format files of older sweeps. No file locking: the shared lock HDF5
            # would take for us makes a sweep that resumes the file fail meanwhile.
            flags = h5py.h5f.ACC_RDONLY | h5py.h5f.ACC_SWMR_READ
            return h5py.File(h5py.h5f.open(os.fsencode(h5path), flags, fapl=_fapl()))
        except OSError as e:
            if NOT_SWMR in str(e) and attempt + 1 < OPEN_TRIES:
                time.sleep(OPEN_WAIT_S)
                continue
            if NOT_SWMR in str(e):
                raise SweepFileError(
                    f"{path}: HDF5's consistency flags say a program writes it without SWMR, "
                    f"or was killed while doing so: `sweep --resume` continues it; once "
                    f"nothing writes it, `h5clear -s {path}` makes it readable"
                ) from None
            detail = str(e).split("(")[-1].rstrip(")") if "(" in str(e) else str(e)
            raise SweepFileError(
                f"{path}: damaged or truncated HDF5 file ({detail}): cut "
                f"short, e.g. by an interrupted copy; copy it again (a file "
                f"left by a killed sweep is not truncated and reads as "
                f"is)"
            ) from None
    raise AssertionError("unreachable")  # the last try returns or raises


# What reading a damaged file can raise from h5py, NumPy or pandas: each is
# turned into a SweepFileError, the one error the tools expect.
DAMAGE = (
    OSError,
    KeyError,
    ValueError,
    TypeError,
    IndexError,
    OverflowError,
    RuntimeError,
    MemoryError,
)


@contextlib.contextmanager
def _read_limit():
    """In a tool's forked child (cli.isolated), a damaged file that makes
    HDF5 loop in C, where no Python runs, ends the child by SIGALRM after
    READ_LIMIT_S; the tool then says it gave up. Elsewhere: no limit."""
    limit = int(os.environ.get("SWEEP_ANALYSIS_READ_LIMIT_S", READ_LIMIT_S))
    armed = os.environ.get(CHILD_ENV) == "1" and limit > 0
    if armed:
        old = signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(limit)
    try:
        yield
    finally:
        if armed:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)


# The /measurements columns the reader itself reads (devices, classes, notes,
# latest, class_rows), whatever columns a caller asks for.
OWN_COLUMNS = frozenset(
    ("point_id", "plan_index", "rank", "session", "backend", "cc", "status", "family", "variant")
    + ("n_samples", "sample_offset", "median_ns", CALIBRATION, MODEL_DEVICE)
)


def read(path, columns=None) -> Run:
    """Read a sweep result file whole: every column of /measurements, or
    with columns only those (besides the axes and OWN_COLUMNS), for a tool
    that reads no other. Raises SweepFileError with a message, and nothing
    else (analysis/tests/fuzz_readers.py holds it to that)."""
    path = os.fspath(path)
    try:
        with _read_limit():
            return _read(path, None if columns is None else frozenset(columns))
    except SweepFileError:
        raise
    except DAMAGE as e:
        raise SweepFileError(f"{path}: damaged sweep file, reading failed: {e}") from None


def _read(path, columns) -> Run:
    f = _open(path)
    try:
        with f:
            attrs = {k: _text(v) for k, v in _attr_items(f)}
            version = _check_schema(f, attrs, path)
            # The reverse of the order a sweep writes them in, so that every row
            # read finds its device and its samples: a session's devices go
            # before its rows, a row's samples before the row.
            live = f.swmr_mode
            m = f["measurements"]
            _check_table(m, "measurements", MEASUREMENT_COLUMNS, path)
            axes = _named_axes(m, path) if version >= AXES_ATTR_SCHEMA else _old_axes(m.dtype)
            keep = None if columns is None else columns | OWN_COLUMNS | set(axes)
            rows, units = _table(m, "measurements", MEASUREMENT_COLUMNS, path, live, keep)
            present = m.dtype.names
            devices, dev_units = _table(f["devices"], "devices", DEVICE_COLUMNS, path, live)
            samples = _samples(f["samples"], path, live)
            metrics = _metrics(f, path, live)
            plan = _plan(f, attrs, path) if version >= PLAN_SCHEMA else None
            tables = {  # Run's fields of tables older files lack, which keep their default
                "sessions": _optional(f, "sessions", SESSION_COLUMNS, path, False),
                "model_rates": _optional(f, "model_rates", MODEL_RATES_COLUMNS, path, False),
            }
            named = (
                _optional(f, "axis_names", AXIS_NAME_COLUMNS, path, live),
                _optional(f, "model_accesses", ACCESS_COLUMNS, path, live),
            )
    except SweepFileError:
        raise
    except DAMAGE as e:
        raise SweepFileError(f"{path}: damaged sweep file, reading failed: {e}") from None

    absent = [c for c in OPTIONAL_MEASUREMENT_COLUMNS + OPTIONAL_TEXT_COLUMNS if c not in present]
    rows = _complete(rows, [c for c in absent if keep is None or c in keep])
    rows, fill, damaged, marked, why, file_rows = _written(rows, plan)
    replayed = int((rows["backend"] == "replay").sum())
    run = Run(
        path=path,
        attrs=attrs,
        devices=devices,
        rows=rows,
        samples=samples,
        units={**dev_units, **units},
        axes=axes,
        fill_rows=fill,
        damaged_rows=damaged,
        marked_rows=marked,
        replay_rows=replayed,
        label=os.path.basename(path),
        absent_columns=absent,
        metrics=metrics,
    )
    for name, table in tables.items():
        if table is not None:
            setattr(run, name, table)
    _add_named(run, *named, file_rows)
    _join_devices(run)
    # replay rows (a test instrument) are never presented as measurements
    if replayed:
        run.rows = run.all_rows[run.all_rows["backend"] != "replay"].reset_index(drop=True)
    else:  # the same rows: a second frame over the same columns (copy on write)
        run.rows = shallow(run.all_rows)
    _add_damage_notes(run, why)
    _add_notes(run)
    return run


@contextlib.contextmanager
def _reading(path):
    """read()'s guard around HDF5 work: the read limit, and what a damaged
    file raises turned into a SweepFileError."""
    try:
        with _read_limit():
            yield
    except SweepFileError:
        raise
    except DAMAGE as e:
        raise SweepFileError(f"{path}: damaged sweep file, reading failed: {e}") from None


# What tells which rows read() keeps (_written) and whether each finds its
# device row: the first pass of read_slices reads only these.
SCAN_COLUMNS = ("point_id", "status", "family", "variant", "rank", "session")


def read_slices(path, slice_rows=READ_SLICE_ROWS) -> RowSlices:
    """/measurements a slice of rows at a time (sweep-export --csv), for a
    tool that writes each row as it goes and so never holds the whole table.
    Opens and checks the file as read() does and reads its small tables;
    iterating the answer reads the rows (RowSlices). Raises SweepFileError."""
    path = os.fspath(path)
    with _reading(path):
        return RowSlices(path, slice_rows)


class RowSlices:
    """Runs whose rows, one after the other, are read(path).rows: the same
    rows in the same order with the same columns, types and values, at most
    slice_rows file rows at a time. Each Run has the file's attributes,
    devices, units, axes and axis names; no samples, metrics or accesses.
    A first pass over SCAN_COLUMNS counts the rows left out, so that
    `warnings` are known before the first slice, and finds whether a kept row
    lacks its device row (then read() gives the device's integer columns as
    floats, NaN there, and so does every slice). Close it, or iterate to the
    end."""

    def __init__(self, path, slice_rows):
        self.path, self.slice_rows = path, max(1, int(slice_rows))
        self._f = _open(path)
        try:
            self._head()
            self._scan()
        except BaseException:
            self.close()
            raise

    def _head(self):
        f, path = self._f, self.path
        self.attrs = {k: _text(v) for k, v in _attr_items(f)}
        version = _check_schema(f, self.attrs, path)
        live = f.swmr_mode
        m = self._m = f["measurements"]
        if live:  # the rows flushed by now; their devices were written before them
            m.refresh()
        _check_table(m, "measurements", MEASUREMENT_COLUMNS, path)
        self.axes = _named_axes(m, path) if version >= AXES_ATTR_SCHEMA else _old_axes(m.dtype)
        self.n = m.shape[0]
        self.devices, dev_units = _table(f["devices"], "devices", DEVICE_COLUMNS, path, live)
        self.units = {**dev_units, **_units(m)}
        self.plan = _plan(f, self.attrs, path) if version >= PLAN_SCHEMA else None
        names = _optional(f, "axis_names", AXIS_NAME_COLUMNS, path, live)
        self.axis_names = axis_names(names)
        optional = OPTIONAL_MEASUREMENT_COLUMNS + OPTIONAL_TEXT_COLUMNS
        self.absent = [c for c in optional if c not in m.dtype.names]
        self._texts = {}

    def _scan(self):
        """Counts of the rows left out and why (Run.warnings), and whether a
        kept row finds no device row."""
        d = self.devices.drop_duplicates(["rank", "session"], keep="last")
        known = pd.MultiIndex.from_frame(d[["rank", "session"]])
        counts, self.no_device, why = np.zeros(3, dtype=np.int64), False, ""
        for start in range(0, self.n, self.slice_rows):
            stop = min(start + self.slice_rows, self.n)
            cols = _rows(self._m, start, stop, SCAN_COLUMNS, self._texts, only=True)
            rows, *dropped, w, _ = _written(pd.DataFrame(cols, copy=False), self.plan, start)
            counts += dropped
            why = why or w
            at = known.get_indexer(pd.MultiIndex.from_frame(rows[["rank", "session"]]))
            self.no_device = self.no_device or bool((at < 0).any())
        self.fill_rows, self.damaged_rows, self.marked_rows = (int(x) for x in counts)
        run = self._run(pd.DataFrame())
        run.damaged_rows, run.marked_rows = self.damaged_rows, self.marked_rows
        _add_damage_notes(run, why)
        self.warnings = run.warnings

    def _run(self, rows) -> Run:
        return Run(
            path=self.path,
            attrs=self.attrs,
            devices=self.devices,
            rows=rows,
            samples=np.empty(0),
            units=self.units,
            axes=self.axes,
            label=os.path.basename(self.path),
            absent_columns=self.absent,
            axis_names=self.axis_names,
        )

    def __iter__(self):
        try:
            # one slice at least, so that a file of no rows still gives its columns
            for start in range(0, max(self.n, 1), self.slice_rows):
                with _reading(self.path):
                    run = self._slice(start, min(start + self.slice_rows, self.n))
                yield run
        finally:
            self.close()

    def _slice(self, start, stop) -> Run:
        """A Run of rows start..stop, as read() makes its whole table."""
        cols = _rows(self._m, start, stop, self._m.dtype.names, self._texts)
        rows = _complete(pd.DataFrame(cols, copy=False), self.absent)
        rows = _written(rows, self.plan, start)[0]
        run = self._run(rows)
        _join_devices(run)
        if self.no_device:  # as read()'s join makes them: NaN where a row has no device
            for c in run.all_rows.columns.intersection(DEVICE_JOINED):
                if run.all_rows[c].dtype.kind in "iu":
                    run.all_rows[c] = run.all_rows[c].astype(np.float64)
        replay = (run.all_rows["backend"] == "replay").to_numpy()
        run.rows = run.all_rows[~replay].reset_index(drop=True) if replay.any() else run.all_rows
        return run

    def close(self):
        if self._f is not None:
            self._f.close()
            self._f = None


def _samples(ds, path, live) -> np.ndarray:
    """/samples: one column of times, as float64."""
    if ds.ndim != 1 or ds.dtype.kind not in "iuf":
        raise SweepFileError(
            f"{path}: /samples is {ds.dtype} of shape {ds.shape} where the schema has "
            "one column of float64 times: a damaged or foreign file"
        )
    if live:
        ds.refresh()
    return np.asarray(ds[:], dtype=np.float64)


def _plan(f, attrs, path) -> pd.DataFrame:
    """/plan of a schema-7 file, indexed by point_id; refused when it cannot be
    the file's plan, since it is what tells a damaged row."""
    if "plan" not in f or not isinstance(f["plan"], h5py.Dataset):
        raise SweepFileError(
            f"{path}: no /plan dataset, which schema {PLAN_SCHEMA} files have: a damaged file"
        )
    plan, _ = _table(f["plan"], "plan", PLAN_COLUMNS, path, False)
    want = attrs.get("plan_points")
    bad = (plan["point_id"] == FILL_POINT_ID) | (plan["family"] == "") | (plan["variant"] == "")
    # a point twice, with the right count and no foreign id, lacks another
    # point, whose good rows it would call damaged
    twice = plan["point_id"].duplicated()
    what = None
    if bad.any():
        what = f"{int(bad.sum())} of its rows are empty"
    elif twice.any():
        what = f"point {int(plan['point_id'][twice].iloc[0]):016x} is in it twice"
    elif want is not None and len(plan) != int(np.asarray(want).item()):
        what = f"it has {len(plan)} rows, plan_points says {want}"
    if what:
        raise SweepFileError(
            f"{path}: /plan is damaged ({what}), so it cannot tell damaged rows of "
            "/measurements from good ones; `sweep --dry-run --resume` checks the file and "
            "`sweep --resume` writes /plan again"
        )
    return plan.set_index("point_id")


def _old_axes(dtype) -> list:
    """Before schema 4: the int64 columns (of any byte order) outside the reader's lists."""
    known = set(MEASUREMENT_COLUMNS) | set(OPTIONAL_MEASUREMENT_COLUMNS) | {CALIBRATION}
    return [
        c
        for c in dtype.names
        if c not in known and dtype.fields[c][0].kind == "i" and dtype.fields[c][0].itemsize == 8
    ]


def _named_axes(ds, path) -> list:
    """Schema 4 on: the axis columns /measurements names, each an integer column."""
    if AXES_ATTR not in ds.attrs:
        raise SweepFileError(
            f"{path}: /measurements has no {AXES_ATTR} attribute, which schema 4 files "
            "have: a damaged or foreign file"
        )
    names = np.atleast_1d(np.asarray(ds.attrs[AXES_ATTR], dtype=object))
    axes = [_text(n) for n in names]
    fields = ds.dtype.fields
    for a in axes:
        if not isinstance(a, str) or a not in fields or fields[a][0].kind not in "iu":
            raise SweepFileError(
                f"{path}: /measurements' {AXES_ATTR} names {a!r}, which is not one of its "
                "integer columns: a damaged or foreign file"
            )
    return axes


def _add_named(run, names, access_table, file_rows):
    """Schema 8's names of categorical axes and per-access figures, into run
    (its rows as read: file_rows are their /measurements indices)."""
    run.axis_names = axis_names(names)
    run.accesses = accesses(access_table, run.rows, file_rows, run.axis_names, run.axes)


def _optional(f, name, columns, path, live):
    """Table name of the file as a frame, or None where the file has none
    (before schema 8 for /axis_names, /model_accesses and /model_rates;
    before schema 3 for /sessions, which like /model_rates is written
    before SWMR writing starts: live False, no refresh)."""
    if name not in f:
        return None
    table, _ = _table(f[name], name, columns, path, live)
    return table


def _metrics(f, path, live) -> pd.DataFrame:
    """/metrics without fill rows, the last row of each point and name (a resumed run
    may have written one twice); empty for a file without it (every file before schema 3)."""
    if "metrics" not in f:
        return pd.DataFrame({c: [] for c in METRIC_COLUMNS})
    m, _ = _table(f["metrics"], "metrics", METRIC_COLUMNS, path, live)
    m = m[m["point_id"] != FILL_POINT_ID]
    return m.drop_duplicates(["point_id", "name"], keep="last").reset_index(drop=True)


def _check_schema(f, attrs, path) -> int:
    """A sweep file of a schema version this reader knows, with its datasets: its version."""
    if "schema_version" not in attrs:
        raise SweepFileError(
            f"{path}: an HDF5 file without a schema_version attribute: not a sweep result file"
        )
    try:
        version = int(np.asarray(attrs["schema_version"]).item())
    except (TypeError, ValueError, OverflowError):
        raise SweepFileError(
            f"{path}: schema_version {attrs['schema_version']!r} is not an integer: "
            "not a sweep result file"
        ) from None
    if version > SCHEMA_VERSION:
        raise SweepFileError(
            f"{path}: schema_version {version} is newer than this sweep_analysis "
            f"reads ({SCHEMA_VERSION}): install the analysis package of the sweep "
            f"that wrote it (pip install ./analysis)"
        )
    if version < 1:
        raise SweepFileError(
            f"{path}: schema_version {version} is not a valid sweep schema version"
        )
    for name in ("devices", "measurements", "samples"):
        if name not in f or not isinstance(f[name], h5py.Dataset):
            raise SweepFileError(f"{path}: no /{name} dataset: not a sweep result file")
    return version
