"""The report reads in a minute (issue 24 part 3): report.md opens with a
Summary of at most summary.SUMMARY_LINES lines that names the claims that do
not hold and a flagged GPU's UUID (or says none is flagged); the claims
table's cells give a range and the weakest case, not lists of figures, and
link to the section that keeps every figure."""

import os
import re

import pytest

from sweep_analysis import summary
from sweep_analysis.report import make_report

from conftest import SEEDS4, multi_gpu_copy


def _sections(md):
    """{level-2 heading: its lines}, in order."""
    out, cur = {}, None
    for ln in md.splitlines():
        if ln.startswith("## "):
            cur = ln[3:]
            out[cur] = []
        elif cur is not None:
            out[cur].append(ln)
    return out


@pytest.fixture(scope="module")
def seeds_md(sweep_bin, tmp_path_factory):
    d = tmp_path_factory.mktemp("summary")
    model = d / "model.h5"
    from conftest import SOURCE, _sweep

    _sweep(sweep_bin, os.path.join(SOURCE, "jobs", "seeds.yaml"), str(model))
    make_report([SEEDS4, str(model)], str(d / "rep"), force=True)
    return (d / "rep" / "report.md").read_text()


def test_report_opens_with_a_short_summary(seeds_md):
    lines = seeds_md.splitlines()
    assert lines[0].startswith("# sweep report")
    first = next(ln for ln in lines[1:] if ln.strip())
    assert first == "## Summary"
    s = _sections(seeds_md)["Summary"]
    assert len(s) + 1 <= summary.SUMMARY_LINES
    text = "\n".join(s)
    for what in ("Course claims", "Model gap", "Fleet", "Time budget", "strided_read"):
        assert what in text, what
    assert "none flagged" in text or "not compared" in text


def test_claim_cells_hold_a_range_not_lists(seeds_md):
    s = _sections(seeds_md)
    rows = [ln for ln in s["Course claims"] if ln.startswith("| C")]
    assert len(rows) >= 18
    for ln in rows:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", ln)[1:-1]]
        for c in cells[3:]:  # measured, on the GPU, model, on the model, ...
            assert len(c) <= 1.8 * summary.CELL, (cells[0], c)
            assert len(re.findall(r"\d+(?:\.\d+)?", c)) <= 24, (cells[0], c)
    assert "(#course-claims-in-full)" in "\n".join(s["Course claims"])
    assert summary.FULL_CLAIMS in s  # every figure still in the report


def test_compact_gives_range_and_weakest():
    effects = "; ".join(
        f"n={n}M: {r}x [{r - 0.02:.2f}, {r + 0.02:.2f}]"
        for n, r in [(1, 1.5), (2, 1.2), (4, 1.9), (8, 1.6), (16, 1.7)]
    )
    c = summary.compact(effects)
    assert "5 cases" in c and "1.2x..1.9x" in c and "weakest n=2M: 1.2x [1.18, 1.22]" in c
    c8 = "CC 6.0: useful/moved " + ", ".join(["1", "0.5", "0.25"] + ["0.125"] * 40)
    c8 = "; ".join([c8, c8.replace("6.0", "7.0"), c8.replace("6.0", "8.0")])
    c = summary.compact(c8)
    assert len(c) <= 1.8 * summary.CELL
    assert "0.125..1 (43 values)" in c and "CC 6.0..8.0" in c
    assert summary.compact("short") == "short"


def test_summary_names_the_flagged_gpu(tmp_path):
    gpus = [("H200", 1.0), ("H200", 1.0), ("H200", 0.8), ("H200", 1.0)]
    strided = lambda r: r["family"] == b"strided_read"  # noqa: E731
    p = multi_gpu_copy(tmp_path / "f.h5", gpus, "once", calibrate=strided)
    make_report([p], str(tmp_path / "rep"), force=True)
    md = (tmp_path / "rep" / "report.md").read_text()
    from sweep_analysis.reader import read

    slow = list(read(p).devices["uuid"])[2]
    fleet = [ln for ln in _sections(md)["Summary"] if "**Fleet**" in ln]
    assert len(fleet) == 1 and slow in fleet[0] and "flagged" in fleet[0]


def test_summary_says_none_flagged(tmp_path):
    gpus = [("H200", 1.0)] * 4
    strided = lambda r: r["family"] == b"strided_read"  # noqa: E731
    p = multi_gpu_copy(tmp_path / "f.h5", gpus, "once", calibrate=strided)
    make_report([p], str(tmp_path / "rep"), force=True)
    md = (tmp_path / "rep" / "report.md").read_text()
    fleet = [ln for ln in _sections(md)["Summary"] if "**Fleet**" in ln]
    assert len(fleet) == 1 and "none flagged" in fleet[0]


