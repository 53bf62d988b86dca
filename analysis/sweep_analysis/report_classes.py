"""The device classes of the report side by side, within one file (a run
over several classes) or across files (`sweep-report h100.h5 h200.h5`):
per family each class's throughput, its ratio to its own reference rows
and the model's bound for its CC; then which points scale with memory
bandwidth between the first class and each other one (timemodel.SCALE_RULE)."""

from __future__ import annotations

import numpy as np

from . import figures, timemodel
from .doc import Bullets, Heading, Para, Table
from .reader import DEVICE_CLASS
from .tables import axes_text, fmt, metric, reference_ratios, variant_order

CLASS = "_class"  # the label of a row's class: its name, with its file where two files share it


class ClassSections:
    """The classes side by side (a mixin of report.Report)."""

    def classes(self):
        """Per family the device classes side by side: figures, ratios to each
        class's own reference rows, the model's bound for each class's CC;
        then the time ratios against the datasheet bandwidths."""
        rows = self.classes_rows
        rows = rows[rows["backend"].isin(["cuda", "replay"]) & (rows["status"] == 0)]
        pairs = rows[["file", DEVICE_CLASS]].drop_duplicates()
        if pairs[DEVICE_CLASS].nunique() < 2:
            return
        files = list(dict.fromkeys(rows["file"]))
        pairs = pairs.sort_values(DEVICE_CLASS, kind="stable")
        pairs = pairs.iloc[np.argsort([files.index(f) for f in pairs["file"]], kind="stable")]
        shared = pairs[DEVICE_CLASS].duplicated(keep=False)
        labels = {
            (f, c): f"{c} ({f})" if dup else c
            for f, c, dup in zip(pairs["file"], pairs[DEVICE_CLASS], shared)
        }
        rows = rows.copy()
        rows[CLASS] = [labels[k] for k in zip(rows["file"], rows[DEVICE_CLASS])]
        order = list(labels.values())
        self.add(Heading(2, "Classes: how the architectures differ"))
        bands = {c: timemodel.datasheet_gbps(rows[rows[CLASS] == c]) for c in order}
        fp32 = {c: timemodel.datasheet_fp32(rows[rows[CLASS] == c]) for c in order}
        legend = []
        for c in order:
            g = rows[rows[CLASS] == c]
            gbps, src = bands[c]
            legend.append(
                f"**{c}**: {g['device'].iloc[0]}, {g['uuid'].nunique()} GPU(s)"
                + (f", {g['file'].iloc[0]}" if len(files) > 1 else "")
                + (f"; DRAM {fmt(gbps, 4)} GB/s ({src})" if np.isfinite(gbps) else f"; {src}")
            )
        self.add(Para(_ABOUT), Bullets(legend))
        self.classes_side_by_side(rows, order)
        self.bandwidth_scaling(rows, order, bands, fp32)

    def classes_side_by_side(self, rows, classes):
        summary = []
        for fam in dict.fromkeys(rows["family"]):
            f = rows[rows["family"] == fam].copy()
            col, units = metric(f)
            ratios = reference_ratios(f.assign(device=f[CLASS]), self.axes, col)
            ref = ratios.columns[0] if len(ratios.columns) else None
            f["x_ref"] = ratios[ref] if ref else np.nan
            f["bound"] = f[col] * f["median_ns"] / f["model_time_bound_ns"]
            f["of_bound"] = f[col] / f["bound"]
            f["point"] = [axes_text(r, self.axes, self.names) for _, r in f.iterrows()]
            shared = f.groupby(["variant", "point"])[CLASS].transform("nunique") > 1
            f = f[shared]
            if f.empty:
                continue
            detail = [
                _detail_cells(v, pt, g, classes, col)
                for (v, pt), g in f.sort_values("plan_index").groupby(
                    ["variant", "point"], sort=False
                )
            ]
            for v in variant_order(f):
                fv = f[f["variant"] == v]
                cells = [fam, v]
                for c in classes:
                    g = fv[fv[CLASS] == c]
                    cells += [fmt(g["x_ref"].median(), 3), _pct(g["of_bound"].median())]
                summary.append(cells)
            heads = [
                h
                for c in classes
                for h in (f"{c} {units}", f"{c} x {ref or 'ref'}", f"{c} model", f"{c} % of model")
            ]
            heads += [f"{c} time / {classes[0]}" for c in classes[1:]]
            self.add(
                Table(
                    ["variant", "point", *heads],
                    detail,
                    right=set(range(2, 2 + len(heads))),
                    caption=f"{fam} per class: {units}, ratio to {ref or 'no reference'} on the "
                    f"same class, the model's bound ({units}) for the class's CC and the "
                    f"measured share of it; each class's time over {classes[0]}'s",
                    folded=len(detail) > 12,
                )
            )
        if summary:
            self.add(
                Table(
                    ["family", "variant"]
                    + [h for c in classes for h in (f"{c} x ref", f"{c} % of model")],
                    summary,
                    right=set(range(2, 2 + 2 * len(classes))),
                    caption="Per variant, the median over the points all classes ran: ratio to "
                    "the family's reference on the same class, and the measured share of the "
                    "model's bound for the class's CC",
                )
            )

    def bandwidth_scaling(self, rows, classes, bands, fp32):
        """Which points scale with memory bandwidth between the first class
        and each other one; sets the Summary's note of it and keeps the
        pairs for its figure (self.class_pairs)."""
        base = classes[0]
        gbps_a, _ = bands[base]
        a = rows[rows[CLASS] == base]
        found, notes = [], []
        for c in classes[1:]:
            gbps_b, _ = bands[c]
            if not (np.isfinite(gbps_a) and np.isfinite(gbps_b)):
                notes.append(f"{c} against {base}: not judged, a datasheet bandwidth is unknown")
                continue
            j = timemodel.bandwidth_scaling(a, rows[rows[CLASS] == c], gbps_a, gbps_b, self.axes)
            if len(j):
                found.append(
                    j.assign(pair=f"{c} / {base}", fp32=fp32[base] / fp32[c], of=c, to=base)
                )
        self.add(Heading(3, "Which points scale with memory bandwidth"))
        self.add(Para(timemodel.SCALE_RULE + (" " + "; ".join(notes) + "." if notes else "")))
        if not found:
            return
        self.class_pairs = found
        self.figure(
            figures.bandwidth_ratios(found, timemodel.SCALE_TOLERANCE),
            "classes-bandwidth",
            "Each point's time on a class over its time on the first class, per family; the "
            f"dashed line is the ratio of their datasheet DRAM bandwidths (first class's over "
            f"the other's), the band +-{timemodel.SCALE_TOLERANCE:.0%} of it, the dotted line "
            "the ratio of their datasheet FP32 peaks.",
        )
        table, lines = [], []
        for j in found:
            for fam, g in j.groupby("family", sort=False):
                off = g[~g["scales"]]
                table.append(
                    [
                        g["pair"].iloc[0],
                        fam,
                        str(len(g)),
                        str(int(g["scales"].sum())),
                        fmt(g["ratio"].median(), 3),
                        fmt(g["expected"].iloc[0], 3),
                        fmt(g["fp32"].iloc[0], 3),
                        _examples(off, self.axes, self.names) or "-",
                    ]
                )
            lines.append(_scaling_text(j, base, bands))
        self.scaling_line = "; ".join(lines)
        self.add(
            Table(
                ["classes", "family", "points", "scale with bandwidth", "median time ratio"]
                + ["bandwidth ratio", "FP32 peak ratio", "points that do not (first ones)"],
                table,
                right={2, 3, 4, 5, 6},
                caption="Per family, the points both classes ran: how many scale with memory "
                "bandwidth, and those that do not",
            )
        )


