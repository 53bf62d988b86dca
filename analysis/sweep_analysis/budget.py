"""Where a run's wall time went, per file and family: the timed samples and
the phases around them (flush, gaps between samples, warm-up, checked launch
and copy, waiting for the previous point's CPU check, allocation and fill),
from the cuda backend's phase columns; idle is the wall time left over.
Files written before those columns get timed against wall time only.

python -m sweep_analysis.budget FILE.h5 [...] prints the table as text.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from .cli import ToolError, emit, entry

TOOL = "sweep-budget"  # its one error path's name (python -m sweep_analysis.budget)

PHASES = (  # heading, what it adds up
    ("flush", ("flush_s",)),
    ("gaps", ("sampling_s", "-timed_s", "-flush_s")),
    ("warm-up", ("warmup_s",)),
    ("check", ("check_launch_s",)),
    ("wait", ("check_wait_s",)),
    ("fill", ("alloc_s", "fill_s")),
)
HEADINGS = ["file", "family", "points", "wall s", "timed", *[p for p, _ in PHASES], "idle"]
ABOUT = (
    "Seconds of each family's wall time (the sum of `end_unix - start_unix` over its measured "
    "rows) by phase: *timed* the samples (`timed_s`), *flush* the L2 flushes before them, "
    "*gaps* the rest of the sampling loop (synchronisation), *warm-up*, *check* the checked "
    "launch and the copy its CPU check reads, *wait* for the previous point's CPU check, "
    "*fill* growing buffers and filling inputs, and *idle* what is left (the model's figures "
    "for the row, the rank's own bookkeeping). `-` where the file has no phase columns "
    "(written before them): only timed against wall time. The last column is timed / wall."
)


def _has_phases(rows) -> bool:
    return "check_launch_s" in rows.columns and bool(np.isfinite(rows["check_launch_s"]).any())


def _phase(g, cols) -> float:
    total = 0.0
    for c in cols:
        sign = -1.0 if c.startswith("-") else 1.0
        total += sign * float(np.nansum(g[c.lstrip("-")].to_numpy(dtype=float)))
    return total


def _row(label, family, g, phases) -> list:
    wall_each = (g["end_unix"] - g["start_unix"]).to_numpy(dtype=float)
    wall = float(np.nansum(wall_each))
    timed = float(np.nansum(g["timed_s"].to_numpy(dtype=float)))
    cells = [label, family, str(len(g)), f"{wall:.1f}", f"{timed:.1f}"]
    if phases:
        parts = [_phase(g, cols) for _, cols in PHASES]
        cells += [f"{p:.1f}" for p in parts] + [f"{wall - timed - sum(parts):.1f}"]
    else:
        cells += ["-"] * (len(PHASES) + 1)
    cells.append(f"{timed / wall:.3f}" if wall > 0 else "-")
    return cells


def table(rows: pd.DataFrame) -> list[list[str]]:
    """One line per file and family of measured (cuda) rows, then the file's
    total; [] when no row was measured."""
    if "end_unix" not in rows.columns:
        return []
    m = rows[rows["backend"] == "cuda"]
    out = []
    labels = m["file"] if "file" in m.columns else pd.Series("", index=m.index)
    for label in dict.fromkeys(labels):
        f = m[labels == label]
        phases = _has_phases(f)
        for fam, g in f.groupby("family", sort=True):
            out.append(_row(label, fam, g, phases))
        out.append(_row(label, "all", f, phases))
    return out


def section(rows: pd.DataFrame) -> list:
    """The report's time-budget blocks; nothing for files without measured rows."""
    from .doc import Heading, Para, Table

    lines = table(rows)
    if not lines:
        return []
    right = set(range(2, len(HEADINGS) + 1))
    return [
        Heading(2, "Time budget"),
        Para(ABOUT),
        Table([*HEADINGS, "timed / wall"], lines, right=right),
    ]


@entry(TOOL)
def main(argv=None) -> int:
    from .reader import latest, read

    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        raise ToolError("usage: python -m sweep_analysis.budget FILE.h5 [...]")
    frames = []
    for p in paths:
        r = read(p)
        frames.append(latest(r.rows).assign(file=r.label))
    lines = table(pd.concat(frames, ignore_index=True))
    heads = [*HEADINGS, "timed/wall"]
    widths = [max(len(str(x)) for x in col) for col in zip(heads, *lines)]
    for line in [heads, *lines]:
        emit(
            "  ".join(
                str(c).rjust(w) if i > 1 else str(c).ljust(w)
                for i, (c, w) in enumerate(zip(line, widths))
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
