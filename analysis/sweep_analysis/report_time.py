"""The time model's sections (docs/model.md, "Time"): each measured class's
rows against the time predicted for its GPU (timemodel.py), and the model
backend's device targets, shown apart from its CC targets: each point's
predicted time on every GPU named."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import figures, timemodel
from .doc import Heading, Para, Table
from .reader import MODEL_DEVICE, RATE_FIT_SUFFIX, RATE_NOT_IDENTIFIABLE, device_targets
from .tables import axes_text, fmt, variant_order

PREDICTED = "Predicted against measured"
TARGETS = "Device targets (time model)"


def _pct(v) -> str:
    return f"{100 * v:.0f}%" if np.isfinite(v) else "-"


class TimeSections:
    """The time model's sections (a mixin of report.Report)."""

    def predicted(self):
        """Each measured class against the time model (timemodel.ERROR_RULE);
        sets the Summary's line (self.time_line)."""
        p, notes = timemodel.predicted(self.rows, self.axes, self.names)
        self.predicted_ns = pd.Series(p["predicted_ns"].to_numpy(float), index=p["row"])
        if p.empty:
            self.time_line = self._no_measured_time_line()
            return
        p = timemodel.with_error(p)
        by_class = timemodel.errors(p, ["file", "class"])
        self.add(Heading(2, PREDICTED), Para(_intro()))
        unfitted = _unfitted_text(self.runs)
        if unfitted:
            self.add(Para(unfitted))
        shown = by_class[by_class["compared"] > 0]
        parts, missing, weak = self._class_parts(by_class, p, notes)
        if len(shown):
            keep = p["class"].isin(shown["class"]) & p["file"].isin(shown["file"])
            self.figure(
                figures.predicted_measured(p[keep], timemodel.BAND, timemodel.MIN_NS),
                "time-model",
                "Time model: each measured point's predicted time against its measured median; "
                f"grey points are under {timemodel.MIN_NS / 1e3:g} us or not covered.",
            )
            self._family_errors(p[keep])
            self._worst(p[keep])
        for label, (why, hint) in missing:
            self.add(Para(f"**{label}**: not compared: {why}{hint}."))
        how = self._calibrate_hint(weak)
        if how:
            self.add(
                Para(
                    f"For the calibrated or transferred figure: {self._calibrate_hint(weak, True)}."
                )
            )
        link = f" (section *{PREDICTED}*)"
        if parts:
            self.time_line = "; ".join(parts)
            if missing:
                self.time_line += "; not compared: " + _missing_text(missing)
        else:
            self.time_line = "not compared: " + _missing_text(missing)
        self.time_line += (f"; calibrated or transferred: {how}" if how else "") + link

    def _class_parts(self, by_class, p, notes):
        """Each class's paragraph added; its Summary part, the classes not
        compared with why, and the (file, GPU) pairs in datasheet mode or
        without a prediction."""
        parts, missing, weak = [], [], []
        for _, c in by_class.iterrows():
            label = c["class"] + (f" ({c['file']})" if len(self.runs) > 1 else "")
            kind, gpu = notes[(c["file"], c["class"])]
            if c["compared"] == 0:
                missing.append((label, self._why_none(c["file"], kind, gpu)))
                weak += [(c["file"], gpu)] if kind == "no time" else []
                continue
            self.add(Para(_class_para(label, c, p)))
            g = p[(p["class"] == c["class"]) & (p["file"] == c["file"])]
            g = g[g["counts"] == "compared"]
            src = "; ".join(dict.fromkeys(g["source"]))
            parts.append(
                f"{label}: error |predicted / measured - 1| median {_pct(c['median'])}, 90th "
                f"percentile {_pct(c['p90'])} over {c['compared']} points ({c['unmodelled']} "
                f"of variants it does not cover left out), {mode_text(g['basis'])}, from {src}"
            )
            weak += [(c["file"], gpu)] if c["basis"] in ("", "datasheet") else []
        return parts, missing, weak

    def _calibrate_hint(self, weak, why=False) -> str:
        """The commands that give the calibrated (or transferred) figure for
        the classes in datasheet mode or without a prediction: weak, their
        (file, GPU of the table). why: with what FLEET.h5 and OTHER.h5 are."""
        weak = [(f, g) for f, g in dict.fromkeys(weak) if g]
        if not weak:
            return ""
        f, gpu = weak[0]
        run = next(r for r in self.runs if r.label == f)
        job = run.attrs.get("job_path", "JOB.yaml") or "JOB.yaml"
        more = [g for _, g in weak[1:]]
        what = (
            " (FLEET.h5: `jobs/fleet.yaml` run on that GPU; OTHER.h5: another class's run of "
            "the job, to transfer its times)"
            if why
            else ""
        )
        return (
            f"`sweep --backend model --model-devices {gpu} --model-calibrate FLEET.h5 "
            f"[--model-from OTHER.h5] {job} -o pred.h5`{what}, then `sweep-report {f} pred.h5`"
            + (f"; likewise for {', '.join(more)}" if more else "")
        )

    def _why_none(self, label, kind, name) -> tuple:
        """(why a class of file `label` has no predicted time, how to get one)."""
        if kind == "no GPU":
            return f"{name} is no GPU of the time model's table (`sweep --list-devices`)", ""
        if kind == "":
            return "none of its ok points of 20 us or more has a prediction", ""
        run = next(r for r in self.runs if r.label == label)
        version = int(run.attrs.get("schema_version", 0))
        why = "its rows carry no predicted time" + (
            f" (schema {version}, before the time model)" if version < 8 else ""
        )
        why += f" and no file here has device target {name}"
        hint = (
            f": `sweep --backend model --model-devices {name} JOB.yaml -o model.h5`, then "
            f"`sweep-report {label} model.h5`, sets them side by side"
        )
        return why, hint

    def _no_measured_time_line(self) -> str:
        """The Summary's time line for files with no measured rows."""
        t = self.rows[device_targets(self.rows)]
        if len(t):
            names = ", ".join(dict.fromkeys(t[MODEL_DEVICE]))
            return (
                f"predicted for {names} ({len(t)} rows; nothing measured here to set them "
                f"against: section *{TARGETS}*)"
            )
        if (self.every["backend"] == "replay").any():
            return "no measured rows: emulated (replay) rows are not set against the time model"
        return "no predicted time: no measured rows and no device targets (`--model-devices NAME`)"

    def _family_errors(self, p):
        e = timemodel.errors(p, ["file", "class", "family"])
        several = e["class"].nunique() > 1 or e["file"].nunique() > 1
        rows = [
            (
                [f"{r['class']}" + (f" ({r['file']})" if len(self.runs) > 1 else "")]
                if several
                else []
            )
            + [
                r["family"],
                str(r["compared"]),
                _pct(r["median"]),
                _pct(r["p90"]),
                f"{r['within_band']}",
                r["terms"] or "-",
                str(r["unmodelled"]),
                str(r["short"]),
                str(r["none"]),
            ]
            for _, r in e.iterrows()
        ]
        heads = ["family", "points", "median error", "90th percentile", "within +-10%"]
        heads += ["bound by", "unmodelled (left out)", "under 20 us", "no prediction"]
        self.add(
            Table(
                (["class"] if several else []) + heads,
                rows,
                right={k + several for k in (1, 2, 3, 4, 6, 7, 8)},
                caption="Per family, |predicted / measured - 1| over the ok points of at least "
                "20 us; the terms that bound them; the points left out",
            )
        )

    def _worst(self, p):
        w = timemodel.worst(p)
        several = p["class"].nunique() > 1
        rows = [
            ([r["class"]] if several else [])
            + [
                f"{r['family']} / {r['variant']}",
                r["point"],
                fmt(r["measured_ns"] / 1e3, 4),
                fmt(r["predicted_ns"] / 1e3, 4),
                fmt(r["ratio"], 3),
                r["term"] or "-",
                r["basis"] or "-",
            ]
            for _, r in w.iterrows()
        ]
        self.add(
            Table(
                (["class"] if several else [])
                + ["variant", "point", "measured us", "predicted us", "predicted / measured"]
                + ["bound by", "basis"],
                rows,
                right={2 + several, 3 + several, 4 + several},
                caption=f"The {len(rows)} compared points furthest from their measured time, "
                "with the term that bound the prediction",
            )
        )

    def device_target_section(self):
        """The model backend's device targets: a heatmap of each variant's
        predicted time on every GPU against the first, and every point."""
        t = self.rows[device_targets(self.rows) & (self.rows["status"] == 0).to_numpy()]
        if t.empty:
            return
        devices = list(dict.fromkeys(t[MODEL_DEVICE]))
        self.add(
            Heading(2, TARGETS),
            Para(
                f"Model rows for {len(devices)} GPU(s) of the time model's table "
                f"(`--model-devices`, the job's `model.devices`): {', '.join(devices)}, shown "
                "apart from the CC targets (whose sections above hold only the CC targets' "
                "rows). Each point's predicted median time and the term that bound it "
                '(docs/model.md, "Time"); its counting figures are those of the GPU\'s CC. '
                + _rates_text(self.runs)
            ),
        )
        keys = ["family", "variant", *self.axes]
        wide = t.pivot_table(
            index=keys, columns=MODEL_DEVICE, values="model_time_ns", aggfunc="last", sort=False
        )
        wide = wide.reindex(columns=devices)
        if len(devices) > 1:
            rel = wide.div(wide[devices[0]], axis=0)
            med = rel.groupby(level=["family", "variant"], sort=False).median()
            med.index = [f"{f} / {v}" for f, v in med.index]
            self.figure(
                figures.target_heatmap(med, devices[0]),
                "time-model-targets",
                f"Time model: each variant's predicted time on each device target over its time "
                f"on {devices[0]}, the median over the variant's points (below 1: faster).",
            )
        self._target_tables(t, wide, devices)

    def _target_tables(self, t, wide, devices):
        terms = t.pivot_table(
            index=["family", "variant", *self.axes],
            columns=MODEL_DEVICE,
            values="model_time_term",
            aggfunc="last",
            sort=False,
        ).reindex(index=wide.index, columns=devices)
        for fam in dict.fromkeys(wide.index.get_level_values("family")):
            w, tm = wide.xs(fam, level="family"), terms.xs(fam, level="family")
            order = {v: i for i, v in enumerate(variant_order(t[t["family"] == fam]))}
            rows = []
            for key in sorted(w.index, key=lambda k: order.get(k[0], 0)):
                row = {"family": fam, **dict(zip(self.axes, key[1:]))}
                point = axes_text(row, self.axes, self.names)
                cells = [
                    f"{fmt(w.loc[key, d] / 1e3, 4)} ({tm.loc[key, d]})"
                    if np.isfinite(w.loc[key, d])
                    else f"- ({tm.loc[key, d] if isinstance(tm.loc[key, d], str) else '-'})"
                    for d in devices
                ]
                rows.append([key[0], point, *cells])
            self.add(
                Table(
                    ["variant", "point", *[f"{d} us (term)" for d in devices]],
                    rows,
                    right=set(range(2, 2 + len(devices))),
                    caption=f"{fam}: predicted median time on each device target, and the term "
                    "that bound it (`none`: the time model does not cover the variant)",
                    folded=True,
                )
            )


