"""sweep-compare: flags a planted 10% slowdown, not two repeated runs.

Repeated runs: the CI machine has no GPU, so its files (model backend) carry
no samples. Three kinds of repeats are tested: two real runs on one H200
committed in docs/results (h200-seeds.h5 and h200-seeds-repeat.h5); two copies of
h200-quick.h5, each with independent 0.5% noise on every sample (the relative
noise the measurement targets); and two model runs of the same job by the
real C writer, which must compare 'same'. Files with no point in common are
an error (exit 2); files that share fewer than half of either one's points
are compared with a warning.
"""

import os

import h5py
import numpy as np
import pytest

from sweep_analysis.compare import classify, compare
from sweep_analysis.reader import read
from sweep_analysis.stats import mann_whitney, median_ratio_ci, rankdata

from conftest import SOURCE, _sweep, noisy_copy, run_tool, slowed_copy, writable_copy


def test_rankdata_ties():
    r, ties = rankdata([3, 1, 3, 2])
    assert list(r) == [3.5, 1, 3.5, 2] and sorted(ties) == [1, 1, 2]


def test_mann_whitney_known_value():
    # scipy.stats.mannwhitneyu([1,2,3], [4,5,6], method="asymptotic") -> U 0, p 0.0809
    u, p = mann_whitney([1, 2, 3], [4, 5, 6])
    assert u == 0 and p == pytest.approx(0.080856, abs=1e-5)
    assert mann_whitney([1, 1, 1], [1, 1, 1])[1] == 1.0


def test_bootstrap_interval():
    rng = np.random.default_rng(1)
    a = 100 * (1 + rng.normal(0, 0.01, 200))
    lo, hi = median_ratio_ci(a, a * 1.1)
    assert lo < 1.1 < hi and hi - lo < 0.01


def test_classify():
    rng = np.random.default_rng(2)
    a = 1000 * (1 + rng.normal(0, 0.005, 32))
    b = 1000 * (1 + rng.normal(0, 0.005, 32))
    assert classify(a, b)["class"] == "same"
    assert classify(a, b * 1.10)["class"] == "slower"
    assert classify(a, b / 1.10)["class"] == "faster"
    assert classify(a[:3], b[:3])["class"] == "ambiguous"
    wide = 1000 * (1 + rng.normal(0, 0.2, 8))
    assert classify(wide, wide[::-1] * 1.02)["class"] == "ambiguous"


def test_planted_slowdown_flagged(h200_file, tmp_path):
    a = noisy_copy(h200_file, tmp_path / "a.h5", seed=1)
    b = slowed_copy(h200_file, tmp_path / "b.h5", 1.10)
    md = tmp_path / "cmp.md"
    p = run_tool("compare", a, b, "--md", md)
    assert p.returncode == 1, p.stdout + p.stderr
    df = compare(read(a), read(b))
    assert len(df) == 54 and (df["class"] == "slower").all()
    assert df["ratio"].between(1.07, 1.13).all()
    text = md.read_text()
    assert "| slower | strided_read |" in text and "54 slower" in text
    assert "54 slower" in p.stdout and "regressed" in p.stderr


def test_threshold(h200_file, tmp_path):
    a = noisy_copy(h200_file, tmp_path / "a.h5", seed=1)
    b = slowed_copy(h200_file, tmp_path / "b.h5", 1.10)
    assert run_tool("compare", a, b, "--threshold", "20").returncode == 0


def test_repeated_runs_not_flagged(h200_file, tmp_path):
    a = noisy_copy(h200_file, tmp_path / "a.h5", seed=11)
    b = noisy_copy(h200_file, tmp_path / "b.h5", seed=12)
    p = run_tool("compare", a, b)
    assert p.returncode == 0, p.stdout + p.stderr
    df = compare(read(a), read(b))
    assert not df["class"].isin(["slower", "faster"]).any()
    assert (df["class"] == "same").mean() > 0.9


def test_two_real_runs(seeds_files):
    """jobs/seeds.yaml twice on one H200, 30 s apart: nothing slower or faster."""
    a, b = seeds_files
    p = run_tool("compare", a, b)
    assert p.returncode == 0, p.stdout + p.stderr
    df = compare(read(a), read(b))
    assert len(df) == len(read(b).rows)
    assert not df["class"].isin(["slower", "faster", "broken"]).any()
    assert (df["class"] == "same").mean() > 0.9


def test_model_runs_same(ci_file, sweep_bin, tmp_path):
    b = _sweep(sweep_bin, os.path.join(SOURCE, "jobs", "ci.yaml"), tmp_path / "b.h5")
    p = run_tool("compare", ci_file, b)
    assert p.returncode == 0, p.stdout + p.stderr
    df = compare(read(ci_file), read(b))
    assert len(df) == len(read(b).rows) and (df["class"] == "same").all()


def test_broken_point(h200_file, tmp_path):
    b = writable_copy(h200_file, tmp_path / "b.h5")
    with h5py.File(b, "r+") as f:
        m = f["measurements"][:]
        m["status"][0] = 2
        m["message"][0] = b"element 17: 1.5 vs 1.0"
        f["measurements"][:] = m
    p = run_tool("compare", h200_file, b, "--changes")
    assert p.returncode == 1
    assert "broken" in p.stdout and "element 17" in p.stdout
    assert p.stdout.count("\n") < 10  # --changes: only that point and the summary


def test_nothing_in_common(ci_file, h200_file, tmp_path):
    """A model file against a GPU file shares no point: an error, not a pass."""
    md = tmp_path / "cmp.md"
    p = run_tool("compare", ci_file, h200_file, "--md", md)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "no point in common" in p.stderr and "nothing was compared" in p.stderr
    assert not md.exists()  # an error leaves no output behind


def _renumber(path, rows):
    """Give rows new point ids: points of that file only."""
    with h5py.File(path, "r+") as f:
        m = f["measurements"][:]
        m["point_id"][rows] ^= np.uint64(0x5A5A5A5A5A5A5A5A)
        f["measurements"][:] = m


def _drop(path, rows):
    """Make rows fill rows (status -1), which the reader drops: a run cut short."""
    with h5py.File(path, "r+") as f:
        m = f["measurements"][:]
        m["status"][rows] = -1
        f["measurements"][:] = m


@pytest.mark.parametrize(
    "edit, common, warned",
    [
        (lambda b: _renumber(b, slice(0, 30)), 24, "24 of A's 54 points and 24 of B's 54 points"),
        (lambda b: _drop(b, slice(0, 30)), 24, "24 of A's 54 points"),
        (lambda b: _renumber(b, slice(0, 27)), 27, None),  # exactly half: no warning
    ],
    ids=["renumbered", "cut-short", "half"],
)
def test_partial_overlap(h200_file, tmp_path, edit, common, warned):
    b = writable_copy(h200_file, tmp_path / "b.h5")
    edit(b)
    md = tmp_path / "cmp.md"
    p = run_tool("compare", h200_file, b, "--md", md)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"{common} points in both files" in p.stdout
    if warned:
        assert f"warning: only {warned} could be compared" in p.stderr
        assert f"Warning: only {warned} could be compared" in p.stdout
        assert f"Warning: only {warned} could be compared" in md.read_text()
        assert ("of B's" in warned) == ("of B's" in p.stderr)  # B whole: only A is named
    else:
        assert "arning" not in p.stderr + p.stdout + md.read_text()
