"""sweep-report FILE.h5 [MORE.h5 ...] -o DIR: the report a user reads.

DIR gets index.html (self-contained: figures embedded), report.md, the
per-point tables report.md links to (report-appendix.md) and the figures as
PNGs. Sections: the run and its devices, the course claims, per
family the variants side by side against the family's reference rows, the
cross-architecture tables from the model, the points where measured and
modelled efficiency part (modelgap), the model against hardware counters
(files made with --counters, with its figures), the metrics of files made
with --metrics (a table per family), and per-rank clocks with outliers
(plus the per-device spread of the same points when several files measured
them). Nothing is written unless everything succeeds.

This module assembles the report; its page and each role's sections live in
report_page.py and report_*.py (docs/ARCHITECTURE.md, "Analysis").
"""

from __future__ import annotations

import os
import sys

from . import budget, headline
from .cli import ArgumentParser, emit, entry, warn_run
from .doc import to_html, to_markdown_split
from .output import atomic_dir, check_output
from .reader import read
from .report_classes import ClassSections
from .report_families import FamilySections
from .report_fleet import FleetSections
from .report_model import ModelSections
from .report_page import TOOL, Page
from .report_runs import RunSections
from .report_summary import SummarySection
from .report_time import TimeSections
from .text import BYTES

APPENDIX = "report-appendix.md"  # the per-point tables report.md links to


class Report(
    Page,
    RunSections,
    SummarySection,
    FamilySections,
    ModelSections,
    FleetSections,
    ClassSections,
    TimeSections,
):
    """The whole report: its page (report_page.py) and its sections, each
    role in a module of its own (report_*.py), in the order build adds them."""

    def build(self):
        self.header()
        self.devices()
        self.fleet()
        self.claims()
        self.intervals_and_gaps()
        self.predicted()
        self.families()
        self.classes()
        self.cross_arch()
        self.device_target_section()
        self.model_accesses()
        self.model_gaps()
        self.hardware_counters()
        self.metrics()
        self.ranks()
        self.add(*budget.section(self.rows))
        self.add(*self.full_claims)
        self.footer()
        self.blocks[1:1] = self.summary()
        return self.blocks


def make_report(
    paths, outdir, force=False, progress=lambda s: None, reference=None, headlines=None
):
    """Read the files (and the fleet's reference run, a path or None) and
    write the report folder. headlines: --headline's points per family
    (headline.parse). Raises SweepFileError or OutputError; writes nothing
    on failure, and never over an input."""
    inputs = [*paths, *([reference] if reference else [])]
    check_output(outdir, inputs, folder=True)  # before reading: a refusal costs nothing
    ref = None
    if reference:
        progress(f"reading the fleet's reference {reference}")
        ref = read(reference)
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
    with atomic_dir(outdir, force=force, inputs=inputs) as tmp:
        os.mkdir(os.path.join(tmp, "figures"))
        rep = Report(runs, tmp, progress, ref, headlines)
        blocks = rep.build()
        title = f"sweep report: {', '.join(r.label for r in runs)}"
        # the per-point tables go to the appendix beside report.md (doc.Table.detail)
        main, appendix = to_markdown_split(blocks, APPENDIX, title)
        for name, text in (("report.md", main), (APPENDIX, appendix)):
            # a name's bytes that are not UTF-8 as \xNN (text.py)
            with open(os.path.join(tmp, name), "w", encoding="utf-8", errors=BYTES) as fh:
                fh.write(text)
        with open(os.path.join(tmp, "index.html"), "w", encoding="utf-8", errors=BYTES) as fh:
            fh.write(to_html(blocks, title))
    return rep


@entry(TOOL)
def main(argv=None):
    ap = ArgumentParser(
        prog=TOOL,
        description="Write the report of sweep result files: index.html "
        "(self-contained), report.md, its per-point tables (report-appendix.md) and the "
        "figures as PNGs, into one folder. "
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
        "--fleet-reference",
        metavar="FILE",
        help="a known-good run (e.g. a healthy node's fleet check, or the recording an "
        "emulation replays): each GPU and each class is also compared with FILE's rows of the "
        "same GPU model, and flagged 'below reference' when surely slower by more than 5%%",
    )
    ap.add_argument(
        "--headline",
        action="append",
        metavar="FAMILY:AXIS=V,...",
        help="a headline point of FAMILY for the Summary (repeatable; V an integer, K/M/G, "
        "max or min): a plug-in's family names its points so; replaces a built-in family's",
    )
    ap.add_argument(
        "-q", "--quiet", action="store_true", help="print nothing but errors and warnings"
    )
    a = ap.parse_args(argv)
    progress = (lambda s: None) if a.quiet else (lambda s: print(f"{TOOL}: {s}", file=sys.stderr))
    points = headline.parse(a.headline)
    rep = make_report(
        a.files,
        a.output,
        force=a.force,
        progress=progress,
        reference=a.fleet_reference,
        headlines=points,
    )
    for r in rep.runs + ([rep.reference] if rep.reference is not None else []):
        warn_run(TOOL, r)  # even under -q: rows left out of the report
    if not a.quiet:
        emit(
            f"{TOOL}: report in {os.path.join(os.path.abspath(a.output), 'index.html')} "
            f"(and report.md, {APPENDIX}, figures/)\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
