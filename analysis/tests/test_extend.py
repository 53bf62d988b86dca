"""sweep --extend end to end on the model backend, and the analysis tools on
the grown file: a job, then the job with more strides and a second family
(only the new points run, every point id once), then the same job again
(nothing new: nothing runs, and sweep says so)."""

import subprocess

from sweep_analysis.compare import compare
from sweep_analysis.reader import read

from conftest import run_tool

SMALL = """name: grow
model:
  ccs: [9.0]
families:
  strided_read:
    variants: [course, tuned]
    axes:
      stride: [1, 2, 4]
      n: [1M]
"""
# more strides, and a second family
BIG = SMALL.replace("[1, 2, 4]", "[1, 2, 4, 8, 16]") + (
    "  offset_read:\n"
    "    variants: [aligned, offset]\n"
    "    axes:\n"
    "      offset: [0, 1]\n"
    "      n: [1M]\n"
)


def _run(sweep_bin, *args):
    return subprocess.run(
        [sweep_bin, "--backend", "model", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_extend_grows_the_file(sweep_bin, tmp_path):
    small, big, out = tmp_path / "small.yaml", tmp_path / "big.yaml", tmp_path / "grow.h5"
    small.write_text(SMALL)
    big.write_text(BIG)
    p = _run(sweep_bin, "-q", small, "-o", out)
    assert p.returncode == 0, p.stderr
    n_small = len(read(out).rows)
    assert n_small == 2 * 3

    p = _run(sweep_bin, "--extend", big, "-o", out)
    assert p.returncode == 0, p.stderr
    n_new = 2 * 2 + 1 + 2  # strided_read at strides 8, 16; offset_read aligned, offset at 0 and 1
    assert f"{n_small} points already in the file, {n_new} new" in p.stderr
    run = read(out)
    assert len(run.rows) == n_small + n_new
    assert run.rows["point_id"].is_unique
    assert dict(run.rows.groupby("session").size()) == {0: n_small, 1: n_new}
    assert set(run.rows[run.rows["session"] == 1]["family"]) == {"strided_read", "offset_read"}
    assert int(run.attrs["plan_points"]) == n_small + n_new
    assert run.attrs["job_text"] == BIG
    assert list(run.sessions["mode"]) == ["new", "extend"]
    assert list(run.sessions["job_text"]) == [SMALL, BIG]
    assert list(run.sessions["plan_points"]) == [n_small, n_small + n_new]
    assert run.sessions["plan_fingerprint"].nunique() == 2

    p = _run(sweep_bin, "-q", "--extend", big, "-o", out)
    assert p.returncode == 0, p.stderr
    assert "nothing new to run" in p.stderr
    again = read(out)
    assert len(again.rows) == n_small + n_new
    assert list(again.sessions["mode"]) == ["new", "extend", "extend"]

    # the analysis tools on the grown file
    first = tmp_path / "first.h5"
    assert _run(sweep_bin, "-q", small, "-o", first).returncode == 0
    p = run_tool("compare", first, out)
    assert p.returncode == 0, p.stdout + p.stderr
    df = compare(read(first), read(out))
    assert len(df) == n_small and (df["class"] == "same").all()
    report = tmp_path / "report"
    p = run_tool("report", "-q", out, "-o", report)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (report / "report.md").exists()


def test_extend_refusals(sweep_bin, tmp_path):
    small, out = tmp_path / "small.yaml", tmp_path / "grow.h5"
    small.write_text(SMALL)
    assert _run(sweep_bin, "-q", small, "-o", out).returncode == 0
    fewer = tmp_path / "fewer.yaml"
    fewer.write_text(SMALL.replace("[1, 2, 4]", "[2, 4, 8]"))
    p = _run(sweep_bin, "--extend", fewer, "-o", out)
    assert p.returncode == 2 and "2 of its 6 points are not in this job" in p.stderr, p.stderr
    other = tmp_path / "other.yaml"
    other.write_text(SMALL.replace("model:", "measure:\n  warmup: 7\nmodel:"))
    p = _run(sweep_bin, "--extend", other, "-o", out)
    assert p.returncode == 2 and "measure.warmup" in p.stderr, p.stderr
    run = read(out)
    assert len(run.rows) == 6 and list(run.sessions["mode"]) == ["new"]
