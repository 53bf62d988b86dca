"""What the tools derive from a Run's rows: axes a family uses, throughput,
ratios to the family's reference rows measured in the same file, model
figures folded over the axes that do not change them, per-rank clocks.
Pure functions over DataFrames: no file access, no plotting, no printing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .reader import cc_text

# NVML clock-throttle reasons (nvmlClocksThrottleReason*): bit -> name.
THROTTLE_BITS = {
    0x1: "gpu_idle",
    0x2: "app_clocks",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal",
    0x40: "hw_thermal",
    0x80: "hw_power_brake",
    0x100: "display_clocks",
}
# The reasons that mean the GPU ran slower than it could (idle, application
# clocks and sync boost are states, not slowdowns).
SLOWDOWN_MASK = 0x4 | 0x8 | 0x20 | 0x40 | 0x80


def throttle_text(mask) -> str:
    mask = int(mask)
    if mask == 0:
        return "none"
    names = [n for b, n in THROTTLE_BITS.items() if mask & b]
    rest = mask & ~sum(THROTTLE_BITS)
    if rest:
        names.append(hex(rest))
    return ",".join(names)


def used_axes(rows: pd.DataFrame, axes) -> list:
    """Axis columns with a value (not -1) in any of these rows, in file order."""
    return [a for a in axes if a in rows and (rows[a] != -1).any()]


def at_point(rows: pd.DataFrame, point) -> pd.DataFrame:
    """The rows at a point, {axis: value}: a row without the axis (-1) fits
    every value of it."""
    for a, v in point.items():
        rows = rows[(rows[a] == v) | (rows[a] == -1)]
    return rows


def axes_text(row, axes, names=None) -> str:
    """ "stride=4 n=64M": a row's axes that it has; a categorical axis's
    value by its name where names ({(family, axis): {value: name}}, a
    file's /axis_names, Run.axis_names) gives one for the row's family."""
    parts = [f"{a}={value_text(row, a, names)}" for a in axes if row[a] != -1]
    return " ".join(parts) if parts else "-"


def value_text(row, axis, names=None) -> str:
    """A row's value of axis as people write it: its name, or 1M for 1048576
    (a frame that shows names already, Run.with_names's, holds the name)."""
    if isinstance(row[axis], str):
        return row[axis]
    v = int(row[axis])
    name = (names or {}).get((str(row.get("family", "")), axis), {}).get(v)
    return name if name is not None else fmt_int(v)


def fmt_int(v) -> str:
    """Axis values as people write them: 1048576 -> 1M."""
    v = int(v)
    for p, s in ((30, "G"), (20, "M"), (10, "K")):
        if v >= 1 << p and v % (1 << p) == 0:
            return f"{v >> p}{s}"
    return str(v)


# What the values of the built-ins' categorical axes are called: a file
# before schema 8 carries no /axis_names (Run.axis_names holds a newer one's).
AXIS_VALUES = {
    "dist": {0: "uniform", 1: "skewed", 2: "single value"},
    "pattern": {0: "rows", 1: "gather", 2: "columns"},
}


def axis_value_text(axis, v, named=None) -> str:
    """ "pattern=1 (gather)": a value and, for a categorical axis, its name
    (named: {value: name} of the family's axis, from its file; without it,
    the built-ins' AXIS_VALUES)."""
    name = (named if named is not None else AXIS_VALUES.get(axis, {})).get(int(v))
    return f"{axis}={fmt_int(v)}" + (f" ({name})" if name else "")


def fmt(v, digits=3) -> str:
    """A number for a table: NaN as '-', sensible significant digits."""
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "-"
    v = float(v)
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 10**digits:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}" if a >= 1e-3 else f"{v:.2e}"


def variant_order(rows: pd.DataFrame) -> list:
    """Variants in plan order (the job's order, then the registry's)."""
    return list(rows.sort_values("plan_index", kind="stable")["variant"].drop_duplicates())


def compute_bound(rows: pd.DataFrame) -> pd.Series:
    """Rows whose family counts more flops than useful bytes (matmul): their
    throughput is GFLOP/s; every other row's is useful GB/s."""
    return rows["flops"].fillna(0) > rows["useful_bytes"].fillna(0)


def metric(rows: pd.DataFrame) -> tuple:
    """(column, units) of a family's throughput: GFLOP/s for a family that
    counts more flops than bytes (matmul), else useful GB/s."""
    if len(rows) and compute_bound(rows[rows["is_reference"] == 0]).mean() > 0.5:
        return "gflops", "GFLOP/s"
    return "gbps", "GB/s"


def device_groups(rows: pd.DataFrame):
    """(label, rows) per measured device type of a file, then per modelled CC.
    A cluster of identical GPUs is one group; the spread section compares them."""
    out = []
    for (f, dev), g in rows.groupby(["file", "device"], sort=False):
        out.append((dev if rows["file"].nunique() == 1 else f"{dev}, {f}", g))
    return out


def reference_ratios(rows: pd.DataFrame, axes, col: str) -> pd.DataFrame:
    """For each row, its throughput over each reference variant's, matched in
    the same file, device type and backend on the axes the reference uses.
    Returns one column per reference variant (NaN where none matches)."""
    out = pd.DataFrame(index=rows.index)
    refs = rows[(rows["is_reference"] == 1) & (rows["status"] == 0)]
    for rv in variant_order(refs):
        r = refs[refs["variant"] == rv]
        ax = used_axes(r, axes)
        keys = ["file", "device", "backend", *ax]
        ref_val = r.groupby(keys, dropna=False)[col].median().rename("_ref").reset_index()
        m = rows[keys].reset_index().merge(ref_val, on=keys, how="left").set_index("index")
        out[rv] = rows[col] / m["_ref"]
    return out


def fold_model(rows: pd.DataFrame, axes, cols) -> tuple:
    """Model rows of one family/variant with the axes that change none of
    `cols` dropped (n for a strided read), one row per remaining combination
    and CC. Returns (DataFrame, kept axes)."""
    ax = used_axes(rows, axes)
    keep = list(ax)
    for a in ax:
        others = [k for k in keep if k != a] + ["cc"]
        g = rows.groupby(others, dropna=False, sort=False)[cols]
        # an axis matters when, with everything else fixed, a figure varies along
        # it: the largest minus the smallest value of a group, NaN skipped (NaN
        # for a group without a value, which is no spread)
        spread = g.max() - g.min()
        if not (spread.to_numpy(dtype=float) > 1e-9).any():
            keep.remove(a)
    folded = rows.groupby(keep + ["cc"], dropna=False)[cols].median().reset_index()
    return folded, keep


def rank_clocks(rows: pd.DataFrame) -> pd.DataFrame:
    """Per file, rank and session of measured rows: points, median throughput
    ratio to the reference where known, SM and memory clocks, throttle reasons."""
    m = rows[(rows["backend"] == "cuda") & (rows["status"] == 0)]
    if m.empty:
        return pd.DataFrame()
    out = []
    for (f, rank, sess), g in m.groupby(["file", "rank", "session"]):
        clk = g["sm_clock_mhz"][g["sm_clock_mhz"] > 0]
        mem = g["mem_clock_mhz"][g["mem_clock_mhz"] > 0]
        mask = int(np.bitwise_or.reduce(g["throttle_reasons"].astype(np.uint64).to_numpy()))
        slow = int((g["throttle_reasons"].astype(np.uint64) & SLOWDOWN_MASK > 0).sum())
        out.append(
            {
                "file": f,
                "rank": rank,
                "session": sess,
                "device": g["device"].iloc[0],
                "host": g["host"].iloc[0],
                "uuid": g["uuid"].iloc[0],
                "points": len(g),
                "sm_clock_median": float(clk.median()) if len(clk) else np.nan,
                "sm_clock_min": float(clk.min()) if len(clk) else np.nan,
                "mem_clock_median": float(mem.median()) if len(mem) else np.nan,
                "throttle_mask": mask,
                "throttled_points": slow,
            }
        )
    return pd.DataFrame(out)


def flag_ranks(clocks: pd.DataFrame, tol=0.05) -> pd.DataFrame:
    """Mark ranks whose SM clock sits more than tol under the median of the
    ranks on the same device type, or that recorded a slowdown reason."""
    if clocks.empty:
        return clocks
    c = clocks.copy()
    ref = c.groupby("device")["sm_clock_median"].transform("median")
    low = c["sm_clock_median"] < (1 - tol) * ref
    c["flag"] = ""
    c.loc[low, "flag"] = "low clock"
    thr = c["throttled_points"] > 0
    c.loc[thr, "flag"] = np.where(low[thr], "low clock, throttled", "throttled")
    return c


def device_spread(rows: pd.DataFrame, axes, tol=0.05):
    """The same point (family, variant, axes) measured on several devices
    (different UUIDs, from several files or sessions): per point the spread
    of throughput, and per device its median ratio to the point's median
    over devices. Returns (points, devices), empty when no point repeats."""
    m = rows[(rows["backend"] == "cuda") & (rows["status"] == 0) & rows["uuid"].notna()].copy()
    if m.empty:
        return pd.DataFrame(), pd.DataFrame()
    m["value"] = np.where(compute_bound(m), m["gflops"], m["gbps"])
    m["time_ns"] = m["median_ns"]
    per = m.groupby("point_id")["uuid"].nunique()
    rep = per[per > 1].index
    if len(rep) == 0:
        return pd.DataFrame(), pd.DataFrame()
    m = m[m["point_id"].isin(rep)]
    med = m.groupby("point_id")["time_ns"].transform("median")
    m["ratio"] = med / m["time_ns"]  # > 1: this device was faster than the median
    pts = []
    for _, g in m.groupby("point_id", sort=False):
        r0 = g.iloc[0]
        pts.append(
            {
                "family": r0["family"],
                "variant": r0["variant"],
                "axes": axes_text(r0, axes),
                "devices": g["uuid"].nunique(),
                "min": g["value"].min(),
                "median": g["value"].median(),
                "max": g["value"].max(),
                "spread": (g["time_ns"].max() - g["time_ns"].min()) / g["time_ns"].median(),
            }
        )
    devs = []
    for uuid, g in m.groupby("uuid"):
        clk = g["sm_clock_mhz"][g["sm_clock_mhz"] > 0]
        mask = int(np.bitwise_or.reduce(g["throttle_reasons"].astype(np.uint64).to_numpy()))
        ratio = float(g["ratio"].median())
        flag = []
        if ratio < 1 - tol:
            flag.append(f"slow ({(1 - ratio) * 100:.0f}% under the median)")
        if mask & SLOWDOWN_MASK:
            flag.append("throttled")
        devs.append(
            {
                "uuid": uuid,
                "device": g["device"].iloc[0],
                "host": g["host"].iloc[0],
                "files": ", ".join(sorted(g["file"].unique())),
                "points": len(g),
                "ratio": ratio,
                "sm_clock_median": float(clk.median()) if len(clk) else np.nan,
                "mem_clock_median": float(g["mem_clock_mhz"].median()),
                "throttle": throttle_text(mask),
                "flag": "; ".join(flag),
            }
        )
    return pd.DataFrame(pts), pd.DataFrame(devs).sort_values("ratio")


def cc_label(cc) -> str:
    return f"CC {cc_text(cc)}"
