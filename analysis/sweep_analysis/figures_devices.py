"""The figures of many ranks and devices: the SM clock per rank, and each
device's speed on the points several devices measured."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .figure_parts import _finish
from .tables import fmt


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
