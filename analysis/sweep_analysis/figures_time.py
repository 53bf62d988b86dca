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


def bandwidth_ratios(pairs: list, tol: float):
    """pairs: timemodel.bandwidth_scaling frames (column `pair`), a panel
    each: every point's time ratio per family, the datasheet bandwidth ratio
    dashed with its +-tol band; points that scale filled, others hollow."""
    pairs = [j for j in pairs if len(j)]
    if not pairs:
        return None
    fig, axs = _panels(len(pairs), width=9.5, height=4.2, max_cols=1)
    for ax, j in zip(axs, pairs):
        fams = list(dict.fromkeys(j["family"]))
        x = np.array([fams.index(f) for f in j["family"]], dtype=float)
        x += np.random.default_rng(0).uniform(-0.3, 0.3, len(x))
        e = float(j["expected"].iloc[0])
        ax.axhspan(e * (1 - tol), e * (1 + tol), color="0.88", lw=0)
        ax.axhline(e, color="k", ls="--", lw=1, label=f"bandwidth ratio {e:.3g} (+-{tol:.0%})")
        s = j["scales"].to_numpy()
        ax.scatter(x[s], j["ratio"][s], s=10, color="C0", label="scales with bandwidth")
        ax.scatter(
            x[~s], j["ratio"][~s], s=14, facecolors="none", edgecolors="C3", label="does not"
        )
        _log_y(ax)
        ax.set_xticks(range(len(fams)))
        ax.set_xticklabels(fams, rotation=30, ha="right", fontsize=8.5)
        ax.set_ylabel(f"time ratio {j['pair'].iloc[0]}")
        ax.legend(fontsize=8, loc="best")
    _meta(fig, refs="the datasheet bandwidth ratio (dashed) and its band, grey")
    return _finish(fig, "Classes: time ratio per point against the datasheet bandwidth ratio")
