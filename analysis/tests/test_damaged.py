"""Damaged rows of /measurements in the analysis tools (issue 23, cause 6;
docs/hdf5-schema.md, "Damaged rows"; docs/bad-inputs.md, D14 to D23): a row of
no point of the file's /plan, or whose family or variant are empty or not the
plan's, or whose status sweep never writes, is never exported, reported or
compared as data. Each tool leaves it out and says so on stderr; a /plan that
cannot tell is refused. Files: jobs/ci.yaml on the model backend (schema 7,
with /plan), edited with h5py; the legacy H200 file for a file before /plan;
an every_gpu file from two ranks, whose point ids repeat and are no damage.
"""

import io
import json
import os
import shutil
import subprocess

import h5py
import numpy as np
import pandas as pd
import pytest

from sweep_analysis.reader import latest, read

from conftest import SOURCE, run_tool, writable_copy

FOREIGN = 0x0123456789ABCDEF


def damaged_copy(src, dst, edit):
    writable_copy(src, dst)
    with h5py.File(dst, "r+") as f:
        m = f["measurements"][:]
        edit(f, m)
        f["measurements"][:] = m
    return str(dst)


def zero_block(first, n):
    def edit(f, m):
        m[first : first + n] = np.zeros(n, dtype=m.dtype)

    return edit


def set_field(row, col, value):
    def edit(f, m):
        m[col][row] = value

    return edit


def warnings(tool, stderr):
    return [x for x in stderr.splitlines() if x.startswith(f"sweep-{tool}: warning: ")]


def csv_rows(text):
    return pd.read_csv(io.StringIO(text), dtype={"point_id": "uint64"})


def test_zero_block_export_csv(ci_file, tmp_path):
    """D14: a block that reads back as zeros (was: exported as 16 ok rows of
    point 0): left out, one warning, exit 0."""
    path = damaged_copy(ci_file, tmp_path / "in.h5", zero_block(16, 16))
    p = run_tool("export", path, "--csv")
    assert p.returncode == 0, p.stderr
    rows = csv_rows(p.stdout)
    assert len(rows) == 144 - 16 and (rows["point_id"] != 0).all() and rows["family"].notna().all()
    (w,) = warnings("export", p.stderr)
    assert "16 damaged row(s) of /measurements were left out (row 16: its family or variant" in w
    assert "`sweep --resume` marks them and measures their points again" in w


def test_no_plan_point_export_json(ci_file, tmp_path):
    """D15: a row whose point is no point of /plan, its names intact (only the
    plan tells): left out of the JSON, said."""
    path = damaged_copy(ci_file, tmp_path / "in.h5", set_field(5, "point_id", FOREIGN))
    p = run_tool("export", path, "--json")
    assert p.returncode == 0, p.stderr
    ids = [int(r["point_id"]) for r in json.loads(p.stdout)["measurements"]]
    assert len(ids) == 143 and FOREIGN not in ids
    (w,) = warnings("export", p.stderr)
    assert "(row 5: point 0123456789abcdef is no point of the file's plan (/plan))" in w


@pytest.mark.parametrize(
    "edit,why",
    [
        (
            set_field(9, "variant", b"no_such_variant"),
            "row 9: it says strided_read/no_such_variant",
        ),
        (set_field(9, "family", b""), "row 9: its family or variant is empty"),
        (set_field(9, "status", 7), "row 9: its status 7 is none sweep writes"),
    ],
    ids=["variant", "family", "status"],
)
def test_each_kind_is_read_as_damage(ci_file, tmp_path, edit, why):
    """D15 too: another variant than /plan's, an empty family, a status sweep
    never writes: each left out by the reader every tool opens files with."""
    run = read(damaged_copy(ci_file, tmp_path / "in.h5", edit))
    assert len(run.rows) == 143 and run.damaged_rows == 1
    assert why in run.warnings[0]


def test_report_says_it(ci_file, tmp_path):
    """D16: sweep-report: the rows are not in the report, a warning on stderr
    (also under -q) and a note in the report."""
    path = damaged_copy(ci_file, tmp_path / "in.h5", zero_block(0, 8))
    p = run_tool("report", path, "-o", tmp_path / "rep", "-q")
    assert p.returncode == 0, p.stderr
    (w,) = warnings("report", p.stderr)
    assert "8 damaged row(s)" in w
    with open(tmp_path / "rep" / "report.md", encoding="utf-8") as fh:
        assert "8 damaged row(s) of /measurements were left out" in fh.read()


def test_compare_leaves_them_out(ci_file, tmp_path):
    """D17: sweep-compare: the damaged file's damaged points are not compared
    (the other file's same points have no partner), and it says so."""
    path = damaged_copy(ci_file, tmp_path / "in.h5", zero_block(0, 8))
    p = run_tool("compare", path, ci_file)
    assert p.returncode == 0, p.stderr
    w = [x for x in warnings("compare", p.stderr) if "damaged" in x]
    assert len(w) == 1 and "in.h5: 8 damaged row(s)" in w[0], p.stderr
    assert 0 not in set(read(path).rows["point_id"])


def _zero_plan(f):
    f["plan"][0:4] = np.zeros(4, f["plan"].dtype)


def _cut_plan(f):
    f["plan"].resize((100,))


def _delete_plan(f):
    del f["plan"]


