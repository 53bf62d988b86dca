"""The reader on real files, and the clear errors it gives for bad ones."""

import glob
import os
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np
import pytest

from sweep_analysis.export import to_json
from sweep_analysis.reader import SCHEMA_VERSION, SweepFileError, read

from conftest import METRIC_NAMES, SOURCE, metrics_copy, run_tool, writable_copy


def test_ci_file_from_the_c_writer(ci_file):
    r = read(ci_file)
    # the reader reads what the writer writes: 9 from issue 35 (what each rate's fit rests on) on
    assert int(r.attrs["schema_version"]) == SCHEMA_VERSION == 9
    assert r.plugins == [] and r.loaded_plugins == []  # jobs/ci.yaml names no plug-in
    assert r.plugin_libraries == []
    assert r.metrics.empty and list(r.metrics.columns) == ["point_id", "name", "value", "unit"]
    assert r.backend == "model" and r.closed_cleanly
    assert len(r.rows) == int(r.attrs["plan_points"])
    assert r.fill_rows == 0
    assert {"stride", "n"} <= set(r.axes)
    assert set(r.rows["family"]) == {"strided_read"}
    assert all(isinstance(v, str) for v in r.rows["variant"])  # bytes decoded
    assert set(r.rows["cc"]) == {60, 70, 80, 90}
    assert r.units["stride"] == "elements" and r.units["gbps"] == "GB/s"
    assert (r.rows["device"].str.startswith("model CC")).all()


def _with_int_column(src, dst, name):
    """A copy of src whose /measurements has one more int64 column, `name`
    (0 in every row), with the table's attributes kept."""
    writable_copy(src, dst)
    with h5py.File(dst, "r+") as f:
        old = f["measurements"]
        rows, attrs = old[:], dict(old.attrs.items())
        dt = np.dtype([(c, rows.dtype.fields[c][0]) for c in rows.dtype.names] + [(name, "<i8")])
        grown = np.zeros(len(rows), dtype=dt)
        for c in rows.dtype.names:
            grown[c] = rows[c]
        del f["measurements"]
        new = f.create_dataset("measurements", data=grown, maxshape=(None,), chunks=True)
        for k, v in attrs.items():
            new.attrs[k] = v
    return str(dst)


def test_axes_named_by_the_file(ci_file, tmp_path):
    # schema 4: the axes are those axis_columns names, in its order; an integer
    # column it does not name is a column, not an axis
    with h5py.File(ci_file, "r") as f:
        named = [str(a) for a in f["measurements"].attrs["axis_columns"]]
    assert {"stride", "n"} <= set(named)
    r = read(_with_int_column(ci_file, tmp_path / "extra.h5", "retries"))
    assert r.axes == named
    assert "retries" not in r.axes and (r.rows["retries"] == 0).all()


def test_axes_attribute_checked(ci_file, tmp_path):
    path = _with_int_column(ci_file, tmp_path / "bad.h5", "retries")
    with h5py.File(path, "r+") as f:
        f["measurements"].attrs["axis_columns"] = ["stride", "no_such_column"]
    with pytest.raises(SweepFileError, match="names 'no_such_column'"):
        read(path)
    with h5py.File(path, "r+") as f:
        del f["measurements"].attrs["axis_columns"]
    with pytest.raises(SweepFileError, match="no axis_columns attribute"):
        read(path)


@pytest.mark.parametrize(
    "name", ["h200-quick.h5", "../h200-launch-counters.h5", "../h200-full-46ab23d.h5"]
)
def test_older_files_keep_the_old_axis_rule(name, tmp_path):
    # schema 3 and older have no axis_columns: an int64 column outside the
    # reader's lists is an axis, as before
    src = os.path.join(SOURCE, "docs", "results", "legacy", name)
    with h5py.File(src, "r") as f:
        assert int(f.attrs["schema_version"]) < 4
        assert "axis_columns" not in f["measurements"].attrs
    before = read(src).axes
    assert {"stride", "n"} <= set(before)
    r = read(_with_int_column(src, tmp_path / "old.h5", "retries"))
    assert r.axes == before + ["retries"]


