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
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import signal
import stat
import time
from dataclasses import dataclass, field

import h5py
import numpy as np
import pandas as pd

from .cli import CHILD_ENV, ToolError

READ_LIMIT_S = 300  # a whole file, the largest committed one reads in seconds
SCHEMA_VERSION = 8  # SW_SCHEMA_VERSION of the C writer this package reads (and older)
# From schema 4 on /measurements names its axis columns in this attribute (an
# array of strings); older files' axes are found by elimination (_old_axes).
AXES_ATTR = "axis_columns"
AXES_ATTR_SCHEMA = 4

# Schema 5 on: where points ran (root attribute; older files: "once"), the
# calibration flag of a row (1: a calibration point, run on every GPU; older
# files: 0) and the device class of a /devices row (older files: derived).
PLACEMENT_ATTR = "placement"
PLACEMENTS = ("once", "per_class", "every_gpu")
CALIBRATION = "calibration"
DEVICE_CLASS = "device_class"

# Schema 7 on: the real path and content hash of each plug-in of the job's
# `plugins:` (root attributes, absent when it names none), so a resume or
# extend reads the stored job with the plug-ins it was made with.
PLUGIN_PATHS_ATTR = "plugin_paths"
PLUGIN_HASHES_ATTR = "plugin_hashes"
# Schema 8 on: every plug-in the run loaded (--plugin and plugins: alike) and
# the libraries their loading brought in, each by path and content hash; a
# library's owner is the content hash of the plug-in that brought it in.
LOADED_PATHS_ATTR = "plugin_loaded_paths"
LOADED_HASHES_ATTR = "plugin_loaded_hashes"
LIBRARIES_ATTR = "plugin_libraries"
LIBRARY_HASHES_ATTR = "plugin_library_hashes"
LIBRARY_OWNERS_ATTR = "plugin_library_owners"

# /metrics (schema 3 on, only in files made with --metrics): one row per point and metric.
METRIC_COLUMNS = ("point_id", "name", "value", "unit")
FILL_POINT_ID = np.uint64(2**64 - 1)  # a row allocated but never written

# Schema 7 on: /plan, one row per point of the file's plan (point_id, family,
# variant). A row of /measurements is damaged when its point is not in it,
# its family or variant are not that point's, either is empty, or its status
# is none sweep writes (docs/hdf5-schema.md, "Damaged rows"); older files,
# without /plan, are judged by the last three alone. A resume marks the
# damaged rows it finds: point_id the fill value, status -2.
PLAN_SCHEMA = 7
PLAN_COLUMNS = ("point_id", "family", "variant")
DAMAGED_STATUS = -2

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"

# Columns every schema-1 file has (docs/hdf5-schema.md), which the reader
# needs. Axis columns come on top: the file names them (schema 4 on), or,
# in older files, they are the int64 columns outside these lists.
MEASUREMENT_COLUMNS = (
    "point_id",
    "plan_index",
    "rank",
    "session",
    "family",
    "variant",
    "backend",
    "is_reference",
    "cc",
    "status",
    "message",
    "check_mode",
    "checked_elems",
    "max_rel_err",
    "seed",
    "n_samples",
    "launches_per_sample",
    "l2_flushed",
    "median_ns",
    "min_ns",
    "mean_ns",
    "stddev_ns",
    "rse",
    "useful_bytes",
    "flops",
    "gbps",
    "gflops",
    "timed_s",
    "sm_clock_mhz",
    "mem_clock_mhz",
    "throttle_reasons",
    "model_requests",
    "model_sectors_per_request",
    "model_moved_bytes",
    "model_efficiency",
    "start_unix",
    "sample_offset",
)
# Columns added to schema 1 later (old readers may ignore them): NaN when absent.
OPTIONAL_MEASUREMENT_COLUMNS = (
    "model_transactions_per_request",
    "model_conflict_degree",
    "model_time_bound_ns",
)
DEVICE_COLUMNS = (
    "rank",
    "session",
    "host",
    "local_rank",
    "device_index",
    "backend",
    "pci_bus_id",
    "uuid",
    "name",
    "cc",
    "sm_count",
    "mem_clock_khz",
    "mem_bus_width_bits",
    "peak_gbps",
    "l2_bytes",
    "mem_bytes",
    "driver_version",
    "runtime_version",
    "visible_devices",
)
SESSION_COLUMNS = (
    "session",
    "mode",
    "start_unix",
    "start_time",
    "plan_fingerprint",
    "plan_points",
    "tool_version",
    "job_text",
)
STATUS_NAMES = {0: "ok", 1: "skipped", 2: "invalid", 3: "failed"}

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


