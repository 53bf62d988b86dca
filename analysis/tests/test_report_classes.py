"""A report of several classes leads with their difference (issue 38 part
5): on the real H100 and H200 seeds runs (two files, two classes) the
Summary's first figure is the classes side by side per family, each
class's time over the first's with the datasheet DRAM bandwidth and FP32
ratios marked; the Summary's figures say what they are and its time-model
line names its mode and the command for the calibrated figure; report.md
stays a document: the per-point tables are in report-appendix.md, linked,
and the Summary keeps to summary.SUMMARY_LINES lines."""

import os
import re

import matplotlib.pyplot as plt
import pytest

from sweep_analysis import doc, report_page, summary
from sweep_analysis.doc import Figure, Heading, Para, Table, to_markdown_split
from sweep_analysis.report import APPENDIX, make_report

from conftest import SEEDS, SOURCE

H100 = "NVIDIA H100 80GB HBM3"
H100_SEEDS = os.path.join(SOURCE, "docs", "results", "h100-seeds.h5")
MD_LINES = 3000  # report.md of the two full runs, at most (issue 38)


@pytest.fixture(scope="module")
def two_classes(tmp_path_factory):
    """The report of the H100 and H200 seeds runs, and what the Summary's
    figure showed (its panel's family labels, y label and legend)."""
    out = tmp_path_factory.mktemp("classes") / "rep"
    seen = {}
    keep = report_page.Page.figure_block

    def spy(self, fig, name, caption):
        ax = fig.axes[0]
        seen[name] = {
            "x": [t.get_text() for t in ax.get_xticklabels()],
            "y": ax.get_ylabel(),
            "legend": [t.get_text() for t in ax.get_legend().get_texts()],
        }
        return keep(self, fig, name, caption)

    report_page.Page.figure_block = spy
    try:
        rep = make_report([H100_SEEDS, SEEDS], str(out))
    finally:
        report_page.Page.figure_block = keep
    return out, rep, seen


def _summary(md):
    lines = md.splitlines()
    at = lines.index("## Summary")
    end = next(i for i in range(at + 1, len(lines)) if lines[i].startswith("## "))
    return lines[at:end]


def test_summary_opens_with_the_classes_per_family(two_classes):
    out, rep, seen = two_classes
    md = (out / "report.md").read_text()
    s = _summary(md)
    first = next(ln for ln in s[1:] if ln.strip())
    assert (
        first.startswith("![Each point's time on") and "(figures/00-summary-classes.png)" in first
    )
    assert (out / "figures" / "00-summary-classes.png").stat().st_size > 0
    assert not (out / "figures" / "00-summary.png").exists()  # one figure: the classes'
    fig = seen["summary-classes"]
    fams = set(rep.rows["family"])
    assert set(fig["x"]) == fams and len(fams) >= 8  # every family, each once
    assert fig["y"] == f"time / {H100}'s"
    assert "DRAM bandwidth ratio 0.698" in fig["legend"]  # 3350 / 4800 GB/s
    assert "FP32 peak ratio 1" in fig["legend"]  # 67000 / 66908 GFLOP/s
    assert "median of a family" in fig["legend"]
    caption = next(ln for ln in s if ln.startswith("*Each point's time on"))
    assert f"time on NVIDIA H200 over its time on {H100}, per family" in caption
    assert "datasheet DRAM bandwidth ratio (dashed)" in caption
    assert "datasheet FP32 peak ratio (dotted)" in caption


def test_summary_says_what_each_figure_is(two_classes):
    out, _, _ = two_classes
    s = _summary((out / "report.md").read_text())
    assert len(s) <= summary.SUMMARY_LINES
    classes = next(ln for ln in s if ln.startswith("- **Classes**"))
    m = re.search(
        rf"NVIDIA H200 / {H100} time per point: median ([\d.]+) over (\d+) points, (\d+) of "
        r"them scaling with memory bandwidth \(within 10% of 0\.698 = 3350 / 4800 GB/s, the "
        r"datasheet DRAM bandwidths\); datasheet FP32 peaks' ratio 1\.",
        classes,
    )
    assert m, classes
    assert int(m.group(3)) <= int(m.group(2)) and 0.5 < float(m.group(1)) < 1.2
    time = next(ln for ln in s if ln.startswith("- **Time model**"))
    assert f"{H100} (h100-seeds.h5): error |predicted / measured - 1| median " in time
    assert "datasheet mode (the weakest)" in time
    assert "from the rows' own model_time_ns" in time
    assert (
        "calibrated or transferred: `sweep --backend model --model-devices H100-SXM "
        "--model-calibrate FLEET.h5 [--model-from OTHER.h5] jobs/seeds.yaml -o pred.h5`"
    ) in time
    sec = (out / "report.md").read_text().split("## Predicted against measured")[1]
    assert "OTHER.h5: another class's run of the job, to transfer its times" in sec
    assert "then `sweep-report h100-seeds.h5 pred.h5`" in time
    headline = next(ln for ln in s if ln.startswith("- **Headline ratios**"))
    assert "throughput over the reference's; predicted: the time model's)" in headline
    assert "the figure above" not in headline  # the figure above is the classes'


