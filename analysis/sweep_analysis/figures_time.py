"""The time model's figures: predicted against measured time on log-log
axes with the +-10% band (one panel per measured class), and the
predicted time of each variant on every device target, relative to the
first target (a heatmap)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm
from matplotlib.ticker import FuncFormatter

from .figure_parts import _finish, _log_y, _meta, _panels

_COLORS = [f"C{i}" for i in range(10) if i != 7]  # C7 is grey: the points left out


def predicted_measured(p: pd.DataFrame, band: float, min_ns: float):
    """p: timemodel.with_error rows of one or more classes (column `class`);
    a panel per class: each point's predicted time against its measured time
    (us), coloured by family; points under min_ns or not covered grey. None
    without a point predicted."""
    p = p[np.isfinite(p["ratio"]) & (p["ratio"] > 0)]
    if p.empty:
        return None
    classes = list(dict.fromkeys(p["class"]))
    fig, axs = _panels(len(classes), width=6.2, height=5.2)
    families = list(dict.fromkeys(p["family"]))
    for ax, cls in zip(axs, classes):
        g = p[p["class"] == cls]
        x, y = g["measured_ns"] / 1e3, g["predicted_ns"] / 1e3
        lo = float(min(x.min(), y.min())) / 1.5
        hi = float(max(x.max(), y.max())) * 1.5
        line = np.geomspace(lo, hi, 50)
        ax.fill_between(line, line * (1 - band), line * (1 + band), color="0.85", lw=0)
        ax.plot(line, line, color="k", lw=0.8, label=f"predicted = measured (band +-{band:.0%})")
        left = g["counts"] != "compared"
        ax.scatter(x[left], y[left], s=9, color="0.6", marker=".", label=f"< {min_ns / 1e3:g} us")
        for i, fam in enumerate(families):
            f = g[(g["family"] == fam) & ~left]
            if len(f):
                ax.scatter(
                    f["measured_ns"] / 1e3,
                    f["predicted_ns"] / 1e3,
                    s=12,
                    color=_COLORS[i % len(_COLORS)],
                    marker="os^Dv<>ph*"[i // len(_COLORS) % 10],
                    label=fam,
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_aspect("equal")
        for a in (ax.xaxis, ax.yaxis):
            a.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
        ax.set_xlabel("measured median time (us)")
        ax.set_ylabel("predicted time (us)")
        ax.set_title(f"{cls} ({g['gpu'].iloc[0] or 'not in the table'})", fontsize=10)
        ax.legend(fontsize=7, loc="upper left", ncol=2)
    _meta(fig, refs="the diagonal (predicted = measured) and its +-10% band, grey")
    return _finish(fig, "Time model: predicted against measured time per point")


def target_heatmap(table: pd.DataFrame, base: str):
    """table: index family/variant, columns device targets; each cell the
    median over the variant's points of its predicted time on the device
    over that on `base` (below 1: faster). NaN grey."""
    if table.empty or table.notna().sum().sum() == 0:
        return None
    nr, nc = table.shape
    fig, ax = plt.subplots(figsize=(max(6.5, 1.1 * nc + 4.5), max(3, 0.32 * nr + 1.8)))
    data = table.to_numpy(dtype=float)
    finite = data[np.isfinite(data) & (data > 0)]
    lo, hi = (float(finite.min()), float(finite.max())) if len(finite) else (0.5, 2.0)
    span = max(hi, 1 / lo, 1.01)
    cmap = plt.get_cmap("RdYlGn_r").copy().with_extremes(bad="0.85")
    norm = LogNorm(1 / span, span)
    im = ax.imshow(np.ma.masked_invalid(data), aspect="auto", cmap=cmap, norm=norm)
    for i in range(nr):
        for j in range(nc):
            v = data[i, j]
            text = f"{v:.2g}" if np.isfinite(v) else "n/a"
            dark = np.isfinite(v) and v > 0 and abs(np.log(v)) > 0.6 * np.log(span)
            ax.text(j, i, text, ha="center", va="center", fontsize=7.5, color="w" if dark else "k")
    ax.set_xticks(range(nc))
    ax.set_xticklabels(table.columns, rotation=30 if nc > 6 else 0)
    ax.set_xlabel("device target (time model)")
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    ax.set_yticks(range(nr))
    ax.set_yticklabels(table.index, fontsize=8.5)
    ax.grid(False)
    cb = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
    cb.set_label(f"predicted time / on {base}")
    ticks = [2.0**k for k in range(-6, 7) if 1 / span <= 2.0**k <= span]
    cb.set_ticks(ticks if len(ticks) > 1 else [1 / span, 1, span])
    cb.ax.minorticks_off()
    cb.ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:.3g}"))
    ax.set_title(
        f"Time model: predicted time on each device over that on {base}\n"
        "(median over each variant's points)",
        fontsize=11.5,
        fontweight="bold",
        pad=12,
    )
    fig.tight_layout()
    return fig


def bandwidth_ratios(pairs: list, tol: float, summary=False):
    """pairs: timemodel.bandwidth_scaling frames (columns `pair`, and
    `fp32`: the datasheet FP32 peaks' ratio, first class's over the other's,
    where known), a panel each: every point's time ratio per family, the
    datasheet bandwidth ratio dashed with its +-tol band and the FP32 ratio
    dotted; points that scale filled, others hollow. summary: one short
    panel of every pair, side by side per family, sized for the Summary's
    screen (each pair its colour, each family's median a bar)."""
    pairs = [j for j in pairs if len(j)]
    if not pairs:
        return None
    if summary:
        fig, ax = plt.subplots(figsize=(SUMMARY_WIDTH_IN, SUMMARY_HEIGHT_IN))
        _ratio_panel(ax, pairs, tol, compact=True)
        ax.set_ylabel(f"time / {_first(pairs[0])}'s", fontsize=8)
        others = " and ".join(str(j["of"].iloc[0]) for j in pairs if "of" in j) or "each class"
        ax.set_title(
            f"{others}: each point's time over {_first(pairs[0])}'s, per family",
            fontsize=9.5,
            fontweight="bold",
        )
        fig.tight_layout()
    else:
        fig, axs = _panels(len(pairs), width=9.5, height=4.2, max_cols=1)
        for ax, j in zip(axs, pairs):
            _ratio_panel(ax, [j], tol, compact=False)
            ax.set_ylabel(f"time ratio {j['pair'].iloc[0]}")
    refs = "the datasheet DRAM bandwidth ratio (dashed) and its band, grey"
    if any(np.isfinite(_fp32(j)) for j in pairs):
        refs += "; the datasheet FP32 peak ratio (dotted)"
    _meta(fig, refs=refs)
    if summary:
        return fig
    return _finish(fig, "Classes: time ratio per point against the datasheet bandwidth ratio")


SUMMARY_WIDTH_IN, SUMMARY_HEIGHT_IN = 11.0, 2.2  # shares one screen with the Summary's lines


def _first(j) -> str:
    """The class the ratios are over (the first class)."""
    return str(j["to"].iloc[0]) if "to" in j else str(j["pair"].iloc[0]).split(" / ", 1)[-1]


def _fp32(j) -> float:
    return float(j["fp32"].iloc[0]) if "fp32" in j and len(j) else np.nan


def _ratio_panel(ax, pairs, tol, compact):
    """The time ratios of pairs (one or more) per family on ax, each pair's
    points at an offset of its own within its family's slot."""
    fams = list(dict.fromkeys(f for j in pairs for f in j["family"]))
    n = len(pairs)
    rng = np.random.default_rng(0)
    width = 0.8 / n
    for i, j in enumerate(pairs):
        colour = "C0" if n == 1 else _COLORS[i % len(_COLORS)]
        name = "" if n == 1 else f"{j['pair'].iloc[0]}: "
        x0 = np.array([fams.index(f) for f in j["family"]], dtype=float)
        x0 += (i - (n - 1) / 2) * width
        x = x0 + rng.uniform(-0.38, 0.38, len(x0)) * width
        e, fp = float(j["expected"].iloc[0]), _fp32(j)
        if n == 1:
            ax.axhspan(e * (1 - tol), e * (1 + tol), color="0.88", lw=0)
        line = "k" if n == 1 else colour
        ax.axhline(e, color=line, ls="--", lw=1, label=f"{name}DRAM bandwidth ratio {e:.3g}")
        if np.isfinite(fp):
            ax.axhline(fp, color=line, ls=":", lw=1.2, label=f"{name}FP32 peak ratio {fp:.3g}")
        s = j["scales"].to_numpy()
        r = j["ratio"].to_numpy(float)
        size = 7 if compact else 10
        ax.scatter(
            x[s], r[s], s=size, color=colour, label=f"{name}within +-{tol:.0%} of the DRAM ratio"
        )
        ax.scatter(
            x[~s],
            r[~s],
            s=size + 3,
            facecolors="none",
            edgecolors="C3" if n == 1 else colour,
            lw=0.6 if compact else 1.0,
            label=f"{name}not within",
        )
        if compact:  # each family's median: a bar across its slot
            med = j.groupby("family", sort=False)["ratio"].median()
            at = np.array([fams.index(f) for f in med.index]) + (i - (n - 1) / 2) * width
            ax.scatter(at, med, marker="_", s=320 * width, color="k", lw=1.6, zorder=4,
                       label="median of a family" if i == 0 else None)  # fmt: skip
    _log_y(ax)
    _ratio_ticks(ax)
    ax.set_xticks(range(len(fams)))
    ax.set_xticklabels(
        fams, rotation=20 if compact else 30, ha="right", fontsize=7.5 if compact else 8.5
    )
    ax.set_xlim(-0.6, len(fams) - 0.4)
    ax.tick_params(axis="y", labelsize=7.5 if compact else 9)
    ax._sweep_categories = "x"  # one slot per family: no scale
    if compact:
        ax.legend(fontsize=6.5, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    else:
        ax.legend(fontsize=8, loc="best")


def _ratio_ticks(ax):
    """Ticks a reader can read on a log axis of ratios that spans little
    more than a decade: 0.5, 0.7, 1, 1.5, 2... (LogLocator gives only 1)."""
    lo, hi = ax.get_ylim()
    if hi / lo > 30:
        return
    steps = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9) if hi / lo < 4 else (1, 1.5, 2, 3, 5, 7)
    ticks = [b * 10.0**k for k in range(-3, 3) for b in steps]
    ax.set_yticks([t for t in ticks if lo <= t <= hi])
