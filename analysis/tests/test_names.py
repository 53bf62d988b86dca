"""Schema 8's names and per-access figures as every reader shows them: the
categorical axes' names (/axis_names) in Run.with_names, the report, the
comparison and the export; the model's figures per named access
(/model_accesses) in Run.accesses, the export and the report; and the
ok rows no CPU check compared, said in the report's Summary."""

import csv
import io
import os
import subprocess

import h5py
import numpy as np
import pytest

from sweep_analysis import compare
from sweep_analysis.reader import read
from sweep_analysis.report import make_report

from conftest import run_tool


@pytest.fixture(scope="session")
def hostile_file(sweep_bin, tmp_path_factory):
    """The test plug-in `hostile` (tests/plugins/hostile.c), whose variant
    names one access, `data`, on the model backend: n 1K to 4K floats, each
    warp's 32 floats one request of 4 sectors."""
    plugins = os.environ.get("SW_TEST_PLUGINS")
    if not plugins:
        pytest.skip("SW_TEST_PLUGINS is not set: ctest sets it to the test plug-ins' folder")
    d = tmp_path_factory.mktemp("hostile")
    (d / "job.yaml").write_text("model:\n  ccs: [6.0, 9.0]\nfamilies:\n  hostile:\n")
    out = d / "hostile.h5"
    p = subprocess.run(
        [sweep_bin, "-q", "--backend", "model", "--plugin"]
        + [os.path.join(plugins, "plugin_hostile.so"), str(d / "job.yaml"), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    return str(out)


def test_axis_names_read_and_shown(all_model_file):
    run = read(all_model_file)
    assert run.axis_names[("histogram", "dist")] == {0: "uniform", 1: "skewed", 2: "single"}
    assert run.axis_names[("texture_read", "pattern")][1] == "gather"
    rows = run.rows
    assert rows["dist"].dtype.kind == "i", "the rows keep the values"
    named = run.with_names(rows)
    hist = named[(rows["family"] == "histogram") & (rows["dist"] != -1)]
    assert set(hist["dist"]) == {"uniform", "skewed", "single"}
    other = named[rows["family"] == "strided_read"]
    assert set(other["dist"]) == {-1}, "an axis a family lacks stays -1"
    assert run.axis_value("histogram", "dist", 2) == "single"
    assert run.axis_value("strided_read", "stride", 4) == "4"


def test_older_files_have_neither(h200_file):
    run = read(h200_file)
    assert run.axis_names == {} and run.accesses.empty
    assert run.with_names(run.rows) is run.rows


def test_accesses_joined_to_their_rows(hostile_file):
    run = read(hostile_file)
    a = run.accesses
    assert len(a) == len(run.rows) == 8  # 4 sizes x 2 CCs, one access each
    assert set(a["name"]) == {"data"} and set(a["counts"]) == {"exact"}
    assert (a["requests"] == a["n"] / 32).all()
    assert (a["transactions"] == 4 * a["requests"]).all()
    assert (a["family"] == "hostile").all() and set(a["cc"]) == {60, 90}
    # the key is row and point together: a row a cut lost does not claim one
    rows = run.rows.set_index("point_id")
    for r in a.itertuples():
        assert rows.loc[r.point_id, "cc"] == r.cc


def test_accesses_of_a_lost_row_left_out(hostile_file, tmp_path):
    """A /model_accesses row whose /measurements row is another point (a cut
    between the two writes, then a resume wrote another point there) is
    not joined to it."""
    path = tmp_path / "cut.h5"
    with open(hostile_file, "rb") as f:
        path.write_bytes(f.read())
    with h5py.File(path, "r+") as f:
        t = f["model_accesses"]
        first = t[0]
        first["point_id"] = np.uint64(12345)
        t[0] = first
    assert len(read(str(path)).accesses) == 7


def test_export_names_and_accesses(all_model_file, hostile_file):
    p = run_tool("export", all_model_file, "--csv")
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    hist = [r for r in rows if r["family"] == "histogram" and r["dist"] != "-1"]
    assert {r["dist_name"] for r in hist} == {"uniform", "skewed", "single"}
    assert {r["dist"] for r in hist} == {"0", "1", "2"}, "the value stays beside it"
    assert all(r["dist_name"] == "" for r in rows if r["family"] == "strided_read")
    p = run_tool("export", hostile_file, "--csv", "--table", "accesses")
    assert p.returncode == 0, p.stderr
    acc = list(csv.DictReader(io.StringIO(p.stdout)))
    assert len(acc) == 8 and {r["name"] for r in acc} == {"data"}
    p = run_tool("export", hostile_file, "--json")
    assert p.returncode == 0, p.stderr
    assert '"model_accesses"' in p.stdout and '"axis_names"' in p.stdout


def test_compare_names_points(all_model_file):
    run = read(all_model_file)
    df = compare.compare(run, run)
    points = set(df.loc[df["family"] == "histogram", "point"])
    assert any("dist=skewed" in p for p in points), sorted(points)[:3]


def test_report_names_checks_and_accesses(all_model_file, hostile_file, tmp_path):
    make_report([all_model_file, hostile_file], str(tmp_path / "rep"))
    md = (tmp_path / "rep" / "report.md").read_text()
    summary = md.split("## ", 2)[1]
    assert "**Checks**: 0 of" in summary and "never checked: the model backend runs no fill" in (
        summary
    )
    assert "dist (named: uniform, skewed, single)" in md
    assert "pattern=gather" in md and "pattern=1" not in md
    # the per-access table of points is in the appendix, under its heading
    app = (tmp_path / "rep" / "report-appendix.md").read_text()
    assert "### Per access (model)" in md and "| data |" in app