_ABOUT = (
    "The same points on each device class of the report, of one run or of several files: "
    "each class's throughput, its ratio to the family's reference variant measured on that "
    "class at the same sizes (x ref), and the model's bound for that class's CC (useful work "
    "over `model_time_bound_ns`: the moved bytes the model predicts for the CC at the GPU's "
    "theoretical peak) beside what was measured there (% of bound). A class that ran a point "
    "on several GPUs shows its median GPU's row. Emulated classes replay recorded times "
    "scaled by their speed: they test the chain and measure no GPU."
)


def _scaling_text(j, a, bands) -> str:
    """The Summary's words on class j["of"] against the first class a,
    every figure said what it is."""
    pair, b, fp = j["pair"].iloc[0], j["of"].iloc[0], float(j["fp32"].iloc[0])
    fp_text = f"; datasheet FP32 peaks' ratio {fmt(fp, 3)}" if np.isfinite(fp) else ""
    return (
        f"{pair} time per point: median {fmt(j['ratio'].median(), 3)} over {len(j)} points, "
        f"{int(j['scales'].sum())} of them scaling with memory bandwidth (within "
        f"{timemodel.SCALE_TOLERANCE:.0%} of {fmt(j['expected'].iloc[0], 3)} = "
        f"{fmt(bands[a][0], 4)} / {fmt(bands[b][0], 4)} GB/s, the datasheet DRAM bandwidths)"
        + fp_text
    )


def _detail_cells(variant, point, g, classes, col) -> list:
    """A row of a family's table: each class's figures, then each time ratio."""
    by = {r[CLASS]: r for _, r in g.iterrows()}
    cells = [variant, point]
    for c in classes:
        r = by.get(c)
        cells += (
            [fmt(r[col]), fmt(r["x_ref"], 3), fmt(r["bound"]), _pct(r["of_bound"])]
            if r is not None
            else ["-"] * 4
        )
    base = by.get(classes[0])
    for c in classes[1:]:
        r = by.get(c)
        ok = r is not None and base is not None
        cells.append(fmt(r["median_ns"] / base["median_ns"], 3) if ok else "-")
    return cells


def _examples(off, axes, names, k=3) -> str:
    parts = [
        f"{r['variant']} {axes_text(r, axes, names)} ({fmt(r['ratio'], 3)})"
        for _, r in off.head(k).iterrows()
    ]
    return "; ".join(parts) + (f" (+{len(off) - k} more)" if len(off) > k else "")


def _pct(v) -> str:
    return f"{100 * v:.0f}%" if v is not None and np.isfinite(v) else "-"
