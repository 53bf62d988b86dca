"""The figures of the built-in families that show their point best: the
strided read against stride (measured and modelled), the transpose
against padding, shared-memory banks against word stride, the matmul
ladder."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, NullFormatter

from .figure_parts import (
    REF_STYLES,
    _finish,
    _largest_values,
    _log2_x,
    _log_y,
    _mark_gaps,
    _meta,
    _panels,
    _peak,
    _peak_axis,
    _plot,
    _yerr,
)
from .reader import cc_text
from .tables import fmt_int, variant_order

# --- strided read -------------------------------------------------------------


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


# --- transpose ----------------------------------------------------------------


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


# --- shared-memory banks ------------------------------------------------------


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


# --- matmul -------------------------------------------------------------------


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
