"""The report's figures, drawn with matplotlib (Agg) into PNG files. Each
function takes the rows it plots and returns a Figure, or None when the rows
do not hold what it needs; report.py decides where it goes.

Every figure has a title that names the family and the device, axes with
units, and log scales where the values span decades.
"""

from __future__ import annotations

import math
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm, Normalize
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from .reader import cc_text
from .tables import (
    at_point,
    axes_text,
    axis_value_text,
    fmt,
    fmt_int,
    metric,
    used_axes,
    variant_order,
)

plt.rcParams.update(
    {
        "figure.dpi": 100,
        "savefig.dpi": 110,
        "font.size": 10,
        "axes.titlesize": 11,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "legend.fontsize": 8.5,
        "legend.framealpha": 0.85,
    }
)

REF_STYLES = [":", "-.", (0, (5, 2, 1, 2)), (0, (1, 1))]


def _plain(v, _pos=None):
    return fmt(v, 3)


def _log2_x(ax, values):
    ax.set_xscale("log", base=2)
    vals = sorted(v for v in set(values) if v > 0)
    if len(vals) > 12:  # a dense sweep: label the powers of two only, or the labels overlap
        pow2 = [v for v in vals if float(v).is_integer() and int(v) & (int(v) - 1) == 0]
        vals = pow2 if len(pow2) >= 2 else vals
    ax.set_xticks(vals)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def _log_y(ax):
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(_plain))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _panels(n, width=6.4, height=4.4, max_cols=2):
    # two panels a row: three side by side are unreadable at a browser's width
    cols = min(n, max_cols)
    rows = math.ceil(n / cols)
    fig, axs = plt.subplots(rows, cols, figsize=(width * cols, height * rows + 0.6), squeeze=False)
    for ax in axs.flat[n:]:
        ax.set_visible(False)
    return fig, list(axs.flat[:n])


def _finish(fig, title):
    width = int(fig.get_figwidth() * 8.5)  # characters of a bold 12.5 pt title per line
    fig.suptitle(textwrap.fill(title, width), fontsize=12.5, fontweight="bold")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig


def _peak_axis(ax, peak, label="% of peak"):
    """A right-hand axis in percent of the device's peak bandwidth."""
    if not (peak and np.isfinite(peak) and peak > 0):
        return
    sec = ax.secondary_yaxis(
        "right", functions=(lambda v: 100 * v / peak, lambda p: p * peak / 100)
    )
    sec.set_ylabel(f"{label} ({peak:,.0f} GB/s)")
    if ax.get_yscale() == "log":
        sec.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        sec.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}%"))
        sec.yaxis.set_minor_formatter(NullFormatter())


def _peak(rows):
    p = rows["peak_gbps"].dropna() if "peak_gbps" in rows else pd.Series(dtype=float)
    p = p[p > 0]
    return float(p.median()) if len(p) else math.nan


def _meta(fig, **kw):
    """What the caption must say about a figure, kept on the figure itself."""
    m = getattr(fig, "_sweep_meta", {})
    for k, v in kw.items():
        m[k] = m.get(k) or v
    fig._sweep_meta = m
    return fig


def _yerr(g, col):
    """Asymmetric error bars of col from the 95% interval of each row's median
    time (ci_lo_ns, ci_hi_ns, from the raw samples); None without them."""
    if "ci_lo_ns" not in g or not g["ci_lo_ns"].notna().any():
        return None
    v = g[col].to_numpy(float)
    t = g["median_ns"].to_numpy(float)
    lo = v - v * t / g["ci_hi_ns"].to_numpy(float)
    hi = v * t / g["ci_lo_ns"].to_numpy(float) - v
    return np.nan_to_num(np.vstack([lo, hi]).clip(min=0))


def _plot(ax, g, x, col, fmt_, **kw):
    """A measured curve with its error bars when the rows carry intervals."""
    err = _yerr(g, col)
    if err is None:
        return ax.plot(g[x], g[col], fmt_, **kw)[0]
    _meta(ax.figure, errorbars=True)
    return ax.errorbar(g[x], g[col], yerr=err, fmt=fmt_, capsize=2, elinewidth=0.9, **kw)[0]


def _mark_gaps(ax, g, x, col):
    """Rings on the points that part from the model (modelgap): red where the
    hardware is slower than modelled, orange where faster."""
    if "model_gap" not in g:
        return
    labels = ax.get_legend_handles_labels()[1]
    for way, color in (("slower than modelled", "red"), ("faster than modelled", "darkorange")):
        f = g[g["model_gap"] == way]
        if f.empty:
            continue
        _meta(ax.figure, gaps=True)
        ax.scatter(
            f[x],
            f[col],
            s=140,
            facecolors="none",
            edgecolors=color,
            lw=1.6,
            zorder=5,
            label=None if way in labels else way,
        )


