"""Two device classes side by side: across two files (sweep-report a.h5
b.h5 of two GPU models), which points scale with memory bandwidth, and
sweep-compare of two classes, which compares classes, not revisions. The
second class is the real H200 seeds run as if an H100 had measured it:
memory-bound families slower by the two datasheet bandwidths' ratio,
matmul, smem_bank and constant_read as fast (they do not scale)."""

import os

import pytest

from sweep_analysis import gpus

from conftest import SEEDS, SOURCE, class_copy, mpi_sweep, run_tool

H100 = "NVIDIA H100 80GB HBM3"
UNSCALED = ("matmul", "smem_bank", "constant_read")


@pytest.fixture(scope="module")
def h100_like(tmp_path_factory):
    ratio = gpus.find("H200")["dram_gbps"] / gpus.find("H100-SXM")["dram_gbps"]
    dst = tmp_path_factory.mktemp("h100") / "h100-like.h5"
    return class_copy(dst, H100, lambda fam: 1.0 if fam in UNSCALED else ratio)


def _rows(md, head):
    """The table rows of report.md whose table starts with this header."""
    lines = md.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith(head))
    out = []
    for ln in lines[at + 2 :]:
        if not ln.startswith("|"):
            break
        out.append([c.strip() for c in ln.strip("|").split("|")])
    return out


def test_two_files_two_classes(h100_like, tmp_path):
    out = tmp_path / "rep"
    p = run_tool("report", SEEDS, h100_like, "-o", out)
    assert p.returncode == 0, p.stderr
    md = (out / "report.md").read_text()
    assert "## Classes: how the architectures differ" in md
    assert f"- **{H100}**: {H100} (CC 9.0), 1 GPU(s), h100-like.h5; DRAM 3350 GB/s" in md
    assert "- **NVIDIA H200**: NVIDIA H200 (CC 9.0), 1 GPU(s), h200-seeds.h5; DRAM 4800" in md
    # the per-point tables: in the appendix beside report.md (doc.Table.detail)
    app = (out / "report-appendix.md").read_text()
    head = f"| variant | point | {H100} GB/s"
    assert head in app and f"NVIDIA H200 time / {H100}" in app
    per_family = {r[1]: r for r in _rows(md, "| classes | family | points | scale with bandwidth")}
    for fam, r in per_family.items():
        assert r[0] == f"NVIDIA H200 / {H100}" and r[5] == "0.698"
        if fam in UNSCALED:
            assert r[3] == "0" and r[4] == "1", r
        else:
            assert r[3] == r[2] and r[4] == "0.698", r
    scaled = sum(int(r[2]) for f, r in per_family.items() if f not in UNSCALED)
    total = sum(int(r[2]) for r in per_family.values())
    line = next(ln for ln in md.splitlines() if ln.startswith("- **Classes**"))
    assert f"{H100} (1 GPU), NVIDIA H200 (1 GPU)" in line
    assert (
        f"over {total} points, {scaled} of them scaling with memory bandwidth (within 10% of "
        "0.698 = 3350 / 4800 GB/s, the datasheet DRAM bandwidths)"
    ) in line
    assert any("classes-bandwidth" in f.name for f in (out / "figures").iterdir())


def test_compare_two_classes_is_no_regression(h100_like):
    """B = the H100-like copy takes 1.43x the H200's time on memory-bound
    points: slower, but another class, so the exit status stays 0."""
    p = run_tool("compare", SEEDS, h100_like)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"Classes, not revisions: A is NVIDIA H200, B is {H100}." in p.stdout
    assert "Memory bandwidth: A 4800 GB/s (H200 in sweep's GPU table" in p.stdout
    assert "a point bound by it takes 1.43x the time on B" in p.stdout
    assert "not a regression (--regression judges them as one)" in p.stderr
    p = run_tool("compare", SEEDS, h100_like, "--regression")
    assert p.returncode == 1 and "regressed (slower by more than 5%" in p.stderr


def test_emulated_second_class(sweep_bin, tmp_path):
    """A replay file of two emulated classes (the H200 recording, class B at
    half speed) beside nothing else: the classes side by side, each emulated
    and each naming the GPU it replays (/devices' emulates), so their
    datasheet bandwidths are the H200's both: a time ratio of 2 at a
    bandwidth ratio of 1, and no point scales with bandwidth."""
    out = tmp_path / "two.h5"
    mpi_sweep(
        sweep_bin,
        4,
        "--backend",
        f"replay={SEEDS}",
        "--replay-devices",
        "A:2,B:2:0.5",
        "--placement",
        "per_class",
        os.path.join(SOURCE, "jobs", "seeds.yaml"),
        "-o",
        out,
    )
    rep = tmp_path / "rep"
    p = run_tool("report", out, "-o", rep)
    assert p.returncode == 0, p.stderr
    md = (rep / "report.md").read_text()
    assert "- **A**: A (CC 9.0, emulated), 2 GPU(s)" in md
    app = (rep / "report-appendix.md").read_text()  # the per-point tables
    assert "| variant | point | A GB/s" in app and "B time / A" in app
    row = _rows(app, "| variant | point | A GB/s")[0]
    assert row[-1] == "2"  # B at half speed: twice A's time
    assert (
        "B / A time per point: median 2 over 113 points, 0 of them scaling with memory "
        "bandwidth (within 10% of 1 = 4800 / 4800 GB/s, the datasheet DRAM bandwidths)"
    ) in md
    assert "| B / A | strided_read | 18 | 0 | 2 | 1 | 1 |" in md


def test_real_h100_and_h200(tmp_path):
    """The two real classes: the H100's seeds run (schema 8, its rows with the
    time model's prediction for their GPU) beside the H200's (schema 6)."""
    h100 = os.path.join(SOURCE, "docs", "results", "h100-seeds.h5")
    out = tmp_path / "rep"
    p = run_tool("report", h100, SEEDS, "-o", out)
    assert p.returncode == 0, p.stderr
    md = (out / "report.md").read_text()
    assert f"- **{H100}**: {H100} (CC 9.0), 1 GPU(s), h100-seeds.h5; DRAM 3350 GB/s" in md
    rows = _rows(md, "| classes | family | points | scale with bandwidth")
    assert {r[1] for r in rows} >= {"strided_read", "matmul", "reduce"}
    assert all(r[0] == f"NVIDIA H200 / {H100}" and r[5] == "0.698" for r in rows)
    time = next(ln for ln in md.splitlines() if ln.startswith("- **Time model**"))
    assert f"{H100} (h100-seeds.h5): error |predicted / measured - 1| median " in time
    assert "not compared: NVIDIA H200 (h200-seeds.h5): its rows carry no predicted time" in time
    assert f"**{H100} (h100-seeds.h5)**, GPU H100-SXM of sweep's table, from the rows' own " in md
    p = run_tool("compare", SEEDS, h100)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"Classes, not revisions: A is NVIDIA H200, B is {H100}." in p.stdout