def test_h200_file(h200_file):
    r = read(h200_file)
    assert r.backend == "cuda" and len(r.rows) == 54
    assert r.devices["name"].iloc[0] == "NVIDIA H200"
    assert (r.rows["device"] == "NVIDIA H200 (CC 9.0)").all()
    for _, row in r.rows.iterrows():
        s = r.samples_of(row)
        assert len(s) == row["n_samples"] > 0
        # the row's statistics are those of its raw samples
        assert np.median(s) == pytest.approx(row["median_ns"], rel=1e-9)


def test_metrics_table(h200_file, tmp_path):
    # a schema-2 file has no /metrics: an empty table
    assert read(h200_file).metrics.empty
    r = read(metrics_copy(h200_file, tmp_path / "m.h5"))
    m = r.metrics
    assert len(m) == 4  # the fill row dropped, the point written twice once
    assert list(m["name"]) == list(METRIC_NAMES) * 2  # decoded, in file order
    assert list(m["value"]) == [0.0, 1.0, 1000.0, 1001.0]  # the last of a repeat
    assert list(m["unit"]) == ["byte", "sector"] * 2
    assert set(m["point_id"]) <= set(r.rows["point_id"])
    assert r.attrs["metrics"] == ",".join(METRIC_NAMES)


def test_only_the_reader_opens_files():
    """reader.py reads every result file; leaveout.py alone opens one
    besides, to make and edit a fleet file's copy less a family
    (scripts/time-model-figures.py's input), at the HDF5 level."""
    pkg = os.path.join(SOURCE, "analysis", "sweep_analysis")
    users = [
        os.path.basename(p)
        for p in glob.glob(os.path.join(pkg, "*.py"))
        if "h5py" in Path(p).read_text()
    ]
    assert sorted(users) == ["leaveout.py", "reader.py"]


def test_missing_file(tmp_path):
    with pytest.raises(SweepFileError, match="no such file"):
        read(tmp_path / "nope.h5")


def test_not_hdf5(tmp_path):
    p = tmp_path / "job.h5"
    p.write_text("name: not hdf5\n")
    with pytest.raises(SweepFileError, match="not an HDF5 file"):
        read(p)


def test_truncated(h200_file, tmp_path):
    p = tmp_path / "cut.h5"
    data = Path(h200_file).read_bytes()
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(SweepFileError, match="truncated"):
        read(p)


def test_foreign_hdf5(tmp_path):
    p = tmp_path / "other.h5"
    with h5py.File(p, "w") as f:
        f["measurements"] = np.arange(10)
    with pytest.raises(SweepFileError, match="not a sweep result file"):
        read(p)


def test_plugin_record_and_the_schema_before(ci_file, tmp_path):
    """A schema 7 file's plug-in record reads as (path, hash) pairs and
    exports as lists; the same file as schema 6 wrote it (no record) reads
    as before, one version back."""
    p = writable_copy(ci_file, tmp_path / "plugins.h5")
    with h5py.File(p, "r+") as f:
        f.attrs["plugin_paths"] = np.array(
            ["/opt/p/a.so", "/opt/p/b.so"], dtype=h5py.string_dtype()
        )
        f.attrs["plugin_hashes"] = np.array([1, 2**64 - 1], dtype=np.uint64)
    r = read(p)
    assert r.plugins == [("/opt/p/a.so", 1), ("/opt/p/b.so", 2**64 - 1)]
    attrs = to_json(r)["attributes"]
    assert attrs["plugin_paths"] == ["/opt/p/a.so", "/opt/p/b.so"]
    assert attrs["plugin_hashes"] == [1, 2**64 - 1]
    with h5py.File(p, "r+") as f:
        del f.attrs["plugin_paths"], f.attrs["plugin_hashes"]
        f.attrs["schema_version"] = np.int32(6)  # before the plug-in record
    r = read(p)
    assert int(r.attrs["schema_version"]) == 6 and r.plugins == []
    assert len(r.rows) == int(r.attrs["plan_points"])