def _zero_y(ax):
    """A linear value axis starts at zero, so a dip reads at its true size."""
    if ax.get_yscale() == "linear":
        ax.set_ylim(0, None)


def _axis_text(ax, which):
    a = ax.xaxis if which == "x" else ax.yaxis
    scale = a.get_scale()
    if scale == "log":
        base = a.get_transform().base
        return f"{which} log{base:g}" if base != 10 else f"{which} log"
    if which == "y":
        lo = ax.get_ylim()[0]
        return "y linear from 0" if lo <= 0 else f"y linear, cut: starts at {fmt(lo, 3)}"
    return f"{which} linear"


def scales(fig):
    """Each plotted panel's axis scales, e.g. ('x log2', 'y log'), the twin
    axes included; images (heatmaps) have categories, not scales."""
    out = []
    for ax in fig.axes:
        if not ax.get_visible() or not ax.has_data() or ax.images:
            continue
        if ax.get_label() == "<colorbar>":
            continue
        out.append((_axis_text(ax, "x"), _axis_text(ax, "y")))
    return out


def caption_notes(fig):
    """The caption's part that the figure decides: scales, references, error
    bars and the model-gap marks, built from the figure so they cannot drift."""
    m = getattr(fig, "_sweep_meta", {})
    notes = []
    axes = list(dict.fromkeys(", ".join(s) for s in scales(fig)))
    if axes:
        notes.append("Axes: " + "; ".join(axes) + ".")
    refs = m.get("refs")
    if refs:
        notes.append(f"References {refs}.")
    if m.get("errorbars"):
        notes.append("Error bars: 95% bootstrap interval of the median from the raw samples.")
    if m.get("gaps"):
        notes.append(
            "Rings: points that part from the model, red slower and orange faster than "
            "modelled (see Where model and hardware part)."
        )
    return " ".join(notes)


def _largest_values(values, k=3):
    return sorted(set(values))[-k:]


# --- strided read ---------------------------------------------------------------


def stride_bandwidth(rows: pd.DataFrame, device: str):
    """Useful GB/s against stride per n, references as lines, the model's
    bound (peak x useful/moved bytes) overlaid; right axis in % of peak."""
    m = rows[(rows["status"] == 0) & rows["gbps"].notna()]
    strided = m[m["stride"] > 0]
    if strided["stride"].nunique() < 2:
        return None
    peak = _peak(m)
    ns = _largest_values(strided["n"], 3)
    fig, axs = _panels(len(ns), width=7.2, height=5.6)
    for ax, n in zip(axs, ns):
        s = strided[strided["n"] == n]
        for v in variant_order(s):
            g = s[s["variant"] == v].sort_values("stride")
            _plot(ax, g, "stride", "gbps", "o-", lw=1.8, label=f"{v} (measured)")
            _mark_gaps(ax, g, "stride", "gbps")
        refs = m[(m["is_reference"] == 1) & (m["n"] == n)]
        for i, (v, g) in enumerate(refs.groupby("variant", sort=False)):
            _meta(fig, refs="as horizontal lines")
            ax.axhline(
                g["gbps"].median(),
                color="k",
                lw=1.1,
                ls=REF_STYLES[i % 4],
                label=f"{v} (reference) {g['gbps'].median():,.0f} GB/s",
            )
        eff = s.groupby("stride")["model_efficiency"].median()
        if np.isfinite(peak) and eff.notna().any():
            ax.plot(
                eff.index,
                peak * eff.values,
                "s--",
                color="0.45",
                ms=4,
                lw=1.3,
                label="model: peak x useful/moved bytes",
            )
        _log2_x(ax, s["stride"])
        _log_y(ax)
        ax.set_xlabel("stride between neighbouring threads (elements, log2)")
        ax.set_ylabel("useful bandwidth (GB/s, log)")
        ax.set_title(f"n = {fmt_int(n)} floats ({n * 4 / 2**20:,.0f} MiB)")
        _peak_axis(ax, peak)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    return _finish(fig, f"strided_read on {device}: useful bandwidth vs stride")


