"""The report's per-family sections: on each measured device the family's
figures, its variants side by side against the family's reference and
every measured point; its model figure; the points not measured."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from . import figures
from .doc import Heading, Para, Table
from .reader import MODEL_DEVICE, STATUS_NAMES, cc_text, device_targets
from .report_page import _slug
from .tables import (
    axes_text,
    device_groups,
    fmt,
    fmt_int,
    metric,
    reference_ratios,
    used_axes,
    variant_order,
)


class FamilySections:
    """A section per family (a mixin of report.Report)."""

    def families(self):
        self.add(Heading(2, "Families"))
        at = self.rows.groupby("family", sort=False).indices
        for fam in dict.fromkeys(self.rows["family"]):
            self.family(fam, at[fam])

    def family(self, fam, at):
        """A family's section: its rows are at these positions. Only the
        measured rows are taken whole (a million model rows are not)."""
        cols = ["variant", "is_reference", "plan_index", "backend", "status", "check_mode"]
        f = self.rows[[*cols, *self.axes]].iloc[at]
        target = device_targets(self.rows[["backend", MODEL_DEVICE]].iloc[at])
        cc_target = (f["backend"] == "model").to_numpy() & ~target
        self.add(Heading(3, fam))
        refs = [v for v in variant_order(f) if f[f["variant"] == v]["is_reference"].iloc[0]]
        ax = used_axes(f, self.axes)
        self.add(
            Para(
                f"Variants: {', '.join(v for v in variant_order(f) if v not in refs)}; "
                f"references: {', '.join(refs) or 'none'}; axes: "
                + (", ".join(f"{a} ({self._axis_kind(fam, a)})" for a in ax) or "none")
                + "."
                + _unchecked_text(f)
            )
        )
        measured = self.rows.take(at[(f["backend"] == "cuda").to_numpy()])
        for dev, g in device_groups(measured):
            self.family_device(fam, g, dev)
        self.family_model(fam, at[cc_target], measured.empty)
        self.not_measured(fam, at[(f["status"] != 0).to_numpy()])

    def family_model(self, fam, at, unmeasured):
        """A family's model rows (at these positions): its figure, if it has one."""
        if not len(at):
            return
        # what stride_model and bank_conflicts read
        cols = ["variant", "plan_index", "backend", "status", "cc", "median_ns", "model_efficiency"]
        cols += ["model_conflict_degree", *(a for a in ("stride", "word_stride") if a in self.rows)]
        if fam == "strided_read":
            self.figure(
                figures.stride_model(self.rows[cols].iloc[at]),
                "strided_read-model",
                "Model: share of moved bytes that are useful, against stride, per "
                "CC. Sectors per request are in the cross-architecture section.",
            )
        if fam == "smem_bank" and unmeasured:
            model = self.rows[cols].iloc[at]
            for cc, g in list(model.groupby("cc"))[-1:]:
                self.figure(
                    figures.bank_conflicts(g, f"model CC {cc_text(cc)}"),
                    "smem_bank-model",
                    "Model: conflict degree against word stride (newest CC of the file).",
                )
        if unmeasured:
            self.add(
                Para(
                    f"{len(at)} model rows (no measurements): see "
                    f"[Cross-architecture](#cross-architecture-model)."
                )
            )

    def not_measured(self, fam, at):
        """The table of a family's rows (at these positions) that are not ok."""
        if not len(at):
            return
        bad = self.rows[["device", "variant", "status", "message", *self.axes]].iloc[at]
        rows = []
        for (dev, v, st, msg), g in bad.groupby(
            ["device", "variant", "status", "message"], sort=False
        ):
            pts = [
                axes_text({"family": fam, **r}, self.axes, self.names)
                for _, r in g.head(3).iterrows()
            ]
            rows.append(
                [
                    dev if g["device"].nunique() == 1 else "",
                    v,
                    STATUS_NAMES.get(int(st), str(st)),
                    msg or "-",
                    str(len(g)),
                    ", ".join(pts) + (" ..." if len(g) > 3 else ""),
                ]
            )
        self.add(
            Table(
                ["device", "variant", "status", "message", "points", "e.g."],
                _merge_model_devices(rows),
                right={4},
                caption=f"{fam}: points not measured or not modelled",
            )
        )

    def family_device(self, fam, g, dev):
        ok = g[g["status"] == 0]
        if ok.empty:
            return
        col, units = metric(ok)
        special = None
        if fam == "strided_read":
            special = (
                figures.stride_bandwidth(ok, dev),
                "Useful bandwidth against stride, the model's bound "
                "(device peak x useful/moved bytes) dashed; right axis: % of the "
                "device's theoretical peak.",
            )
        elif fam == "transpose":
            special = (
                figures.transpose_pad(ok, dev),
                "Transpose through a shared tile: "
                "bandwidth against the padding of each tile row; the copy reference "
                "and the naive transpose as horizontal lines.",
            )
        elif fam == "smem_bank":
            special = (
                figures.bank_conflicts(ok, dev),
                "Shared-memory reads: time over the "
                "conflict-free time against the word stride between lanes, with the "
                "model's conflict degree.",
            )
        elif fam == "matmul":
            special = (
                figures.matmul_ladder(ok, dev),
                "Matrix multiply: GFLOP/s per variant, percentage of cuBLAS above each bar.",
            )
        slug = f"{fam}-{_slug(dev)}"
        if special and special[0] is not None:
            self.figure(special[0], slug, special[1])
        else:
            if special:
                plt.close("all")
            self.figure(
                figures.family_overview(
                    ok, self.axes, fam, dev, self.units, self.family_names(fam)
                ),
                slug,
                f"{fam}: {units} of every variant.",
            )
        self.figure(
            figures.block_bandwidth(ok, self.axes, fam, dev, col, units),
            f"{slug}-block",
            f"{fam}: {units} against threads per block (the block axis), each variant's "
            "other axes at their smallest value: what occupancy costs, beside the access "
            "pattern's share.",
        )
        self.side_by_side(fam, ok, dev, col, units)

    def side_by_side(self, fam, ok, dev, col, units):
        ratios = reference_ratios(ok, self.axes, col)
        refs = list(ratios.columns)
        nonref = ok[ok["is_reference"] == 0]
        if variant_order(nonref):
            self.add(self.variants_table(f"{fam} on {dev}", nonref, ratios, col, units))
        detail = [
            _point_cells(r, self.axes, col, ratios, self.names)
            for _, r in ok.sort_values("plan_index").iterrows()
        ]
        if detail:
            self.add(
                Table(
                    [
                        "variant",
                        "point",
                        "median us",
                        units,
                        "% of peak GB/s",
                        *[f"x {v}" for v in refs],
                        "model sectors/req",
                        "model useful/moved",
                        "model conflict degree",
                        "rse %",
                        "samples",
                        "check",
                    ],
                    detail,
                    right=set(range(2, 11 + len(refs))),
                    caption=f"{fam} on {dev}: every measured point",
                    folded=True,
                )
            )

    def variants_table(self, what, nonref, ratios, col, units):
        """A row per point, a column per variant: throughput, the ratio to the
        first reference and the speedup over the first variant."""
        refs = list(ratios.columns)
        primary = refs[0] if refs else None
        variants = variant_order(nonref)
        base = variants[0]
        # slowest-varying axis first: sizes group the rows, the swept axis runs inside
        ax = sorted(used_axes(nonref, self.axes), key=lambda a: nonref[a].nunique())
        headers = [*ax]
        right = set(range(len(headers) + 2 * len(variants) + max(len(variants) - 1, 0)))
        for v in variants:
            headers.append(f"{v} {units}")
        if primary:
            headers += [f"{v} x {primary}" for v in variants]
        headers += [f"{v} / {base}" for v in variants[1:]]
        ratio = ratios[primary] if primary else None
        fam = str(nonref["family"].iat[0]) if len(nonref) else ""
        named = [self.names.get((fam, a), {}) for a in ax]  # a categorical axis by name
        rows = _variant_rows(nonref, _row_keys(nonref, ax), ax, variants, col, ratio, named)
        return Table(
            headers,
            rows,
            right=right,
            caption=(
                f"{what}: variants side by side ({units}; x {primary}: over the "
                f"{primary} reference at the same sizes; / {base}: speedup over {base})"
                if primary
                else f"{what}: variants side by side ({units})"
            ),
        )


