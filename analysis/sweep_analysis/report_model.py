"""The model's sections: the cross-architecture heatmaps and tables, the
figures per named access (schema 8's /model_accesses), each measured
median's interval and where measured and modelled efficiency part
(modelgap.py), the model against hardware counters (counters.py) and the
tables of files made with --metrics."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import counters, figures, modelgap
from .doc import Heading, Para, Table
from .reader import cc_text, device_targets
from .report_page import _slug
from .stats import median_ci
from .tables import axes_text, fmt, fold_model, variant_order

# What the cross-architecture section reads of the model rows, besides the axes.
MODEL_COLUMNS = ("family", "variant", "cc", "plan_index", "model_efficiency")
MODEL_COLUMNS += ("model_sectors_per_request", "model_transactions_per_request")
MODEL_COLUMNS += ("model_conflict_degree",)


# Rows of a family's table of per-access figures, at most: a point's every
# access at the highest CC, so a plug-in's writer reads each load's cost.
ACCESS_ROWS = 200


class ModelSections:
    """The model's sections (a mixin of report.Report)."""

    def model_accesses(self):
        """Per family whose variants name their accesses: each access's
        requests and sectors per request at the highest CC modelled, and how
        far the counts are exact (docs/hdf5-schema.md, /model_accesses)."""
        acc = [r.accesses for r in self.runs if len(r.accesses)]
        if not acc:
            return
        a = pd.concat(acc, ignore_index=True)
        a = a[a["backend"] == "model"]
        self.add(Heading(3, "Per access (model)"))
        for fam, f in a.groupby("family", sort=False):
            f = f[f["cc"] == f["cc"].max()]
            point = f.apply(lambda r: axes_text(r, self.axes), axis=1)
            rows = [
                [r.variant, p, r.name, fmt(r.requests), fmt(r.transactions / r.requests), r.counts]
                for r, p in zip(f.head(ACCESS_ROWS).itertuples(), point)
            ]
            more = f" (the first {ACCESS_ROWS} of {len(f)})" if len(f) > ACCESS_ROWS else ""
            self.add(
                Table(
                    ["variant", "point", "access", "requests", "transactions / request", "counts"],
                    rows,
                    right={3, 4},
                    caption=f"{fam} at CC {cc_text(f['cc'].iloc[0])}: the model's figures of "
                    f"each named access{more}; counts: exact, requests_exact (the transactions "
                    "sampled) or sampled",
                    folded=True,
                )
            )

    def cross_arch(self):
        self.add(Heading(2, "Cross-architecture (model)"))
        # the CC targets: device targets have a section of their own (report_time.py)
        model = ((self.rows["backend"] == "model") & (self.rows["status"] == 0)).to_numpy()
        model = model & ~device_targets(self.rows)
        m = self.rows[[*MODEL_COLUMNS, *self.axes]][model]  # these columns alone: a copy
        if m.empty:
            self.add(
                Para(
                    "No model rows in this file. `sweep --backend model JOB.yaml` "
                    "predicts every point for the compute capabilities listed under "
                    "`model: ccs:` in the job, no GPU needed."
                )
            )
            return
        tpr = "model_transactions_per_request"
        if m[tpr].isna().all():
            tpr = "model_sectors_per_request"
        values = [
            (
                "model_efficiency",
                "useful / moved bytes",
                "share of the bytes moved that the computation needs (1 = perfect)",
            ),
            (
                tpr,
                "transactions (sectors from CC 6.0) per request",
                "global-memory transactions per warp-level request (32-byte sectors "
                "from CC 6.0; per half-warp segments summed on CC 1.x)",
            ),
            (
                "model_conflict_degree",
                "passes per request",
                "shared-memory bank conflict degree (or distinct constant addresses) per "
                "request: 1 = no conflict",
            ),
        ]
        self.add(
            Para(
                "Predicted by sweep's model from the same index functions the kernels "
                "use. Each cell of the heatmaps is the median over the variant's points; "
                "the tables below them give every point, with the axes that change no "
                "figure folded away. Grey: not modelled for that CC."
            )
        )
        self.model_heatmaps(m, values, tpr)
        self.model_tables(m, values, tpr)

    def model_heatmaps(self, m, values, tpr):
        """A heatmap per model figure: family/variant x CC, each cell the
        variant's worst value over its points."""
        ccs = sorted(m["cc"].unique())
        order = list(dict.fromkeys(zip(m["family"], m["variant"])))
        worst = {"model_efficiency": "min", tpr: "max", "model_conflict_degree": "max"}
        for col, units, what in values:
            if m[col].isna().all():
                continue
            g = m.groupby(["family", "variant", "cc"], sort=False)[col].agg(worst[col])
            t = g.unstack("cc").reindex(pd.MultiIndex.from_tuples(order)).dropna(how="all")
            t = t.reindex(columns=ccs)
            t.index = [f"{f} / {v}" for f, v in t.index]
            t.columns = [cc_text(c) for c in t.columns]
            extreme = "lowest" if worst[col] == "min" else "highest"
            self.figure(
                figures.model_heatmap(
                    t,
                    col,
                    f"Model: {what.split(' (')[0]}\n({extreme} over each variant's points)",
                    units,
                ),
                f"model-{col}",
                f"Model, family/variant x CC: {what}; each cell is the variant's {extreme} "
                f"value over its points (the tables below give every point).",
            )

    def model_tables(self, m, values, tpr):
        """Per family, every point's model figures per CC."""
        for fam, f in m.groupby("family", sort=False):
            rows = []
            fccs = sorted(f["cc"].unique())
            per_variant = dict(list(f.groupby("variant", sort=False)))
            for v in variant_order(f):
                fv = per_variant[v]
                cols = [c for c, _, _ in values if fv[c].notna().any()]
                if cols:
                    folded, kept = fold_model(fv, self.axes, cols)
                    rows += _model_rows(folded, kept, v, tpr, fccs, (fam, self.names))
            if rows:
                self.add(
                    Table(
                        ["variant", "point", *[f"CC {cc_text(c)}" for c in fccs]],
                        rows,
                        right=set(range(2, 2 + len(fccs))),
                        caption=f"{fam}, model: transactions per request / useful "
                        f"over moved bytes; N-way: shared-memory conflict "
                        f"degree, or constant-cache passes (axes that "
                        f"change no figure are left out)",
                        folded=True,
                    )
                )

    def intervals_and_gaps(self):
        """Per measured row the 95% interval of its median time (ci_lo_ns,
        ci_hi_ns, for the figures' error bars) and where it parts from the
        model (model_gap: '' or which way; modelgap.RULE)."""
        samples = {r.label: r.samples for r in self.runs}
        lo, hi = np.full(len(self.rows), np.nan), np.full(len(self.rows), np.nan)
        at = np.flatnonzero(
            ((self.rows["backend"] == "cuda") & (self.rows["status"] == 0)).to_numpy()
        )
        where = self.rows[["file", "sample_offset", "n_samples"]].iloc[at]
        for i, r in zip(at, where.to_dict("records")):
            lo[i], hi[i] = median_ci(modelgap.samples_of(samples, r))
        self.rows["ci_lo_ns"], self.rows["ci_hi_ns"] = lo, hi
        self.gaps = modelgap.find(self.rows, self.axes, samples)
        self.rows["model_gap"] = self.gaps["flag"].reindex(self.rows.index).fillna("")

    def model_gaps(self):
        """The points where measured and modelled efficiency part."""
        self.add(Heading(2, "Where model and hardware part"))
        link = "docs/model.md (section *Where model and hardware part*)"
        if self.gaps.empty:
            self.add(
                Para(
                    "Nothing compared: no measured rows with model figures whose variant's "
                    f"modelled efficiency varies (model rows alone never part from the model). "
                    f"{modelgap.RULE} See {link}."
                )
            )
            return
        g = self.rows.join(self.gaps[["measured_rel", "model_rel", "lo", "hi"]], how="inner")
        flagged = g[g["model_gap"] != ""]
        counts = g.groupby(["family", "model_gap"]).size().unstack(fill_value=0)
        parts = [
            f"{fam}: {int(c.get('slower than modelled', 0))} slower, "
            f"{int(c.get('faster than modelled', 0))} faster of {int(c.sum())}"
            for fam, c in counts.iterrows()
        ]
        self.add(
            Para(
                f"The model predicts transactions and useful/moved bytes, not time. "
                f"{modelgap.RULE} "
                f"Flagged points are ringed on the family figures. {link} explains the "
                f"clearest case (offset_read at offset 16 on the H200). "
                f"**{len(flagged)} of {len(g)} compared points part**: {'; '.join(parts)}."
            )
        )
        rows, classes = [], {}
        for i, (_, r) in enumerate(flagged.iterrows()):
            rows.append(
                [
                    r["device"],
                    f"{r['family']} / {r['variant']}",
                    axes_text(r, self.axes, self.names),
                    fmt(r["measured_rel"], 3),
                    fmt(r["model_rel"], 3),
                    f"{fmt(r['lo'], 3)} - {fmt(r['hi'], 3)}",
                    r["model_gap"],
                ]
            )
            classes[(i, 6)] = "differs"
        if rows:
            self.add(
                Table(
                    [
                        "device",
                        "variant",
                        "point",
                        "measured efficiency",
                        "model efficiency",
                        "measured / model (99% interval)",
                        "parts",
                    ],
                    rows,
                    right={3, 4, 5},
                    classes=classes,
                    caption="Points where measured and modelled efficiency part, both relative "
                    "to the variant's best-aligned row",
                    folded=len(rows) > 20,
                )
            )

    def hardware_counters(self):
        """Model against counters, for files made with --counters."""
        missing = counters.unavailable(self.rows)
        if not counters.has_counters(self.rows) and missing.empty:
            return
        self.add(Heading(2, "Model against hardware counters"))
        for why, n in missing.items():
            self.add(Para(f"{n} row(s) without counters: {why}"))
        if not counters.has_counters(self.rows):
            return
        a = counters.agreement(self.rows)
        compared = a["worst"].notna()
        tol = f"{counters.TOLERANCE:.0%}"
        self.add(
            Para(
                f"{int(a['agrees'].sum())} of {int(compared.sum())} rows with model figures agree "
                f"within {tol} on every figure compared: global-load sectors per request and "
                f"requests, shared-load wavefronts per request (the bank-conflict degree) and "
                f"requests. The counters come from launches of their own after each point's "
                f"timing; the model from the same row, for the measuring GPU's compute capability. "
                f"docs/results/h200-counters.md explains the known differences."
            )
        )
        rows, classes = [], {}
        for i, (_, r) in enumerate(a.iterrows()):
            if np.isnan(r["worst"]):
                verdict = "not modelled"
            elif r["agrees"]:
                verdict = "agrees"
            else:
                verdict = f"differs by {r['worst']:.1%}"
                classes[(i, 6)] = "differs"
            rows.append(
                [
                    f"{r['family']} / {r['variant']}",
                    axes_text(r, self.axes, self.names),
                    fmt(r["model_ld_sectors_per_request"], 3),
                    fmt(r["ctr_ld_sectors_per_request"], 3),
                    fmt(r["model_shared_wavefronts_per_request"], 3),
                    fmt(r["ctr_shared_wavefronts_per_request"], 3),
                    verdict,
                ]
            )
        self.add(
            Table(
                [
                    "variant",
                    "point",
                    "model sectors/req",
                    "counter sectors/req",
                    "model wavefronts/req",
                    "counter wavefronts/req",
                    "verdict",
                ],
                rows,
                right={2, 3, 4, 5},
                classes=classes,
                caption=f"Global loads and shared loads, model and counters; "
                f"'differs' marks more than {tol} apart",
                folded=True,
            )
        )
        self.counter_figures(a)

    def counter_figures(self, a):
        """Model against counters, and DRAM bytes against the moved bytes, per device."""
        for dev, g in a.groupby("device", sort=False):
            self.figure(
                figures.counters_scatter(g, dev, counters.TOLERANCE),
                f"counters-{_slug(dev)}",
                "Per measured row with counters: the model's sectors (global loads) and "
                "wavefronts (shared loads) per request against the counters'; on the dashed "
                f"diagonal they agree, red rings differ by more than {counters.TOLERANCE:.0%}.",
            )
            self.figure(
                figures.dram_bytes(self.rows.loc[g.index], dev),
                f"dram-{_slug(dev)}",
                "Per measured row with counters: DRAM bytes read and written against the bytes "
                "the model says the kernel moves (its transactions times their size); above the "
                "diagonal DRAM moves more than the model counts.",
            )

    def metrics(self):
        """--metrics: per family, every counted point with one column per metric."""
        found = [r.metrics.assign(file=r.label) for r in self.runs if len(r.metrics)]
        if not found:
            return
        m = pd.concat(found, ignore_index=True)
        rows = self.rows[self.rows["backend"] == "cuda"]
        joined = rows.merge(m, on=["file", "point_id"], how="inner")
        self.add(
            Heading(2, "Metrics"),
            Para(
                "CUPTI metrics named with `--metrics`, counted over each point's whole launch "
                "in launches of their own after its timing (the file's /metrics table); "
                f"{len(m)} value(s) of {m['point_id'].nunique()} point(s)."
            ),
        )
        for fam in dict.fromkeys(joined["family"]):
            f = joined[joined["family"] == fam]
            names = list(dict.fromkeys(f["name"]))
            unit = {n: str(f[f["name"] == n]["unit"].iloc[0]) for n in names}
            value = {(r["file"], r["point_id"], r["name"]): r["value"] for _, r in f.iterrows()}
            points = f.drop_duplicates(["file", "point_id"]).sort_values(["file", "plan_index"])
            table = [
                [r["variant"], axes_text(r, self.axes, self.names), r["device"]]
                + [fmt(value.get((r["file"], r["point_id"], n))) for n in names]
                for _, r in points.iterrows()
            ]
            self.add(
                Table(
                    ["variant", "point", "device", *[f"{n} ({unit[n] or '-'})" for n in names]],
                    table,
                    right=set(range(3, 3 + len(names))),
                    caption=f"{fam}: metrics per point",
                )
            )
        self.progress(f"metrics: {len(m)} value(s)")