class SweepFileError(ToolError):
    """A file this package cannot read, with a message meant for the user."""


@dataclass
class Run:
    """One result file, read whole."""

    path: str
    attrs: dict
    devices: pd.DataFrame
    rows: pd.DataFrame  # /measurements without fill rows, one device's columns joined
    samples: np.ndarray
    units: dict  # column -> units, of /measurements and /devices
    axes: list  # axis column names, in file order
    # every row of every backend but fill rows, replay rows included, with
    # the same device columns: the fleet and class sections and compare --class
    # (which say "emulated" for replay rows) read it; nothing else does
    all_rows: pd.DataFrame = field(default_factory=pd.DataFrame)
    fill_rows: int = 0  # status -1 rows dropped
    damaged_rows: int = 0  # damaged rows dropped (docs/hdf5-schema.md, "Damaged rows")
    marked_rows: int = 0  # rows a resume marked damaged (status -2), dropped
    # what a tool says on stderr as a warning (damaged rows left out), also in notes
    warnings: list = field(default_factory=list)
    replay_rows: int = 0  # rows of the replay backend dropped: no measurements
    label: str = ""  # short name for tables: the file name
    notes: list = field(default_factory=list)  # what a reader should know
    absent_columns: list = field(default_factory=list)  # optional columns filled with NaN
    # /metrics: point_id, name, value, unit; one row per point and name (the last written)
    metrics: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame({c: [] for c in METRIC_COLUMNS})
    )
    # /sessions: one row per session (new, resume, extend); empty before schema 3
    sessions: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=SESSION_COLUMNS))

    @property
    def closed_cleanly(self) -> bool:
        return "end_time" in self.attrs

    @property
    def placement(self) -> str:
        """once, per_class or every_gpu: once in files before schema 5."""
        return str(self.attrs.get(PLACEMENT_ATTR, "once"))

    @property
    def backend(self) -> str:
        return str(self.attrs.get("backend", ""))

    @property
    def plugins(self) -> list:
        """(path, content hash) of the file each `plugins:` entry of the job
        resolved to, in order (schema 7 on); [] for a job without plug-ins
        and for older files, which record none."""
        paths = np.atleast_1d(np.asarray(self.attrs.get(PLUGIN_PATHS_ATTR, []), dtype=object))
        hashes = np.atleast_1d(np.asarray(self.attrs.get(PLUGIN_HASHES_ATTR, []))).tolist()
        return [(_text(p), int(h)) for p, h in zip(paths, hashes)]

    def _list(self, name, as_text=False) -> list:
        values = np.atleast_1d(np.asarray(self.attrs.get(name, []), dtype=object))
        return [_text(v) if as_text else int(v) for v in values]

    @property
    def loaded_plugins(self) -> list:
        """(path, content hash) of every plug-in the run that made the file
        loaded, --plugin and `plugins:` alike, in load order (schema 8 on);
        [] when it loaded none, and for older files, which record none."""
        return list(zip(self._list(LOADED_PATHS_ATTR, True), self._list(LOADED_HASHES_ATTR)))

    @property
    def plugin_libraries(self) -> list:
        """(path, content hash, owner's content hash) of each library those
        plug-ins brought in (schema 8 on), the system set aside."""
        return list(
            zip(
                self._list(LIBRARIES_ATTR, True),
                self._list(LIBRARY_HASHES_ATTR),
                self._list(LIBRARY_OWNERS_ATTR),
            )
        )

    def samples_of(self, row) -> np.ndarray:
        """Raw sample times (ns per launch) of one measurement row."""
        o, n = int(row["sample_offset"]), int(row["n_samples"])
        if n <= 0 or o + n > len(self.samples):
            return np.empty(0)
        return self.samples[o : o + n]