def stride_model(rows: pd.DataFrame):
    """Model rows: predicted useful / moved bytes against stride, one line per CC."""
    m = rows[(rows["backend"] == "model") & (rows["stride"] > 0) & rows["model_efficiency"].notna()]
    if m["stride"].nunique() < 2:
        return None
    variants = [v for v in variant_order(m)]
    fig, axs = _panels(len(variants[:3]))
    for ax, v in zip(axs, variants[:3]):
        g = m[m["variant"] == v]
        curves = {}
        for cc, gc in g.groupby("cc"):
            e = gc.groupby("stride")["model_efficiency"].median()
            curves.setdefault(tuple(np.round(e.values, 6)), (e, []))[1].append(cc)
        for i, (e, ccs) in enumerate(curves.values()):
            # curves often coincide over part of the range: vary width, dash and marker
            ax.plot(
                e.index,
                100 * e.values,
                ls=["-", "--", ":", "-."][i % 4],
                marker="osD^v"[i % 5],
                lw=3.2 - 0.6 * min(i, 4),
                ms=8 - min(i, 4),
                label="CC " + ", ".join(cc_text(c) for c in ccs),
            )
        _log2_x(ax, g["stride"])
        ax.set_yscale("log", base=2)
        ticks = [100 / 2**k for k in range(0, 8)]
        ax.set_yticks(ticks)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _p: f"{y:g}%"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        lo = max(0.5, 100 * float(g["model_efficiency"].min()) / 1.5)
        ax.set_ylim(lo, 140)
        ax.set_xlabel("stride between neighbouring threads (elements, log2)")
        ax.set_ylabel("useful / moved bytes (%, log2)")
        ax.set_title(f"variant {v}")
        ax.legend(loc="upper right", title="model for")
    return _finish(fig, "strided_read, model: share of the moved bytes that are useful")


# --- transpose --------------------------------------------------------------------


def transpose_pad(rows: pd.DataFrame, device: str):
    m = rows[(rows["status"] == 0) & rows["gbps"].notna()]
    sh = m[(m["variant"] == "shared") & (m["pad"] >= 0)]
    if sh["pad"].nunique() < 2:
        return None
    sizes = sorted(set(zip(sh["rows"], sh["cols"])))[-3:]
    peak = _peak(m)
    fig, axs = _panels(len(sizes), width=7.5, height=5.4)
    for ax, (r, c) in zip(axs, sizes):
        g = sh[(sh["rows"] == r) & (sh["cols"] == c)]
        for (tile, br), gg in g.groupby(["tile", "block_rows"]):
            gg = gg.sort_values("pad")
            _plot(
                ax,
                gg,
                "pad",
                "gbps",
                "o-",
                lw=1.8,
                label=f"shared, tile {tile} x {tile}, {tile} x {br} threads",
            )
        others = m[(m["rows"] == r) & (m["cols"] == c) & (m["variant"] != "shared")]
        for i, (v, gv) in enumerate(others.groupby("variant", sort=False)):
            ref = " (reference)" if gv["is_reference"].iloc[0] else ""
            if ref:
                _meta(fig, refs="as horizontal lines")
            ax.axhline(
                gv["gbps"].max(),
                color="k",
                lw=1.1,
                ls=REF_STYLES[i % 4],
                label=f"{v}{ref}: best {gv['gbps'].max():,.0f} GB/s",
            )
        ax.set_xticks(sorted(g["pad"].unique()))
        ax.set_xlabel("padding of each shared tile row (4-byte words)")
        ax.set_ylabel("useful bandwidth (GB/s)")
        ax.set_ylim(0, None)
        ax.set_title(f"{r} x {c} floats")
        deg = g.groupby("pad")["model_conflict_degree"].median()
        if deg.notna().any():
            tw = ax.twinx()
            tw.plot(
                deg.index,
                deg.values,
                "s--",
                color="0.5",
                ms=4,
                label="model: bank conflict degree (right)",
            )
            tw.set_ylabel("model: shared-load passes per request")
            tw.set_yscale("log", base=2)
            tw.yaxis.set_major_formatter(FuncFormatter(lambda y, _p: f"{y:g}"))
            tw.grid(False)
            h1, l1 = ax.get_legend_handles_labels()
            h2, l2 = tw.get_legend_handles_labels()
            ax.legend(
                h1 + h2,
                l1 + l2,
                loc="upper center",
                bbox_to_anchor=(0.5, -0.14),
                ncol=2,
                frameon=False,
            )
        else:
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
        _peak_axis(ax, peak) if deg.isna().all() else None
    return _finish(fig, f"transpose on {device}: bandwidth vs shared-tile padding")


# --- shared-memory banks -----------------------------------------------------------