MODES = {
    "datasheet": "datasheet mode (the weakest)",
    "calibrated": "calibrated mode (rates fitted to a measured run of the class, "
    "`--model-calibrate`)",
    "transfer": "transferred mode (another class's measured times scaled by the model, "
    "`--model-from`)",
}


def mode_text(basis) -> str:
    """What a class's predictions rest on (each compared point's
    model_time_basis), in words: the time model's mode (docs/model.md,
    "Three levels of trust"), each of several with its points counted."""
    n = pd.Series(basis, dtype=str).replace("", "not recorded").value_counts(sort=False)
    if len(n) == 1:
        b = n.index[0]
        return MODES.get(b, f"{b} mode")
    return ", ".join(
        f"{MODES.get(b, f'{b} mode')} for {k} of them" for b, k in sorted(n.items(), key=_rank)
    )


def _rank(item):
    """The stronger mode first: transfer, calibrated, datasheet, the rest."""
    order = ["transfer", "calibrated", "datasheet"]
    return order.index(item[0]) if item[0] in order else len(order)


def _missing_text(missing) -> str:
    """The classes without a predicted time, those that share a reason in one clause."""
    by_why = {}
    for label, (why, _) in missing:
        # "device target H200" differs per class: one clause names them all
        key = why.rsplit(" device target ", 1)
        by_why.setdefault(key[0], []).append((label, key[1] if len(key) > 1 else ""))
    parts = []
    for why, items in by_why.items():
        names = ", ".join(n for _, n in items if n)
        labels = " and ".join(label for label, _ in items)
        targets = f" device target{'s' if len(items) > 1 else ''} {names}" if names else ""
        pronoun = "their" if len(items) > 1 else "its"
        parts.append(f"{labels}: {why.replace('its rows', pronoun + ' rows')}{targets}")
    return "; ".join(parts)


