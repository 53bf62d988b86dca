"""sweep-report FILE.h5 [MORE.h5 ...] -o DIR: the report a user reads.

DIR gets index.html (self-contained: figures embedded), report.md and the
figures as PNGs. Sections: the run and its devices, the course claims, per
family the variants side by side against the family's reference rows, the
cross-architecture tables from the model, the points where measured and
modelled efficiency part (modelgap), the model against hardware counters
(files made with --counters, with its figures), the metrics of files made
with --metrics (a table per family), and per-rank clocks with outliers
(plus the per-device spread of the same points when several files measured
them). Nothing is written unless everything succeeds.
"""

from __future__ import annotations

import io
import os
import re
import sys
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from . import __version__, budget, claims, counters, figures, fleet, modelgap, summary
from .cli import ArgumentParser, emit, entry, warn_run
from .doc import Bullets, Figure, Heading, Para, Table, to_html, to_markdown
from .output import atomic_dir, check_output
from .reader import (
    DEVICE_CLASS,
    STATUS_NAMES,
    cc_text,
    class_rows,
    latest_per_gpu,
    read,
    take,
)
from .stats import median_ci
from .tables import (
    axes_text,
    device_groups,
    device_spread,
    flag_ranks,
    fmt,
    fmt_int,
    fold_model,
    metric,
    rank_clocks,
    reference_ratios,
    throttle_text,
    used_axes,
    variant_order,
)

TOOL = "sweep-report"

# What the cross-architecture section reads of the model rows, besides the axes.
MODEL_COLUMNS = ("family", "variant", "cc", "plan_index", "model_efficiency")
MODEL_COLUMNS += ("model_sectors_per_request", "model_transactions_per_request")
MODEL_COLUMNS += ("model_conflict_degree",)

ABOUT_COLUMNS = (
    "GB/s are useful bytes (what the computation must move, counted as the course counts "
    "them) over the median time of one launch; GFLOP/s likewise for matmul. `x ref` is a "
    "variant's throughput over its family's reference variant measured in the same file on "
    "the same device type at the same sizes. Model figures come from sweep's model for the "
    "row's compute capability (for measured rows: the measuring GPU's)."
)


