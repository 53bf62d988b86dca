"""Across the GPUs (issue 21): the report's fleet and class sections and
sweep-compare --class, on schema-5 files made from a real H200 file
(conftest.multi_gpu_copy: one /devices row per rank, the samples scaled by
each GPU's speed, independent noise per sample and per point).

- a GPU at 0.8 of its class's speed is flagged, on a line with the word
  "flagged" and its full UUID, and no other GPU is on such a line;
- GPUs within the noise are not flagged (identical GPUs, and a GPU 1% slow);
- the class section puts both classes side by side;
- compare --class compares two classes, refuses unknown names listing the file's;
- a file without the schema-5 columns reads as `once` with derived classes.
"""

import h5py
import numpy as np
import pytest

from sweep_analysis import fleet
from sweep_analysis.reader import read
from sweep_analysis.report import make_report
from sweep_analysis.stats import bootstrap_medians

from conftest import multi_gpu_copy, run_tool


def strided(r):
    return r["family"] == b"strided_read"


def _report(path, out):
    make_report([path], str(out), force=True)
    return (out / "report.md").read_text()


def _uuids(path):
    return [u for u in read(path).devices["uuid"]]


def _flag_lines(md):
    return [ln for ln in md.splitlines() if "flagged" in ln]


def test_bootstrap_medians_match_the_plain_bootstrap():
    rng = np.random.default_rng(3)
    for n in (1, 2, 7, 32, 33):
        x = rng.lognormal(0, 0.2, n)
        fast = bootstrap_medians([x], 40000, np.random.default_rng(1))[:, 0]
        slow = np.median(x[rng.integers(0, n, (40000, n))], axis=1)
        assert fast.mean() == pytest.approx(slow.mean(), rel=2e-3)
        for q in (5, 50, 95):
            assert np.percentile(fast, q) == pytest.approx(np.percentile(slow, q), rel=0.02)


@pytest.mark.parametrize("emulated", [False, True])
def test_slow_gpu_flagged_with_its_uuid_alone(tmp_path, emulated):
    gpus = [("H200", 1.0), ("H200", 1.0), ("H200", 0.8), ("H200", 1.0)]
    p = multi_gpu_copy(tmp_path / "f.h5", gpus, "once", calibrate=strided, emulated=emulated)
    md = _report(p, tmp_path / "rep")
    uuids = _uuids(p)
    slow, others = uuids[2], [u for i, u in enumerate(uuids) if i != 2]
    lines = _flag_lines(md)
    with_slow = [ln for ln in lines if slow in ln]
    assert with_slow, "the slow GPU is on no line with 'flagged'"
    # the Fleet section's bullet (the Summary's one-line **Fleet** item names the UUID too)
    bullet = next(ln for ln in with_slow if ln.startswith("- **flagged**"))
    for what in ("host node1", "rank 2", "SM clock", "memory clock", "throttle reasons"):
        assert what in bullet
    assert ("emulated" in bullet) == emulated
    for u in others:
        assert not [ln for ln in lines if u in ln], f"{u} is on a 'flagged' line"
    s = fleet.speeds(*_fleet_rows(p))
    assert s.set_index("uuid").loc[slow, "speed"] == pytest.approx(0.8, abs=0.01)
    assert s["flagged"].sum() == 1


def _fleet_rows(path):
    run = read(path)
    rows, basis = fleet.fleet_rows(run.all_rows)
    return rows, run.samples_of


@pytest.mark.parametrize("slow", [1.0, 0.99])
def test_gpus_within_noise_not_flagged(tmp_path, slow):
    gpus = [("H200", 1.0), ("H200", 1.0), ("H200", slow), ("H200", 1.0)]
    p = multi_gpu_copy(tmp_path / "f.h5", gpus, "every_gpu", seed=5)
    md = _report(p, tmp_path / "rep")
    assert "## Fleet: which GPU is slow" in md
    assert "No GPU flagged among 4 GPUs" in md
    assert not [ln for ln in _flag_lines(md) if any(u in ln for u in _uuids(p))]
    rows, samples_of = _fleet_rows(p)
    s = fleet.speeds(rows, samples_of)
    assert len(s) == 4 and not s["flagged"].any()
    assert s["speed"].between(0.98, 1.02).all()


def test_two_gpus_of_a_class(tmp_path):
    """Two GPUs: the median is their mean, so a GPU at 0.8 reads 0.9, still flagged."""
    p = multi_gpu_copy(tmp_path / "f.h5", [("H200", 1.0), ("H200", 0.8)], calibrate=strided)
    s = fleet.speeds(*_fleet_rows(p)).set_index("uuid")
    slow = _uuids(p)[1]
    assert s.loc[slow, "flagged"] and s.loc[slow, "speed"] == pytest.approx(0.9, abs=0.01)
    assert s["flagged"].sum() == 1


def test_one_gpu_no_fleet_section(tmp_path):
    p = multi_gpu_copy(tmp_path / "f.h5", [("H200", 1.0)], "every_gpu")
    md = _report(p, tmp_path / "rep")
    assert "## Fleet" not in md and "**Fleet.**" not in md and "Classes:" not in md
    p = multi_gpu_copy(tmp_path / "g.h5", [("A", 1.0), ("B", 0.5)], "per_class")
    md = _report(p, tmp_path / "rep2")
    assert "## Fleet" not in md and "g.h5: no device class has two GPUs" in md


