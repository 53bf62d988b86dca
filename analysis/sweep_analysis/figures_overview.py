"""The figures of any family, a plug-in's too: every variant against the
family's swept axis (lines) or its points (bars), and throughput against
threads per block."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .figure_parts import (
    REF_STYLES,
    _finish,
    _log2_x,
    _log_y,
    _mark_gaps,
    _meta,
    _panels,
    _peak,
    _peak_axis,
    _plot,
    _yerr,
    _zero_y,
)
from .tables import at_point, axes_text, axis_value_text, fmt, metric, used_axes, variant_order


def family_overview(rows: pd.DataFrame, axes, family: str, device: str, col_units=None, names=None):
    """Variants side by side: throughput per point, references hatched or as
    horizontal lines. A line per variant against the most swept axis when it
    is a quantity (has units) with three or more values, else grouped bars
    per axis combination (enumerated axes such as a pattern are categories,
    named by names: {axis: {value: name}} of the family, its file's)."""
    names = names or {}
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
    fig = _overview_bars(m, base, varied, fixed, (col, units, ylabel), col_units, names)
    at = ", ".join(axis_value_text(a, base[a].iloc[0], names.get(a)) for a in fixed)
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


def _variant_marks(fig, ax, g, i, at, col, width, wide):
    """Variant i's bars (points on a log axis) at the groups' points at: the
    row nearest each group's median, with its error bar."""
    v = g["variant"].iloc[0]
    sel = [at_point(g, k) for k in at]
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
    else:
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
        _meta(fig, refs="as hollow squares" if wide else "hatched")


def _group_labels(ax, base, varied, fixed, keys, col_units, names):
    """Each group's label (its varied axes' values, else the fixed ones')
    and the x axis' caption."""
    ax.set_xticks(np.arange(len(keys)))
    ax.set_xticklabels(
        [
            "\n".join(axis_value_text(a, x, names.get(a)) for a, x in zip(varied, k))
            or "\n".join(axis_value_text(a, base[a].iloc[0], names.get(a)) for a in fixed)
            or "all"
            for k in keys
        ],
        fontsize=8,
    )
    ax.set_xlabel(
        "point: "
        + ", ".join(f"{a}" + (f" ({col_units[a]})" if col_units.get(a) else "") for a in varied)
        if varied
        else ""
    )


def _overview_bars(m, base, varied, fixed, y, col_units, names=None):
    """Grouped bars: a group per combination of the varied axes, a bar per
    variant, references hatched. y: (column, units, axis label)."""
    col, _, ylabel = y
    names = names or {}
    combos = base[varied].drop_duplicates().sort_values(varied) if varied else None
    keys = [tuple(r) for _, r in combos.iterrows()] if combos is not None else [()]
    variants = variant_order(m)
    # room for each category's (up to two-line) label and its bars
    fig, ax = plt.subplots(figsize=(max(8.5, max(1.8, 0.35 * len(variants)) * len(keys) + 2.5), 5))
    width = 0.8 / max(len(variants), 1)
    wide = _is_wide(m[col])
    at = [dict(zip(varied, k)) for k in keys]
    for i, v in enumerate(variants):
        _variant_marks(fig, ax, m[m["variant"] == v], i, at, col, width, wide)
    if wide:
        _log_y(ax)
    _group_labels(ax, base, varied, fixed, keys, col_units, names)
    _zero_y(ax)
    ax.set_ylabel(ylabel + (", log" if ax.get_yscale() == "log" else ""))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax.grid(axis="x", visible=False)
    return fig


# --- launch shape -------------------------------------------------------------


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
