"""Every family figure on rows shaped like measured ones, and the rule that a
figure has a title and labelled axes. The rows are the real writer's model
rows of every family with timings made from the model's moved bytes, so the
code paths of families a CI machine cannot measure are drawn too."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from sweep_analysis import figure_parts, figures, figures_overview
from sweep_analysis.reader import read


@pytest.fixture(scope="module")
def measured_like(all_model_file):
    r = read(all_model_file)
    m = r.rows[(r.rows["cc"] == 90) & (r.rows["status"] == 0)].copy()
    m["backend"] = "cuda"
    m["device"] = "NVIDIA H200 (CC 9.0)"
    m["peak_gbps"] = 4800.0
    bytes_ = m["model_moved_bytes"].fillna(m["useful_bytes"]).clip(lower=1.0)
    degree = m["model_conflict_degree"].fillna(1.0)
    m["median_ns"] = bytes_ / 4.0 * degree + 2000.0  # 4 B/ns plus launch overhead
    m["gbps"] = m["useful_bytes"] / m["median_ns"]
    m["gflops"] = m["flops"] / m["median_ns"]
    return r, m


def labelled(fig):
    assert fig is not None
    assert fig._suptitle is not None or any(ax.get_title() for ax in fig.axes)
    for ax in fig.axes:
        if ax.get_visible() and ax.has_data() and ax.get_label() != "<colorbar>":
            assert ax.get_xlabel() or ax.get_xticklabels(), "x axis without label"
            assert ax.get_ylabel(), "y axis without label"
    plt.close(fig)


@pytest.mark.parametrize(
    "family,draw",
    [
        ("strided_read", lambda g, r: figures.stride_bandwidth(g, "dev")),
        ("transpose", lambda g, r: figures.transpose_pad(g, "dev")),
        ("smem_bank", lambda g, r: figures.bank_conflicts(g, "dev")),
        ("matmul", lambda g, r: figures.matmul_ladder(g, "dev")),
        (
            "offset_read",
            lambda g, r: figures.family_overview(g, r.axes, "offset_read", "dev", r.units),
        ),
        ("float3", lambda g, r: figures.family_overview(g, r.axes, "float3", "dev", r.units)),
        ("rowsum", lambda g, r: figures.family_overview(g, r.axes, "rowsum", "dev", r.units)),
        ("histogram", lambda g, r: figures.family_overview(g, r.axes, "histogram", "dev", r.units)),
    ],
)
def test_family_figures(measured_like, families, family, draw):
    if family not in families:
        pytest.skip(f"{family} is not in this build")
    r, m = measured_like
    g = m[m["family"] == family]
    if g.empty:
        pytest.skip(f"no modelled rows of {family} to time")
    labelled(draw(g, r))


def test_model_figures(all_model_file):
    r = read(all_model_file)
    labelled(figures.stride_model(r.rows[r.rows["family"] == "strided_read"]))
    t = r.rows.pivot_table(index="variant", columns="cc", values="model_efficiency", aggfunc="min")
    labelled(figures.model_heatmap(t, "model_efficiency", "title", "useful / moved"))
    assert figures.model_heatmap(t.iloc[0:0], "model_efficiency", "t", "u") is None
    assert np.isfinite(t.to_numpy()).any()


@pytest.fixture(scope="module")
def launch_like(launch_file):
    """jobs/launch.yaml's rows timed as if measured, slower the smaller the
    block (an occupancy effect the block figure must show)."""
    r = read(launch_file)
    m = r.rows[r.rows["status"] == 0].copy()
    m["backend"] = "cuda"
    m["device"] = "NVIDIA H200 (CC 9.0)"
    m["peak_gbps"] = 4800.0
    bytes_ = m["model_moved_bytes"].fillna(m["useful_bytes"]).clip(lower=1.0)
    block = m["block"].where(m["block"] > 0, 256)  # 0: the own launch; -1: no block axis
    m["median_ns"] = bytes_ / 4.0 * (1 + 64 / block) + 2000.0
    m["gbps"] = m["useful_bytes"] / m["median_ns"]
    return r, m


def test_block_bandwidth(launch_like):
    r, m = launch_like
    blocks = {"strided_read": [64, 128, 256, 512, 1024], "offset_read": [64, 256, 1024]}
    for fam in ["strided_read", "offset_read", "rowsum", "smem_bank", "histogram"]:
        g = m[m["family"] == fam]
        fig = figures.block_bandwidth(g, r.axes, fam, "dev", "gbps", "useful GB/s")
        lines = fig.axes[0].get_lines()
        with_block = g[g["block"] > 0]["variant"].unique()
        assert sorted(line.get_label().split(" ")[0] for line in lines) == sorted(with_block)
        for line in lines:
            assert list(line.get_xdata()) == blocks.get(fam, [64, 128, 256, 512, 1024])
            assert np.all(np.diff(line.get_ydata()) > 0), (fam, line.get_label())
        labelled(fig)
    # a line holds the variant's other axes at their smallest value, and says so
    g = m[m["family"] == "strided_read"]
    fig = figures.block_bandwidth(g, r.axes, "strided_read", "dev", "gbps", "useful GB/s")
    (line,) = [x for x in fig.axes[0].get_lines() if x.get_label().startswith("course")]
    assert line.get_label() == "course (stride=1 grid=0 vec=1 elem_bytes=4)"
    want = g[
        (g["variant"] == "course")
        & (g["stride"] == 1)
        & (g["grid"] == 0)
        & (g["vec"] == 1)
        & (g["elem_bytes"] == 4)
    ].sort_values("block")
    want = want[want["block"] > 0]
    assert np.allclose(line.get_ydata(), want["gbps"])
    plt.close(fig)
    # one block size, or none (a file from before the axis): no figure
    assert figures.block_bandwidth(g[g["block"] == 64], r.axes, "s", "d") is None
    assert figures.block_bandwidth(g.drop(columns="block"), r.axes, "s", "d") is None


def honest_axes(fig):
    """The caption's notes name every panel's scales; no bars stand on a log
    axis; a linear value axis starts at zero unless the caption says it is cut."""
    from matplotlib.container import BarContainer

    notes = figures.caption_notes(fig)
    for x, y in figures.scales(fig):
        assert f"{x}, {y}" in notes, (x, y, notes)
    for ax in fig.axes:
        if not ax.get_visible() or not ax.has_data() or ax.images:
            continue
        bars = [c for c in ax.containers if isinstance(c, BarContainer)]
        if "y" in getattr(ax, "_sweep_categories", ""):
            continue  # rows of categories, no value axis
        if ax.get_yscale() == "log":
            assert not bars, "bars on a log axis"
        elif bars or ax.lines:
            lo = ax.get_ylim()[0]
            assert lo <= 0 or "cut" in notes, f"value axis starts at {lo}, not marked as cut"
    return notes


@pytest.mark.parametrize("family", ["offset_read", "float3", "rowsum", "histogram", "matmul"])
def test_figure_captions_match_scales(measured_like, families, family):
    if family not in families:
        pytest.skip(f"{family} is not in this build")
    r, m = measured_like
    g = m[m["family"] == family]
    if g.empty:
        pytest.skip(f"no modelled rows of {family} to time")
    fig = (
        figures.matmul_ladder(g, "dev")
        if family == "matmul"
        else figures.family_overview(g, r.axes, family, "dev", r.units)
    )
    notes = honest_axes(fig)
    has_refs = bool(g["is_reference"].any())
    assert ("References" in notes) == has_refs
    if not has_refs:
        return
    # without its reference rows the figure must not say it shows references
    nref = g[g["is_reference"] == 0]
    fig2 = (
        figures.matmul_ladder(nref, "dev")
        if family == "matmul"
        else figures.family_overview(nref, r.axes, family, "dev", r.units)
    )
    if fig2 is not None:
        assert "References" not in figures.caption_notes(fig2)
    plt.close("all")


def test_log_overview_uses_points(measured_like):
    """Values spanning decades go on a log axis as points, never as bars."""
    r, m = measured_like
    g = m[m["family"] == "strided_read"].copy()
    if g.empty:
        pytest.skip("no strided_read rows")
    g = g[g["stride"].isin([1, 32])]
    g["gbps"] = np.where(g["stride"] == 1, 1000.0, 1.0)  # a factor of 1000 apart
    fig = figures_overview._overview_bars(g, g, ["stride"], [], ("gbps", "GB/s", "GB/s"), {})
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.lines
    honest_axes(fig)
    plt.close(fig)


def test_error_bars_from_intervals(measured_like):
    """Rows that carry the interval of their median get error bars, and the caption says so."""
    r, m = measured_like
    g = m[m["family"] == "offset_read"].copy()
    if g.empty:
        pytest.skip("no offset_read rows")
    fig = figures.family_overview(g, r.axes, "offset_read", "dev", r.units)
    assert "Error bars" not in figures.caption_notes(fig)
    g["ci_lo_ns"], g["ci_hi_ns"] = g["median_ns"] * 0.98, g["median_ns"] * 1.03
    fig = figures.family_overview(g, r.axes, "offset_read", "dev", r.units)
    assert "Error bars" in figures.caption_notes(fig)
    err = figure_parts._yerr(g, "gbps")
    np.testing.assert_allclose(err[0], g["gbps"] * (1 - 1 / 1.03))
    np.testing.assert_allclose(err[1], g["gbps"] * (1 / 0.98 - 1))
    plt.close("all")


def test_counter_figures(seeds_counters):
    from sweep_analysis import counters

    r = read(seeds_counters)
    a = counters.agreement(r.rows)
    fig = figures.counters_scatter(a, "dev")
    notes = honest_axes(fig)
    assert "x log2, y log2" in notes
    ax = fig.axes[0]
    assert ax.get_xlim() == ax.get_ylim()  # square: the diagonal is y = x
    fig2 = figures.dram_bytes(r.rows, "dev")
    assert "x log, y log" in honest_axes(fig2)
    labelled(fig)
    labelled(fig2)
    assert figures.dram_bytes(r.rows.iloc[0:0], "dev") is None


def test_time_model_figures_say_their_scales():
    """Predicted against measured (log-log, its band named), the classes'
    time ratios (log), the Summary's (a log axis of ratios over categories)."""
    import pandas as pd

    from sweep_analysis import headline, timemodel

    p = pd.DataFrame(
        {
            "class": "NVIDIA H200",
            "gpu": "H200",
            "family": ["strided_read", "reduce", "matmul"],
            "measured_ns": [100e3, 50e3, 5e3],
            "predicted_ns": [110e3, 40e3, 4e3],
            "term": ["dram", "dram", "l1"],
        }
    )
    fig = figures.predicted_measured(timemodel.with_error(p), 0.1, timemodel.MIN_NS)
    notes = honest_axes(fig)
    assert "x log, y log" in notes and "+-10% band" in notes
    j = pd.DataFrame(
        {"pair": "B / A", "family": ["a", "b"], "ratio": [0.7, 1.0], "expected": 0.698}
    )
    j["scales"] = (j["ratio"] / j["expected"] - 1).abs() <= 0.1
    assert "y log" in honest_axes(figures.bandwidth_ratios([j], 0.1))
    h = headline.Headline("f", "dev", "ref", [("v", "n=1", 0.5, 0.6, np.nan)])
    notes = honest_axes(figures.summary([h]))
    assert "x log, y categories" in notes and "1 = the reference" in notes
    assert figures.summary([headline.Headline("f", "dev", "ref")]) is None
    plt.close("all")
