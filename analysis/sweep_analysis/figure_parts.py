"""What every figure of the report is made of: matplotlib (Agg) and its
settings, panels and titles, log axes, the right-hand axis in % of peak,
error bars from the rows' intervals, the rings on model gaps, and what a
caption must say, kept on the figure (caption_notes)."""

from __future__ import annotations

import math
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from .tables import fmt

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
    if which in getattr(ax, "_sweep_categories", ""):
        return f"{which} categories"
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
