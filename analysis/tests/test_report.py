"""sweep-report on real files: what it writes, the claims it decides, the
per-rank and per-device sections, and that it writes nothing on failure."""

import os
import re
import subprocess
from pathlib import Path

import h5py
import pytest

from sweep_analysis import claims
from sweep_analysis.doc import Figure
from sweep_analysis.reader import read
from sweep_analysis.report import Report, make_report

from conftest import METRIC_NAMES, SOURCE, metrics_copy, run_tool, slowed_copy, writable_copy

PNG = b"\x89PNG\r\n\x1a\n"


def claim_cells(path_md, column="verdict"):
    """claim id -> that column's cell, from the report's Markdown claims table."""
    out, at = {}, None
    for line in Path(path_md).read_text().splitlines():
        cells = [c.strip() for c in line.split("|")]
        if line.startswith("| claim |"):
            at = cells.index(column)
        m = re.match(r"\| (C\d+) \|", line)
        if m and at is not None:
            out[m.group(1)] = cells[at]
    return out


def verdicts(path_md):
    """claim id -> verdict, from the report's Markdown claims table."""
    return claim_cells(path_md)


def check_folder(out):
    files = sorted(os.listdir(out))
    assert {"index.html", "report.md", "figures", ".sweep-report"} <= set(files)
    pngs = sorted(os.listdir(os.path.join(out, "figures")))
    assert pngs, "no figure"
    for p in pngs:
        data = Path(out, "figures", p).read_bytes()
        assert data.startswith(PNG) and len(data) > 5000
    html = Path(out, "index.html").read_text()
    # self-contained: every image inline, nothing fetched from elsewhere
    assert html.count('src="data:image/png;base64,') == len(pngs)
    assert not re.search(r'(src|href)="(https?:)?//', html)
    md = Path(out, "report.md").read_text()
    for p in pngs:
        assert f"(figures/{p})" in md
    return pngs, md


