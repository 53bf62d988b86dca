"""sweep-export: flat CSV and JSON a spreadsheet, jq or pandas read as is."""

import csv
import io
import json
import re

import h5py
import numpy as np
import pytest

from sweep_analysis import export
from sweep_analysis.reader import read

from conftest import run_tool, writable_copy


def test_csv_measurements(h200_file, tmp_path):
    out = tmp_path / "m.csv"
    p = run_tool("export", h200_file, "--csv", "-o", out)
    assert p.returncode == 0, p.stderr
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 54
    assert rows[0]["family"] == "strided_read" and rows[0]["device_name"] == "NVIDIA H200"
    assert "model_conflict_degree" not in rows[0]  # columns the file lacks are not made up
    assert float(rows[0]["gbps"]) > 0


def test_csv_samples_to_stdout(h200_file):
    p = run_tool("export", h200_file, "--csv", "--table", "samples")
    assert p.returncode == 0
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    assert len(rows) == int(read(h200_file).rows["n_samples"].sum())


def test_json(ci_file, tmp_path):
    out = tmp_path / "m.json"
    p = run_tool("export", ci_file, "--json", "--samples", "-o", out)
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text())  # strict: NaN would not parse as standard JSON
    assert d["attributes"]["schema_version"] == int(read(ci_file).attrs["schema_version"])
    m = d["measurements"]
    assert len(m) == len(read(ci_file).rows)
    assert isinstance(m[0]["point_id"], str) and m[0]["median_ns"] is None
    assert m[0]["samples_ns"] == []
    assert d["units"]["gbps"] == "GB/s"


def test_needs_a_format(h200_file):
    p = run_tool("export", h200_file)
    assert p.returncode == 2 and "--csv" in p.stderr


def _file_ids(path):
    """point_id and n_samples of the rows an export holds, straight from HDF5."""
    with h5py.File(path, "r") as f:
        m = f["measurements"][:]
    keep = (m["status"] >= 0) & (m["backend"] != b"replay")
    return m["point_id"][keep].astype(np.uint64), m["n_samples"][keep]


def _exact(texts):
    """Parse decimal ids, refusing any float or exponent form."""
    bad = [t for t in texts if not re.fullmatch(r"[0-9]+", t)]
    assert not bad, f"point ids not written as integers: {bad[:3]}"
    return np.array([int(t) for t in texts], dtype=np.uint64)


def _export(path, *args):
    p = run_tool("export", path, *args)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.mark.parametrize("table", ["measurements", "samples"])
def test_csv_point_ids_exact(h200_file, table):
    ids, n = _file_ids(h200_file)
    assert (ids > 2**53).any()  # ids a double cannot hold: the test can fail
    rows = list(csv.DictReader(io.StringIO(_export(h200_file, "--csv", "--table", table))))
    want = ids if table == "measurements" else np.repeat(ids, n)
    assert np.array_equal(_exact([r["point_id"] for r in rows]), want)


def test_json_point_ids_exact(h200_file):
    ids, _ = _file_ids(h200_file)
    d = json.loads(_export(h200_file, "--json", "--samples"))
    texts = [m["point_id"] for m in d["measurements"]]
    assert all(isinstance(t, str) for t in texts)
    assert np.array_equal(_exact(texts), ids)


# ---- --csv of the measurements streams (issue 36, cause 13) ----


def _whole(path):
    """The CSV as sweep-export wrote it before it streamed: the file read
    whole (read), then written as one text."""
    return export.measurements(read(path)).to_csv(**export.CSV)


def _edited(src, dst, edit):
    writable_copy(src, dst)
    with h5py.File(dst, "r+") as f:
        edit(f)
    return str(dst)


def _damage(f):
    """Rows 3 to 5 zeroed (damaged), row 9 marked by a resume (status -2)."""
    m = f["measurements"][:]
    m[3:6] = np.zeros(3, dtype=m.dtype)
    m["status"][9] = -2
    f["measurements"][:] = m


def _no_devices(f):
    """/devices without rows: every row lacks its device row, so its integer
    device columns read as floats (NaN), in every slice alike."""
    d = f["devices"]
    attrs = dict(d.attrs)
    dtype = d.dtype
    del f["devices"]
    new = f.create_dataset("devices", shape=(0,), maxshape=(None,), dtype=dtype, chunks=True)
    for k, v in attrs.items():
        new.attrs[k] = v


@pytest.fixture(scope="module")
def export_files(h200_file, all_model_file, ci_file, tmp_path_factory):
    """Real files of every kind the CSV meets: measured rows (an H200); every
    family on the model backend (categorical axes by name); damaged and
    marked rows left out; rows without their device row."""
    d = tmp_path_factory.mktemp("export")
    return {
        "h200": h200_file,
        "allmodel": all_model_file,
        "damaged": _edited(ci_file, d / "damaged.h5", _damage),
        "nodevices": _edited(ci_file, d / "nodevices.h5", _no_devices),
    }


@pytest.mark.parametrize("kind", ["h200", "allmodel", "damaged", "nodevices"])
def test_csv_streams_in_slices(kind, export_files, tmp_path, monkeypatch, capsys):
    """--csv of the measurements reads and writes 5 file rows at a time here
    (CSV_SLICE_ROWS), never the whole table, and writes the bytes the whole
    read wrote; its warnings are the whole read's, said before any row."""
    path = export_files[kind]
    want = _whole(path)
    monkeypatch.setattr(export, "CSV_SLICE_ROWS", 5)
    sizes = []
    real = export.measurements

    def spy(run):
        sizes.append(len(run.rows))
        return real(run)

    monkeypatch.setattr(export, "measurements", spy)
    out = tmp_path / "m.csv"
    assert export.main.__wrapped__([path, "--csv", "-o", str(out)]) == 0  # in this process
    assert out.read_text(encoding="utf-8") == want
    with h5py.File(path, "r") as f:
        file_rows = f["measurements"].shape[0]
    assert len(sizes) == -(-file_rows // 5) and max(sizes) <= 5  # a slice at a time
    warned = [ln for ln in capsys.readouterr().err.splitlines() if "warning" in ln]
    assert warned == [f"sweep-export: warning: {path}: {w}" for w in read(path).warnings]
    if kind == "damaged":
        assert len(warned) == 2 and "3 damaged row(s)" in warned[0]
    if kind == "nodevices":
        assert ",," in want and ".0," in want  # NaN device columns; sm_count a float


def test_csv_stdout_is_the_whole_read(export_files):
    """The tool itself (default slices), to stdout: the same bytes."""
    path = export_files["allmodel"]
    assert _export(path, "--csv") == _whole(path)
