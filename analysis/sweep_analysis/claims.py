"""The course claims C1..C18 (docs/course.md) as data: each claim's
statement, the course's figure, the rule that decides it, and a predicate
over a file's rows that returns what was measured, what the model says and
a verdict: holds, differs, or not in this file.

A predicate reads rows by family, variant and axis names only (the names of
the kernel seam: docs/hdf5-schema.md, kernels/*.cu), so a claim lights up as
soon as a file holds the rows it needs. The measured figure decides where
the claim is about speed; the model decides where it is about transactions,
sectors or conflicts; the other one is shown beside it, with its own verdict.

A measured effect is earned, not read off a median: it must point the
claimed way, be at least MIN_EFFECT, and its bootstrap interval from the raw
samples must exclude no effect (EARNED_RULE says it in words for the report).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from .reader import cc_text, latest
from .stats import median_ratio_ci
from .tables import AXIS_VALUES, fmt, fmt_int

HOLDS, DIFFERS, ABSENT = "holds", "differs", "not in this file"
# the basis of a verdict that checks the model against the very rule it encodes
RULE_ITSELF = "model (the rule itself)"
# Two runs of one job repeat within 0.35% (h200-seeds.h5 against
# h200-seeds-repeat.h5): an effect under 2% is not told apart from noise.
MIN_EFFECT = 0.02
LEVEL = 0.99  # of the bootstrap interval of a ratio of medians
EARNED_RULE = (
    f"A measured claim holds only when its effect points the claimed way, is at least "
    f"{MIN_EFFECT:.0%} (two runs of one job repeat within 0.35%), and the {LEVEL:.0%} "
    f"bootstrap interval of the ratio of medians, from the raw samples, excludes no effect "
    f"(1x); a claim about every size must earn it at every size. Otherwise it differs, with "
    f"the figures. A model verdict needs the same {MIN_EFFECT:.0%} where it compares two "
    f"variants."
)


@dataclass
class Verdict:
    verdict: str = ABSENT
    measured: str = "-"
    model: str = "-"
    basis: str = "-"  # "measured", "model", RULE_ITSELF or "-"
    on_gpu: str = "-"  # the measured figures' own verdict, "-" when they only add context
    on_model: str = "-"  # the model figures' own verdict


@dataclass
class Claim:
    id: str
    statement: str
    course: str  # the course's figure
    rule: str  # what decides the verdict, in words
    check: Callable[[Rows], Verdict]
    # decided by the model alone, on a rule the model implements literally:
    # it can only confirm the model's code, not the hardware
    model_is_rule: bool = False


@dataclass
class Effect:
    """How much faster the claimed-faster side is: a ratio of median times
    (slow / fast) and its bootstrap interval (NaN without raw samples)."""

    ratio: float
    lo: float = math.nan
    hi: float = math.nan

    @property
    def earned(self) -> bool:
        return self.ratio >= 1 + MIN_EFFECT and self.lo > 1

    def text(self) -> str:
        if not np.isfinite(self.lo):
            return f"{fmt(self.ratio)}x (no interval: no raw samples)"
        return f"{fmt(self.ratio)}x [{fmt(self.lo)}, {fmt(self.hi)}]"


# The columns the claims read (besides the axes: every int64 column, as
# axes_of finds them); Rows keeps these alone.
COLUMNS = frozenset(
    ("point_id", "plan_index", "rank", "session", "family", "variant", "backend")
    + ("is_reference", "cc", "status", "checked_elems", "seed", "n_samples")
    + ("launches_per_sample", "l2_flushed", "median_ns", "gbps", "sm_clock_mhz")
    + ("mem_clock_mhz", "throttle_reasons", "sm_count", "sample_offset", "file", "device")
    + ("model_requests", "model_sectors_per_request", "model_transactions_per_request")
    + ("model_moved_bytes", "model_efficiency", "model_conflict_degree")
)


class Rows:
    """The ok rows of one or more files, the latest per point and backend,
    with selection helpers keyed by names, and the raw samples of each file
    (file label -> the file's /samples) for the intervals."""

    def __init__(self, rows: pd.DataFrame, samples: dict | None = None):
        # only the columns a claim reads, split by family once: a file of a
        # million rows is not copied whole for every claim
        keep = [c for c in rows.columns if c in COLUMNS or rows[c].dtype == np.int64]
        ok = rows.loc[rows["status"] == 0, keep]
        self.empty = ok.iloc[0:0]
        self.families = dict(list(ok.groupby("family", sort=False)))
        self.samples = samples or {}

    def get(self, family, variant=None, backend=None, **axes) -> pd.DataFrame:
        r = self.families.get(family, self.empty)
        if variant is not None:
            names = [variant] if isinstance(variant, str) else list(variant)
            present = [v for v in names if (r["variant"] == v).any()]
            r = r[r["variant"] == present[0]] if present else r.iloc[0:0]
        if backend is not None:
            r = r[r["backend"] == backend]
        for a, v in axes.items():
            if a not in r:
                return r.iloc[0:0]
            r = r[r[a].isin(v if isinstance(v, (list, tuple, set)) else [v])]
        return r

    def measured(self, family, variant=None, **axes):
        return self.get(family, variant, backend="cuda", **axes)

    def modelled(self, family, variant=None, **axes):
        """Rows carrying model figures: model rows, and cuda rows (whose model
        figures are for the measuring device's CC); one per point and CC."""
        r = self.get(family, variant, **axes)
        r = r.sort_values("backend", key=lambda s: s != "model", kind="stable")
        keys = ["variant", "cc", *[a for a in axes_of(r) if a in r]]
        return r.drop_duplicates(keys)

    def samples_of(self, r: pd.DataFrame) -> np.ndarray:
        """The raw sample times (ns per launch) of rows r, pooled."""
        parts = []
        for _, row in r.iterrows():
            s = self.samples.get(row.get("file"))
            o, n = int(row.get("sample_offset", 0)), int(row.get("n_samples", 0))
            if s is not None and n > 0 and o + n <= len(s):
                parts.append(s[o : o + n])
        return np.concatenate(parts) if parts else np.empty(0)

    def effect(self, slow: pd.DataFrame, fast: pd.DataFrame) -> Effect:
        """median_ns(slow) / median_ns(fast), with its interval."""
        e = Effect(_one(slow, "median_ns") / _one(fast, "median_ns"))
        x, y = self.samples_of(fast), self.samples_of(slow)
        if len(x) and len(y):
            e.lo, e.hi = median_ratio_ci(x, y, level=LEVEL)
        return e

    def time_ratio(self, slow, fast, keys) -> pd.DataFrame | None:
        """Effects of fast over slow matched on keys and device: columns ratio,
        lo, hi and effect (an Effect)."""
        k = ["file", "device", *keys]
        if slow.empty or fast.empty or any(c not in slow or c not in fast for c in k):
            return None
        gs, gf = dict(list(slow.groupby(k))), dict(list(fast.groupby(k)))
        out = []
        for key in sorted(set(gs) & set(gf)):
            e = self.effect(gs[key], gf[key])
            out.append({**dict(zip(k, key)), "ratio": e.ratio, "lo": e.lo, "hi": e.hi, "effect": e})
        return pd.DataFrame(out) if out else None


def axes_of(r: pd.DataFrame):
    skip = {
        "point_id",
        "plan_index",
        "rank",
        "session",
        "is_reference",
        "cc",
        "status",
        "checked_elems",
        "seed",
        "n_samples",
        "launches_per_sample",
        "l2_flushed",
        "sm_clock_mhz",
        "mem_clock_mhz",
        "throttle_reasons",
        "sample_offset",
        "sm_count",
    }
    return [c for c in r.columns if r[c].dtype == np.int64 and c not in skip]


def _one(r: pd.DataFrame, col):
    v = r[col].dropna()
    return float(v.median()) if len(v) else math.nan


def _largest(r: pd.DataFrame, axis):
    """Rows at the largest value of a size axis."""
    if r.empty or axis not in r:
        return r
    return r[r[axis] == r[axis].max()]


def _ccs(r):
    return sorted(int(c) for c in r["cc"].unique())


# Parts of a cell listed before "(+N more)": every one, up to this many (the
# report's claims table compacts each cell to a range and its weakest case,
# summary.compact; the section "Course claims in full" keeps the list).
JOIN_LIMIT = 200


def _join(parts, limit=4):
    parts = list(parts)
    limit = max(limit, JOIN_LIMIT)
    more = f" (+{len(parts) - limit} more)" if len(parts) > limit else ""
    return "; ".join(parts[:limit]) + more


def _verdict(ok: bool) -> str:
    return HOLDS if ok else DIFFERS


def _decide(measured, model, prefer="measured"):
    """measured/model: (text, ok-or-None). Each basis with an ok gets its own
    verdict; the preferred one decides when it has one, else the other."""
    v = Verdict(measured=measured[0] if measured else "-", model=model[0] if model else "-")
    if measured and measured[1] is not None:
        v.on_gpu = _verdict(measured[1])
    if model and model[1] is not None:
        v.on_model = _verdict(model[1])
    order = [("measured", v.on_gpu), ("model", v.on_model)]
    if prefer == "model":
        order.reverse()
    for basis, said in order:
        if said != "-":
            v.verdict, v.basis = said, basis
            return v
    return v


def _effects_text(j: pd.DataFrame, label) -> str:
    return _join(f"{label(r)}: {r['effect'].text()}" for _, r in j.iterrows())


def _all_earned(j: pd.DataFrame) -> bool:
    return bool(j["effect"].map(lambda e: e.earned).all())


# --- global memory on CC 1.x (model) --------------------------------------


def _tpr(r: pd.DataFrame, cc):
    return _one(r[r["cc"] == cc], "model_transactions_per_request")


def _offset_rows(d: Rows):
    aligned = d.modelled("offset_read", "aligned")
    off = d.modelled("offset_read", "offset")
    mis = off[(off["offset"] % 16 != 0)] if "offset" in off else off.iloc[0:0]
    one = mis[mis["offset"] == 1] if len(mis) else mis
    return aligned, (one if len(one) else mis)


def _context_sectors(aligned, mis):
    parts = []
    for cc in _ccs(mis):
        if cc >= 60:
            parts.append(
                f"CC {cc_text(cc)}: {fmt(_one(mis[mis.cc == cc], 'model_sectors_per_request'))}"
                f" vs {fmt(_one(aligned[aligned.cc == cc], 'model_sectors_per_request'))}"
                f" sectors/request"
            )
    return parts


def c1(d: Rows) -> Verdict:
    aligned, mis = _offset_rows(d)
    old = [cc for cc in _ccs(mis) if cc <= 11]
    parts, ok = [], None
    for cc in old:
        a, m = _tpr(aligned, cc), _tpr(mis, cc)
        parts.append(f"CC {cc_text(cc)}: {fmt(m)} vs {fmt(a)} transactions/request ({fmt(m / a)}x)")
        ok = (ok is not False) and abs(m / a - 16) < 0.5
    model = (_join(parts + _context_sectors(aligned, mis)), ok) if len(mis) else None
    meas = _offset_measured(d)
    return _decide(meas and (meas, None), model, prefer="model")


def _offset_measured(d: Rows):
    al = _largest(d.measured("offset_read", "aligned"), "n")
    off = d.measured("offset_read", "offset")
    if al.empty or off.empty:
        return None
    off = off[(off["n"] == al["n"].max()) & (off["offset"] % 8 != 0)]
    if off.empty:
        return None
    worst = off.loc[off["gbps"].idxmin()]
    return (
        f"misaligned start: {fmt(worst['gbps'] / _one(al, 'gbps'))} of the aligned GB/s "
        f"at worst (offset {int(worst['offset'])})"
    )


def c2(d: Rows) -> Verdict:
    aligned, _ = _offset_rows(d)
    old = [cc for cc in _ccs(aligned) if cc <= 11]
    if not old:
        ctx = [f"CC {cc_text(cc)}: {fmt(_tpr(aligned, cc))} per request" for cc in _ccs(aligned)]
        return Verdict(model=_join(ctx) + " (needs CC 1.0/1.1 rows)" if ctx else "-")
    parts = [
        f"CC {cc_text(cc)}: {fmt(_tpr(aligned, cc))} transactions/request (2 half-warps)"
        for cc in old
    ]
    ok = all(abs(_tpr(aligned, cc) - 2) < 0.01 for cc in old)
    return _decide(None, (_join(parts), ok))


def c3(d: Rows) -> Verdict:
    aos = d.modelled("float3", "aos")
    old = [cc for cc in _ccs(aos) if cc <= 11]
    meas = None
    m_aos, m_soa = d.measured("float3", "aos"), d.measured("float3", "soa")
    j = d.time_ratio(m_aos, m_soa, ["n"])
    if j is not None:
        meas = (f"aos takes {fmt(j['ratio'].max())}x the time of soa", None)
    if not old:
        ctx = [
            f"CC {cc_text(cc)}: {fmt(_one(aos[aos.cc == cc], 'model_efficiency'))} useful/moved"
            for cc in _ccs(aos)
        ]
        v = Verdict(measured=meas[0] if meas else "-")
        v.model = (_join(ctx) + " (needs CC 1.0/1.1 rows)") if ctx else "-"
        return v
    # 12-byte words match no coalescing size: every lane its own transaction
    parts = [f"CC {cc_text(cc)}: {fmt(_tpr(aos, cc))} transactions/request" for cc in old]
    ok = all(_tpr(aos, cc) >= 32 - 0.01 for cc in old)
    return _decide(meas, (_join(parts), ok), prefer="model")


def c4(d: Rows) -> Verdict:
    aligned, mis = _offset_rows(d)
    gt = [cc for cc in _ccs(mis) if cc in (12, 13)]
    if not gt:
        return Verdict()
    parts, ok = [], True
    for cc in gt:
        a, m = _tpr(aligned, cc), _tpr(mis, cc)
        parts.append(
            f"CC {cc_text(cc)}: misaligned {fmt(m)} vs aligned {fmt(a)} transactions/request"
        )
        ok = ok and m <= 2 * a + 0.01  # one or two segments per half-warp, not 16
    return _decide(None, (_join(parts), ok))


def c15(d: Rows) -> Verdict:
    aligned, mis = _offset_rows(d)
    old = [cc for cc in _ccs(mis) if cc <= 11]
    if not old:
        return Verdict()
    parts, ok = [], True
    for cc in old:
        r = mis[mis.cc == cc]
        moved_per_req = _one(r, "model_moved_bytes") / _one(r, "model_requests")
        parts.append(
            f"CC {cc_text(cc)}: {fmt(_tpr(r, cc))} transactions of "
            f"{fmt(moved_per_req / max(_tpr(r, cc), 1))} B per request"
        )
        ok = ok and abs(_tpr(r, cc) - 32) < 0.01 and abs(moved_per_req - 32 * 32) < 1
    return _decide(None, (_join(parts), ok))


# --- float3, matmul ---------------------------------------------------------


def c5(d: Rows) -> Verdict:
    j = d.time_ratio(d.measured("float3", "aos"), d.measured("float3", "staged"), ["n"])
    if j is None:
        return Verdict()
    j = j[j["n"] == j["n"].max()]
    ok = _all_earned(j) and bool((j["ratio"] >= 2.0).all())
    text = _effects_text(j, lambda r: f"staged over aos at n={fmt_int(r['n'])}")
    return _decide((text, ok), None)


def c6(d: Rows) -> Verdict:
    meas = None
    j = d.time_ratio(d.measured("float3", "aos"), d.measured("float3", "soa"), ["n"])
    if j is not None:
        meas = (_effects_text(j, lambda r: f"soa over aos at n={fmt_int(r['n'])}"), _all_earned(j))
    aos, soa = d.modelled("float3", "aos"), d.modelled("float3", "soa")
    model = None
    if len(aos) and len(soa):
        parts, ok = [], True
        for cc in _ccs(aos):
            ea, es = (
                _one(aos[aos.cc == cc], "model_efficiency"),
                _one(soa[soa.cc == cc], "model_efficiency"),
            )
            parts.append(f"CC {cc_text(cc)}: useful/moved aos {fmt(ea)}, soa {fmt(es)}")
            ok = ok and es >= ea * (1 + MIN_EFFECT)
        model = (_join(parts), ok)
    return _decide(meas, model)


def c7(d: Rows) -> Verdict:
    naive, tiled = d.measured("matmul", "naive"), d.measured("matmul", "tiled")
    if "pad" in tiled:
        tiled = tiled[tiled["pad"] <= 0]
    j = d.time_ratio(naive, tiled, ["size", "tile"])
    if j is None:
        return Verdict()
    j = j.sort_values(["size", "tile"])
    text = "tiled over naive: " + _effects_text(
        j, lambda r: f"size {int(r['size'])} tile {int(r['tile'])}"
    )
    return _decide((text, _all_earned(j)), None)


# --- strided read (C8, C9) ----------------------------------------------------


def _halving(strides, values):
    """Ratios value(2s)/value(s) along a geometric stride list."""
    s = dict(zip(strides, values))
    return {k: s[2 * k] / s[k] for k in sorted(s) if 2 * k in s}


def _drop(d: Rows, g: pd.DataFrame, s) -> Effect:
    """Bandwidth at stride s over bandwidth at 2s, with its interval: the
    time ratio scaled by the useful bytes (GB/s x ns), which halve with 2s."""
    a, b = g[g.stride == s], g[g.stride == 2 * s]
    e = d.effect(b, a)
    k = _one(a, "gbps") * _one(a, "median_ns") / (_one(b, "gbps") * _one(b, "median_ns"))
    return Effect(e.ratio * k, e.lo * k, e.hi * k)


def _c8_device(d: Rows, dev, g, variant):
    """(text, ok) for one device: the halving steps to stride 8 must each
    be an earned drop in 0.4-0.6; from 16 on each step stays above 0.65
    with an interval that excludes halving."""
    h = _halving(list(g["stride"]), list(g["gbps"]))
    halves, flat = [h[s] for s in (1, 2, 4)], [h[s] for s in h if s >= 16]
    ok = all(0.4 <= x <= 0.6 for x in halves) and all(x >= 0.65 for x in flat)
    drops = {s: _drop(d, g, s) for s in h}
    ok = ok and all(drops[s].earned for s in (1, 2, 4))
    ok = ok and all(drops[s].hi < 2 for s in h if s >= 16)
    weakest = min((drops[s] for s in (1, 2, 4)), key=lambda e: e.lo if np.isfinite(e.lo) else 0)
    text = (
        f"{dev}, {variant}, n={fmt_int(g['n'].iloc[0])}: "
        f"{fmt(g['gbps'].iloc[0])} GB/s at stride 1; x"
        + ", x".join(fmt(x, 2) for x in halves)
        + " to stride 8, then x"
        + ", x".join(fmt(x, 2) for x in flat)
        + f" from 16; weakest drop to 8: {weakest.text()}"
    )
    return text, ok


def c8(d: Rows) -> Verdict:
    meas = None
    rows = d.measured("strided_read", ["tuned", "course"])
    if len(rows):
        variant = rows["variant"].iloc[0]
        parts, ok = [], True
        for dev, g in rows.groupby("device"):
            g = _largest(g, "n").sort_values("stride")
            if not {1, 2, 4, 8, 16, 32}.issubset(set(g["stride"])):
                continue
            text, good = _c8_device(d, dev, g, variant)
            parts.append(text)
            ok = ok and good
        if parts:
            meas = (_join(parts), ok)
    model = None
    m = d.modelled("strided_read", "course")
    m = m[m["cc"] >= 60] if len(m) else m
    if len(m):
        parts, ok = [], True
        for cc in _ccs(m):
            g = m[m.cc == cc].drop_duplicates("stride").sort_values("stride")
            eff = dict(zip(g["stride"], g["model_efficiency"]))
            want = {s: (1 / s if s <= 8 else 1 / 8) for s in eff}
            ok = ok and all(abs(eff[s] - want[s]) < 1e-6 for s in eff)
            parts.append(
                f"CC {cc_text(cc)}: useful/moved " + ", ".join(fmt(eff[s], 3) for s in sorted(eff))
            )
        model = (_join(parts, 2), ok)
    return _decide(meas, model)


def c9(d: Rows) -> Verdict:
    m = d.modelled("strided_read", ["course", "tuned"])
    m = m[m["cc"] >= 60] if len(m) else m
    if m.empty or m["model_sectors_per_request"].isna().all():
        return Verdict()
    parts, ok = [], True
    for cc in _ccs(m):
        g = m[m.cc == cc]
        at1 = _one(g[g.stride == 1], "model_sectors_per_request")
        big = g[g.stride >= 8]["model_sectors_per_request"]
        # within 0.1% of 32: the loop's last step leaves a partial warp
        # (stride 112 of 16M: 31.994, as the H200's counters count)
        ok = ok and at1 == 4 and len(big) > 0 and bool(((big - 32).abs() <= 0.032).all())
        parts.append(
            f"CC {cc_text(cc)}: {fmt(at1)} at stride 1, "
            f"{big.min():.3f}..{big.max():.3f} at stride >= 8"
        )
    return _decide(None, (_join(parts, 3), ok))


# --- row sums, transpose, banks -------------------------------------------


def c10(d: Rows) -> Verdict:
    meas = None
    j = d.time_ratio(
        d.measured("rowsum", "thread_per_row"),
        d.measured("rowsum", "block_per_row"),
        ["rows", "cols"],
    )
    if j is not None:
        sq = j[(j["rows"] == 8192) & (j["cols"] == 8192)]
        sq = sq if len(sq) else j[j["rows"] * j["cols"] == (j["rows"] * j["cols"]).max()]
        text = _effects_text(
            sq, lambda r: f"block per row over thread per row at {r['rows']} x {r['cols']}"
        )
        meas = (text, _all_earned(sq) and bool((sq["ratio"] >= 8).all()))
    t, b = d.modelled("rowsum", "thread_per_row"), d.modelled("rowsum", "block_per_row")
    model = None
    t, b = t[t["cc"] >= 60], b[b["cc"] >= 60]
    if len(t) and len(b):
        st, sb = _one(t, "model_sectors_per_request"), _one(b, "model_sectors_per_request")
        model = (f"{fmt(st)} vs {fmt(sb)} sectors/request (CC >= 6.0)", st >= 28 and sb <= 4.5)
    return _decide(meas, model)


def _transpose(d: Rows, pad, measured=True):
    f = d.measured if measured else d.modelled
    r = f("transpose", "shared", pad=pad)
    return r[r["tile"] == 32] if "tile" in r and (r["tile"] == 32).any() else r


def _degree(r):
    return _one(r, "model_conflict_degree")


def c11(d: Rows) -> Verdict:
    m0 = _transpose(d, 0, False)
    model = None
    if len(m0) and m0["model_conflict_degree"].notna().any():
        parts, ok = [], True
        for cc in _ccs(m0):
            deg = _degree(m0[m0.cc == cc])
            parts.append(f"CC {cc_text(cc)}: {fmt(deg)}-way")
            ok = ok and deg >= (16 if cc < 20 else 32) - 0.01
        model = ("tile[32][32] column read: " + _join(parts), ok)
    j = d.time_ratio(_transpose(d, 0), _transpose(d, 1), ["rows", "cols", "block_rows"])
    meas = None
    if j is not None:
        meas = (f"pad 0 takes {fmt(j['ratio'].median())}x the time of pad 1", None)
    return _decide(meas, model, prefer="model")


def c12(d: Rows) -> Verdict:
    j = d.time_ratio(_transpose(d, 0), _transpose(d, 1), ["rows", "cols", "block_rows"])
    meas = None
    if j is not None:
        r = float(j["ratio"].median())
        meas = (
            f"pad 1 over pad 0, median over sizes {fmt(r)}x, output validated; "
            + _effects_text(j, lambda r: f"{r['rows']} x {r['cols']}, {r['block_rows']} rows"),
            r > 1.05 and _all_earned(j),
        )
    m1 = _transpose(d, 1, False)
    model = None
    if len(m1) and m1["model_conflict_degree"].notna().any():
        deg = m1.groupby("cc")["model_conflict_degree"].median()
        model = (
            "tile[32][33]: " + _join(f"CC {cc_text(c)}: {fmt(v)}-way" for c, v in deg.items()),
            bool((deg <= 1.01).all()),
        )
    return _decide(meas, model)


def _smem(d: Rows, variant, measured=True):
    return (d.measured if measured else d.modelled)("smem_bank", variant)


def c13(d: Rows) -> Verdict:
    free, bc, two = _smem(d, "conflict_free"), _smem(d, "broadcast"), _smem(d, "two_way")
    meas = None
    if len(free) and len(bc) and len(two):
        # a broadcast is claimed free (no effect to earn); the 2-way conflict is an effect
        rb = _one(bc, "median_ns") / _one(free, "median_ns")
        e2 = d.effect(two, free)
        meas = (
            f"time over conflict-free: broadcast {fmt(rb)}x, two addresses in one bank {e2.text()}",
            rb <= 1.1 and 1.5 <= e2.ratio <= 2.5 and e2.earned,
        )
    mb, m2 = _smem(d, "broadcast", False), _smem(d, "two_way", False)
    model = None
    if len(mb) and len(m2) and mb["model_conflict_degree"].notna().any():
        dm, d2 = _degree(mb[mb.cc >= 20]), _degree(m2[m2.cc >= 20])
        model = (f"broadcast {fmt(dm)}-way, two-way {fmt(d2)}-way (CC >= 2.0)", dm == 1 and d2 == 2)
    return _decide(meas, model)


def c14(d: Rows) -> Verdict:
    keys = ["rows", "cols", "block_rows"]
    p1 = _transpose(d, 1)
    a = d.time_ratio(d.measured("transpose", "naive"), p1, keys)
    b = d.time_ratio(_transpose(d, 0), p1, keys)
    if a is None or b is None:
        return Verdict()
    ra, rb = float(a["ratio"].median()), float(b["ratio"].median())
    lo = min(a["lo"].min(), b["lo"].min())
    text = (
        f"padded tile transpose {fmt(ra)}x faster than naive (uncoalesced "
        f"stores), {fmt(rb)}x faster than the unpadded tile (bank conflicts), "
        f"medians over sizes; lowest interval bound {fmt(lo)}x"
    )
    ok = ra > 1.05 and rb > 1.05 and _all_earned(a) and _all_earned(b)
    return _decide((text, ok), None)


def c16(d: Rows) -> Verdict:
    meas = None
    s, free = _smem(d, "stride"), _smem(d, "conflict_free")
    if len(s) and len(free):
        base = _one(free, "median_ns")
        g = s.groupby("word_stride")["median_ns"].median() / base
        deg = {w: math.gcd(int(w), 32) for w in g.index if w > 0}
        by = pd.Series({w: g[w] for w in deg}).groupby(pd.Series(deg)).median()
        mono = all(by.iloc[i + 1] >= by.iloc[i] * 0.9 for i in range(len(by) - 1))
        worst = [w for w in deg if deg[w] == max(deg.values())]
        e = d.effect(s[s["word_stride"].isin(worst)], free) if worst else Effect(math.nan)
        meas = (
            "time over conflict-free by ways (gcd(stride, 32)): "
            + ", ".join(f"{k}-way {fmt(v, 2)}x" for k, v in by.items())
            + f"; the most ways {e.text()}",
            mono and len(by) > 1 and by.iloc[-1] >= 4 and e.earned,
        )
    m = _smem(d, "stride", False)
    model = None
    if len(m) and m["model_conflict_degree"].notna().any():
        parts, ok = [], True
        for cc in _ccs(m):
            banks = 16 if cc < 20 else 32
            g = m[(m.cc == cc) & (m.word_stride > 0)]
            want = np.gcd(g["word_stride"].astype(int), banks)
            ok = ok and bool(np.allclose(g["model_conflict_degree"], want))
            parts.append(
                f"CC {cc_text(cc)}: gcd(stride, {banks})-way up to "
                f"{fmt(g['model_conflict_degree'].max())}"
            )
        model = (_join(parts, 3), ok)
    return _decide(meas, model, prefer="model" if any(c < 20 for c in _ccs(m)) else "measured")


# --- constant and texture memory -------------------------------------------------


def c17(d: Rows) -> Verdict:
    meas = None
    c = d.measured("constant_read", ["constant", "const"])
    if len(c) and "distinct" in c and c["distinct"].nunique() >= 3:
        g = c.groupby("distinct")["median_ns"].median()
        x, y = g.index.to_numpy(float), g.to_numpy(float)
        fit = np.polyfit(x, y, 1)
        r2 = 1 - ((y - np.polyval(fit, x)) ** 2).sum() / max(((y - y.mean()) ** 2).sum(), 1e-30)
        e = d.effect(c[c["distinct"] == x[-1]], c[c["distinct"] == x[0]])
        meas = (
            f"time {e.text()} from {int(x[0])} to {int(x[-1])} distinct addresses, "
            f"linear fit R^2 {fmt(r2)}",
            r2 >= 0.9 and e.ratio >= 4 and e.earned,
        )
    m = d.modelled("constant_read", ["constant", "const"])
    model = None
    if len(m) and "distinct" in m and m["model_conflict_degree"].notna().any():
        mm = m[m["cc"] >= 20]
        ok = bool(np.allclose(mm["model_conflict_degree"], mm["distinct"])) if len(mm) else None
        model = (
            f"{fmt(m['model_conflict_degree'].min())}..{fmt(m['model_conflict_degree'].max())}"
            f" serialised reads per request",
            ok,
        )
    return _decide(meas, model)


def c18(d: Rows) -> Verdict:
    t = d.measured("texture_read", ["texture", "tex"])
    g = d.measured("texture_read", "global")
    if t.empty or g.empty or "pattern" not in t:
        return Verdict()
    keys = ["pattern"] + (["size"] if "size" in t and (t["size"] >= 0).any() else [])
    j = d.time_ratio(g, t, keys)
    if j is None:
        return Verdict()
    # pattern 1 is the irregular 2D-local read (gather in an 8 x 8 window)
    gather = j[j["pattern"] == 1] if (j["pattern"] == 1).any() else j[j["pattern"] > 0]
    if gather.empty:
        return Verdict()
    parts = [
        f"{AXIS_VALUES['pattern'].get(int(p), p)}: {fmt(r['ratio'].median())}x"
        for p, r in j.groupby("pattern")
    ]
    text = "texture speed over global, median over sizes: " + "; ".join(parts)
    text += "; gather at each size: " + _join(gather["effect"].map(Effect.text))
    return _decide((text, _all_earned(gather)), None)


CLAIMS = [
    Claim(
        "C1",
        "A crossed or misaligned half-warp (start at 132, not 128) is not coalesced on CC 1.0/1.1",
        "16 transactions instead of 1",
        "model, CC 1.0/1.1: offset_read misaligned / aligned transactions = 16",
        c1,
        model_is_rule=True,
    ),
    Claim(
        "C2",
        "16 in-order 32-bit accesses from an aligned start coalesce on CC 1.0/1.1",
        "1 transaction per half-warp",
        "model, CC 1.0/1.1: offset_read aligned = 2 transactions per warp request",
        c2,
        model_is_rule=True,
    ),
    Claim(
        "C3",
        "12-byte words (float3) never coalesce on CC 1.0/1.1",
        "16 transactions per half-warp",
        "model, CC 1.0/1.1: float3 aos = 32 transactions per warp request",
        c3,
    ),
    Claim(
        "C4",
        "CC 1.2/1.3 coalesce any pattern within a segment; a misaligned read costs "
        "one or two segments",
        "one 128 B, or 32 B + 64 B",
        "model, CC 1.2/1.3: offset_read misaligned <= 2 x aligned transactions",
        c4,
        model_is_rule=True,
    ),
    Claim(
        "C5",
        "Staging float3 through shared memory (kernel B) beats the direct AoS kernel A",
        "about 10x (3300 vs 330 ms, CC 1.x era)",
        "measured: float3 staged an earned >= 2x faster than aos at the largest n",
        c5,
    ),
    Claim(
        "C6",
        "Prefer structure of arrays to array of structures",
        "SoA preferred",
        "measured: float3 soa an earned >= 2% faster than aos at every n; model: soa useful/moved "
        "at least 2% above aos at every CC",
        c6,
    ),
    Claim(
        "C7",
        "Shared-memory tiled matrix multiply beats the naive kernel",
        "N/S global reads instead of N",
        "measured: matmul tiled an earned >= 2% faster than naive at every size and tile",
        c7,
    ),
    Claim(
        "C8",
        "Strided read: bandwidth halves with each doubling of the stride up to 8, "
        "then flattens from 16",
        "T4: 206 -> 11 GB/s; H100 stride 1: 2800-3000 GB/s",
        "measured (tuned, else course; largest n): an earned drop of x0.4-0.6 per doubling "
        "for strides 1-8, >= x0.65 per doubling from 16 with an interval that excludes "
        "halving; else model useful/moved 1/s up to 8, then 1/8",
        c8,
    ),
    Claim(
        "C9",
        "Sectors per request: 4 at stride 1, 32 when each lane has its own sector",
        "4 at stride 1, 32 at stride >= 8 (ncu)",
        "model, CC >= 6.0: strided_read sectors/request 4 at stride 1, 32 at every stride >= 8 "
        "(within 0.1%: a grid-stride loop's partial last warp)",
        c9,
    ),
    Claim(
        "C10",
        "Row sums: a block per row beats a thread per row",
        "8x to 20x; ~32 vs ~4 sectors/request",
        "measured at 8192 x 8192 (else the largest): block_per_row an earned >= 8x faster; "
        "else model sectors/request >= 28 vs <= 4.5",
        c10,
    ),
    Claim(
        "C11",
        "Transpose through tile[32][32]: the column read is a 32-way bank conflict",
        "32-way conflict",
        "model: transpose shared pad 0 conflict degree 32 (16 on CC 1.x)",
        c11,
    ),
    Claim(
        "C12",
        "Padding to tile[32][33] removes the conflicts",
        "up to 32x on that read, ~3% more shared memory",
        "measured: shared pad 1 faster than pad 0 by > 5% (median), earned at every size; "
        "else model degree 1",
        c12,
    ),
    Claim(
        "C13",
        "A broadcast is free; two addresses in one bank are a 2-way conflict",
        "broadcast: no conflict; half at word 0, half at 32: 2-way",
        "measured: broadcast <= 1.1x and two_way an earned 1.5-2.5x the conflict-free time; "
        "else model degrees 1 and 2",
        c13,
    ),
    Claim(
        "C14",
        "Coalescing is about global memory, bank conflicts about shared memory: "
        "a tiled kernel needs both",
        "watch both phases",
        "measured: padded shared transpose > 5% faster (median) than naive and than pad 0, "
        "earned at every size",
        c14,
    ),
    Claim(
        "C15",
        "CC 1.0/1.1: an uncoalesced half-warp costs one 32 B access per thread",
        "16 x 32 B per half-warp",
        "model, CC 1.0/1.1: misaligned offset_read = 32 transactions of 32 B per warp",
        c15,
        model_is_rule=True,
    ),
    Claim(
        "C16",
        "Shared memory has banks; several threads on one bank are serialised "
        "(16 banks per half-warp on CC 1.x)",
        "serialised per bank",
        "model: smem_bank stride degree = gcd(stride, 16 or 32 banks); measured: time "
        "grows with the degree, an earned >= 4x at the most ways",
        c16,
    ),
    Claim(
        "C17",
        "Constant memory: one address per (half-)warp is as fast as a register; "
        "the cost grows linearly with distinct addresses",
        "linear in distinct addresses",
        "measured: constant_read constant time vs distinct linear (R^2 >= 0.9), an earned "
        ">= 4x from 1 to 32; else model degree = distinct",
        c17,
    ),
    Claim(
        "C18",
        "Irregular 2D-local reads do better through texture than plain global loads",
        "texture faster (on the hardware it describes)",
        "measured: texture_read texture an earned >= 2% faster than global on the gather "
        "pattern (1) at every size",
        c18,
    ),
]


def evaluate(rows: pd.DataFrame, samples: dict | None = None) -> list:
    """[(Claim, Verdict)] for every claim, in order. samples: file label ->
    that file's /samples (Run.samples); without them no measured claim can
    earn its interval, so none holds."""
    d = Rows(rows, samples)
    out = []
    for c in CLAIMS:
        try:
            v = c.check(d)
        except KeyError:
            v = Verdict()  # a column the rule needs is not in this file
        except (ValueError, ZeroDivisionError, IndexError) as e:
            v = Verdict(measured=f"could not evaluate: {type(e).__name__}: {e}")
        if c.model_is_rule and v.basis == "model":
            v.basis = RULE_ITSELF
        out.append((c, v))
    return out


def evaluate_runs(runs) -> list:
    """evaluate() over the latest rows of read() Runs, with their samples."""
    rows = pd.concat([latest(r.rows) for r in runs], ignore_index=True)
    return evaluate(rows, {r.label: r.samples for r in runs})