def test_loaded_plugins_and_their_libraries(ci_file, tmp_path):
    """A schema 8 file's record of every plug-in loaded and the libraries
    they brought in reads as tuples, each library with its owner's hash."""
    p = writable_copy(ci_file, tmp_path / "loaded.h5")
    text = h5py.string_dtype()
    with h5py.File(p, "r+") as f:
        f.attrs["plugin_loaded_paths"] = np.array(["/opt/p/q.so"], dtype=text)
        f.attrs["plugin_loaded_hashes"] = np.array([2**64 - 2], dtype=np.uint64)
        f.attrs["plugin_libraries"] = np.array(["/opt/lib/libx.so.1"], dtype=text)
        f.attrs["plugin_library_hashes"] = np.array([7], dtype=np.uint64)
        f.attrs["plugin_library_owners"] = np.array([2**64 - 2], dtype=np.uint64)
    r = read(p)
    assert r.plugins == []  # the job's plugins: names none: --plugin loaded it
    assert r.loaded_plugins == [("/opt/p/q.so", 2**64 - 2)]
    assert r.plugin_libraries == [("/opt/lib/libx.so.1", 7, 2**64 - 2)]


def test_newer_schema_refused(h200_file, tmp_path):
    p = writable_copy(h200_file, tmp_path / "v3.h5")
    with h5py.File(p, "r+") as f:
        f.attrs["schema_version"] = np.int32(SCHEMA_VERSION + 1)
    with pytest.raises(SweepFileError, match=f"schema_version {SCHEMA_VERSION + 1} is newer"):
        read(p)


def test_file_before_counter_columns(h200_file):
    # committed H200 files predate the counter columns (an added column keeps
    # the schema version): they read, without those columns
    r = read(h200_file)
    assert "ctr_ld_sectors" not in r.rows.columns and len(r.rows) > 0


def test_missing_column(h200_file, tmp_path):
    p = tmp_path / "nocol.h5"
    src = read(h200_file)
    with h5py.File(h200_file, "r") as f, h5py.File(p, "w") as g:
        for k, v in f.attrs.items():
            g.attrs[k] = v
        m = f["measurements"][:]
        keep = [c for c in m.dtype.names if c != "median_ns"]
        g["measurements"] = m[keep]
        g["devices"] = f["devices"][:]
        g["samples"] = f["samples"][:]
    assert len(src.rows) == 54
    with pytest.raises(SweepFileError, match="lacks the column"):
        read(p)


def test_fill_rows_ignored(h200_file, tmp_path):
    """A kill in the middle of a flush leaves rows that read as the fill
    value (status -1): the reader drops them and says so."""
    p = writable_copy(h200_file, tmp_path / "fill.h5")
    with h5py.File(p, "r+") as f:
        m = f["measurements"]
        n = m.shape[0]
        m.resize((n + 3,))
        fill = np.zeros(3, dtype=m.dtype)
        fill["status"] = -1
        fill["point_id"] = np.iinfo(np.uint64).max
        m[n:] = fill
        del f.attrs["end_time"]
    r = read(p)
    assert len(r.rows) == 54 and r.fill_rows == 3
    assert not r.closed_cleanly
    assert any("unwritten" in n for n in r.notes) and any("end_time" in n for n in r.notes)


@pytest.mark.parametrize(
    "tool,extra",
    [("report", ["-o", "OUT"]), ("export", ["--csv", "-o", "OUT"]), ("compare", ["FILE"])],
)
def test_tools_fail_cleanly(tool, extra, h200_file, tmp_path):
    """Each tool on a truncated file: one clear line, exit 2, nothing written."""
    bad = tmp_path / "cut.h5"
    bad.write_bytes(Path(h200_file).read_bytes()[:4096])
    out = tmp_path / "out"
    args = [str(out) if a == "OUT" else str(bad) if a == "FILE" else a for a in extra]
    p = run_tool(tool, bad, *args)
    assert p.returncode == 2, p.stderr
    assert "truncated" in p.stderr and "Traceback" not in p.stderr
    assert sorted(os.listdir(tmp_path)) == ["cut.h5"]  # no output, no temp leftovers


# A job the model backend runs in several seconds, flushing some twenty times.
LONG_SETS = ("--set", "strided_read.stride=1:128", "--set", "strided_read.n=1K:4G:x2")


