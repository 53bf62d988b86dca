"""The rule that marks where measured and modelled efficiency part
(modelgap.RULE), on the committed full H200 run and on model-only files."""

import os

import pytest

from sweep_analysis import modelgap
from sweep_analysis.reader import latest, read
from sweep_analysis.report import make_report

from conftest import SOURCE

# The full job measured at 46ab23d (2026-12-01), whose gaps these tests name;
# docs/results/h200-offset-study.md studies the offset-16 one.
FULL = os.path.join(SOURCE, "docs", "results", "h200-full-46ab23d.h5")


@pytest.fixture(scope="module")
def full():
    if not os.path.exists(FULL):
        pytest.fail(f"{FULL} is missing: it is committed with the repository")
    r = read(FULL)
    rows = latest(r.rows)
    rows = rows[rows["family"] == "offset_read"]  # the case docs/model.md explains
    return rows, modelgap.find(rows, r.axes, {r.label: r.samples})


def offset_flag(full, offset, n=268435456):
    rows, gaps = full
    i = rows.index[(rows["variant"] == "offset") & (rows["offset"] == offset) & (rows["n"] == n)]
    assert len(i) == 1
    return gaps.loc[i[0]]


def test_offset16_parts_from_the_model(full):
    g = offset_flag(full, 16)
    # the model rates offset 16 as efficient as offset 0; the H200 runs it at about 0.78x
    assert g["model_rel"] == pytest.approx(1.0)
    assert g["measured_rel"] < 0.85
    assert g["hi"] < 1 - modelgap.GAP
    assert g["flag"] == "slower than modelled"


@pytest.mark.parametrize("offset", [0, 32])
def test_aligned_offsets_agree(full, offset):
    g = offset_flag(full, offset)
    assert g["flag"] == ""
    assert abs(g["measured_rel"] / g["model_rel"] - 1) < modelgap.GAP


def test_no_samples_no_flag(full):
    """The interval is part of the rule: without raw samples nothing is flagged."""
    rows, _ = full
    gaps = modelgap.find(rows, [a for a in ("n", "offset")], {})
    assert len(gaps) and (gaps["flag"] == "").all()


def test_baseline_is_the_best_aligned_row_of_the_variant(full):
    rows, gaps = full
    for b in gaps["base_index"].unique():
        base = rows.loc[b]
        same = rows[(rows["variant"] == base["variant"]) & (rows["n"] == base["n"])]
        assert base["model_efficiency"] == same["model_efficiency"].max()
        top = same[same["model_efficiency"] == base["model_efficiency"]]
        assert base["gbps"] == top["gbps"].max()


def test_model_only_file_flags_nothing(all_model_file, tmp_path):
    r = read(all_model_file)
    gaps = modelgap.find(latest(r.rows), r.axes, {r.label: r.samples})
    assert gaps.empty
    out = tmp_path / "model"
    make_report([all_model_file], str(out))
    md = (out / "report.md").read_text()
    sec = md[md.index("## Where model and hardware part") :]
    assert "Nothing compared" in sec.split("\n## ")[0]


def test_report_marks_offset16(tmp_path):
    """The report's section lists offset 16 at 256M floats and not offset 0 or 32."""
    import h5py

    # a copy of the full file cut to offset_read keeps the test quick
    dst = tmp_path / "offset.h5"
    with h5py.File(FULL, "r") as f, h5py.File(dst, "w") as g:
        for k, v in f.attrs.items():
            g.attrs[k] = v
        for name in f:
            f.copy(name, g)
        m = g["measurements"][:]
        sel = m["family"] == b"offset_read"
        assert sel.any()
        del g["measurements"]
        g.create_dataset("measurements", data=m[sel])
        for k, v in f["measurements"].attrs.items():
            g["measurements"].attrs[k] = v
    out = tmp_path / "rep"
    make_report([str(dst)], str(out))
    md = (out / "report.md").read_text()
    sec = md[md.index("## Where model and hardware part") :].split("\n## ")[0]
    assert "docs/model.md" in sec
    # a long table of points: in the appendix beside report.md, under the same heading
    app = (out / "report-appendix.md").read_text()
    if "## Where model and hardware part" in app:
        sec += app[app.index("## Where model and hardware part") :].split("\n## ")[0]
    lines = [ln for ln in sec.splitlines() if "offset_read / offset" in ln]
    assert any("n=256M offset=16 " in ln + " " and "slower than modelled" in ln for ln in lines)
    for ok in ("offset=0 ", "offset=32 "):
        assert not any(f"n=256M {ok}" in ln + " " for ln in lines)