def bank_conflicts(rows: pd.DataFrame, device: str):
    m = rows[rows["status"] == 0]
    s = m[(m["variant"] == "stride") & (m["word_stride"] >= 0)]
    if s["word_stride"].nunique() < 2:
        return None
    measured = s["median_ns"].notna().any()
    free = m[m["variant"] == "conflict_free"]
    fig, ax = plt.subplots(figsize=(8.5, 4.8))
    if measured and free["median_ns"].notna().any():
        base = free["median_ns"].median()
        g = s.groupby("word_stride")["median_ns"].median() / base
        ax.plot(g.index, g.values, "o-", lw=1.8, label="measured: time / conflict-free time")
        for v, color in (("broadcast", "C2"), ("two_way", "C3")):
            x = m[m["variant"] == v]["median_ns"].median()
            if np.isfinite(x):
                ax.axhline(
                    x / base,
                    lw=1,
                    ls=":",
                    color=color,
                    label=f"{v}: {x / base:.2f}x",
                )
    deg = s.groupby("word_stride")["model_conflict_degree"].median()
    if deg.notna().any():
        ax.plot(
            deg.index,
            deg.values,
            "s--",
            color="0.45",
            ms=4,
            label="model: conflict degree (passes per request)",
        )
    ax.set_yscale("log", base=2)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _p: f"{y:g}x"))
    ax.set_xticks(sorted(s["word_stride"].unique()))
    ax.tick_params(axis="x", labelsize=8)
    ax.set_xlabel("word stride between neighbouring lanes (4-byte words; 0 = one word)")
    ax.set_ylabel(
        "cost relative to conflict-free (log2)" if measured else "model: passes per request (log2)"
    )
    ax.legend(loc="upper left")
    what = "measured and modelled" if measured else "modelled"
    return _finish(fig, f"smem_bank on {device}: bank-conflict cost vs word stride ({what})")


# --- matmul ---------------------------------------------------------------------------


def matmul_ladder(rows: pd.DataFrame, device: str):
    m = rows[(rows["status"] == 0) & rows["gflops"].notna()]
    if m.empty or m["variant"].nunique() < 2:
        return None
    sizes = _largest_values(m["size"], 3)
    fig, axs = _panels(len(sizes), width=6.8, height=4.8)
    for ax, n in zip(axs, sizes):
        g = m[m["size"] == n].sort_values("plan_index")
        ref = g[g["is_reference"] == 1]["gflops"].median()
        labels, vals, colors = [], [], []
        for _, r in g.iterrows():
            lab = r["variant"]
            if r.get("tile", -1) > 0:
                lab += f" t{int(r['tile'])}"
            if r.get("pad", -1) > 0:
                lab += f" pad{int(r['pad'])}"
            labels.append(lab)
            vals.append(r["gflops"])
            colors.append(
                "0.35" if r["is_reference"] else f"C{variant_order(g).index(r['variant'])}"
            )
        x = np.arange(len(vals))
        err = _yerr(g, "gflops")
        ax.bar(x, vals, color=colors, yerr=err, capsize=2, ecolor="k", error_kw={"lw": 0.8})
        if err is not None:
            _meta(fig, errorbars=True)
        if g["is_reference"].any():
            _meta(fig, refs="in grey")
        for xi, v in zip(x, vals):
            if np.isfinite(ref) and ref > 0:
                ax.text(
                    xi,
                    v + 0.01 * max(vals),
                    f"{100 * v / ref:.0f}%",
                    ha="center",
                    va="bottom",
                    fontsize=7.5,
                )
        ax.set_xticks(x)
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.set_ylim(0, max(vals) * 1.1)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:,.0f}"))
        ax.set_ylabel("GFLOP/s")
        ax.set_title(f"{n} x {n} FP32" + (" (% of cuBLAS above bars)" if np.isfinite(ref) else ""))
        ax.grid(axis="x", visible=False)
    return _finish(fig, f"matmul on {device}: the ladder against cuBLAS")


# --- any family -------------------------------------------------------------------------


