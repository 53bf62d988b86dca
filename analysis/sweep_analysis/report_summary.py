"""The Summary, the report's first screen (summary.py holds its rules):
the claims' verdicts, a headline line per family, the model gap, the
fleet, whether the ok rows were checked, and the time budget."""

from __future__ import annotations

from . import summary
from .doc import Bullets, Heading, Para
from .tables import fmt, variant_order


class SummarySection:
    """The Summary and the family lines it shows (a mixin of report.Report)."""

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
        items.append(summary.checks_line(self.rows))
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
