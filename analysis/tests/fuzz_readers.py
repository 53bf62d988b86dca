"""Fuzz the readers of the analysis tools with Hypothesis: reader.read (what
every tool, sweep-report included, opens files with), then on what it accepts
export's tables and JSON and compare's matching, sample check and tables.

Inputs: junk bytes, real result files cut short or with bytes overwritten,
and real files edited with h5py (datasets and attributes deleted or retyped,
columns of another type or holding extreme values, tables emptied, blocks of
rows zeroed), among them a schema-7 copy with /plan, by which the reader
judges damaged rows.
Property: the entry function returns, or raises ToolError (the one error
cli.entry turns into a one-line message); anything else is a bug.

  python fuzz_readers.py --seconds 3600 --count 1000000 --seed 1

runs batches of examples until either budget ends, and prints each failure
(shrunk) and a summary; test_fuzz.py runs a few hundred as a normal test.
"""

from __future__ import annotations

import argparse
import atexit
import faulthandler
import json
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
import traceback

import h5py
import numpy as np
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("SW_SOURCE_DIR") or os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, "analysis"))

import functools  # noqa: E402

from sweep_analysis import compare, export, stats  # noqa: E402
from sweep_analysis.cli import CHILD_ENV, ToolError  # noqa: E402
from sweep_analysis.reader import (  # noqa: E402
    MEASUREMENT_COLUMNS,
    OPTIONAL_MEASUREMENT_COLUMNS,
    read,
)

# Small real files for edits and byte damage; the large one is only cut short.
SMALL = ["legacy/h200-quick.h5", "h200-flush-read.h5", "h200-seeds-counters.h5"]
LARGE = [
    os.path.join(SOURCE, "docs", "results", "h200-full.h5"),
    os.path.join(SOURCE, "..", "shared", "data", "h200-full-2026-12-01.h5"),
]
SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") else None


def _sources():
    small = [os.path.join(SOURCE, "docs", "results", n) for n in SMALL]
    big = [p for p in LARGE if os.path.exists(p)]
    return small, small + big


def _with_plan(src):
    """A schema-7 copy of src (the layout sweep writes now): its /plan made from
    its rows, so edits reach the damaged-row checks /plan drives. In a
    temporary folder that goes when the process ends."""
    folder = tempfile.mkdtemp(prefix="fuzz_plan_", dir=SCRATCH)
    atexit.register(shutil.rmtree, folder, True)
    dst = os.path.join(folder, "with-plan.h5")
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        m = f["measurements"][:]
        ids, first = np.unique(m["point_id"], return_index=True)
        plan = np.zeros(
            len(ids), dtype=[("point_id", "<u8"), ("family", "S32"), ("variant", "S32")]
        )
        plan["point_id"], plan["family"], plan["variant"] = (
            ids,
            m["family"][first],
            m["variant"][first],
        )
        f.create_dataset("plan", data=plan, maxshape=(None,), chunks=True)
        known = set(MEASUREMENT_COLUMNS) | set(OPTIONAL_MEASUREMENT_COLUMNS)
        axes = [c for c in m.dtype.names if c not in known and m.dtype[c] == np.int64]
        f["measurements"].attrs["axis_columns"] = np.array(axes, dtype=h5py.string_dtype())
        f.attrs["schema_version"] = np.int32(7)
        f.attrs["plan_points"] = np.uint64(len(ids))
    return dst


SMALL_PATHS, ALL_PATHS = _sources()
WITH_PLAN = _with_plan(SMALL_PATHS[0])
SMALL_PATHS.append(WITH_PLAN)
ALL_PATHS.append(WITH_PLAN)
# The bootstrap's 2000 resamples per point are most of compare's time and
# none of its reading: the same code with 50 keeps the fuzzer on the readers.
compare.median_ratio_ci = functools.partial(stats.median_ratio_ci, resamples=50)
_BYTES = {}
_GOOD = {}


def source_bytes(path):
    if path not in _BYTES:
        with open(path, "rb") as fh:
            _BYTES[path] = fh.read()
    return _BYTES[path]


def good_run(path):
    if path not in _GOOD:
        _GOOD[path] = read(path)
    return _GOOD[path]


# ---- the entry function under test ----------------------------------------


def exercise(path, baseline):
    """What the tools do with a file: returns a word for what happened, or
    raises ToolError; any other exception is a bug."""
    run = read(path)
    export.measurements(run).to_csv(index=False, na_rep="")
    export.samples(run).to_csv(index=False, na_rep="")
    run.devices.to_csv(index=False)
    json.dumps(export.to_json(run, True), allow_nan=False)
    pairs = [(run, baseline), (baseline, run)]
    if len(run.rows) <= 200:  # compare bootstraps every point: the big file's 3937 are slow
        pairs.append((run, run))
    for ra, rb in pairs:
        df = compare.compare(ra, rb)
        compare.nothing_compared(df, ra, rb)
        compare.summary(df, ra, rb, 0.05, 0.01)
        compare._text_table(compare._table(df))
    return "read"


