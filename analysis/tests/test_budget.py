"""The time budget (sweep_analysis.budget): phases from the columns of a
synthetic file, timed against wall only for a file without them, and the
section sweep-report adds."""

import h5py
import numpy as np
import numpy.lib.recfunctions as rfn

from sweep_analysis import budget
from sweep_analysis.reader import read
from sweep_analysis.report import make_report

from conftest import SOURCE, run_tool, writable_copy

# jobs/seeds.yaml on an H200 at 2b86d9f: schema 4, end_unix, no phase columns
SEEDS = f"{SOURCE}/docs/results/gpu-runs/h200-check-2b86d9f/seeds-gpu-1.h5"

PHASE_COLS = (
    "alloc_s",
    "fill_s",
    "check_launch_s",
    "warmup_s",
    "flush_s",
    "sampling_s",
    "check_wait_s",
    "check_cpu_s",
)


def with_phases(src, dst):
    """src with the phase columns added: every measured row spent 1 s wall,
    0.5 s timed, 0.1 s flushing, 0.05 s in gaps, 0.05 s each in warm-up,
    check, wait, alloc and fill (0.025 each), leaving 0.15 s idle."""
    path = writable_copy(src, dst)
    with h5py.File(path, "r+") as f:
        old = f["measurements"]
        attrs = dict(old.attrs)
        m = old[:]
        del f["measurements"]
        cuda = m["backend"] == b"cuda"
        m["start_unix"] = np.where(cuda, 1000.0 + np.arange(len(m)), m["start_unix"])
        m["end_unix"] = np.where(cuda, m["start_unix"] + 1.0, m["end_unix"])
        m["timed_s"] = np.where(cuda, 0.5, m["timed_s"])
        vals = {
            "alloc_s": 0.025,
            "fill_s": 0.025,
            "check_launch_s": 0.05,
            "warmup_s": 0.05,
            "flush_s": 0.1,
            "sampling_s": 0.65,
            "check_wait_s": 0.05,
            "check_cpu_s": 0.3,
        }
        cols = [np.where(cuda, vals[c], np.nan) for c in PHASE_COLS]
        m = rfn.append_fields(m, PHASE_COLS, cols, usemask=False)
        d = f.create_dataset("measurements", data=m, maxshape=(None,), chunks=True)
        for k, v in attrs.items():
            d.attrs[k] = v
        for c in PHASE_COLS:
            d.attrs[f"units:{c}"] = "s"
    return path


def test_phases(tmp_path):
    path = with_phases(SEEDS, tmp_path / "phases.h5")
    lines = budget.table(read(path).rows)
    total = [x for x in lines if x[1] == "all"][0]
    n = int(total[2])
    assert n > 10
    heads = budget.HEADINGS
    got = dict(zip(heads[3:], (float(x) for x in total[3:-1])))
    want = {"wall s": 1.0, "timed": 0.5, "flush": 0.1, "gaps": 0.05, "warm-up": 0.05}
    want |= {"check": 0.05, "wait": 0.05, "fill": 0.05, "idle": 0.15}
    for k, v in want.items():
        assert abs(got[k] - v * n) < 0.1 + 1e-3 * n, (k, got[k], v * n)
    assert total[-1] == "0.500"
    assert {x[1] for x in lines} >= {"all", "histogram", "transpose"}


def test_without_phases():
    rows = read(SEEDS).rows
    lines = budget.table(rows)
    total = [x for x in lines if x[1] == "all"][0]
    m = rows[rows["backend"] == "cuda"]
    wall = float((m["end_unix"] - m["start_unix"]).sum())
    assert total[3] == f"{wall:.1f}"
    assert total[5:-1] == ["-"] * (len(budget.PHASES) + 1)
    assert 0 < float(total[-1]) < 1


def test_report_and_cli(tmp_path):
    path = with_phases(SEEDS, tmp_path / "phases.h5")
    make_report([path], str(tmp_path / "rep"))
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## Time budget" in md
    out = run_tool("budget", path)
    assert out.returncode == 0, out.stderr
    assert "timed/wall" in out.stdout and "0.500" in out.stdout