def _row_keys(nonref, ax) -> pd.DataFrame:
    """The rows of a side-by-side table: each variant's axis values, less those
    a more specific one covers (matmul's tiled_reg at size=4K, no tile, sits
    on every row of size 4K), so variants with fewer axes line up with the others."""
    if not ax:
        return pd.DataFrame([{}])
    combos = nonref[ax].drop_duplicates().to_numpy()
    covered = np.zeros(len(combos), dtype=bool)
    for s in range(0, len(combos), 256):  # c is covered by a d != c it fits
        c = combos[s : s + 256, None, :]
        d = combos[None, :, :]
        fits = ((c == -1) | (c == d)).all(axis=2) & (c != d).any(axis=2)
        covered[s : s + 256] = fits.any(axis=1)
    return pd.DataFrame(combos[~covered], columns=ax).sort_values(ax)


def _nanmedian(x) -> float:
    """The median of the non-NaN values (as pandas' median), NaN without one."""
    x = x[~np.isnan(x)]
    return float(np.median(x)) if len(x) else np.nan


def _speedup(base_ns, ns) -> str:
    """base_ns / ns as "1.23x"; "-" where a time is 0 ns (a timer that saw
    nothing: no speed to tell), NaN or infinite."""
    if not (base_ns > 0 and ns > 0 and np.isfinite(base_ns) and np.isfinite(ns)):
        return "-"
    return fmt(base_ns / ns, 3) + "x"


