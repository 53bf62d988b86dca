"""What the reader knows of the file format (docs/hdf5-schema.md): the
schema versions it reads and what each added, the columns and attributes
of each table, the status names; the Run a file reads into, and the one
error of a file this package cannot read."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .cli import ToolError

SCHEMA_VERSION = 9  # SW_SCHEMA_VERSION of the C writer this package reads (and older)
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
# Schema 8's time model (docs/model.md, "Time"): the GPU of the table a row's
# time is predicted for (a device target's, or a measured row's own GPU),
# the predicted median time, the term that bound it and its basis.
OPTIONAL_MEASUREMENT_COLUMNS = (
    "model_transactions_per_request",
    "model_conflict_degree",
    "model_time_bound_ns",
    "model_time_ns",  # schema 8: the time model's prediction
)
MODEL_DEVICE = "model_device"
# Optional string columns: "" when absent (older files, and the time model's
# columns where it gives no time).
OPTIONAL_TEXT_COLUMNS = (MODEL_DEVICE, "model_time_term", "model_time_basis")
# /devices: the GPU an emulated device replays (the recording's device name);
# absent before it was added, "" on other devices.
EMULATES = "emulates"
# /model_rates (schema 8): one row per GPU whose rates the time model used.
MODEL_RATES_COLUMNS = ("device", "role", "basis", "file", "file_class", "points")
# /model_rates (schema 9): per rate RATE, RATE_fit (a word: "fitted", "not needed",
# "not identifiable"; "" without a fit) and RATE_points, the file's points that fit it.
RATE_FIT_SUFFIX = "_fit"
RATE_NOT_IDENTIFIABLE = "not identifiable"
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
    # /model_rates: the time model's rates per GPU and the files fitted to; empty before schema 8
    model_rates: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=MODEL_RATES_COLUMNS)
    )
    # schema 8: {(family, axis): {value: name}} of the categorical axes
    # (/axis_names; `with_names` shows them), and /model_accesses joined to
    # its rows (reader_names.py); {} and empty before schema 8
    axis_names: dict = field(default_factory=dict)
    accesses: pd.DataFrame = field(default_factory=pd.DataFrame)

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

    def with_names(self, frame: pd.DataFrame) -> pd.DataFrame:
        """A copy of frame (rows of this file, or any frame with `family`
        and axis columns) with each categorical axis by its values' names;
        frame itself when no axis is named. For showing: the numbers stay in
        run.rows, which joins and sorts by them."""
        from .reader_names import with_names

        return with_names(frame, self.axis_names, self.axes)

    def axis_value(self, family: str, axis: str, value) -> str:
        """How a value of an axis reads: its name where the family names
        it, else the number."""
        name = self.axis_names.get((str(family), str(axis)), {}).get(int(value))
        return name if name is not None else str(int(value))

    @property
    def unchecked_rows(self) -> int:
        """Ok rows whose output no CPU check compared (check_mode none:
        the model and replay backends run no check, a family may have none)."""
        r = self.rows
        if not len(r) or "check_mode" not in r:
            return 0
        return int(((r["status"] == 0) & (r["check_mode"].astype(str) == "none")).sum())

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