def _summary_of(tmp_path, *files, figure="00-summary.png", **kw):
    """The Summary's lines by their bold name; figure: the one that opens it
    (of two classes or more whose bandwidths are known: the classes')."""
    make_report([str(f) for f in files], str(tmp_path / "rep"), force=True, **kw)
    md = (tmp_path / "rep" / "report.md").read_text()
    s = _sections(md)["Summary"]
    assert len(s) + 1 <= summary.SUMMARY_LINES, len(s)
    # the figure opens the Summary, before any line of text
    first = next(ln for ln in s if ln.strip())
    assert first.startswith("![") and f"(figures/{figure})" in first
    assert os.path.exists(tmp_path / "rep" / "figures" / figure)
    return {ln.split("**")[1]: ln for ln in s if ln.startswith("- **")}


def test_summary_of_one_gpu(tmp_path):
    from conftest import SEEDS

    s = _summary_of(tmp_path, SEEDS)
    assert s["Classes"] == "- **Classes**: NVIDIA H200 (1 GPU)."
    assert (
        s["Rows"] == "- **Rows**: 113 measured, 0 emulated (replay), 0 modelled (0 for CC targets)."
    )
    assert s["Fleet"] == "- **Fleet**: one GPU (NVIDIA H200): no other GPU to compare it with."
    assert s["Time model"].startswith("- **Time model**: not compared: NVIDIA H200: ")
    line = s["strided_read"]
    assert "at stride=1 n=64M: course 0.597, tuned 0.981" in line
    assert "at stride=32 n=64M: course 0.0526, tuned 0.0514" in line


def test_summary_of_one_class_of_many_gpus(tmp_path):
    gpus = [("H200", 1.0), ("H200", 1.0), ("H200", 0.8), ("H200", 1.0)]
    strided = lambda r: r["family"] == b"strided_read"  # noqa: E731
    p = multi_gpu_copy(tmp_path / "f.h5", gpus, "once", calibrate=strided)
    s = _summary_of(tmp_path, p)
    assert s["Classes"] == "- **Classes**: H200 (4 GPUs)."
    n = len(read_rows(p))
    assert s["Rows"].startswith(f"- **Rows**: {n} measured, 0 emulated (replay), 0 modelled")
    assert (
        "4 GPUs of 1 class(es) (H200: 4) each against its class's median GPU: 1 flagged"
        in (s["Fleet"])
    )


def test_summary_of_several_emulated_classes(tmp_path):
    gpus = [("A", 1.0), ("A", 1.0), ("B", 0.5), ("B", 0.5)]
    p = multi_gpu_copy(tmp_path / "f.h5", gpus, "every_gpu", emulated=True)
    s = _summary_of(tmp_path, p, figure="00-summary-classes.png")  # the classes side by side
    assert s["Classes"].startswith("- **Classes**: A (2 GPUs), B (2 GPUs) (emulated)")
    n = len(read_rows(p))
    assert (
        s["Rows"]
        == f"- **Rows**: 0 measured, {n} emulated (replay), 0 modelled (0 for CC targets)."
    )
    assert (
        "4 GPUs of 2 class(es) (A: 2, B: 2) each against its class's median GPU: none"
        in (s["Fleet"])
    )
    assert "emulated (replay) rows are not set against the time model" in s["Time model"]


def read_rows(path):
    from sweep_analysis.reader import read

    return read(path).all_rows


def test_headline_points_named_and_missing(tmp_path):
    """--headline names a family's points (a plug-in's way); a point the file
    lacks falls back to medians, with a note."""
    from sweep_analysis import headline

    points = headline.parse(["strided_read:stride=4,n=max", "reduce:n=1G"])
    assert points == {"strided_read": ({"stride": 4, "n": "max"},), "reduce": ({"n": 1 << 30},)}
    s = _summary_of(tmp_path, SEEDS4, headlines=points)
    assert "**strided_read** (x stream_read): at stride=4 n=64M: course 0.245" in s["strided_read"]
    assert "(median over each variant's points: no point at n=1G)" in s["reduce"]
    for bad in ("strided_read", "x:stride", "x:stride=one"):
        with pytest.raises(Exception, match="--headline"):
            headline.parse([bad])
