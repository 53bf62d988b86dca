"""The Summary, the report's first screen (summary.py holds its rules): a
figure of every family's headline ratios (headline.py: at named points,
measured beside modelled and predicted), then what the files hold (their
classes and kinds of row), the fleet, the time model, the claims'
verdicts, a headline line per family, the model gap, whether the ok rows
were checked, and the time budget."""

from __future__ import annotations

import pandas as pd

from . import figures, headline, summary, timemodel
from .doc import Bullets, Heading
from .reader import device_targets
from .tables import metric

# What the headlines read of a row, besides the axes.
HEADLINE_COLUMNS = ["family", "variant", "is_reference", "plan_index", "backend", "status", "file"]
HEADLINE_COLUMNS += ["device", "cc", "model_device", "model_time_ns", "model_efficiency", "gbps"]
HEADLINE_COLUMNS += ["gflops", "useful_bytes", "flops"]

# Lines of report.md the Summary takes besides its bullets: its heading, a
# blank, the figure (image, blank, caption) and a blank; a blank after the
# bullets belongs to the next section.
FIXED_LINES = 6


class SummarySection:
    """The Summary, its figure and the family lines it shows (a mixin of
    report.Report)."""

    def summary(self) -> list:
        """The opening section: one screen (summary.SUMMARY_LINES lines of report.md)."""
        heads = self.headlines()
        line, bad = summary.claims_line(self.claim_results)
        facts = self.fleet_facts
        items = [
            f"**Classes**: {summary.classes_line(facts, self.scaling_line)}.",
            f"**Rows**: {summary.rows_line(self.runs)}.",
            f"**Fleet**: {summary.fleet_text(facts)}.",
            f"**Time model**: {self.time_line}.",
            line,
            *(["not holding: " + "; ".join(bad)] if bad else []),  # one line: one screen
        ]
        gaps = int((self.gaps["flag"] != "").sum()) if len(self.gaps) else 0
        tail = [
            f"**Model gap**: {gaps} measured point(s) part from the model "
            f"(section *Where model and hardware part*)."
        ]
        tail.append(summary.checks_line(self.rows))
        budget = summary.budget_lines(self.rows)  # one line for every file: one screen
        tail.append(f"**Time budget**: {'; '.join(budget) or 'no measured rows.'}")
        devices = list(dict.fromkeys(h.device for h in heads))
        one = devices[0] if len(devices) == 1 else ""
        fams = [h.line(show_device=not one) for h in heads]
        room = summary.SUMMARY_LINES - FIXED_LINES - len(items) - len(tail) - 1
        if len(fams) > room:
            left = len(fams) - room + 1
            fams = fams[: room - 1] + [f"+{left} more families (section *Families*)"]
        classes = bool(self.class_pairs)  # two classes or more: their figure leads
        if fams:
            where = f"on {one}" if one else "on each family's first device"
            see = "" if classes else "; the figure above"
            items += [
                f"**Headline ratios** at each family's named points, {where} (x its reference: "
                f"throughput over the reference's; predicted: the time model's{see}):"
            ] + fams
        blocks = [Heading(2, "Summary")]
        if classes:
            blocks.append(self._classes_figure())
        else:
            blocks += self._headline_figure(heads)
        return [*blocks, Bullets(items + tail, css="summary")]

    def _headline_figure(self, heads) -> list:
        """The Summary's figure of one class: each family's headline ratios."""
        emulated = self.rows.empty and len(heads) > 0
        fig = figures.summary(heads, emulated)
        if fig is None:
            return []
        return [
            self.figure_block(
                fig,
                "summary",
                "Each family's variants over its reference at its headline points: "
                + ("emulated (replayed times" if emulated else "measured (")
                + "dots), modelled (useful/moved bytes: diamonds), predicted by the time "
                "model (crosses).",
            )
        ]

    def _classes_figure(self):
        """The Summary's figure of two classes or more: each class's time
        over the first class's per family, the datasheet ratios marked
        (figures.bandwidth_ratios, as section Classes draws it)."""
        pairs = self.class_pairs
        first = pairs[0]["to"].iloc[0]
        return self.figure_block(
            figures.bandwidth_ratios(pairs, timemodel.SCALE_TOLERANCE, summary=True),
            "summary-classes",
            f"Each point's time on {' and on '.join(str(j['of'].iloc[0]) for j in pairs)} over "
            f"its time on {first}, per family (below 1: faster; section *Classes: how the "
            "architectures differ*).",
        )

    def headlines(self) -> list:
        """Each family's headline (headline.py) on its first device: measured
        rows where it has any, else its first device target, else its newest
        CC target."""
        out = []
        pred = getattr(self, "predicted_ns", None)
        rows = self.rows
        if rows.empty:  # a replay file: its emulated rows, said so (figures_summary)
            rows = self.classes_rows[self.classes_rows["backend"] == "replay"]
        rows = rows[[*HEADLINE_COLUMNS, *self.axes]]  # these alone: a million model rows are many
        at = rows.groupby("family", sort=False).indices
        for fam in dict.fromkeys(rows["family"]):
            f = rows.iloc[at[fam]]
            g, times = _first_device(f, pred)
            ok = g[g["status"] == 0]
            if ok.empty:
                continue
            col, _ = metric(ok)
            points = self.headline_points.get(fam, headline.HEADLINES.get(fam, ()))
            h = headline.headline(fam, ok, self.axes, points, col, times, self.family_names(fam))
            if h.entries:  # a family of one variant (a fleet job's) has no ratio to give
                out.append(h)
        return out


def _first_device(f: pd.DataFrame, pred):
    """(the rows of a family's first device, the time model's time of each):
    measured (or emulated) rows (their predictions: pred), else device
    targets (their own model_time_ns), else CC targets of the newest CC."""
    measured = f[f["backend"].isin(["cuda", "replay"])]
    if len(measured):
        key = measured[["file", "device"]].iloc[0]
        g = measured[(measured["file"] == key["file"]) & (measured["device"] == key["device"])]
        return g, pred
    targets = f[device_targets(f)]
    if len(targets):
        g = targets[targets["device"] == targets["device"].iloc[0]]
        return g, g["model_time_ns"]
    model = f[f["backend"] == "model"]
    if len(model):
        return model[model["cc"] == model["cc"].max()], None
    return f.iloc[0:0], None
