"""sweep-export: flat CSV and JSON a spreadsheet, jq or pandas read as is."""

import csv
import io
import json
import re

import h5py
import numpy as np
import pytest

from sweep_analysis.reader import read

from conftest import run_tool


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