def test_per_point_tables_are_in_the_appendix(two_classes):
    out, rep, _ = two_classes
    md = (out / "report.md").read_text()
    app = (out / APPENDIX).read_text()
    assert app.startswith("# sweep report: h100-seeds.h5, h200-seeds.h5: the per-point tables")
    links = re.findall(rf"\[table (A\d+)\]\({re.escape(APPENDIX)}#(table-a\d+)\)", md)
    anchors = {Heading(4, h[5:]).anchor for h in app.splitlines() if h.startswith("#### ")}
    assert len(links) >= 10 and {a for _, a in links} == anchors
    assert "every measured point" in app and f"| variant | point | {H100} GB/s" in app
    # report.md holds no per-point table: every table it keeps is short
    tables = [b for b in rep.blocks if isinstance(b, Table)]
    assert any(t.detail for t in tables)
    assert "every measured point" not in "\n".join(ln for ln in md.splitlines() if "|" in ln)
    assert max(_table_rows(md)) <= doc.DETAIL_ROWS
    # index.html holds every table, the per-point ones folded
    page = (out / "index.html").read_text()
    assert page.count("<details>") == sum(t.detail for t in tables)
    assert "report-appendix.md" not in page


def _table_rows(md):
    """The row count of each Markdown table of md."""
    out, n = [0], 0
    for ln in md.splitlines():
        if ln.startswith("|"):
            n += 1
        elif n:
            out.append(n - 2)
            n = 0
    return out


def test_split_keeps_sections_and_order():
    """to_markdown_split: a detail table (folded or longer than
    DETAIL_ROWS) leaves the document for the appendix, under the headings
    of its sections; a short one stays; nothing else moves."""
    long = Table(["a"], [[f"L{i}"] for i in range(doc.DETAIL_ROWS + 1)], caption="long")
    folded = Table(["b"], [["F"]], caption="folded", folded=True)
    short = Table(["c"], [["S"]], caption="short")
    blocks = [Heading(1, "T"), Heading(2, "S"), Heading(3, "f"), long, short]
    blocks += [Heading(2, "U"), Para("p"), folded, Figure("figures/x.png", "cap")]
    main, app = to_markdown_split(blocks, "app.md", "T")
    assert "*long*: 51 rows, [table A1](app.md#table-a1)." in main
    assert "*folded*: 1 row, [table A2](app.md#table-a2)." in main
    assert "| S |" in main and "| L50 |" not in main and "| F |" not in main
    assert "![cap](figures/x.png)" in main
    heads = [ln for ln in app.splitlines() if ln.startswith("#")]
    assert heads == ["# T: the per-point tables", "## S", "### f", "#### Table A1", "## U"] + [
        "#### Table A2"
    ]
    assert "| L50 |" in app and "| F |" in app and "| S |" not in app
    main, app = to_markdown_split([Heading(1, "T"), short], "app.md", "T")
    assert "none of its tables is a per-point one" in app and "| S |" in main
    plt.close("all")


@pytest.mark.skipif(
    not os.environ.get("SW_FULL_REPORT"), reason="set SW_FULL_REPORT=1: two full runs, minutes"
)
def test_full_runs_report_md_is_short(tmp_path):
    """The two full runs' report (3265 points a class): report.md at most
    MD_LINES lines, its Summary at most SUMMARY_LINES."""
    full = [os.path.join(SOURCE, "docs", "results", f) for f in ("h100-full.h5", "h200-full.h5")]
    make_report(full, str(tmp_path / "rep"))
    md = (tmp_path / "rep" / "report.md").read_text()
    assert md.count("\n") <= MD_LINES
    assert len(_summary(md)) <= summary.SUMMARY_LINES