# ---- inputs ------------------------------------------------------------------

ODD_VALUES = [
    -1,
    0,
    2**62,
    -(2**62),
    1.5,
    float("nan"),
    float("inf"),
    "",
    "x" * 300,
    b"\xff\xfe",
    np.array([1, 2, 3]),
    np.array([], dtype=np.int64),
    np.array(["a", "b"], dtype="S1"),
    np.float32(3.0),
    np.uint64(2**64 - 1),
]
ODD_DTYPES = ["f8", "f4", "i4", "i1", "u8", "S4", "S1", "?", ("f8", (2,))]
EXTREMES = [0, -1, 1, 2**31, 2**62, -(2**62), float("nan"), float("inf"), -float("inf")]
TABLES = ["measurements", "devices", "samples", "plan"]


def _retype(f, name, col, dtype):
    d = f[name][:]
    if d.dtype.names is None or col not in d.dtype.names:
        return
    fields = [(c, dtype if c == col else d.dtype.fields[c][0]) for c in d.dtype.names]
    new = np.zeros(d.shape, dtype=fields)
    for c in d.dtype.names:
        if c == col:
            try:
                with np.errstate(all="ignore"):
                    new[c] = d[c].astype(new.dtype.fields[c][0]) if not new[c].ndim > 1 else 0
            except (ValueError, TypeError):
                pass  # leave zeros: a column of the other type is the point
        else:
            new[c] = d[c]
    del f[name]
    f.create_dataset(name, data=new, maxshape=(None,), chunks=True)


def _set_column(f, name, col, value, rows):
    d = f[name][:]
    if d.dtype.names is None or col not in d.dtype.names or not len(d):
        return
    try:
        d[col][rows % len(d)] = value
    except (ValueError, TypeError, OverflowError):
        return
    f[name][:] = d


def _edit(f, e):
    op, name = e[0], e[1]
    if name not in f:
        return
    if op == "delete":
        del f[name]
    elif op == "group":
        del f[name]
        f.create_group(name)
    elif op == "empty" and f[name].chunks:
        f[name].resize((0,) + f[name].shape[1:])
    elif op == "retype":
        _retype(f, name, e[2], e[3])
    elif op == "value":
        _set_column(f, name, e[2], e[3], e[4])
    elif op == "samples":
        del f[name]
        f.create_dataset(name, data=e[2])
    elif op == "zero" and f[name].shape and f[name].shape[0]:
        n = f[name].shape[0]  # a block read back as zeros: damaged rows
        first = e[2] % n
        k = min(e[3], n - first)
        f[name][first : first + k] = np.zeros(k, dtype=f[name].dtype)


def _attr_edit(f, e):
    if e[0] == "del_attr":
        keys = sorted(f.attrs.keys())
        if keys:
            del f.attrs[keys[e[1] % len(keys)]]
    else:
        f.attrs[e[1]] = e[2]


COLUMNS = [
    "point_id",
    "status",
    "sample_offset",
    "n_samples",
    "cc",
    "backend",
    "family",
    "variant",
    "rank",
    "session",
    "median_ns",
    "model_moved_bytes",
    "message",
    "is_reference",
    "name",
    "host",
    "peak_gbps",
]
ATTRS = ["schema_version", "backend", "start_time", "end_time", "job_text", "tool_version"]

table_edit = st.one_of(
    st.tuples(st.sampled_from(["delete", "group", "empty"]), st.sampled_from(TABLES)),
    st.tuples(
        st.just("retype"),
        st.sampled_from(["measurements", "devices"]),
        st.sampled_from(COLUMNS),
        st.sampled_from(ODD_DTYPES),
    ),
    st.tuples(
        st.just("zero"),
        st.sampled_from(["measurements", "plan"]),
        st.integers(0, 10**6),
        st.integers(1, 64),
    ),
    st.tuples(
        st.just("value"),
        st.sampled_from(["measurements", "devices", "plan"]),
        st.sampled_from(COLUMNS),
        st.sampled_from(EXTREMES),
        st.integers(0, 10**6),
    ),
    st.tuples(
        st.just("samples"),
        st.just("samples"),
        st.sampled_from(
            [
                np.zeros((3, 2)),
                np.array([b"x", b"y"]),
                np.array([np.nan, -1.0, 0.0]),
                np.zeros(0),
                np.int64(7),
            ]
        ),
    ),
)
attr_edit = st.one_of(
    st.tuples(st.just("del_attr"), st.integers(0, 100)),
    st.tuples(st.just("set_attr"), st.sampled_from(ATTRS), st.sampled_from(ODD_VALUES)),
)