@pytest.mark.parametrize(
    "edit,want",
    [
        (_zero_plan, "4 of its rows are empty"),
        (_cut_plan, "it has 100 rows, plan_points says 144"),
        (_delete_plan, "no /plan dataset, which schema 7 files have"),
    ],
    ids=["zeroed", "short", "deleted"],
)
def test_damaged_plan_is_refused(ci_file, tmp_path, edit, want):
    """D18, D19: a /plan that cannot be the file's plan cannot tell damaged rows
    from good ones: every tool refuses the file (exit 2, one line), pointing at
    sweep --resume, which writes it again."""
    path = writable_copy(ci_file, tmp_path / "in.h5")
    with h5py.File(path, "r+") as f:
        edit(f)
    p = run_tool("export", path, "--csv")
    assert p.returncode == 2 and p.stdout == ""
    (line,) = p.stderr.splitlines()
    assert line.startswith("sweep-export: error: ") and want in line, line
    if edit is not _delete_plan:
        assert "/plan is damaged" in line and "`sweep --resume` writes /plan again" in line


def test_plan_with_a_point_twice_is_refused(ci_file, tmp_path):
    """H4L05, H4L06 (issue 30, cause 4): a /plan with one point twice has the
    right count and no foreign id, yet lacks a point, whose good row it would
    call damaged (was: sweep-export exit 0, one row fewer and a warning).
    Every tool names the damage and drops no row on its word."""
    path = writable_copy(ci_file, tmp_path / "in.h5")
    with h5py.File(path, "r+") as f:
        ids = f["plan"]["point_id"]
        row = f["plan"][5]
        row["point_id"] = ids[6]
        f["plan"][5] = row
        twice = f"point {int(ids[6]):016x} is in it twice"
    for tool, args in [
        ("export", ["--csv"]),
        ("export", ["--json"]),
        ("report", ["-o", str(tmp_path / "rep"), "-q"]),
        ("compare", [ci_file]),
    ]:
        p = run_tool(tool, path, *args)
        assert p.returncode == 2 and p.stdout == "", (tool, p.stderr)
        (line,) = p.stderr.splitlines()
        assert line.startswith(f"sweep-{tool}: error: ") and twice in line, line
        assert "/plan is damaged" in line and "`sweep --resume` writes /plan again" in line


def test_marked_rows_are_left_out(ci_file, tmp_path):
    """D20: rows a resume marked (point_id the fill value, status -2) are left
    out, and counted apart from fill rows."""

    def mark(f, m):
        m["point_id"][3:6] = np.uint64(2**64 - 1)
        m["status"][3:6] = -2

    run = read(damaged_copy(ci_file, tmp_path / "in.h5", mark))
    assert len(run.rows) == 141 and run.marked_rows == 3 and run.fill_rows == 0
    assert run.damaged_rows == 0
    assert run.warnings == ["3 row(s) a resume found damaged and marked (status -2) were left out"]


def test_older_schema_by_names(h200_file, tmp_path):
    """D21: a file before schema 7 has no /plan: rows with no family or variant
    (a zero block) are still left out; a row of no plan point with its names
    intact cannot be told there (docs/hdf5-schema.md)."""
    path = damaged_copy(h200_file, tmp_path / "in.h5", zero_block(2, 3))
    run = read(path)
    assert int(run.attrs["schema_version"]) < 7
    assert run.damaged_rows == 3 and "row 2: its family or variant is empty" in run.warnings[0]
    assert (run.all_rows["family"] != "").all()


@pytest.fixture(scope="module")
def every_gpu_file(sweep_bin, tmp_path_factory):
    mpirun = os.environ.get("SW_MPIEXEC") or shutil.which("mpirun")
    if not mpirun:
        pytest.skip("no mpirun (ctest names it in SW_MPIEXEC)")
    out = tmp_path_factory.mktemp("every_gpu") / "every.h5"
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    job = os.path.join(SOURCE, "jobs", "ci.yaml")
    cmd = [mpirun, "-np", "2", "--oversubscribe", sweep_bin, "-q", "--backend", "model"]
    cmd += ["--placement", "every_gpu", job, "-o", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    return str(out)


def test_every_gpu_ids_repeat(every_gpu_file, tmp_path):
    """D22: under every_gpu each point has a row per GPU, its id twice: no
    damage, every row read; a damaged one among them goes alone."""
    run = read(every_gpu_file)
    assert len(run.rows) == 288 and run.damaged_rows == 0 and not run.warnings
    assert (run.rows.groupby("point_id").size() == 2).all()
    run = read(damaged_copy(every_gpu_file, tmp_path / "in.h5", zero_block(10, 1)))
    assert len(run.rows) == 287 and run.damaged_rows == 1


def test_repeated_pair_is_no_damage(ci_file, tmp_path):
    """D23: a row repeated whole (one point, rank and session twice): no damage;
    export lists both, compare and report take the latest row of a point."""
    path = writable_copy(ci_file, tmp_path / "in.h5")
    with h5py.File(path, "r+") as f:
        m = f["measurements"]
        m.resize((145,))
        m[144] = m[7]
    run = read(path)
    assert len(run.rows) == 145 and run.damaged_rows == 0 and not run.warnings
    assert len(latest(run.rows)) == 144