def _start_long(sweep_bin, out):
    return subprocess.Popen(
        [
            sweep_bin,
            "-q",
            "--backend",
            "model",
            *LONG_SETS,
            os.path.join(SOURCE, "jobs", "ci.yaml"),
            "-o",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _read_when(path, proc, ok, timeout_s=120):
    """read(path) until ok(run) holds, while proc runs."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        if os.path.exists(path):
            r = read(path)
            if ok(r):
                return r
        assert proc.poll() is None, f"the sweep ended first: {proc.stderr.read()}"
        time.sleep(0.05)
    pytest.fail(f"{path}: not there in {timeout_s} s")


def test_live_file(sweep_bin, tmp_path):
    """A file a sweep is writing reads as of its last flush (SWMR), from its
    first moment (no rows yet), and more rows on a later read; once the
    sweep ends it is complete."""
    p = tmp_path / "live.h5"
    proc = _start_long(sweep_bin, p)
    try:
        first = _read_when(p, proc, lambda r: len(r.rows) > 0)
        assert not first.closed_cleanly
        assert any("still running" in n for n in first.notes)
        later = _read_when(p, proc, lambda r: len(r.rows) > len(first.rows))
        assert later.rows["status"].ge(0).all()
        assert proc.wait(timeout=600) == 0, proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
    done = read(p)
    assert done.closed_cleanly and len(done.rows) == int(done.attrs["plan_points"])


def test_killed_file(sweep_bin, tmp_path):
    """A sweep killed with SIGKILL leaves HDF5's consistency flags set; the
    reader reads its flushed rows all the same."""
    p = tmp_path / "killed.h5"
    proc = _start_long(sweep_bin, p)
    try:
        _read_when(p, proc, lambda r: len(r.rows) > 0)
    finally:
        proc.kill()
        proc.wait()
    r = read(p)
    assert 0 < len(r.rows) < int(r.attrs["plan_points"])
    assert not r.closed_cleanly


def test_plain_writer_killed(ci_file, tmp_path):
    """A program killed while it had the file open for writing without SWMR
    leaves flags a SWMR reader refuses too: the message says what to do."""
    p = writable_copy(ci_file, tmp_path / "plain.h5")
    kill = (
        "import h5py, os, signal, sys\n"
        "f = h5py.File(sys.argv[1], 'r+')\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    subprocess.run([sys.executable, "-c", kill, p], timeout=60)
    with pytest.raises(SweepFileError, match="h5clear -s"):
        read(p)


def test_truncated_swmr_format(ci_file, tmp_path):
    """The files sweep writes now (1.10 format) cut short: the same message
    as for the 1.8-format ones."""
    p = tmp_path / "cut.h5"
    data = Path(ci_file).read_bytes()
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(SweepFileError, match="truncated"):
        read(p)


def test_replay_rows_are_no_measurements(sweep_bin, tmp_path):
    """A replay (the test instrument) writes rows; the reader never shows them."""
    table = tmp_path / "d.csv"
    dry = subprocess.run(
        [
            sweep_bin,
            "--dry-run",
            "--points",
            "--backend",
            f"replay={table}",
            SOURCE + "/jobs/ci.yaml",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    ids = [
        w[1]
        for w in (ln.split() for ln in dry.stdout.splitlines())
        if len(w) > 3 and w[0].isdigit()
    ]
    table.write_text(
        "point_id_hex,family,variant,seconds\n"
        + "".join(f"{i},strided_read,course,0\n" for i in ids)
    )
    out = tmp_path / "replay.h5"
    p = subprocess.run(
        [sweep_bin, "-q", "--backend", f"replay={table}", SOURCE + "/jobs/ci.yaml", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    with h5py.File(out, "r") as f:
        assert set(f["measurements"]["backend"]) == {b"replay"}
    r = read(str(out))
    assert len(r.rows) == 0 and r.replay_rows == len(ids) > 0
    assert any("replay backend" in n for n in r.notes)


def test_emulated_devices_name_their_gpu(sweep_bin, tmp_path):
    """An emulated device's /devices row names the GPU its recording measured
    on (emulates, schema 8), and every row read carries it (issue 31)."""
    rec = SOURCE + "/docs/results/gpu-runs/h200-check-2b86d9f/seeds-gpu-1.h5"
    out = tmp_path / "emulated.h5"
    p = subprocess.run(
        [sweep_bin, "-q", "--backend", f"replay={rec}", "--replay-devices", "A:1"]
        + ["--replay-speed", "1000", SOURCE + "/jobs/seeds.yaml", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    r = read(str(out))
    assert list(r.devices["emulates"]) == ["NVIDIA H200"]
    assert r.replay_rows > 0 and set(r.all_rows["emulates"]) == {"NVIDIA H200"}