def _intro() -> str:
    return (
        "What the time model predicts for the GPU a class ran on, against what was measured "
        'there (docs/model.md, "Time"): the rows\' own `model_time_ns` (the cuda backend '
        "predicts for its own GPU where sweep's GPU table knows it), else a device target of "
        "that GPU in another file of this report (`sweep --backend model --model-devices "
        f"NAME`), matched by family, variant and axes. {timemodel.ERROR_RULE} The time model "
        "flags nothing: its error is larger than the fleet's threshold."
    )


def _class_para(label, c, p) -> str:
    g = p[(p["class"] == c["class"]) & (p["file"] == c["file"])]
    src = ", ".join(dict.fromkeys(g.loc[g["counts"] == "compared", "source"]))
    return (
        f"**{label}**, GPU {g['gpu'].iloc[0]} of sweep's table, from {src} "
        f"({c['basis'] or 'basis not recorded'}): median error {_pct(c['median'])}, 90th "
        f"percentile {_pct(c['p90'])} over {c['compared']} points, {c['within_band']} of them "
        f"within +-{timemodel.BAND:.0%}; left out: {c['unmodelled']} points of variants the "
        f"model does not cover, {c['short']} under {timemodel.MIN_NS / 1e3:g} us, "
        f"{c['none']} without a prediction."
    )