def _model_rows(folded, kept, variant, tpr, ccs, named) -> list:
    """A variant's rows of a model table: one per value of the kept axes (the
    folded rows come sorted by them, then by CC), a cell per CC. named:
    (family, the files' categorical axes' names)."""
    n = len(folded)
    figs = [
        folded[c].to_numpy(float) if c in folded else np.full(n, np.nan)
        for c in (tpr, "model_efficiency", "model_conflict_degree")
    ]
    cells = [
        _model_cell({tpr: t, "model_efficiency": e, "model_conflict_degree": d}, tpr)
        for t, e, d in zip(*figs)
    ]
    keys = folded[kept].to_numpy() if kept else np.zeros((n, 0))
    starts = np.flatnonzero(np.r_[True, (keys[1:] != keys[:-1]).any(axis=1)]) if n else []
    column = {int(c): i for i, c in enumerate(ccs)}
    out = []
    for s, e in zip(starts, [*starts[1:], n]):
        row = ["-"] * len(ccs)
        for k, cc in enumerate(folded["cc"].to_numpy()[s:e], start=s):
            row[column[int(cc)]] = cells[k]
        point = {"family": named[0], **dict(zip(kept, keys[s]))}
        out.append([variant, axes_text(point, kept, named[1]), *row])
    return out


def _model_cell(r, tpr):
    parts = []
    t, e, d = (r.get(c, np.nan) for c in (tpr, "model_efficiency", "model_conflict_degree"))
    if np.isfinite(t):
        parts.append(f"{fmt(t, 3)} / {fmt(e, 2)}")
    if np.isfinite(d):
        parts.append(f"{fmt(d, 3)}-way")
    return ", ".join(parts) or "-"