def _text(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", errors="replace")
    if isinstance(v, np.generic):
        return v.item()
    return v


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
    n = ds.shape[0]
    names = [c for c in ds.dtype.names if keep is None or c in keep]
    cols = {c: _column(ds.dtype.fields[c][0], n) for c in names}
    texts = {}  # each distinct string decoded once, one str object for all its rows
    for start in range(0, n, READ_SLICE_ROWS):
        part = ds[start : start + READ_SLICE_ROWS]
        end = start + len(part)
        for c, col in cols.items():
            col[start:end] = _decoded(part[c], texts)
    units = {
        k[len("units:") :]: str(_text(v)) for k, v in _attr_items(ds) if k.startswith("units:")
    }
    return pd.DataFrame(cols, copy=False), units


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
    + ("host", "pci_bus_id", "uuid", "name", "visible_devices", DEVICE_CLASS)
    + ("mode", "start_time", "unit")  # /sessions, /metrics
)
VLEN_COLUMNS = frozenset(("tool_version", "job_text"))  # /sessions: variable-length strings


def _check_types(dtype, name, path):
    """Strings where the schema has strings, single numbers elsewhere, and an
    integer point_id (a float one cannot hold every id exactly)."""
    for c in dtype.names:
        t = dtype.fields[c][0]
        want = "S" if c in STRING_COLUMNS else "iu" if c == "point_id" else "iufb"
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
    + ("n_samples", "sample_offset", "median_ns", CALIBRATION)
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
            sessions = None
            if "sessions" in f:  # written before SWMR starts: no refresh needed
                sessions, _ = _table(f["sessions"], "sessions", SESSION_COLUMNS, path, False)
    except SweepFileError:
        raise
    except DAMAGE as e:
        raise SweepFileError(f"{path}: damaged sweep file, reading failed: {e}") from None

    absent = [c for c in OPTIONAL_MEASUREMENT_COLUMNS if c not in present]
    rows = _complete(rows, [c for c in absent if columns is None or c in columns])
    rows, fill, damaged, marked, why = _written(rows, plan)
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
    if sessions is not None:
        run.sessions = sessions
    _join_devices(run)
    # replay rows (a test instrument) are never presented as measurements
    if replayed:
        run.rows = run.all_rows[run.all_rows["backend"] != "replay"].reset_index(drop=True)
    else:  # the same rows: a second frame over the same columns (copy on write)
        run.rows = shallow(run.all_rows)
    _add_damage_notes(run, why)
    _add_notes(run)
    return run


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


def _written(rows, plan):
    """The rows sweep wrote and no damage changed; how many fill, damaged and
    marked rows were dropped, and why the first damaged one is."""
    status = rows["status"].to_numpy()
    fill = (rows["point_id"] == FILL_POINT_ID).to_numpy() & (status == -1)
    marked = status == DAMAGED_STATUS
    damaged, why = _damaged(rows, plan, ~fill & ~marked)
    keep = ~fill & ~marked & ~damaged
    # a copy only where there is something to drop
    kept = rows if keep.all() else rows[keep].reset_index(drop=True)
    return kept, int(fill.sum()), int(damaged.sum()), int(marked.sum()), why


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
    if bad.any() or (want is not None and len(plan) != int(np.asarray(want).item())):
        what = (
            f"{int(bad.sum())} of its rows are empty"
            if bad.any()
            else f"it has {len(plan)} rows, plan_points says {want}"
        )
        raise SweepFileError(
            f"{path}: /plan is damaged ({what}), so it cannot tell damaged rows of "
            "/measurements from good ones; `sweep --dry-run --resume` checks the file and "
            "`sweep --resume` writes /plan again"
        )
    return plan.drop_duplicates("point_id").set_index("point_id")