def family_overview(rows: pd.DataFrame, axes, family: str, device: str, col_units=None):
    """Variants side by side: throughput per point, references hatched or as
    horizontal lines. A line per variant against the most swept axis when it
    is a quantity (has units) with three or more values, else grouped bars
    per axis combination (enumerated axes such as a pattern are categories)."""
    m = rows[(rows["status"] == 0) & rows["median_ns"].notna()]
    if m.empty:
        return None
    col_units = col_units or {}
    col, units = metric(m)
    ylabel = f"{'useful bandwidth' if col == 'gbps' else 'throughput'} ({units})"
    nonref = m[m["is_reference"] == 0]
    ax_used = used_axes(nonref if len(nonref) else m, axes)
    sweep = max(ax_used, key=lambda a: nonref[a].nunique(), default=None) if len(nonref) else None
    if sweep is not None and nonref[sweep].nunique() >= 3 and col_units.get(sweep):
        rest = [a for a in ax_used if a != sweep]
        fig = _overview_lines(m, nonref, sweep, rest, (col, units, ylabel), col_units)
        return _finish(fig, f"{family} on {device}: {ylabel.split(' (')[0]} vs {sweep}")
    base = nonref if len(nonref) else m
    fixed = [a for a in ax_used if base[a].nunique() == 1]  # same everywhere: in the title
    varied = [a for a in ax_used if a not in fixed]
    fig = _overview_bars(m, base, varied, fixed, (col, units, ylabel), col_units)
    at = ", ".join(axis_value_text(a, base[a].iloc[0]) for a in fixed)
    return _finish(fig, f"{family} on {device}: variants side by side" + (f" ({at})" if at else ""))


def _is_wide(vals):
    """Whether the values span more than a factor of 30 (a log axis then)."""
    vals = vals.dropna()
    return bool(len(vals) and vals.max() / max(vals.min(), 1e-12) > 30)


def _log_y_if_wide(ax, vals):
    if _is_wide(vals):
        _log_y(ax)


def _overview_lines(m, nonref, sweep, rest, y, col_units):
    """One panel per combination of the other axes (the last three): each
    variant against the swept axis. y: (column, units, axis label)."""
    col, units, ylabel = y
    combos = (
        [None]
        if not rest
        else [r for _, r in nonref[rest].drop_duplicates().sort_values(rest).tail(3).iterrows()]
    )
    fig, axs = _panels(len(combos))
    for ax, combo in zip(axs, combos):
        sel = m if combo is None else at_point(m, {a: combo[a] for a in rest})
        _variant_lines(ax, sel, sweep, col, units)
        ax.set_xlabel(f"{sweep} ({col_units[sweep]})")
        ax.set_ylabel(ylabel)
        _log_y_if_wide(ax, sel[col])
        _zero_y(ax)
        ax.set_title(axes_text(combo, rest) if combo is not None else "")
        ax.legend(loc="best")
    return fig


def _variant_lines(ax, sel, sweep, col, units):
    """A curve per variant over the swept axis; references, and variants
    without that axis, as horizontal lines."""
    i = r = 0
    for v in variant_order(sel):
        g = sel[sel["variant"] == v]
        isref = bool(g["is_reference"].iloc[0])
        if isref or (g[sweep] == -1).all():
            val = g[col].median()
            if isref:
                _meta(ax.figure, refs="as horizontal lines")
            ax.axhline(
                val,
                color=["k", "0.45", "0.7"][r % 3],
                lw=1.2,
                ls=REF_STYLES[r % 4],
                label=f"{v}{' (reference)' if isref else ''}: {fmt(val)} {units}",
            )
            r += 1
        else:
            g = g.sort_values(sweep)
            # identical curves (two read paths) stay visible: vary dash and marker
            _plot(
                ax,
                g,
                sweep,
                col,
                ["-", "--", ":", "-."][i % 4],
                marker="osD^v"[i % 5],
                ms=7 - min(i, 3),
                lw=2.2 - 0.3 * min(i, 3),
                label=v,
            )
            _mark_gaps(ax, g, sweep, col)
            i += 1