class Report:
    def __init__(self, runs, outdir, progress):
        self.runs = runs
        self.outdir = outdir
        self.progress = progress
        self.blocks = []
        self.n_fig = 0
        self.headlines = {}  # family -> its Summary line
        self.claim_results, self.full_claims = [], []
        self.fleet_line = "not compared (no device class with two GPUs)"
        self.units = {}
        for r in runs:
            self.units.update(r.units)
        self.axes = list(dict.fromkeys(a for r in runs for a in r.axes))
        # measured and model rows, one per point and device class (reader.class_rows)
        self.rows = self._ordered([class_rows(r.rows, r.placement) for r in runs])
        # every GPU's latest row of each point, replay rows included: the fleet
        # and class sections (which say "emulated") and the per-rank clocks
        self.every = self._ordered([latest_per_gpu(r.all_rows) for r in runs])
        self.classes_rows = self._ordered([class_rows(r.all_rows, r.placement) for r in runs])

    def _ordered(self, parts):
        """The parts as one frame in (file, plan) order; a part that is one
        file's rows in that order already is not copied."""
        if len(parts) == 1:
            rows = parts[0].reset_index(drop=True)
        else:
            rows = pd.concat(parts, ignore_index=True)
        for a in self.axes:  # a file made with fewer families lacks some axis columns
            rows[a] = rows[a].fillna(-1).astype(np.int64)
        order = rows[["file", "plan_index"]].sort_values(["file", "plan_index"], kind="stable")
        return take(rows, order.index).reset_index(drop=True)

    # -- helpers ------------------------------------------------------------
    def add(self, *blocks):
        self.blocks.extend(blocks)

    def figure(self, fig, name, caption):
        if fig is None:
            return
        self.n_fig += 1
        caption = f"{caption} {figures.caption_notes(fig)}".strip()
        # the number makes it unique; the name is made of safe characters only
        rel = f"figures/{self.n_fig:02d}-{_file_part(name)}.png"
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        plt.close(fig)
        png = buf.getvalue()
        with open(os.path.join(self.outdir, rel), "wb") as fh:
            fh.write(png)
        self.add(Figure(rel, caption, png))
        self.progress(f"figure {rel}")

    def unit(self, col):
        return self.units.get(col, "")

    # -- sections -----------------------------------------------------------
    def header(self):
        names = ", ".join(r.label for r in self.runs)
        self.add(Heading(1, f"sweep report: {names}"))
        for r in self.runs:
            a = r.attrs
            counts = r.rows["status"].value_counts()
            status = ", ".join(f"{int(counts.get(k, 0))} {v}" for k, v in STATUS_NAMES.items())
            job = a.get("job_path", "?")
            end = a.get("end_time", "not recorded (killed, or still running)")
            self.add(
                Para(
                    f"**{r.label}**: job `{job}`, written by {a.get('tool_version', '?')}; "
                    f"started {a.get('start_time', '?')}, ended {end}; "
                    f"{a.get('sessions', '?')} session(s), backend {a.get('backend', '?')}, "
                    f"{a.get('mpi_size', '?')} MPI rank(s). {len(r.rows)} rows: {status}."
                )
            )
            if r.notes:
                self.add(Bullets(r.notes))
        self.add(Para(ABOUT_COLUMNS))

    def devices(self):
        self.add(Heading(2, "Devices"))
        rows = []
        for r in self.runs:
            for _, d in r.devices.iterrows():
                model = d["backend"] == "model"
                rows.append(
                    [
                        r.label,
                        str(d["rank"]),
                        str(d["session"]),
                        d["host"],
                        "model backend"
                        if model
                        else d["name"] + (" (emulated)" if d["backend"] == "replay" else ""),
                        "-" if model else cc_text(d["cc"]),
                        "-" if model else str(d["sm_count"]),
                        "-" if model else fmt(d["peak_gbps"], 4),
                        "-" if model else f"{d['l2_bytes'] / 2**20:.0f}",
                        "-" if model else f"{d['mem_bytes'] / 2**30:.0f}",
                        "-" if model else _cuda_version(d["driver_version"]),
                        d["uuid"] or "-",
                    ]
                )
        self.add(
            Table(
                [
                    "file",
                    "rank",
                    "session",
                    "host",
                    "device",
                    "CC",
                    "SMs",
                    "peak GB/s",
                    "L2 MiB",
                    "memory GiB",
                    "driver CUDA",
                    "UUID",
                ],
                rows,
                right={1, 2, 6, 7, 8, 9},
            )
        )

    def claims(self):
        self.add(Heading(2, "Course claims"))
        self.add(
            Para(
                "Each claim of the course material beside what this file measured and what the "
                "model predicts; docs/course.md says, for each claim, where it comes from, how "
                "sweep tests it and on what hardware. The verdict comes from the rule in the last "
                "column, on the basis named beside it; *on the GPU* and *on the model* give each "
                "side's own verdict where it has one. *not in this file* means the file lacks the "
                "rows that rule needs: jobs/seeds.yaml measures every family, and the CC 1.x "
                "claims need model rows (`sweep --backend model jobs/seeds.yaml -o model.h5`, then "
                "`sweep-report seeds.h5 model.h5 -o DIR`)."
            ),
            Para(
                f"**How a verdict is earned.** {claims.EARNED_RULE} A verdict whose basis is "
                f"*{claims.RULE_ITSELF}* checks the model against a rule the model is written "
                f"from (C1, C2, C4, C15: the CC 1.x coalescing rules), so it confirms sweep's "
                f"code, not a GPU: those verdicts are counted apart from the measured ones. Where "
                f"the GPU and the model disagree the row says both (C6 on a recent GPU: SoA no "
                f"faster than AoS, while the model at CC 1.x prefers SoA)."
            ),
        )
        heads = ["claim", "statement", "course", "measured", "on the GPU", "model", "on the model"]
        table = Table([*heads, "verdict", "basis", "rule"], [], folded=True)
        short = Table([*heads, "verdict", "basis"], [])
        col = {"holds": "holds", "differs": "differs"}
        results = claims.evaluate(self.rows, {r.label: r.samples for r in self.runs})
        self.claim_results = results
        full = f"[{summary.FULL_CLAIMS}](#{Heading(2, summary.FULL_CLAIMS).anchor})"
        for i, (c, v) in enumerate(results):
            table.rows.append(
                [c.id, c.statement, c.course, v.measured, v.on_gpu, v.model, v.on_model]
                + [v.verdict, v.basis, c.rule]
            )
            short.rows.append(
                [c.id, c.statement, c.course, summary.compact(v.measured), v.on_gpu]
                + [summary.compact(v.model), v.on_model, v.verdict, v.basis]
            )
            for k, said in ((4, v.on_gpu), (6, v.on_model), (7, v.verdict)):
                table.classes[(i, k)] = col.get(said, "absent")
                short.classes[(i, k)] = col.get(said, "absent")
        line = _claims_line([v for _, v in results])
        short.caption = (
            f"Each cell gives the range of its figures and the weakest case; every figure and "
            f"each claim's rule: section {full}"
        )
        self.add(Para(f"**{line}**"), short)
        self.full_claims = [
            Heading(2, summary.FULL_CLAIMS),
            Para(
                "The course claims with every figure the verdicts rest on and the rule of each "
                "(the section *Course claims* gives their ranges and weakest cases)."
            ),
            table,
        ]
        self.progress(f"claims: {line}")

    def families(self):
        self.add(Heading(2, "Families"))
        at = self.rows.groupby("family", sort=False).indices
        for fam in dict.fromkeys(self.rows["family"]):
            self.family(fam, at[fam])

    def family(self, fam, at):
        """A family's section: its rows are at these positions. Only the
        measured rows are taken whole (a million model rows are not)."""
        f = self.rows[["variant", "is_reference", "plan_index", "backend", "status", *self.axes]]
        f = f.iloc[at]
        self.add(Heading(3, fam))
        refs = [v for v in variant_order(f) if f[f["variant"] == v]["is_reference"].iloc[0]]
        ax = used_axes(f, self.axes)
        self.add(
            Para(
                f"Variants: {', '.join(v for v in variant_order(f) if v not in refs)}; "
                f"references: {', '.join(refs) or 'none'}; axes: "
                + (", ".join(f"{a} ({self.unit(a) or 'value'})" for a in ax) or "none")
                + "."
            )
        )
        measured = self.rows.take(at[(f["backend"] == "cuda").to_numpy()])
        for dev, g in device_groups(measured):
            self.family_device(fam, g, dev)
        self.family_model(fam, at[(f["backend"] == "model").to_numpy()], measured.empty)
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
            pts = [axes_text(r, self.axes) for _, r in g.head(3).iterrows()]
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
                figures.family_overview(ok, self.axes, fam, dev, self.units),
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
        self.headline(fam, dev, nonref, ratios, col, units)
        if variant_order(nonref):
            self.add(self.variants_table(f"{fam} on {dev}", nonref, ratios, col, units))
        detail = [
            _point_cells(r, self.axes, col, ratios)
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

    def headline(self, fam, dev, nonref, ratios, col, units):
        """The Summary's line for a family (its first measured device): each
        variant's median ratio to the first reference over its points, or its
        median throughput without a reference."""
        if fam in self.headlines or nonref.empty:
            return
        parts = []
        for v in variant_order(nonref):
            idx = nonref.index[nonref["variant"] == v]
            if len(ratios.columns):
                parts.append(f"{v} {fmt(ratios[ratios.columns[0]].loc[idx].median(), 3)}")
            else:
                parts.append(f"{v} {fmt(nonref.loc[idx, col].median())} {units}")
        what = f"x {ratios.columns[0]}" if len(ratios.columns) else "median"
        shown = parts[:6] + ([f"+{len(parts) - 6} more"] if len(parts) > 6 else [])
        self.headlines[fam] = f"**{fam}** on {dev} ({what}): {', '.join(shown)}"

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
        rows = _variant_rows(nonref, _row_keys(nonref, ax), ax, variants, col, ratio)
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

    def cross_arch(self):
        self.add(Heading(2, "Cross-architecture (model)"))
        model = ((self.rows["backend"] == "model") & (self.rows["status"] == 0)).to_numpy()
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
                    rows += _model_rows(folded, kept, v, tpr, fccs)
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
                    axes_text(r, self.axes),
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
                    axes_text(r, self.axes),
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
                [r["variant"], axes_text(r, self.axes), r["device"]]
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

    def ranks(self):
        self.add(Heading(2, "Ranks, clocks and devices"))
        self.clocks_per_rank()
        self.spread_per_device()

    def clocks_per_rank(self):
        """Per rank the clocks NVML reported and the throttle reasons seen."""
        clocks = flag_ranks(rank_clocks(self.every))
        if clocks.empty:
            self.add(Para("No measured rows: clocks are recorded only when a GPU runs the points."))
            return
        self.add(
            Table(
                [
                    "file",
                    "rank",
                    "session",
                    "host",
                    "device",
                    "points",
                    "SM clock median MHz",
                    "SM clock min MHz",
                    "memory clock MHz",
                    "throttle reasons seen",
                    "flag",
                ],
                [
                    [
                        r["file"],
                        str(r["rank"]),
                        str(r["session"]),
                        r["host"],
                        r["device"],
                        str(r["points"]),
                        fmt(r["sm_clock_median"], 4),
                        fmt(r["sm_clock_min"], 4),
                        fmt(r["mem_clock_median"], 4),
                        throttle_text(r["throttle_mask"]),
                        r["flag"] or "-",
                    ]
                    for _, r in clocks.iterrows()
                ],
                right={1, 2, 5, 6, 7, 8},
                caption="Per rank: clocks read from NVML at each point. Flagged: a median SM "
                "clock more than 5% under the other ranks' on the same device type, or "
                "a slowdown reason (power cap, thermal, hardware slowdown).",
            )
        )
        self.figure(
            figures.rank_clocks(clocks),
            "rank-clocks",
            "Median SM clock per rank; the tick marks the lowest clock seen.",
        )

    def spread_per_device(self):
        """The same points on several devices: only across files."""
        pts, devs = device_spread(self.rows, self.axes)
        if devs.empty:
            self.add(
                Para(
                    "Per-device spread across files: none here. Within one file the same point "
                    "runs on several GPUs only under `placement: every_gpu` or `per_class`, or as "
                    "a calibration point (section *Fleet* compares those GPUs when it has two of "
                    "a class). Several files (`sweep-report a.h5 b.h5 -o DIR`, e.g. one run per "
                    "node or per month) show each point's spread over their devices and the "
                    "devices that are outliers."
                )
            )
            return
        self.add(
            Table(
                [
                    "device",
                    "host",
                    "UUID",
                    "files",
                    "points",
                    "speed vs median",
                    "SM clock MHz",
                    "memory clock MHz",
                    "throttle reasons",
                    "flag",
                ],
                [
                    [
                        r["device"],
                        r["host"],
                        r["uuid"],
                        r["files"],
                        str(r["points"]),
                        f"{100 * (r['ratio'] - 1):+.1f}%",
                        fmt(r["sm_clock_median"], 4),
                        fmt(r["mem_clock_median"], 4),
                        r["throttle"],
                        r["flag"] or "-",
                    ]
                    for _, r in devs.iterrows()
                ],
                right={4, 5, 6, 7},
                caption="Devices that measured the same points: median speed over those points "
                "relative to the median device (time ratio); flagged when more than 5% "
                "slower or throttled.",
            )
        )
        self.figure(
            figures.device_spread(devs),
            "device-spread",
            "Per device: speed on the shared points relative to the median device.",
        )
        top = pts.sort_values("spread", ascending=False).head(20)
        self.add(
            Table(
                ["family", "variant", "point", "devices", "min", "median", "max", "spread of time"],
                [
                    [
                        r["family"],
                        r["variant"],
                        r["axes"],
                        str(r["devices"]),
                        fmt(r["min"]),
                        fmt(r["median"]),
                        fmt(r["max"]),
                        f"{100 * r['spread']:.1f}%",
                    ]
                    for _, r in top.iterrows()
                ],
                right={3, 4, 5, 6, 7},
                caption="Points with the widest spread over devices (throughput in "
                "GB/s, GFLOP/s for matmul)",
            )
        )

    def fleet(self):
        """Which GPU is slow: each GPU against its class's median GPU (fleet.RULE),
        and the noise floor where two ranks shared a GPU."""
        found, notes, floors = [], [], []
        for r in self.runs:
            rows, basis = fleet.fleet_rows(self.every[self.every["file"] == r.label])
            floors.append(fleet.repeats(rows).assign(file=r.label))
            if rows["uuid"].nunique() < 2:
                continue
            s = fleet.speeds(rows, r.samples_of)
            if s.empty:
                notes.append(
                    f"{r.label}: no device class has two GPUs that ran the same points, so no "
                    "GPU is compared with another."
                )
                continue
            found.append(s.assign(file=r.label, basis=basis))
        floor = pd.concat(floors, ignore_index=True)
        if not found and floor.empty:
            if notes:
                self.add(Para("**Fleet.** " + " ".join(notes)))
            return
        self.add(Heading(2, "Fleet: which GPU is slow"))
        if notes:
            self.add(Para(" ".join(notes)))
        if found:
            self.fleet_table(pd.concat(found, ignore_index=True))
        for _, f in floor.iterrows():
            self.add(
                Para(
                    f"Noise floor: ranks {f['ranks']} shared GPU `{f['uuid']}`"
                    + (" (emulated)" if f["emulated"] else "")
                    + f" and ran each point on it: over {f['points']} points the ratio of their "
                    f"median times is {f['median']:.4f} in the median, and within "
                    f"{100 * f['p95']:.2f}% of 1 for 95% of the points."
                )
            )

    def fleet_table(self, s):
        several = len(self.runs) > 1
        self.add(
            Para(
                f"Each GPU against the median GPU of its device class, on "
                f"{' / '.join(dict.fromkeys(s['basis']))}. {fleet.RULE}"
                + (
                    " **Emulated** GPUs (replay backend, `--replay-devices`) replay times "
                    "recorded elsewhere, scaled by their speed: their figures test the chain, "
                    "they measure no GPU."
                    if s["emulated"].any()
                    else ""
                )
            ),
        )
        flagged = s[s["flagged"]]
        if len(flagged):
            self.add(Bullets([_flag_line(g, several) for _, g in flagged.iterrows()]))
            self.fleet_line = f"{len(flagged)} of {len(s)} GPUs flagged: " + ", ".join(
                f"`{g['uuid']}` ({g['host']}, speed {g['speed']:.3f})"
                for _, g in flagged.iterrows()
            )
        else:
            self.add(Para(f"No GPU flagged among {len(s)} GPUs compared."))
            self.fleet_line = f"none flagged among {len(s)} GPUs compared"
        rows = []
        for _, g in s.iterrows():
            rows.append(
                [
                    g["class"]
                    + (" (emulated)" if g["emulated"] else "")
                    + (f", {g['file']}" if several else ""),
                    g["host"],
                    g["ranks"],
                    g["uuid"],
                    str(g["points"]),
                    f"{g['speed']:.3f}",
                    f"{g['lo']:.3f} - {g['hi']:.3f}",
                    fmt(g["sm_clock_median"], 4),
                    fmt(g["mem_clock_median"], 4),
                    g["throttle"],
                    _verdict(g),
                ]
            )
        self.add(
            Table(
                ["class", "host", "rank", "UUID", "points", "speed", "99% interval"]
                + ["SM clock MHz", "memory clock MHz", "throttle reasons", "verdict"],
                rows,
                right={4, 5, 6, 7, 8},
                classes={(i, 10): "differs" for i in range(len(s)) if s["flagged"].iloc[i]},
                caption="Per GPU: speed relative to its class's median GPU (1 = the median; "
                "0.8 = takes 1.25x its time), clocks NVML reported, throttle reasons seen.",
            )
        )
        self.progress(f"fleet: {len(s)} GPU(s), {len(flagged)} flagged")

    def classes(self):
        """Per family the device classes side by side: figures, ratios to each
        class's own reference rows, the model's bound for each class's CC."""
        rows = self.classes_rows
        rows = rows[rows["backend"].isin(["cuda", "replay"]) & (rows["status"] == 0)]
        per_file = rows.groupby("file")[DEVICE_CLASS].nunique()
        if not (per_file > 1).any():
            return
        rows = rows[rows["file"].isin(per_file[per_file > 1].index)]
        self.add(Heading(2, "Classes: how the architectures differ"))
        legend = []
        for (f, cls), g in rows.groupby(["file", DEVICE_CLASS], sort=False):
            n = g["uuid"].nunique()
            legend.append(
                f"**{cls}**: {g['device'].iloc[0]}, {n} GPU(s)"
                + (f", {f}" if len(per_file) > 1 else "")
            )
        self.add(
            Para(
                "The same points on each device class of the run: each class's throughput, "
                "its ratio to the family's reference variant measured on that class at the same "
                "sizes (x ref), and the model's bound for that class's CC (useful work over "
                "`model_time_bound_ns`: the moved bytes the model predicts for the CC at the "
                "GPU's theoretical peak) beside what was measured there (% of bound). A class "
                "that ran a point on several GPUs shows its median GPU's row. Emulated classes "
                "replay recorded times scaled by their speed: they test the chain and measure "
                "no GPU."
            ),
            Bullets(legend),
        )
        for _, fr in rows.groupby("file", sort=False):
            self.classes_of_file(fr)

    def classes_of_file(self, rows):
        classes = list(dict.fromkeys(rows.sort_values(DEVICE_CLASS)[DEVICE_CLASS]))
        summary = []
        for fam in dict.fromkeys(rows["family"]):
            f = rows[rows["family"] == fam].copy()
            col, units = metric(f)
            ratios = reference_ratios(f, self.axes, col)
            ref = ratios.columns[0] if len(ratios.columns) else None
            f["x_ref"] = ratios[ref] if ref else np.nan
            f["bound"] = f[col] * f["median_ns"] / f["model_time_bound_ns"]
            f["of_bound"] = f[col] / f["bound"]
            f["point"] = [axes_text(r, self.axes) for _, r in f.iterrows()]
            shared = f.groupby(["variant", "point"])[DEVICE_CLASS].transform("nunique") > 1
            f = f[shared]
            if f.empty:
                continue
            detail = []
            for (v, pt), g in f.sort_values("plan_index").groupby(["variant", "point"], sort=False):
                by = {r[DEVICE_CLASS]: r for _, r in g.iterrows()}
                cells = [v, pt]
                for c in classes:
                    r = by.get(c)
                    cells += (
                        [fmt(r[col]), fmt(r["x_ref"], 3), fmt(r["bound"]), _pct(r["of_bound"])]
                        if r is not None
                        else ["-"] * 4
                    )
                detail.append(cells)
            for v in variant_order(f):
                fv = f[f["variant"] == v]
                cells = [fam, v]
                for c in classes:
                    g = fv[fv[DEVICE_CLASS] == c]
                    cells += [fmt(g["x_ref"].median(), 3), _pct(g["of_bound"].median())]
                summary.append(cells)
            heads = [
                h
                for c in classes
                for h in (f"{c} {units}", f"{c} x {ref or 'ref'}", f"{c} model", f"{c} % of model")
            ]
            self.add(
                Table(
                    ["variant", "point", *heads],
                    detail,
                    right=set(range(2, 2 + len(heads))),
                    caption=f"{fam} per class: {units}, ratio to {ref or 'no reference'} on the "
                    f"same class, the model's bound ({units}) for the class's CC and the "
                    "measured share of it",
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

    def footer(self):
        self.add(Heading(2, "About this report"))
        made = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        self.add(
            Para(
                f"Made by sweep_analysis {__version__} on {made} "
                f"with `{TOOL} {' '.join(r.path for r in self.runs)} -o DIR`. The file format is "
                f"docs/hdf5-schema.md; the raw samples of every row are in the file's /samples "
                f"(`sweep-export FILE --csv --table samples`); `sweep-compare A.h5 B.h5` compares "
                f"two runs."
            )
        )

    def build(self):
        self.header()
        self.devices()
        self.fleet()
        self.claims()
        self.intervals_and_gaps()
        self.families()
        self.classes()
        self.cross_arch()
        self.model_gaps()
        self.hardware_counters()
        self.metrics()
        self.ranks()
        self.add(*budget.section(self.rows))
        self.add(*self.full_claims)
        self.footer()
        self.blocks[1:1] = self.summary()
        return self.blocks

    def summary(self) -> list:
        """The opening section: one screen (summary.SUMMARY_LINES lines of report.md)."""
        line, bad = summary.claims_line(self.claim_results)
        items = [line] + [f"not holding: {b}" for b in bad]
        fams = list(self.headlines.values())
        gaps = int((self.gaps["flag"] != "").sum()) if len(self.gaps) else 0
        items.append(
            f"**Model gap**: {gaps} measured point(s) part from the model "
            f"(section *Where model and hardware part*)."
        )
        items.append(f"**Fleet**: {self.fleet_line}.")
        items += [f"**Time budget**: {b}" for b in summary.budget_lines(self.rows)] or [
            "**Time budget**: no measured rows."
        ]
        # heading, blank, the bullets, blank, the closing line: what is left is for families
        room = summary.SUMMARY_LINES - 5 - len(items) - 1
        if len(fams) > room:
            left = len(fams) - room + 1
            fams = fams[: room - 1] + [f"+{left} more families (section *Families*)"]
        if fams:
            items[1 + len(bad) : 1 + len(bad)] = [
                "**Headline ratios** (median over each variant's points; the family's first "
                "device):"
            ] + fams
        return [
            Heading(2, "Summary"),
            Bullets(items),
            Para(
                "Details follow: the runs and devices, the fleet, the claims, each family, "
                "the model, the time budget and every claim's figures."
            ),
        ]


def _flag_line(g, several) -> str:
    """A flagged GPU, one line: the word, its full UUID, host, rank, clocks, throttle reasons."""
    return (
        f"**flagged**: GPU `{g['uuid']}`"
        + (" (**emulated**)" if g["emulated"] else "")
        + f" of class {g['class']}"
        + (f" in {g['file']}" if several else "")
        + f", host {g['host']}, rank {g['ranks']}: speed {g['speed']:.3f} of its class's "
        f"median GPU (99% interval {g['lo']:.3f} - {g['hi']:.3f}) over {g['points']} point(s); "
        f"SM clock {fmt(g['sm_clock_median'], 4)} MHz, memory clock "
        f"{fmt(g['mem_clock_median'], 4)} MHz, throttle reasons: {g['throttle']}"
    )


def _verdict(g) -> str:
    """The fleet table's verdict; only a flagged GPU's holds the word."""
    if g["flagged"]:
        v = "flagged"
    elif g["hi"] < 1:
        v = f"slower, not surely by {fleet.THRESHOLD:.0%}"
    elif g["lo"] > 1:
        v = "faster"
    else:
        v = "as its class"
    return v + ("; throttled" if g["slowdown"] else "")


def _pct(v) -> str:
    return f"{100 * v:.0f}%" if v is not None and np.isfinite(v) else "-"


def _claims_line(verdicts) -> str:
    """The claims summary: verdicts counted by basis, the rule-itself ones apart."""

    def count(basis):
        vs = [v.verdict for v in verdicts if v.basis == basis]
        return f"{vs.count('holds')} hold, {vs.count('differs')} differ"

    absent = sum(v.verdict == claims.ABSENT for v in verdicts)
    return (
        f"Measured: {count('measured')}. Model: {count('model')}. "
        f"{claims.RULE_ITSELF}: {count(claims.RULE_ITSELF)}. {absent} not in this file."
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


def _variant_rows(nonref, keys, ax, variants, col, ratio):
    """The rows of the side-by-side table, one per key (a row of keys): each
    variant's throughput, its ratio to the first reference (ratio: that column
    of reference_ratios, None without one) and its speedup over the first
    variant. A row without an axis (-1) fits every value of it (at_point)."""
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
        cells = [fmt_int(x) if x != -1 else "-" for x in k]
        cells += [fmt(_nanmedian(thr[sel[v]])) if has[v] else "-" for v in variants]
        if rat is not None:
            cells += [fmt(_nanmedian(rat[sel[v]]), 3) if has[v] else "-" for v in variants]
        b = _nanmedian(ns[sel[variants[0]]]) if has[variants[0]] else np.nan
        cells += [
            fmt(b / _nanmedian(ns[sel[v]]), 3) + "x" if has[v] and np.isfinite(b) else "-"
            for v in variants[1:]
        ]
        out.append(cells)
    return out


def _point_cells(r, axes, col, ratios):
    """A row of the table of every measured point."""
    peak = r.get("peak_gbps", np.nan)
    return [
        r["variant"] + (" (ref)" if r["is_reference"] else ""),
        axes_text(r, axes),
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


def _model_rows(folded, kept, variant, tpr, ccs) -> list:
    """A variant's rows of a model table: one per value of the kept axes (the
    folded rows come sorted by them, then by CC), a cell per CC."""
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
        out.append([variant, axes_text(dict(zip(kept, keys[s])), kept), *row])
    return out


def _model_cell(r, tpr):
    parts = []
    t, e, d = (r.get(c, np.nan) for c in (tpr, "model_efficiency", "model_conflict_degree"))
    if np.isfinite(t):
        parts.append(f"{fmt(t, 3)} / {fmt(e, 2)}")
    if np.isfinite(d):
        parts.append(f"{fmt(d, 3)}-way")
    return ", ".join(parts) or "-"


def _slug(s):
    return "".join(c if c.isalnum() else "-" for c in s.lower()).strip("-")[:40]


FILE_PART_MAX = 100  # characters of a figure's name after its number


def _file_part(name):
    """A name as part of a file name and of a link: ASCII letters, digits, `_`
    and `-`, every other character `-` (a family a file names `a/b` or `..`:
    no folder, no link to escape). Names sweep writes are kept as they are."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", name)[:FILE_PART_MAX]


def _cuda_version(v):
    v = int(v)
    return f"{v // 1000}.{(v % 1000) // 10}" if v > 0 else "-"


def make_report(paths, outdir, force=False, progress=lambda s: None):
    """Read the files and write the report folder. Raises SweepFileError or
    OutputError; writes nothing on failure, and never over an input."""
    check_output(outdir, paths, folder=True)  # before reading: a refusal costs nothing
    runs = []
    for p in paths:
        progress(f"reading {p}")
        runs.append(read(p))
        progress(f"{p}: {len(runs[-1].rows)} rows, {len(runs[-1].devices)} device row(s)")
    labels = [r.label for r in runs]
    for i, r in enumerate(runs):
        if labels.count(r.label) > 1:
            r.label = f"{i + 1}:{r.label}"
            r.rows["file"] = r.label
            r.all_rows["file"] = r.label
    with atomic_dir(outdir, force=force, inputs=paths) as tmp:
        os.mkdir(os.path.join(tmp, "figures"))
        rep = Report(runs, tmp, progress)
        blocks = rep.build()
        title = f"sweep report: {', '.join(r.label for r in runs)}"
        with open(os.path.join(tmp, "report.md"), "w", encoding="utf-8") as fh:
            fh.write(to_markdown(blocks))
        with open(os.path.join(tmp, "index.html"), "w", encoding="utf-8") as fh:
            fh.write(to_html(blocks, title))
    return rep


@entry(TOOL)
def main(argv=None):
    ap = ArgumentParser(
        prog=TOOL,
        description="Write the report of sweep result files: index.html "
        "(self-contained), report.md and the figures as PNGs, into one folder. "
        "Exit status 2 on any failure (nothing is written then).",
    )
    ap.add_argument(
        "files",
        nargs="+",
        metavar="FILE.h5",
        help="result file(s); several files add the per-device spread",
    )
    ap.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="DIR",
        help="report folder (replaced if it holds an earlier report)",
    )
    ap.add_argument(
        "--force", action="store_true", help="replace DIR even if it is not an earlier report"
    )
    ap.add_argument(
        "-q", "--quiet", action="store_true", help="print nothing but errors and warnings"
    )
    a = ap.parse_args(argv)
    progress = (lambda s: None) if a.quiet else (lambda s: print(f"{TOOL}: {s}", file=sys.stderr))
    rep = make_report(a.files, a.output, force=a.force, progress=progress)
    for r in rep.runs:  # even under -q: rows left out of the report
        warn_run(TOOL, r)
    if not a.quiet:
        emit(
            f"{TOOL}: report in {os.path.join(os.path.abspath(a.output), 'index.html')} "
            f"(and report.md, figures/)\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