def _damaged(rows: pd.DataFrame, plan, written) -> tuple[np.ndarray, str]:
    """Which of the written rows (not fill rows, not rows a resume marked) are
    damaged, and why the first of them is ("row 16: its family or variant is
    empty")."""
    fam = rows["family"].astype(str).to_numpy()
    var = rows["variant"].astype(str).to_numpy()
    status = rows["status"].to_numpy()
    checks = [
        (~np.isin(status, list(STATUS_NAMES)), "its status {s} is none sweep writes"),
        ((fam == "") | (var == ""), "its family or variant is empty"),
    ]
    if plan is not None:
        at = plan.index.get_indexer(rows["point_id"].to_numpy(np.uint64))
        known = at >= 0
        pf = np.where(known, plan["family"].to_numpy(object)[at], "")
        pv = np.where(known, plan["variant"].to_numpy(object)[at], "")
        checks.append((~known, "point {id} is no point of the file's plan (/plan)"))
        checks.append(
            (known & ((pf != fam) | (pv != var)), "it says {f}/{v}, /plan says {pf}/{pv}")
        )
    bad = np.zeros(len(rows), dtype=bool)
    for mask, _ in checks:
        bad |= mask & written
    if not bad.any():
        return bad, ""
    i = int(np.argmax(bad))
    text = next(t for m, t in checks if m[i])
    return bad, f"row {i}: " + text.format(
        s=status[i],
        id=f"{int(rows['point_id'].iat[i]):016x}",
        f=fam[i],
        v=var[i],
        pf=pf[i] if plan is not None else "",
        pv=pv[i] if plan is not None else "",
    )


def _add_damage_notes(run: Run, why: str):
    if run.damaged_rows:
        run.warnings.append(
            f"{run.damaged_rows} damaged row(s) of /measurements were left out ({why}): "
            "`sweep --resume` marks them and measures their points again"
        )
    if run.marked_rows:
        run.warnings.append(
            f"{run.marked_rows} row(s) a resume found damaged and marked (status "
            f"{DAMAGED_STATUS}) were left out"
        )
    run.notes.extend(run.warnings)


def _complete(rows, absent):
    """The rows with the optional columns a file lacks (NaN) and calibration
    (0 before schema 5)."""
    for c in absent:
        rows[c] = np.nan
    if CALIBRATION not in rows.columns:
        rows[CALIBRATION] = 0
    return rows


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


def _add_notes(run: Run):
    """What the reader of a report must know about how complete the file is."""
    if run.fill_rows:
        run.notes.append(
            f"{run.fill_rows} unwritten row(s) left by an interrupted flush were ignored"
        )
    if not run.closed_cleanly:
        run.notes.append(
            "the file has no end_time: the sweep that wrote it was killed or "
            "is still running; the report shows what was flushed"
        )
    rows = run.rows
    if run.replay_rows:
        run.notes.append(
            f"{run.replay_rows} row(s) of the replay backend (a test instrument: each point "
            "slept a duration recorded in another file) are no measurements and were left out"
        )
    bad = (rows["sample_offset"].astype(np.float64) + rows["n_samples"]) > len(run.samples)
    if bad.any():
        run.notes.append(
            f"{int(bad.sum())} row(s) point past the end of /samples: their raw samples are ignored"
        )


def class_labels(devices: pd.DataFrame) -> pd.Series:
    """Each /devices row's device class: the file's `device_class` where it
    has one (schema 5), else derived as the writer derives it: a GPU model is
    (name, CC, memory), labelled by its name unless two models of the file
    share it, then "name CC x.y, N GiB". Model-backend rows: "model"."""
    model = devices["backend"] == "model"
    given = devices.get(DEVICE_CLASS)
    keys = devices[["name", "cc", "mem_bytes"]][~model].drop_duplicates()
    shared = set(keys["name"][keys["name"].duplicated()])
    out = []
    for i, d in devices.iterrows():
        if model[i]:
            out.append("model")
        elif given is not None and given[i]:
            out.append(str(given[i]))
        elif d["name"] in shared:
            out.append(f"{d['name']} CC {cc_text(d['cc'])}, {d['mem_bytes'] / 2**30:.0f} GiB")
        else:
            out.append(str(d["name"]))
    return pd.Series(out, index=devices.index, dtype=object)