@pytest.fixture(scope="module")
def h200_report(h200_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("rep") / "h200"
    p = run_tool("report", h200_file, "-o", out)
    assert p.returncode == 0, p.stderr
    assert "index.html" in p.stdout
    return str(out)


def test_h200_report(h200_report):
    pngs, md = check_folder(h200_report)
    assert any("strided_read" in p for p in pngs)
    v = verdicts(os.path.join(h200_report, "report.md"))
    assert sorted(v, key=lambda c: int(c[1:])) == [f"C{i}" for i in range(1, 19)]
    assert v["C8"] == "holds" and v["C9"] == "holds"
    assert v["C1"] == "not in this file"
    assert "stream_read" in md and "x stream_read" in md
    assert "No model rows in this file" in md
    # the claims section points at the claims' definitions and states its rules
    claims_md = md[md.index("## Course claims") :]
    assert "docs/course.md" in claims_md
    assert "at least 2%" in claims_md and "excludes no effect" in claims_md
    assert "model (the rule itself)" in claims_md


def test_ci_report(ci_file, tmp_path):
    out = tmp_path / "ci"
    make_report([ci_file], str(out))
    pngs, md = check_folder(out)
    assert any("model_efficiency" in p for p in pngs)
    assert any("strided_read-model" in p for p in pngs)
    v = verdicts(out / "report.md")
    assert v["C9"] == "holds" and v["C8"] == "holds"  # from the model: no measurement


def test_metrics_report(h200_file, tmp_path):
    out = tmp_path / "metrics"
    path = metrics_copy(h200_file, tmp_path / "m.h5")
    make_report([path], str(out))
    md = (out / "report.md").read_text()
    assert "## Metrics" in md
    fam = read(path).rows.iloc[0]["family"]
    assert f"{fam}: metrics per point" in md
    head = [line for line in md.splitlines() if line.startswith("| variant | point | device |")]
    assert any(
        f"{METRIC_NAMES[0]} (byte)" in h and f"{METRIC_NAMES[1]} (sector)" in h for h in head
    )
    # the second point's values, and the first point's last ones
    assert "| 1,000 | 1,001 |" in md
    assert "| 0 | 1 |" in md
    # a file without /metrics has no such section
    plain = tmp_path / "plain"
    make_report([h200_file], str(plain))
    assert "## Metrics" not in (plain / "report.md").read_text()


def test_all_families_model_report(all_model_file, families, tmp_path):
    out = tmp_path / "all"
    make_report([all_model_file], str(out))
    check_folder(out)
    v = verdicts(out / "report.md")
    expect = {
        "offset_read": ["C1", "C2", "C15"],
        "float3": ["C3"],
        "rowsum": ["C10"],
        "transpose": ["C11", "C12"],
        "smem_bank": ["C13", "C16"],
    }
    for fam, ids in expect.items():
        for c in ids:
            if fam in families:
                assert v[c] == "holds", (c, v[c])


def test_claims_follow_the_data(h200_file):
    """C8 differs when the halving breaks; C9 differs when the model says so."""
    run = read(h200_file)
    rows, samples = run.rows, {run.label: run.samples}
    ok = {c.id: v.verdict for c, v in claims.evaluate(rows, samples)}
    assert ok["C8"] == "holds" and ok["C9"] == "holds"
    bad = rows.copy()
    for v in ("tuned", "course"):
        sel = (bad["variant"] == v) & (bad["stride"] == 2)
        bad.loc[sel, "gbps"] *= 1.6  # stride 1 -> 2 no longer halves
    bad.loc[bad["stride"] == 8, "model_sectors_per_request"] = 16
    res = {c.id: v for c, v in claims.evaluate(bad, samples)}
    assert res["C8"].verdict == "differs" and res["C8"].basis == "measured"
    assert res["C9"].verdict == "differs"


def test_many_ranks_and_devices(h200_file, tmp_path):
    """Two 'nodes': one file as measured, another from a second GPU that ran
    the same points 20% slower at a lower clock, throttled; and ranks within a
    file with different clocks. The slow device and the slow rank are flagged."""
    slow = slowed_copy(h200_file, tmp_path / "node2.h5", 1.20)
    with h5py.File(slow, "r+") as f:
        d = f["devices"][:]
        d["host"] = b"node2"
        d["uuid"] = b"GPU-11111111-2222-3333-4444-555555555555"
        f["devices"][:] = d
        m = f["measurements"][:]
        m["sm_clock_mhz"] = 1500
        m["throttle_reasons"] = 0x20 | 0x4  # software thermal + power cap
        f["measurements"][:] = m
    ranks = writable_copy(h200_file, tmp_path / "ranks.h5")
    with h5py.File(ranks, "r+") as f:
        dev = f["devices"]
        d = dev[:]
        dev.resize((2,))
        d["rank"] = 1
        d["uuid"] = b"GPU-99999999-2222-3333-4444-555555555555"
        dev[1:] = d
        m = f["measurements"][:]
        m["rank"][1::2] = 1
        m["sm_clock_mhz"][1::2] = 1600
        f["measurements"][:] = m
    out = tmp_path / "rep"
    make_report([h200_file, slow, ranks], str(out))
    pngs, md = check_folder(out)
    assert any("device-spread" in p for p in pngs) and any("rank-clocks" in p for p in pngs)
    spread = md[md.index("Devices that measured the same points") :]
    node2 = next(line for line in spread.splitlines() if "node2" in line)
    assert "slow" in node2 and "throttled" in node2 and "1500" in node2
    clocks = md[md.index("Per rank: clocks") :]
    rank1 = [line for line in clocks.splitlines() if line.startswith("| ranks.h5 | 1 |")]
    assert rank1 and "low clock" in rank1[0]


def test_existing_folder_kept(h200_file, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    p = run_tool("report", h200_file, "-o", out)
    assert p.returncode == 2 and "--force" in p.stderr
    assert os.listdir(out) == ["notes.txt"]


def test_rerun_replaces_earlier_report(h200_report, h200_file):
    before = os.listdir(os.path.join(h200_report, "figures"))
    p = run_tool("report", "-q", h200_file, "-o", h200_report)
    assert p.returncode == 0, p.stderr
    assert os.listdir(os.path.join(h200_report, "figures")) == before
    parent = os.path.dirname(h200_report)
    assert [n for n in os.listdir(parent) if n.startswith(".")] == []


def test_console_scripts_declared():
    text = Path(SOURCE, "analysis", "pyproject.toml").read_text()
    for tool, mod in (
        ("sweep-report", "report"),
        ("sweep-compare", "compare"),
        ("sweep-export", "export"),
    ):
        assert f'{tool} = "sweep_analysis.{mod}:main"' in text


def test_seeds_report(seeds_files, all_model_file, tmp_path):
    """The H200 seeds file (every family) with the model rows of every family:
    each family gets its figure, every claim is decided, and the verdicts are
    those of that H200."""
    out = tmp_path / "seeds"
    p = run_tool("report", seeds_files[0], all_model_file, "-o", out)
    assert p.returncode == 0, p.stderr
    pngs, md = check_folder(out)
    r = read(seeds_files[0])
    for fam in r.rows["family"].unique():
        assert any(p.split("-", 1)[1].startswith(fam + "-nvidia") for p in pngs), fam
    v = verdicts(out / "report.md")
    assert "not in this file" not in v.values()
    for c in ("C7", "C8", "C10", "C12", "C13", "C14", "C16", "C17"):
        assert v[c] == "holds", (c, v[c])
    # on Hopper the float3 and texture lessons of older GPUs no longer hold:
    # SoA at 0.995x AoS is no difference, though the model at CC 1.x prefers it
    assert v["C5"] == "differs" and v["C18"] == "differs" and v["C6"] == "differs"
    assert claim_cells(out / "report.md", "on the model")["C6"] == "holds"
    basis = claim_cells(out / "report.md", "basis")
    for c in ("C1", "C2", "C4", "C15"):
        assert basis[c] == "model (the rule itself)", (c, basis[c])


def test_seeds_alone_lacks_cc1x(seeds_files):
    """A measured file alone cannot decide the CC 1.x claims: not in this file."""
    res = {c.id: v for c, v in claims.evaluate_runs([read(seeds_files[0])])}
    for c in ("C1", "C2", "C4", "C15"):
        assert res[c].verdict == "not in this file"
    assert "5 vs 4 sectors" in res["C1"].model  # the H200's own figure, as context


def test_two_gpus_across_files(h200_file, seeds_files, tmp_path):
    """h200-quick.h5 and h200-seeds.h5 ran the strided_read points at 64M
    floats on two different H200s: the report shows their spread."""
    out = tmp_path / "two"
    make_report([h200_file, seeds_files[0]], str(out))
    _, md = check_folder(out)
    spread = md[md.index("Devices that measured the same points") :]
    assert "GPU-0a9de6d8" in spread and "GPU-496c5ef2" in spread
    assert "| strided_read |" in spread


def test_block_figure(launch_file, h200_report, tmp_path):
    """A file with block-axis rows gets a figure of bandwidth against block
    size per family that sweeps the block; a file without gets none."""
    r = read(launch_file)
    m = r.rows[r.rows["status"] == 0].copy()
    m["backend"] = "cuda"
    m["device"] = "NVIDIA H200 (CC 9.0)"
    block = m["block"].where(m["block"] > 0, 256)
    m["median_ns"] = m["useful_bytes"] / 4.0 * (1 + 64 / block) + 2000.0
    m["gbps"] = m["useful_bytes"] / m["median_ns"]
    r.rows = m
    os.mkdir(tmp_path / "figures")
    rep = Report([r], str(tmp_path), lambda s: None)
    rep.families()
    names = [b.path for b in rep.blocks if isinstance(b, Figure)]
    swept = sorted(m[m["block"] > 0]["family"].unique())
    block_figs = sorted(n.split("-", 1)[1].split("-nvidia")[0] for n in names if "-block" in n)
    assert block_figs == swept, names
    pngs, _ = check_folder(h200_report)
    assert not [p for p in pngs if "-block" in p]


def test_captions_take_scales_from_the_figures(h200_report):
    """A caption's hand-written part names no scale: the scales come from the
    figure (figures.caption_notes), so 'log' cannot sit under a linear axis."""
    md = Path(h200_report, "report.md").read_text()
    caps = re.findall(r"^!\[(.*)\]\(figures/", md, flags=re.M)
    assert caps
    for c in caps:
        hand = c.split(" Axes: ")[0]
        assert not re.search(r"\blog|\blinear", hand), c
        if "heatmap" not in c and "model_efficiency" not in c:
            assert " Axes: " in c, c
    assert "Where model and hardware part" in md


def test_plugin_family_report(sweep_bin, tmp_path):
    """A plug-in family (tests/plugins: strided_read's kernel under another
    name) has its own section, axes and model table, like a built-in one."""
    plugins = os.environ.get("SW_TEST_PLUGINS")
    if not plugins:
        pytest.skip("SW_TEST_PLUGINS is not set: ctest sets it to the test plug-ins' folder")
    so = os.path.join(plugins, "plugin_strided_read.so")
    path = tmp_path / "plugin.h5"
    p = subprocess.run(
        [
            sweep_bin,
            "-q",
            "--backend",
            "model",
            "--plugin",
            so,
            "--family",
            "plugin_strided_read",
            "-o",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    rows = read(str(path)).rows
    assert set(rows["family"]) == {"plugin_strided_read"}
    out = tmp_path / "rep"
    make_report([str(path)], str(out))
    pngs, md = check_folder(out)
    assert "### plugin_strided_read" in md
    assert "axes: stride (elements), n (elements)" in md
    assert f"{len(rows)} model rows (no measurements)" in md
    assert "*plugin_strided_read, model: transactions per request" in md