def _overview_bars(m, base, varied, fixed, y, col_units):
    """Grouped bars: a group per combination of the varied axes, a bar per
    variant, references hatched. y: (column, units, axis label)."""
    col, _, ylabel = y
    combos = base[varied].drop_duplicates().sort_values(varied) if varied else None
    keys = [tuple(r) for _, r in combos.iterrows()] if combos is not None else [()]
    variants = variant_order(m)
    # room for each category's (up to two-line) label and its bars
    fig, ax = plt.subplots(figsize=(max(8.5, max(1.8, 0.35 * len(variants)) * len(keys) + 2.5), 5))
    width = 0.8 / max(len(variants), 1)
    wide = _is_wide(m[col])
    for i, v in enumerate(variants):
        g = m[m["variant"] == v]
        sel = [at_point(g, dict(zip(varied, k))) for k in keys]
        pick = pd.DataFrame(
            [s_.loc[s_[col].sub(s_[col].median()).abs().idxmin()] for s_ in sel if len(s_)]
        )
        xs = np.array([j for j, s_ in enumerate(sel) if len(s_)]) + i * width - 0.4 + width / 2
        err = _yerr(pick, col) if len(pick) else None
        if err is not None:
            _meta(fig, errorbars=True)
        ref = bool(g["is_reference"].iloc[0])
        label = f"{v}{' (reference)' if ref else ''}"
        if wide:
            # a log axis has no zero for a bar to stand on: points instead
            ax.errorbar(
                xs,
                pick[col],
                yerr=err,
                fmt="Ds"[ref],
                color=f"C{i}",
                ms=6,
                capsize=2,
                ls="none",
                label=label,
                mfc="none" if ref else None,
            )
            if ref:
                _meta(fig, refs="as hollow squares")
            continue
        ax.bar(
            xs,
            pick[col],
            width,
            yerr=err,
            capsize=2,
            label=label,
            color=f"C{i}",
            hatch="//" if ref else None,
            edgecolor="k" if ref else None,
            lw=0.5,
        )
        if ref:
            _meta(fig, refs="hatched")
    if wide:
        _log_y(ax)
    ax.set_xticks(np.arange(len(keys)))
    ax.set_xticklabels(
        [
            "\n".join(axis_value_text(a, x) for a, x in zip(varied, k))
            or "\n".join(axis_value_text(a, base[a].iloc[0]) for a in fixed)
            or "all"
            for k in keys
        ],
        fontsize=8,
    )
    _zero_y(ax)
    ax.set_ylabel(ylabel + (", log" if ax.get_yscale() == "log" else ""))
    ax.set_xlabel(
        "point: "
        + ", ".join(f"{a}" + (f" ({col_units[a]})" if col_units.get(a) else "") for a in varied)
        if varied
        else ""
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax.grid(axis="x", visible=False)
    return fig


# --- cross-architecture (model rows) -------------------------------------------------


# --- launch shape ----------------------------------------------------------------


def block_bandwidth(rows: pd.DataFrame, axes, family: str, device: str, col="gbps", units=None):
    """Throughput against threads per block (the block axis), one line per
    variant with the family's other axes at their smallest value (the
    baselines of grid, vec and elem_bytes: 0, 1 and 4): the share of a cost
    that occupancy makes, beside the access pattern's. Block 0 (the
    variant's own launch) is left out: it has no place on the axis. None
    without two block sizes."""
    if "block" not in rows:
        return None
    m = rows[(rows["status"] == 0) & rows[col].notna() & (rows["block"] > 0)]
    if m["block"].nunique() < 2:
        return None
    others = [a for a in used_axes(m, axes) if a != "block"]
    varied = [a for a in others if m.loc[m[a] != -1, a].nunique() > 1]
    fig, ax = plt.subplots(figsize=(7.6, 5.4))
    for v in variant_order(m):
        g = m[m["variant"] == v]
        fixed = {a: int(g.loc[g[a] != -1, a].min()) for a in others if (g[a] != -1).any()}
        g = at_point(g, fixed).groupby("block", as_index=False)[col].median()
        shown = " ".join(axis_value_text(a, x) for a, x in fixed.items() if a in varied)
        ax.plot(g["block"], g[col], "o-", lw=1.8, label=f"{v} ({shown})" if shown else v)
    _log2_x(ax, m["block"])
    ax.set_xlabel("threads per block (block axis, log2)")
    ax.set_ylabel(units or col)
    if col == "gbps":
        _peak_axis(ax, _peak(m))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    return _finish(fig, f"{family} on {device}: {units or col} against block size")


def model_heatmap(table: pd.DataFrame, value: str, title: str, units: str):
    """table: index family/variant, columns CC labels. NaN shows grey."""
    if table.empty or table.notna().sum().sum() == 0:
        return None
    nr, nc = table.shape
    fig, ax = plt.subplots(figsize=(max(6.5, 0.85 * nc + 4.5), max(3, 0.32 * nr + 1.8)))
    data = table.to_numpy(dtype=float)
    cmap, norm = _heatmap_scale(value, data)
    im = ax.imshow(np.ma.masked_invalid(data), aspect="auto", cmap=cmap, norm=norm)
    _heatmap_cells(ax, data, cmap, norm)
    ax.set_xticks(range(nc))
    ax.set_xticklabels(table.columns)
    ax.set_xlabel("compute capability (model)")
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    ax.set_yticks(range(nr))
    ax.set_yticklabels(table.index, fontsize=8.5)
    ax.set_ylabel("family / variant")
    ax.grid(False)
    cb = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
    cb.set_label(units)
    if isinstance(norm, LogNorm):
        lo_t, hi_t = norm.vmin, norm.vmax
        ticks = [
            t
            for t in (0.03125, 0.0625, 0.125, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128)
            if lo_t * 0.999 <= t <= hi_t * 1.001
        ]
        cb.set_ticks(ticks)
        cb.ax.minorticks_off()
    cb.ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.set_title(title, fontsize=11.5, fontweight="bold", pad=12)
    fig.tight_layout()
    return fig


def _heatmap_scale(value, data):
    """The colour map and the normalisation of a heatmap of this model figure."""
    eff = value == "model_efficiency"
    # efficiency and conflicts have a good end (green); a transaction count
    # depends on the word size too, so it gets a neutral scale
    cmap = plt.get_cmap(
        "RdYlGn" if eff else "RdYlGn_r" if value == "model_conflict_degree" else "Blues"
    ).copy()
    cmap = cmap.with_extremes(bad="0.85")
    finite = data[np.isfinite(data)]
    lo, hi = float(finite.min()), float(finite.max())
    if eff:
        norm = LogNorm(min(lo, 0.03), 1, clip=True)
    elif lo > 0 and hi / lo >= 4:
        norm = LogNorm(lo, hi)
    else:
        norm = Normalize(lo, max(hi, lo + 1e-9))
    return cmap, norm


def _heatmap_cells(ax, data, cmap, norm):
    """Each cell's value, in white on dark cells; n/a where not modelled."""
    nr, nc = data.shape
    for i in range(nr):
        for j in range(nc):
            v = data[i, j]
            if np.isfinite(v):
                r, g, b, _ = cmap(norm(v))
                dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.45
                ax.text(
                    j,
                    i,
                    fmt(v, 3),
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="w" if dark else "k",
                )
            else:
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=8, color="0.35")