def _join_devices(run: Run):
    """Add the columns of each row's /devices row (by rank and session) to
    every row (run.all_rows)."""
    d = run.devices.drop_duplicates(["rank", "session"], keep="last").copy()
    d[DEVICE_CLASS] = class_labels(d) if len(d) else pd.Series(dtype=object)
    keep = {
        "host": "host",
        "uuid": "uuid",
        "name": "device_name",
        "peak_gbps": "peak_gbps",
        "sm_count": "sm_count",
        "pci_bus_id": "pci_bus_id",
        DEVICE_CLASS: DEVICE_CLASS,
    }
    d = d[["rank", "session", *keep]].rename(columns=keep).reset_index(drop=True)
    # a left join on (rank, session), whose keys are unique in d: each row's
    # device row by position (-1: none, NaN as a merge gives), the rows' own
    # columns not copied
    at = pd.MultiIndex.from_frame(d[["rank", "session"]]).get_indexer(
        pd.MultiIndex.from_frame(run.rows[["rank", "session"]])
    )
    rows = shallow(run.rows)
    for c in keep.values():
        rows[c] = d[c].reindex(at).set_axis(rows.index)
    # the labels, made once per distinct (backend, CC, device row) and given
    # to each row: a million rows share a few label strings
    key = ["backend", "cc", "device_name", DEVICE_CLASS]
    group = rows.groupby(key, sort=False, dropna=False).ngroup().to_numpy()
    first = rows[key].iloc[np.unique(group, return_index=True)[1]]
    cls, device = _device_labels(first)
    rows[DEVICE_CLASS] = cls[group]
    rows["device"] = device[group]
    rows["file"] = run.label
    run.all_rows = rows


def _device_labels(rows) -> tuple:
    """The device class and the device label of rows: arrays of str."""
    model = rows["backend"] == "model"
    name = rows["device_name"].fillna("unknown device").astype(str)
    cls = rows[DEVICE_CLASS].fillna(name).astype(str)
    # a class whose label is not its name (two models share the name) is named by its label
    label = np.where(cls != name, cls, name)
    cc = rows["cc"].map(cc_text).astype(str)  # str even with no rows (a sweep just started)
    emulated = np.where(rows["backend"] == "replay", ", emulated", "")
    device = np.where(model, "model CC " + cc, label + " (CC " + cc + emulated + ")")
    return np.asarray(np.where(model, "model", cls), dtype=object), np.asarray(device, dtype=object)


def cc_text(cc) -> str:
    """90 -> '9.0'."""
    cc = int(cc)
    return f"{cc // 10}.{cc % 10}"


def take(rows: pd.DataFrame, pos) -> pd.DataFrame:
    """rows at these positions, in this order: a frame over the same columns
    (no copy, copy on write) when that is all of them in order."""
    pos = np.asarray(pos, dtype=np.int64)
    if len(pos) == len(rows) and (pos == np.arange(len(rows))).all():
        return shallow(rows)
    return rows.take(pos)


# pandas copies on write (always from pandas 3): two frames may share their
# columns, and a change to one copies what it changes. Without it, a frame
# shares nothing: it is a copy.
COPY_ON_WRITE = int(pd.__version__.split(".")[0]) >= 3 or (
    getattr(pd.options.mode, "copy_on_write", False) is True
)


def shallow(rows: pd.DataFrame) -> pd.DataFrame:
    """A frame of its own over the same columns where pandas copies on write,
    a copy where it does not."""
    return rows.copy(deep=not COPY_ON_WRITE)