def _variant_rows(nonref, keys, ax, variants, col, ratio, named):
    """The rows of the side-by-side table, one per key (a row of keys): each
    variant's throughput, its ratio to the first reference (ratio: that column
    of reference_ratios, None without one) and its speedup over the first
    variant. A row without an axis (-1) fits every value of it (at_point);
    named[i] gives axis ax[i]'s values' names (a categorical axis)."""
    vals = nonref[ax].to_numpy() if ax else np.zeros((len(nonref), 0))
    var = nonref["variant"].to_numpy()
    thr = nonref[col].to_numpy(dtype=float)
    ns = nonref["median_ns"].to_numpy(dtype=float)
    rat = None if ratio is None else ratio.reindex(nonref.index).to_numpy(dtype=float)
    of = {v: var == v for v in variants}
    out = []
    for k in keys[ax].to_numpy() if ax else [np.zeros(0)]:
        fit = ((vals == k) | (vals == -1)).all(axis=1)
        sel = {v: fit & of[v] for v in variants}
        has = {v: bool(sel[v].any()) for v in variants}
        cells = [named[i].get(int(x), fmt_int(x)) if x != -1 else "-" for i, x in enumerate(k)]
        cells += [fmt(_nanmedian(thr[sel[v]])) if has[v] else "-" for v in variants]
        if rat is not None:
            cells += [fmt(_nanmedian(rat[sel[v]]), 3) if has[v] else "-" for v in variants]
        b = _nanmedian(ns[sel[variants[0]]]) if has[variants[0]] else np.nan
        cells += [
            _speedup(b, _nanmedian(ns[sel[v]])) if has[v] and np.isfinite(b) else "-"
            for v in variants[1:]
        ]
        out.append(cells)
    return out


def _unchecked_text(f) -> str:
    """What a family's section says of its ok rows no CPU check compared."""
    none = (f["status"] == 0) & (f["check_mode"].astype(str) == "none")
    model = int((none & (f["backend"] == "model")).sum())
    other = int(none.sum()) - model
    out = ""
    if model:
        out += (
            f" Its {model} model row(s) are predictions: no fill, launch or check of its code ran."
        )
    if other:
        out += f" {other} measured row(s) were not checked: the family has no check hook."
    return out


def _point_cells(r, axes, col, ratios, names):
    """A row of the table of every measured point."""
    peak = r.get("peak_gbps", np.nan)
    return [
        r["variant"] + (" (ref)" if r["is_reference"] else ""),
        axes_text(r, axes, names),
        fmt(r["median_ns"] / 1e3, 4),
        fmt(r[col]),
        fmt(100 * r["gbps"] / peak, 3) if peak and peak > 0 else "-",
        *[fmt(ratios.loc[r.name, v], 3) for v in ratios.columns],
        fmt(r["model_sectors_per_request"], 3),
        fmt(r["model_efficiency"], 3),
        fmt(r["model_conflict_degree"], 3),
        fmt(r["rse"] * 100, 2),
        str(int(r["n_samples"])),
        r["check_mode"],
    ]


def _merge_model_devices(rows):
    """Model rows of several CCs with one message: one line, CCs listed."""
    out = {}
    for dev, v, st, msg, n, eg in rows:
        key = (v, st, msg) if dev.startswith("model CC") else (dev, v, st, msg)
        if key in out:
            o = out[key]
            o[0] += ", " + dev.replace("model CC ", "")
            o[4] = str(int(o[4]) + int(n))
        else:
            out[key] = [dev, v, st, msg, n, eg]
    return list(out.values())
