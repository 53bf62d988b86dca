"""The model's figures: the cross-architecture heatmaps (family/variant x
CC), and the model against hardware counters (sectors and wavefronts per
request, DRAM bytes against the bytes the model moves)."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm, Normalize
from matplotlib.ticker import FuncFormatter

from .figure_parts import _finish, _plain
from .tables import fmt

# --- cross-architecture (model rows) ------------------------------------------


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


# --- model against counters ---------------------------------------------------


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