def _latest_pos(keys: pd.DataFrame, by) -> np.ndarray:
    """Positions of the last row of each group `by` in session order (stable:
    file order within a session), in that order. keys: session and by."""
    order = np.argsort(keys["session"].to_numpy(), kind="stable")
    last = ~keys.iloc[order].duplicated(by, keep="last").to_numpy()
    return order[last]


def latest(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per point and backend: the one of the latest session."""
    return take(
        rows, _latest_pos(rows[["session", "point_id", "backend"]], ["point_id", "backend"])
    )


def _gpu_keys(rows: pd.DataFrame) -> pd.DataFrame:
    """The columns that tell one GPU's row of a point from another's: UUID and
    rank (two ranks sharing a GPU each keep theirs); none for model rows."""
    gpu = (rows["backend"] != "model").to_numpy()
    return pd.DataFrame(
        {
            "session": rows["session"].to_numpy(),
            "point_id": rows["point_id"].to_numpy(),
            "backend": rows["backend"].to_numpy(),
            "_uuid": np.where(gpu, rows["uuid"].fillna("").astype(str).to_numpy(), ""),
            "_rank": np.where(gpu, rows["rank"].to_numpy(), -1),
        }
    )


PER_GPU = ["point_id", "backend", "_uuid", "_rank"]


def latest_per_gpu(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per point, backend and GPU (UUID and rank: two ranks sharing
    a GPU each keep theirs): the one of the latest session. Model rows have
    no GPU: one per point and backend."""
    return take(rows, _latest_pos(_gpu_keys(rows), PER_GPU))


def class_rows(rows: pd.DataFrame, placement: str = "once") -> pd.DataFrame:
    """One row per point, backend and device class: what a table of a
    class's figures shows. Rows of a point that ran once (placement `once`,
    not a calibration point, or a model row) keep the latest session's, as
    `latest` does. A point that ran on several GPUs of a class (every_gpu, a
    calibration point) is shown by its median GPU's row (by median time, the
    lower middle of an even count; ok rows before the others), so the figure
    shown is one GPU's real measurement with its own samples. Rows keep
    their order; only the chosen ones are copied."""
    once = (rows["backend"] == "model") | ((rows[CALIBRATION] == 0) & (placement == "once"))
    once = once.to_numpy()
    at_once = np.flatnonzero(once)
    keys = rows[["session", "point_id", "backend"]]
    kept = [at_once[_latest_pos(keys.iloc[at_once], ["point_id", "backend"])]]
    at_many = np.flatnonzero(~once)
    if len(at_many):
        many = _gpu_keys(rows.iloc[at_many])
        many_pos = at_many[_latest_pos(many, PER_GPU)]
        kept.append(_median_gpu_pos(rows.iloc[many_pos], many_pos))
    pos = np.concatenate(kept)
    # in the rows' order (by index label, as their rows were)
    return take(rows, pos[np.argsort(rows.index.to_numpy()[pos], kind="stable")])


def _median_gpu_pos(many: pd.DataFrame, pos: np.ndarray) -> np.ndarray:
    """Of each point's rows on several GPUs (many, at positions pos), the
    position of its median GPU's, per point, backend and class."""
    keys = ["point_id", "backend", DEVICE_CLASS]
    m = pd.DataFrame(
        {
            **{k: many[k].to_numpy() for k in keys},
            "_bad": (many["status"] != 0).astype(int).to_numpy(),
            "_t": many["median_ns"].fillna(np.inf).to_numpy(),
            "_pos": pos,
        }
    )
    m = m.sort_values([*keys, "_bad", "_t"], kind="stable")
    g = m.groupby(keys, sort=False, dropna=False)
    size = g["_bad"].transform("size")
    n_ok = size - g["_bad"].transform("sum")
    pick = np.where(n_ok > 0, (n_ok - 1) // 2, size - 1)
    return m["_pos"].to_numpy()[g.cumcount().to_numpy() == pick]