def _rates_text(runs) -> str:
    """What /model_rates says of the rates each target was predicted with."""
    parts = []
    for r in runs:
        for _, m in r.model_rates.iterrows():
            what = f"{m['device']}: {m['role']}, {m['basis']} rates"
            if m["file"]:
                what += f" fitted to {m['file']} ({m['file_class']}, {int(m['points'])} points)"
            parts.append(what)
    if not parts:
        return ""
    text = "Rates (/model_rates): " + "; ".join(dict.fromkeys(parts)) + "."
    unfitted = _unfitted_text(runs)
    return text + (" " + unfitted if unfitted else "")


def _unfitted_text(runs) -> str:
    """Which rates the job needed that a calibration file held no point to fit
    (/model_rates' RATE_fit "not identifiable", schema 9), as sweep said on stderr."""
    parts = []
    for r in runs:
        fits = [c for c in r.model_rates.columns if c.endswith(RATE_FIT_SUFFIX)]
        for _, m in r.model_rates.iterrows():
            names = [c[: -len(RATE_FIT_SUFFIX)] for c in fits if m[c] == RATE_NOT_IDENTIFIABLE]
            if names:
                option = "--model-from" if m["role"] == "from" else "--model-calibrate"
                parts.append(
                    f"{option} {m['file']} ({m['device']}): {', '.join(names)} not "
                    "identifiable, its points fit none of them and the job needs them; "
                    "their datasheet values were used"
                )
    if not parts:
        return ""
    return "Not fitted: " + "; ".join(dict.fromkeys(parts)) + "."
