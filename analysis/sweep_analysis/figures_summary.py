"""The Summary's figure, the report's first picture: every family's
variants against their reference at the family's headline points
(headline.py), measured beside modelled and, where the time model gives
it, predicted. Sized to share one screen with the Summary's lines."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter

from .figure_parts import _meta

WIDTH_IN, ROW_IN, MAX_PANELS = 11.0, 0.13, 3


def _short(pt, h) -> str:
    """A point's label in the figure: the axes its family's points differ in
    (stride=32 of stride=32 n=1G), none when the family has one point."""
    points = list(dict.fromkeys(e[1] for e in h.entries))
    if len(points) < 2 or not pt:
        return ""
    parts = [p.split() for p in points]
    common = set(parts[0]).intersection(*parts[1:])
    return " ".join(a for a in pt.split() if a not in common)


def _split(heads, panels):
    """The headlines in `panels` groups of about equal rows, families whole."""
    total = sum(len(h.entries) for h in heads)
    groups, cur, n = [], [], 0
    for h in heads:
        if cur and n + len(h.entries) / 2 > total * (len(groups) + 1) / panels:
            groups.append(cur)
            cur = []
        cur.append(h)
        n += len(h.entries)
    return groups + [cur] if cur else groups


def summary(heads: list, emulated=False):
    """The headline ratios as dots on a log axis, one row per variant and
    point; None without an entry. emulated: the dots are replayed times."""
    heads = [h for h in heads if h.entries]
    if not heads:
        return None
    total = sum(len(h.entries) for h in heads)
    groups = _split(heads, min(MAX_PANELS, max(1, (total + 9) // 10)))
    rows = max(sum(len(h.entries) for h in g) for g in groups)
    fig, axs = plt.subplots(1, len(groups), figsize=(WIDTH_IN, ROW_IN * rows + 0.85), squeeze=False)
    vals = [v for h in heads for e in h.entries for v in e[2:] if np.isfinite(v) and v > 0]
    lo, hi = min([*vals, 0.5]) / 1.6, max([*vals, 2.0]) * 1.6
    seen = set()
    decades = range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))) + 1)
    for ax, group in zip(axs[0], groups):
        labels = []
        for h in group:
            top = len(labels)
            for v, pt, meas, model, pred in h.entries:
                y = len(labels)
                labels.append(v + (f" @ {_short(pt, h)}" if _short(pt, h) else ""))
                for val, style in ((meas, "measured"), (model, "modelled"), (pred, "predicted")):
                    if np.isfinite(val) and val > 0:
                        name = "emulated (replay)" if emulated and style == "measured" else style
                        ax.scatter(val, y, label=None if style in seen else name, **_STYLES[style])
                        seen.add(style)
            ax.axhline(len(labels) - 0.5, color="0.8", lw=0.6)
            ax.text(1.02, top - 0.45, h.family, transform=ax.get_yaxis_transform(), ha="left",
                    va="top", fontsize=7, fontweight="bold", color="0.3", rotation=0)  # fmt: skip
        ax.axvline(1, color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlim(lo, hi)
        step = 1 if len(decades) <= 5 else 2
        ax.set_xticks([10.0**k for k in decades[::-1][::step]])
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels, fontsize=6.5)
        ax.set_ylim(rows - 0.5, -0.5)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_xlabel("throughput / reference's (log)", fontsize=7.5)
        ax.grid(axis="y", visible=False)
        ax._sweep_categories = "y"  # one row per variant and point: no scale
    fig.legend(loc="upper center", ncol=3, fontsize=7.5, frameon=False, bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.28 / fig.get_figheight()), w_pad=0.8)
    _meta(fig, refs="1 = the reference (a family without one: its first variant)")
    return fig


_STYLES = {
    "measured": {"s": 16, "color": "C0", "marker": "o", "zorder": 3},
    "modelled": {"s": 26, "facecolors": "none", "edgecolors": "C1", "marker": "D", "zorder": 2},
    "predicted": {"s": 22, "color": "C2", "marker": "x", "zorder": 4},
}
