"""The report's page, which every section adds to: the rows the sections
read (one frame of every file), the blocks of doc.py in page order, and
the figures, written beside the page and numbered in that order."""

from __future__ import annotations

import io
import os
import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from . import figures
from .doc import Figure
from .fleet import fleet_facts_none, fleet_rows
from .reader import class_rows, latest_per_gpu, take, timed

TOOL = "sweep-report"


class Page:
    """What every section adds to: the rows, the blocks in page order, the
    figures (report.Report's base)."""

    def __init__(self, runs, outdir, progress, reference=None, headline_points=None):
        self.runs = runs
        # --fleet-reference: a known-good run, and its rows the fleet compares with
        self.reference = reference
        self.reference_rows = None
        if reference is not None:
            self.reference_rows = fleet_rows(latest_per_gpu(reference.all_rows))[0]
        self.headline_points = headline_points or {}  # --headline: family -> points
        self.outdir = outdir
        self.progress = progress
        self.blocks = []
        self.n_fig = 0
        self.claim_results, self.full_claims = [], []
        self.fleet_facts = fleet_facts_none()
        self.time_line = "no measured rows"  # the Summary's line of the time model
        self.scaling_line = ""  # which points scale with bandwidth, between classes
        self.class_pairs = []  # each class against the first: the Summary's figure of them
        self.units = {}
        for r in runs:
            self.units.update(r.units)
        self.axes = list(dict.fromkeys(a for r in runs for a in r.axes))
        # the categorical axes' names, of every file (a later file's win)
        self.names = {k: v for r in runs for k, v in r.axis_names.items()}
        # measured and model rows, one per point and device class (reader.class_rows)
        self.rows = self._ordered([class_rows(timed(r.rows), r.placement) for r in runs])
        # every GPU's latest row of each point, replay rows included: the fleet
        # and class sections (which say "emulated") and the per-rank clocks
        self.every = self._ordered([latest_per_gpu(timed(r.all_rows)) for r in runs])
        self.classes_rows = self._ordered(
            [class_rows(timed(r.all_rows), r.placement) for r in runs]
        )

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
    def family_names(self, fam) -> dict:
        """{axis: {value: name}} of family fam's categorical axes, from the files."""
        return {a: v for (f, a), v in self.names.items() if f == fam}

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

    def figure_block(self, fig, name, caption):
        """The Summary's figure: written as figures/00-NAME.png, first in the
        report's order, and returned, not added (the Summary is built last)."""
        caption = f"{caption} {figures.caption_notes(fig)}".strip()
        rel = f"figures/00-{_file_part(name)}.png"
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        plt.close(fig)
        with open(os.path.join(self.outdir, rel), "wb") as fh:
            fh.write(buf.getvalue())
        self.progress(f"figure {rel}")
        return Figure(rel, caption, buf.getvalue(), css="summary")

    def unit(self, col):
        return self.units.get(col, "")

    def _axis_kind(self, fam, axis) -> str:
        """What an axis of fam holds, for its section: its units, its values'
        names (a categorical axis), or "value"."""
        names = self.names.get((fam, axis))
        if names:
            return "named: " + ", ".join(names[v] for v in sorted(names))
        return self.unit(axis) or "value"


def _slug(s):
    return "".join(c if c.isalnum() else "-" for c in s.lower()).strip("-")[:40]


FILE_PART_MAX = 100  # characters of a figure's name after its number


def _file_part(name):
    """A name as part of a file name and of a link: ASCII letters, digits, `_`
    and `-`, every other character `-` (a family a file names `a/b` or `..`:
    no folder, no link to escape). Names sweep writes are kept as they are."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", name)[:FILE_PART_MAX]
