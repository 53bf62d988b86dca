"""The vectorised row selections and folds (issue 23, cause 10) against the
rules as they were first written, one pandas step after another, on random
frames: the same rows, in the same order, with the same index."""

import numpy as np
import pandas as pd
import pytest

from sweep_analysis.reader import (
    COPY_ON_WRITE,
    DEVICE_CLASS,
    class_rows,
    latest,
    latest_per_gpu,
)
from sweep_analysis.report_page import _file_part
from sweep_analysis.tables import fold_model


def rows_of(seed, n=400):
    """Rows of a few points, sessions, GPUs (two ranks may share one),
    classes and backends, calibration points among them."""
    rng = np.random.default_rng(seed)
    backend = rng.choice(["cuda", "model", "replay"], n, p=[0.6, 0.3, 0.1])
    return pd.DataFrame(
        {
            "point_id": rng.integers(0, 40, n).astype(np.uint64),
            "session": rng.integers(0, 3, n).astype(np.int32),
            "backend": backend,
            "uuid": np.where(rng.random(n) < 0.05, None, rng.choice(["G0", "G1", "G2"], n)),
            "rank": rng.integers(0, 4, n).astype(np.int32),
            DEVICE_CLASS: rng.choice(["A", "B"], n),
            "status": rng.choice([0, 0, 0, 1], n).astype(np.int32),
            "median_ns": np.where(rng.random(n) < 0.1, np.nan, rng.random(n)),
            "calibration": rng.integers(0, 2, n).astype(np.int32),
        },
        index=rng.permutation(n) * 3,  # labels that are not positions
    ).sort_index()


def latest_as_written(rows):
    return rows.sort_values("session", kind="stable").drop_duplicates(
        ["point_id", "backend"], keep="last"
    )


def latest_per_gpu_as_written(rows):
    gpu = rows["backend"] != "model"
    r = rows.assign(
        _uuid=np.where(gpu, rows["uuid"].fillna("").astype(str), ""),
        _rank=np.where(gpu, rows["rank"], -1),
    )
    r = r.sort_values("session", kind="stable").drop_duplicates(
        ["point_id", "backend", "_uuid", "_rank"], keep="last"
    )
    return r.drop(columns=["_uuid", "_rank"])


def class_rows_as_written(rows, placement):
    once = (rows["backend"] == "model") | ((rows["calibration"] == 0) & (placement == "once"))
    kept = [latest_as_written(rows[once])]
    many = latest_per_gpu_as_written(rows[~once])
    if len(many):
        bad = (many["status"] != 0).astype(int)
        keys = ["point_id", "backend", DEVICE_CLASS]
        m = many.assign(_bad=bad, _t=many["median_ns"].fillna(np.inf))
        m = m.sort_values([*keys, "_bad", "_t"], kind="stable")
        g = m.groupby(keys, sort=False, dropna=False)
        size = g["_bad"].transform("size")
        n_ok = size - g["_bad"].transform("sum")
        pick = np.where(n_ok > 0, (n_ok - 1) // 2, size - 1)
        kept.append(m[g.cumcount().to_numpy() == pick].drop(columns=["_bad", "_t"]))
    return pd.concat(kept).sort_index(kind="stable")


@pytest.mark.parametrize("seed", range(8))
def test_selections_as_written(seed):
    rows = rows_of(seed)
    pd.testing.assert_frame_equal(latest(rows), latest_as_written(rows))
    pd.testing.assert_frame_equal(latest_per_gpu(rows), latest_per_gpu_as_written(rows))
    for placement in ("once", "per_class", "every_gpu"):
        pd.testing.assert_frame_equal(
            class_rows(rows, placement), class_rows_as_written(rows, placement)
        )


def test_all_rows_kept_in_order_are_not_copied():
    """Where pandas copies on write (pandas 3), all rows kept in order are
    the same columns, no copy."""
    rows = rows_of(1).assign(backend="model", session=0).drop_duplicates(["point_id"])
    kept = latest(rows)
    pd.testing.assert_frame_equal(kept, rows)
    shared = np.shares_memory(kept["median_ns"].to_numpy(), rows["median_ns"].to_numpy())
    assert shared == COPY_ON_WRITE  # without copy on write a copy: no change leaks


def fold_as_written(rows, axes, cols):
    """tables.fold_model as first written: a Python function per group."""
    ax = [a for a in axes if a in rows and (rows[a] != -1).any()]
    keep = list(ax)
    for a in ax:
        others = [k for k in keep if k != a] + ["cc"]
        g = rows.groupby(others, dropna=False)[cols]
        spread = g.agg(lambda s: np.nanmax(s) - np.nanmin(s) if s.notna().any() else 0.0)
        if not (spread.to_numpy(dtype=float) > 1e-9).any():
            keep.remove(a)
    return rows.groupby(keep + ["cc"], dropna=False)[cols].median().reset_index(), keep


@pytest.mark.parametrize("seed", range(6))
def test_fold_as_written(seed):
    """An axis that changes no figure (n) is folded away, one that does
    (stride) is kept; a group without any value is no spread."""
    rng = np.random.default_rng(seed)
    n = 600
    stride = rng.choice([1, 2, 4, 8], n)
    rows = pd.DataFrame(
        {
            "stride": stride,
            "n": rng.choice([1 << 20, 1 << 24], n),
            "unused": np.full(n, -1),
            "cc": rng.choice([60, 90], n),
            "model_efficiency": 1.0 / stride,
            "model_conflict_degree": np.where(rng.random(n) < 0.5, np.nan, 1.0),
            "flat": np.where(stride == 8, np.nan, 2.0),
        }
    )
    cols = ["model_efficiency", "model_conflict_degree", "flat"]
    got, kept = fold_model(rows, ["stride", "n", "unused"], cols)
    want, kept_want = fold_as_written(rows, ["stride", "n", "unused"], cols)
    assert kept == kept_want == ["stride"]
    pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize(
    "name,part",
    [
        ("strided_read-nvidia-h200--cc-9-0", "strided_read-nvidia-h200--cc-9-0"),
        ("a/b-x", "a-b-x"),
        ("../../etc/passwd", "------etc-passwd"),
        ("x]y (z)é", "x-y--z--"),
    ],
)
def test_file_part(name, part):
    assert _file_part(name) == part
