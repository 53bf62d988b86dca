"""The Summary's headline ratios: each family's variants against its
reference at named points that mean something (stride 1 and stride 32,
one size of matmul...), not medians over every axis. HEADLINES names the
built-in families' points; `sweep-report --headline FAMILY:AXIS=V,...`
names a plug-in's (or replaces a built-in's). A point names some axes; an
axis it names as MAX (MIN) takes the largest (smallest) value the file
has; an axis it does not name takes the value most of the family's rows
at the named ones share, ties to the smallest (0 = the variant's own block
size). A family without named points, or a file without them, falls back
to the median over the variant's points, and says so.

Each ratio is measured (throughput over the reference's at the same
point), modelled (the counting model's useful/moved bytes over the
reference's: the ratio of their bounds) and predicted (the time model's
throughput over the reference's) where the rows have them. Pure functions:
no plotting, no printing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .cli import ToolError
from .tables import fmt, fmt_int, used_axes, variant_order

MAX, MIN = "max", "min"

HEADLINES = {
    "strided_read": ({"stride": 1, "n": MAX}, {"stride": 32, "n": MAX}),
    "offset_read": ({"offset": 1, "n": MAX},),
    "float3": ({"n": MAX},),
    "rowsum": ({"rows": 8192, "cols": 8192},),
    "transpose": (
        {"rows": 8192, "cols": 8192, "tile": 32, "block_rows": 8, "pad": 0},
        {"rows": 8192, "cols": 8192, "tile": 32, "block_rows": 8, "pad": 1},
    ),
    "smem_bank": ({"word_stride": 1}, {"word_stride": 32}),
    "matmul": ({"size": 4096, "tile": 32, "pad": 0},),
    "histogram": ({"bins": 256, "dist": 0, "n": MAX},),
    "reduce": ({"n": MAX},),
    "constant_read": ({"distinct": 1}, {"distinct": 32}),
    "texture_read": ({"pattern": 1, "size": 8192},),
}

_SUFFIX = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse(specs) -> dict:
    """`--headline` values, FAMILY:AXIS=V[,AXIS=V...] (V an integer with an
    optional K/M/G, or max/min), into {family: (point, ...)}, in order.
    Raises ToolError naming the bad one."""
    out = {}
    for spec in specs or []:
        fam, sep, rest = spec.partition(":")
        if not sep or not fam or not rest:
            raise ToolError(f"--headline {spec!r}: give FAMILY:AXIS=VALUE[,AXIS=VALUE...]")
        point = {}
        for part in rest.split(","):
            axis, eq, value = part.partition("=")
            if not eq or not axis or not value:
                raise ToolError(f"--headline {spec!r}: {part!r} is not AXIS=VALUE")
            point[axis.strip()] = _value(value.strip(), spec)
        out.setdefault(fam, []).append(point)
    return {f: tuple(p) for f, p in out.items()}


def _value(v, spec):
    if v.lower() in (MAX, MIN):
        return v.lower()
    mult = _SUFFIX.get(v[-1:].upper(), 1)
    digits = v[:-1] if mult > 1 else v
    if not digits.isdigit():
        raise ToolError(f"--headline {spec!r}: {v!r} is not an integer (K/M/G), max or min")
    return int(digits) * mult


def at(rows: pd.DataFrame, axes, point) -> tuple:
    """(the axis values the point resolves to, the rows there; a row without
    an axis, -1, fits every value of it), or (None, why) when the rows lack
    a named axis or value."""
    r, where = rows, {}
    for a, v in point.items():
        vals = r[a][r[a] != -1] if a in r else pd.Series([], dtype=np.int64)
        if vals.empty:
            return None, f"no axis {a}"
        v = int(vals.max() if v == MAX else vals.min() if v == MIN else v)
        if not (vals == v).any():
            return None, f"no point at {a}={fmt_int(v)}"
        r, where[a] = r[(r[a] == v) | (r[a] == -1)], v
    for a in used_axes(r, axes):
        if a in where:
            continue
        counts = r[a][r[a] != -1].value_counts()
        v = int(min(counts.index[counts == counts.max()]))
        r = r[(r[a] == v) | (r[a] == -1)]
    return where, r


@dataclass
class Headline:
    """A family's headline: each entry (variant, point label, measured,
    modelled, predicted ratio), what the ratios are over, and a note when it
    fell back to medians."""

    family: str
    device: str
    base: str  # the reference variant (or the first variant, without one)
    entries: list = field(default_factory=list)
    note: str = ""

    def line(self, show_device=True) -> str:
        """The Summary's line: ratios grouped by point."""
        by_point = {}
        for v, pt, meas, model, pred in self.entries:
            if np.isfinite(meas):
                text = f"{v} {fmt(meas, 3)}"
            else:
                text = f"{v} {fmt(model, 3)} (model)" if np.isfinite(model) else v
            by_point.setdefault(pt, []).append(text)
            if np.isfinite(pred):
                by_point[pt][-1] += f" (predicted {fmt(pred, 3)})"
        parts = [
            f"at {pt}: {', '.join(vs)}" if pt else ", ".join(vs) for pt, vs in by_point.items()
        ]
        note = f" ({self.note})" if self.note else ""
        on = f" on {self.device}" if show_device else ""
        return f"**{self.family}**{on} (x {self.base}){note}: {'; '.join(parts)}"


