"""The time model against what was measured, and two device classes against
their datasheet bandwidths. Each measured class's rows are set against the
time model's prediction for its GPU (docs/model.md, "Time"): the rows' own
`model_time_ns` (schema 8: the cuda backend predicts for the GPU it
measures on), else a device target of that GPU in another file of the
report (`sweep --backend model --model-devices NAME`), matched by family,
variant and axis values. The error counts ok points of at least MIN_NS;
variants the time model does not cover (term "none") are left out and
counted. Pure functions over the report's rows: no plotting, no printing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import gpus
from .reader import DEVICE_CLASS, EMULATES, MODEL_DEVICE, device_targets
from .tables import axes_text

MIN_NS = 20_000.0  # points shorter than 20 us are left out of the error (launch-bound)
BAND = 0.10  # the figure's band: within 10% of the measured time
SCALE_TOLERANCE = 0.10  # a time ratio within 10% of the bandwidth ratio scales with it
WORST = 10

ERROR_RULE = (
    f"The error of a point is |predicted / measured - 1|, over the ok points of at least "
    f"{MIN_NS / 1e3:g} us (shorter ones are bound by the launch); variants the time model "
    "does not cover (term `none`: cuBLAS, memcpy, the texture path, atomics...) are left out "
    "and counted."
)
SCALE_RULE = (
    "A point scales with memory bandwidth when its time ratio between two classes lies "
    f"within {SCALE_TOLERANCE:.0%} of the inverse ratio of their datasheet DRAM bandwidths "
    "(sweep's GPU table, `sweep --list-devices`; analysis/sweep_analysis/gpu_table.csv is its "
    "copy)."
)
PREDICTED = ["predicted_ns", "term", "basis", "source"]


def class_gpu(rows: pd.DataFrame) -> tuple:
    """(the time model table's row of the GPU a class's rows ran on, or
    emulate, as a dict, or None; how it was found). A measured row names it
    in model_device (schema 8); an emulated device by the GPU it replays
    (/devices `emulates`); else the recorded device name, as sweep finds
    a measured GPU (gpus.find)."""
    named = rows[MODEL_DEVICE].fillna("").astype(str)
    for n in dict.fromkeys(named[named != ""]):
        hit = gpus.find(n)
        if hit:
            return hit, "model_device"
    replay = rows[rows["backend"] == "replay"]
    if len(replay) and EMULATES in replay:
        for n in dict.fromkeys(replay[EMULATES].fillna("").astype(str)):
            hit = gpus.find(n)
            if hit:
                return hit, f"emulates {n}"
    for n in dict.fromkeys(rows["device_name"].fillna("").astype(str)):
        hit = gpus.find(n)
        if hit:
            return hit, "its device name"
    return None, ""


def datasheet_gbps(rows: pd.DataFrame) -> tuple:
    """(the class's DRAM bandwidth, where it comes from): sweep's GPU table;
    else the device's own reported peak (/devices peak_gbps), said; else NaN."""
    gpu, how = class_gpu(rows)
    if gpu:
        return float(gpu["dram_gbps"]), f"{gpu['name']} in sweep's GPU table ({how})"
    peak = rows["peak_gbps"].dropna() if "peak_gbps" in rows else pd.Series([], dtype=float)
    peak = peak[peak > 0]
    if len(peak):
        return float(peak.median()), "not in sweep's GPU table: the device's reported peak"
    return np.nan, "not in sweep's GPU table, and no peak recorded"


def datasheet_fp32(rows: pd.DataFrame) -> float:
    """The class's FP32 peak (GFLOP/s) in sweep's GPU table, else NaN."""
    gpu, _ = class_gpu(rows)
    return float(gpu["fp32_gflops"]) if gpu else np.nan


def _keys(rows, axes) -> pd.MultiIndex:
    return pd.MultiIndex.from_frame(rows[["family", "variant", *axes]])


def predicted(rows: pd.DataFrame, axes, names=None) -> tuple:
    """(one row per measured ok point of each (file, class) with its
    prediction, why each class has none (_why_none)). The prediction: the row's own
    model_time_ns, else a device target of the class's GPU among rows. The
    frame: row (the row's index in rows), file, class, gpu, family, variant,
    plan_index, point, measured_ns, predicted_ns, term ("" where none was
    found), basis and source."""
    meas = rows[(rows["backend"] == "cuda") & (rows["status"] == 0)]
    targets = rows[device_targets(rows) & (rows["status"] == 0).to_numpy()]
    out, notes = [], {}
    for (f, cls), g in meas.groupby(["file", DEVICE_CLASS], sort=False):
        gpu, _ = class_gpu(g)
        name = gpu["name"] if gpu else ""
        p = pd.DataFrame(
            {
                "row": g.index,
                "file": f,
                "class": cls,
                "gpu": name,
                "family": g["family"],
                "variant": g["variant"],
                "plan_index": g["plan_index"],
                "measured_ns": g["median_ns"].astype(float),
                "predicted_ns": g["model_time_ns"].astype(float),
                "term": g["model_time_term"].fillna("").astype(str),
                "basis": g["model_time_basis"].fillna("").astype(str),
                "source": "the rows' own model_time_ns",
            }
        )
        p["point"] = [axes_text(r, axes, names) for _, r in g.iterrows()]
        own = (p["term"] != "").any()
        t = targets[targets[MODEL_DEVICE] == name] if name else targets.iloc[0:0]
        if len(t) and (not own or _stronger(t, p)):
            t = t.drop_duplicates(["family", "variant", *axes], keep="last")
            at = _keys(t, axes).get_indexer(_keys(g, axes))
            hit = at >= 0  # a point the target lacks keeps the row's own, if any
            for col, src in (
                ("predicted_ns", "model_time_ns"),
                ("term", "model_time_term"),
                ("basis", "model_time_basis"),
            ):
                p[col] = np.where(hit, t[src].to_numpy()[at], p[col].to_numpy())
            files = ", ".join(dict.fromkeys(t["file"]))
            p["source"] = np.where(hit, f"device target {name} of {files}", p["source"])
        notes[(f, cls)] = _why_none(g, name, own, len(t))
        out.append(p)
    cols = ["row", "file", "class", "gpu", "family", "variant", "plan_index", "point"]
    cols += ["measured_ns"]
    if not out:
        return pd.DataFrame(columns=cols + PREDICTED), notes
    return pd.concat(out, ignore_index=True), notes


def _stronger(t, p) -> bool:
    """Whether device targets t rest on more than the datasheet while the
    measured rows' own predictions p do not: a file made with
    `--model-calibrate` or `--model-from` for the class's GPU then gives
    the report its figure (docs/model.md, "Three levels of trust")."""
    fitted = ("calibrated", "transfer")
    return bool(t["model_time_basis"].isin(fitted).any() and not p["basis"].isin(fitted).any())


def _why_none(g, name, own, targets) -> tuple:
    """Why a class has no prediction: ("", GPU) when it has one, ("no GPU",
    its device name) when the table lacks its GPU, ("no time", GPU) when
    neither its rows nor a device target give one."""
    if own or targets:
        return "", name
    if not name:
        return "no GPU", str(g["device_name"].iloc[0])
    return "no time", name


def with_error(p: pd.DataFrame) -> pd.DataFrame:
    """p with err = |predicted / measured - 1| and what each point counts as:
    `compared`, `short` (under MIN_NS), `unmodelled` (term none) or `none`
    (no prediction)."""
    p = p.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        p["ratio"] = p["predicted_ns"].astype(float) / p["measured_ns"].astype(float)
    p["err"] = (p["ratio"] - 1).abs()
    good = np.isfinite(p["ratio"]) & (p["ratio"] > 0)
    p["counts"] = np.select(
        [p["measured_ns"] < MIN_NS, p["term"] == "none", ~good],
        ["short", "unmodelled", "none"],
        "compared",
    )
    return p


def errors(p: pd.DataFrame, by) -> pd.DataFrame:
    """Per group of `by` (e.g. file, class, family): points compared, the
    median and 90th percentile of the error, and the points left out."""
    p = with_error(p) if "counts" not in p else p
    rows = []
    for key, g in p.groupby(by, sort=False):
        c = g[g["counts"] == "compared"]["err"]
        rows.append(
            {
                **dict(zip(by, key if isinstance(key, tuple) else (key,))),
                "compared": len(c),
                "median": float(c.median()) if len(c) else np.nan,
                "p90": float(np.percentile(c, 90)) if len(c) else np.nan,
                "within_band": int((c <= BAND).sum()),
                "unmodelled": int((g["counts"] == "unmodelled").sum()),
                "short": int((g["counts"] == "short").sum()),
                "none": int((g["counts"] == "none").sum()),
                "terms": ", ".join(sorted(set(g.loc[g["counts"] == "compared", "term"]))),
                "basis": ", ".join(sorted(set(g["basis"]) - {""})),
            }
        )
    return pd.DataFrame(rows)


def worst(p: pd.DataFrame, n=WORST) -> pd.DataFrame:
    """The n compared points furthest from their measured time."""
    p = with_error(p) if "counts" not in p else p
    c = p[p["counts"] == "compared"]
    return c.sort_values("err", ascending=False, kind="stable").head(n)


def bandwidth_scaling(a: pd.DataFrame, b: pd.DataFrame, gbps_a, gbps_b, axes) -> pd.DataFrame:
    """The points both classes ran ok (one row each: a, b), with the time
    ratio b / a, the ratio the datasheet bandwidths give (gbps_a / gbps_b)
    and whether the point scales with memory bandwidth (SCALE_RULE)."""
    keys = ["family", "variant", *axes]
    j = a[[*keys, "plan_index", "median_ns"]].merge(
        b[[*keys, "median_ns"]], on=keys, suffixes=("_a", "_b")
    )
    j["ratio"] = j["median_ns_b"] / j["median_ns_a"]
    j["expected"] = gbps_a / gbps_b if gbps_b > 0 else np.nan
    j["scales"] = (j["ratio"] / j["expected"] - 1).abs() <= SCALE_TOLERANCE
    return j.sort_values("plan_index", kind="stable").reset_index(drop=True)