# --- many ranks / devices ---------------------------------------------------------------


def rank_clocks(clocks: pd.DataFrame):
    if clocks.empty or len(clocks) < 2 or clocks["sm_clock_median"].isna().all():
        return None
    c = clocks.sort_values(["file", "rank", "session"])
    fig, ax = plt.subplots(figsize=(max(7, 0.6 * len(c) + 2), 4.6))
    x = np.arange(len(c))
    colors = ["C3" if f else "C0" for f in c["flag"]]
    ax.bar(x, c["sm_clock_median"], color=colors, width=0.6)
    ax.scatter(x, c["sm_clock_min"], marker="_", s=250, color="k", zorder=3)
    for xi, (med, flag) in enumerate(zip(c["sm_clock_median"], c["flag"])):
        ax.text(
            xi,
            med * 1.01,
            f"{med:,.0f}" + (f"\n{flag}" if flag else ""),
            ha="center",
            va="bottom",
            fontsize=8,
            color="C3" if flag else "k",
        )
    ax.set_xticks(x)
    multi = c["file"].nunique() > 1
    ax.set_xticklabels(
        [f"{r.host}\nrank {r.rank}" + (f"\n{r.file}" if multi else "") for r in c.itertuples()],
        fontsize=7.5,
        rotation=0 if len(c) < 10 else 60,
    )
    ax.set_ylabel("median SM clock during the points (MHz)")
    ax.set_ylim(0, np.nanmax(c["sm_clock_median"]) * 1.22)
    ax.grid(axis="x", visible=False)
    ax.legend(
        handles=[
            plt.Rectangle((0, 0), 1, 1, color="C0", label="ok"),
            plt.Rectangle((0, 0), 1, 1, color="C3", label="flagged: low clock or throttled"),
            ax.collections[0],
        ],
        labels=["ok", "flagged: low clock or throttled", "lowest SM clock seen"],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.2 if not multi else -0.26),
        ncol=3,
        frameon=False,
    )
    return _finish(fig, "SM clock per rank (NVML, read at each point)")