def test_shared_gpu_noise_floor(tmp_path):
    """Two ranks on one GPU (--share-gpu, every_gpu): each point twice on one
    UUID: no GPU to compare, and the noise floor of the two."""
    p = multi_gpu_copy(tmp_path / "f.h5", [("H200", 1.0), ("H200", 1.0)], "every_gpu")
    with h5py.File(p, "r+") as f:
        d = f["devices"][:]
        d["uuid"][1] = d["uuid"][0]
        f["devices"][:] = d
    md = _report(p, tmp_path / "rep")
    u = _uuids(p)[0]
    line = next(ln for ln in md.splitlines() if ln.startswith("Noise floor"))
    assert f"ranks 0,1 shared GPU `{u}`" in line and "over 113 points" in line
    assert not _flag_lines(md) or not [ln for ln in _flag_lines(md) if u in ln]
    ratio = float(line.split("median times is ")[1].split()[0])
    assert ratio == pytest.approx(1.0, abs=0.005)


def test_classes_side_by_side(tmp_path):
    gpus = [("A", 1.0), ("A", 1.0), ("B", 0.5), ("B", 0.5)]
    p = multi_gpu_copy(tmp_path / "f.h5", gpus, "per_class", calibrate=strided)
    md = _report(p, tmp_path / "rep")
    assert "## Classes: how the architectures differ" in md
    head = next(ln for ln in md.splitlines() if ln.startswith("| variant | point | A GB/s"))
    for h in ("A x stream_read", "A model", "B GB/s", "B x stream_read", "B % of model"):
        assert h in head
    summary = next(ln for ln in md.splitlines() if ln.startswith("| family | variant | A x ref"))
    assert "B x ref" in summary
    # class B at half speed: half the GB/s, the same ratio to its own reference
    row = next(ln for ln in md.splitlines() if ln.startswith("| strided_read | course |"))
    a_ref, a_pct, b_ref, b_pct = row.strip("|").split("|")[2:6]
    assert float(a_ref) == pytest.approx(float(b_ref), rel=0.03)
    assert float(a_pct.strip(" %")) == pytest.approx(2 * float(b_pct.strip(" %")), rel=0.1)


def test_classes_emulated_say_so(tmp_path):
    gpus = [("A", 1.0), ("B", 0.5)]
    p = multi_gpu_copy(tmp_path / "f.h5", gpus, "per_class", emulated=True)
    md = _report(p, tmp_path / "rep")
    assert "- **A**: A (CC 9.0, emulated)" in md and "- **B**: B (CC 8.0, emulated)" in md
    # replay rows stay out of the measurement sections
    assert "### strided_read" not in md and "strided_read per class" in md


def test_compare_classes(tmp_path):
    gpus = [("A", 1.0), ("A", 1.0), ("B", 0.5), ("B", 0.5)]
    p = multi_gpu_copy(tmp_path / "f.h5", gpus, "per_class")
    r = run_tool("compare", p, "--class", "A", "--class", "B")
    # two classes, not two revisions: slower is no regression (issue 29 item 6)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "[class A]" in r.stdout and "[class B]" in r.stdout
    assert "113 slower" in r.stdout and "Classes, not revisions: A is A, B is B." in r.stdout
    r = run_tool("compare", p, "--class", "A", "--class", "B", "--regression")
    assert r.returncode == 1, r.stdout + r.stderr
    r = run_tool("compare", p, "--class", "A", "--class", "A", "--threshold", "5")
    assert r.returncode == 2 and "the same" in r.stderr
    r = run_tool("compare", p, "--class", "A", "--class", "C")
    assert r.returncode == 2
    assert "no device class 'C'; its classes: 'A', 'B'" in r.stderr
    r = run_tool("compare", p, "--class", "A")
    assert r.returncode == 2 and "--class twice" in r.stderr
    # two GPUs of class A at the same speed: the same class against a copy of itself
    q = multi_gpu_copy(tmp_path / "g.h5", [("A", 1.0), ("B", 1.0)], "every_gpu", seed=9)
    r = run_tool("compare", q, "--class", "B", "--class", "A", "--md", tmp_path / "c.md")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 slower" in r.stdout and "[class B]" in (tmp_path / "c.md").read_text()


def test_compare_classes_emulated(tmp_path):
    p = multi_gpu_copy(tmp_path / "f.h5", [("A", 1.0), ("B", 0.5)], "per_class", emulated=True)
    r = run_tool("compare", p, "--class", "A", "--class", "B", "--regression")
    assert r.returncode == 1 and "Emulated: A and B" in r.stdout


def test_schema5_without_class_column(tmp_path):
    """Classes derived from (name, CC, memory) where /devices has no device_class."""
    gpus = [("H200", 1.0), ("H200", 1.0), ("X", 1.0)]
    p = multi_gpu_copy(tmp_path / "f.h5", gpus, "every_gpu", class_column=False)
    run = read(p)
    assert sorted(set(run.all_rows["device_class"])) == ["H200", "X"]
    assert run.placement == "every_gpu"


def test_old_file_reads_as_once(seeds_files):
    run = read(seeds_files[0])
    assert run.placement == "once"
    assert (run.rows["calibration"] == 0).all()
    assert set(run.rows["device_class"]) == {"NVIDIA H200"}
    assert "calibration" not in run.axes