@st.composite
def damaged_file(draw):
    """(kind, bytes or None, edits, source): what to write for one example."""
    kind = draw(st.sampled_from(["junk", "cut", "flip", "edit"]))
    if kind == "junk":
        head = draw(st.sampled_from([b"", b"\x89HDF\r\n\x1a\n"]))
        return kind, head + draw(st.binary(max_size=2048)), None, None
    src = draw(st.sampled_from(ALL_PATHS if kind == "cut" else SMALL_PATHS))
    data = source_bytes(src)
    if kind == "cut":
        return kind, data[: draw(st.integers(0, len(data)))], None, src
    if kind == "flip":
        b = bytearray(data)
        for _ in range(draw(st.integers(1, 16))):
            b[draw(st.integers(0, len(b) - 1))] = draw(st.integers(0, 255))
        return kind, bytes(b), None, src
    edits = draw(st.lists(st.one_of(table_edit, attr_edit), min_size=1, max_size=3))
    return kind, None, edits, src


def write_example(ex, path):
    kind, data, edits, src = ex
    if data is not None:
        with open(path, "wb") as fh:
            fh.write(data)
        return
    with open(path, "wb") as fh:
        fh.write(source_bytes(src))
    with h5py.File(path, "r+") as f:
        for e in edits:
            (_attr_edit if e[0] in ("del_attr", "set_attr") else _edit)(f, e)


# ---- the property --------------------------------------------------------------

COUNTS = {"inputs": 0, "read": 0, "refused": 0, "crashed": 0, "gave_up": 0, "out_of_memory": 0}
CHILD_MEMORY = 4 << 30  # bytes of address space an input may take
CHILD_READ_LIMIT_S = 30  # seconds a read of one input may take


def check(ex, scratch):
    path = os.path.join(scratch, "fuzz.h5")
    if os.path.exists(path):
        os.unlink(path)
    try:
        write_example(ex, path)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return  # an edit h5py cannot make: no input
    COUNTS["inputs"] += 1
    baseline = good_run(SMALL_PATHS[0])
    COUNTS[_exercise_isolated(path, baseline)] += 1


def _exercise_in_child(path, baseline):
    # a damaged size HDF5 allocates for: MemoryError here (the tools say "out
    # of memory"), not the kernel's OOM killer on a shared machine
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))
    try:
        return exercise(path, baseline)
    except ToolError as e:
        assert str(e).strip(), "an empty error message"
        return "refused"
    except MemoryError:
        return "out_of_memory"


def _exercise_isolated(path, baseline):
    """exercise() in a forked child, as the tools run (cli.isolated): a crash
    inside HDF5 kills the child, which the tool reports in one line, and is
    counted as "crashed" here; a Python exception fails the property."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.environ[CHILD_ENV] = "1"  # reads bounded as in a tool's child
        os.environ["SWEEP_ANALYSIS_READ_LIMIT_S"] = str(CHILD_READ_LIMIT_S)
        code = 1
        try:
            os.write(w, _exercise_in_child(path, baseline).encode())
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        key = f.read().decode()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
        return "gave_up"  # HDF5 looped: the tools give up with one line
    if os.WIFSIGNALED(status):
        return "crashed"
    assert os.WEXITSTATUS(status) == 0 and key, "the property failed in the child (above)"
    return key


def property_test(scratch, n, seed_value):
    @seed(seed_value)
    @settings(
        max_examples=n,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(damaged_file())
    def fuzz(ex):
        check(ex, scratch)

    return fuzz


def main(argv=None):
    ap = argparse.ArgumentParser(description="Fuzz the analysis readers for a budget.")
    ap.add_argument("--seconds", type=float, default=3600)
    ap.add_argument("--count", type=int, default=1_000_000, help="stop after this many inputs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=2000, help="examples per Hypothesis run")
    ap.add_argument("--first-batch", type=int, default=0, help="replay from this batch on")
    a = ap.parse_args(argv)
    faulthandler.enable()
    t0, batch, failures = time.monotonic(), a.first_batch, []
    with tempfile.TemporaryDirectory(dir=SCRATCH) as scratch:
        while time.monotonic() - t0 < a.seconds and COUNTS["inputs"] < a.count:
            try:
                property_test(scratch, a.batch, a.seed * 1_000_003 + batch)()
            except Exception:
                failures.append(traceback.format_exc())
                print(failures[-1], flush=True)
            batch += 1
            print(
                f"batch {batch}: {COUNTS} after {time.monotonic() - t0:.0f} s, "
                f"{len(failures)} failure(s)",
                flush=True,
            )
    print(f"done: {COUNTS}, {time.monotonic() - t0:.0f} s, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