def headline(fam, rows, axes, points, col, predicted=None, names=None) -> Headline:
    """The headline of a family's rows on one device: at each named point
    (points; empty: none named), each variant's ratios to the base variant.
    predicted: the time model's time of each row (by index), or None;
    names: {axis: {value: name}} of the family's categorical axes."""
    refs = [v for v in variant_order(rows) if rows.loc[rows["variant"] == v, "is_reference"].any()]
    variants = [v for v in variant_order(rows) if v not in refs]
    base = refs[0] if refs else (variants[0] if variants else "")
    variants = variants + refs[1:] if refs else variants[1:]
    h = Headline(fam, str(rows["device"].iloc[0]) if len(rows) else "", base)
    why = "no named point for this family (--headline names one)" if not points else ""
    seen = set()  # a variant without the named axes fits every point: shown once
    for p in points:
        where, r = at(rows, axes, p)
        if where is None:
            why = r
            continue
        named = names or {}
        label = " ".join(f"{a}={named.get(a, {}).get(v, fmt_int(v))}" for a, v in where.items())
        for v in variants:
            key = (v, tuple(r.index[r["variant"] == v]), tuple(r.index[r["variant"] == base]))
            got = _ratios(r, v, base, col, predicted)
            if got is not None and key not in seen:
                seen.add(key)
                h.entries.append((v, label, *got))
    if not h.entries:
        h.note = f"median over each variant's points: {why}"
        for v in variants:
            got = _ratios(rows, v, base, col, predicted)
            if got is not None:
                h.entries.append((v, "", *got))
    return h


def _ratios(r, v, base, col, predicted):
    """(measured, modelled, predicted) ratio of variant v over base in rows
    r: at one point, or with median over all the family's points (the ratio
    of the two medians), or None without v."""
    a, b = r[r["variant"] == v], r[r["variant"] == base]
    if a.empty or b.empty:
        return None

    def one(x, y):
        x, y = x[np.isfinite(x)], y[np.isfinite(y)]
        if not (len(x) and len(y)) or np.median(y) <= 0:
            return np.nan
        return float(np.median(x) / np.median(y))

    with np.errstate(all="ignore"):
        meas = one(a[col].to_numpy(float), b[col].to_numpy(float))
        model = one(a["model_efficiency"].to_numpy(float), b["model_efficiency"].to_numpy(float))
        pred = np.nan
        if predicted is not None:
            work = "flops" if col == "gflops" else "useful_bytes"
            ta, tb = (
                predicted.reindex(a.index).to_numpy(float),
                predicted.reindex(b.index).to_numpy(float),
            )
            pred = one(a[work].to_numpy(float) / ta, b[work].to_numpy(float) / tb)
    if not (np.isfinite(meas) or np.isfinite(model) or np.isfinite(pred)):
        return None
    return meas, model, pred