def device_spread(devs: pd.DataFrame, tol=0.05):
    if devs.empty or len(devs) < 2:
        return None
    d = devs.sort_values("ratio")
    fig, ax = plt.subplots(figsize=(max(7, 0.6 * len(d) + 2), 4.6))
    x = np.arange(len(d))
    pct = 100 * (d["ratio"] - 1)
    ax.bar(x, pct, color=["C3" if f else "C0" for f in d["flag"]], width=0.6)
    for xi, v in zip(x, pct):
        ax.text(
            xi,
            v + (0.3 if v >= 0 else -0.3),
            f"{v:+.1f}%",
            ha="center",
            va="bottom" if v >= 0 else "top",
            fontsize=8.5,
        )
    ax.axhline(0, color="k", lw=0.8)
    ax.axhline(
        -100 * tol, color="C3", lw=1, ls="--", label=f"flag: more than {100 * tol:g}% slower"
    )
    lo, hi = float(pct.min()), float(pct.max())
    ax.set_ylim(min(lo * 1.25, -100 * tol * 2), max(hi * 1.25, 100 * tol))
    ax.set_xticks(x)
    ax.set_xticklabels(
        [f"{r.host}\n{r.uuid[:12]}\n{fmt(r.sm_clock_median)} MHz" for r in d.itertuples()],
        fontsize=7.5,
        rotation=0 if len(d) < 8 else 60,
    )
    ax.set_ylabel("speed vs the median device (%)")
    ax.set_xlabel("device (host, UUID, median SM clock)")
    ax.grid(axis="x", visible=False)
    ax.legend(loc="lower right")
    return _finish(fig, "Same points on different GPUs: speed relative to the median device")


# --- model against counters ------------------------------------------------------------


def _diagonal(ax, lo, hi, label="model = counters"):
    ax.plot([lo, hi], [lo, hi], color="0.4", lw=1, ls="--", label=label, zorder=1)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")


def counters_scatter(a: pd.DataFrame, device: str, tol=0.02):
    """counters.agreement() rows: the model's figure per request against the
    counters', global-load sectors and shared-load wavefronts, on log2 axes
    with the diagonal where they agree."""
    pairs = [
        ("model_ld_sectors_per_request", "ctr_ld_sectors_per_request", "global-load sectors", "o"),
        (
            "model_shared_wavefronts_per_request",
            "ctr_shared_wavefronts_per_request",
            "shared-load wavefronts",
            "s",
        ),
    ]
    have = [p for p in pairs if (a[p[0]].notna() & a[p[1]].notna()).any()]
    if not have:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 6.0))
    vals = []
    for i, (mc, cc, what, mk) in enumerate(have):
        g = a[a[mc].notna() & a[cc].notna()]
        off = (g[mc] - g[cc]).abs() > tol * g[cc]
        ax.scatter(g[mc], g[cc], marker=mk, s=40, color=f"C{i}", alpha=0.7, label=f"{what}")
        if off.any():
            ax.scatter(
                g[mc][off],
                g[cc][off],
                marker=mk,
                s=130,
                facecolors="none",
                edgecolors="red",
                lw=1.4,
                label=f"{what}: more than {tol:.0%} apart",
            )
        vals += [*g[mc], *g[cc]]
    lo = 2 ** (math.floor(math.log2(max(min(vals), 1e-3))) - 0.5)
    hi = 2 ** (math.ceil(math.log2(max(vals))) + 0.5)
    _diagonal(ax, lo, hi)
    for set_scale in (ax.set_xscale, ax.set_yscale):
        set_scale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.set_xlabel("model: per request (log2)")
    ax.set_ylabel("counters: per request (log2)")
    ax.legend(loc="upper left")
    return _finish(fig, f"Model against counters on {device}: per request")


def dram_bytes(rows: pd.DataFrame, device: str):
    """DRAM bytes read and written (counters) against the bytes the model
    moves, per row, log-log with the diagonal."""
    if "ctr_dram_read_bytes" not in rows:
        return None
    r = rows[(rows["counter_note"] == "ok") & (rows["model_moved_bytes"] > 0)].copy()
    r["dram"] = r["ctr_dram_read_bytes"].fillna(0) + r["ctr_dram_write_bytes"].fillna(0)
    r = r[r["dram"] > 0]
    if r.empty:
        return None
    fig, ax = plt.subplots(figsize=(7.2, 6.2))
    for i, (fam, g) in enumerate(r.groupby("family", sort=False)):
        ax.scatter(
            g["model_moved_bytes"] / 1e6,
            g["dram"] / 1e6,
            s=36,
            marker="osD^v<>p"[i % 8],
            color=f"C{i % 10}",
            alpha=0.75,
            label=fam,
        )
    vals = np.r_[r["model_moved_bytes"], r["dram"]] / 1e6
    _diagonal(
        ax,
        10 ** math.floor(math.log10(vals.min())),
        10 ** math.ceil(math.log10(vals.max())),
        "DRAM = model's moved bytes",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(_plain))
    ax.yaxis.set_major_formatter(FuncFormatter(_plain))
    ax.set_xlabel("model: bytes moved (MB, log)")
    ax.set_ylabel("counters: DRAM bytes read + written (MB, log)")
    ax.legend(loc="upper left", fontsize=8)
    return _finish(fig, f"DRAM traffic against the model's moved bytes on {device}")
