"""What the reader checks of the rows it read: the unwritten (fill) rows,
the damaged ones and those a resume marked are dropped, counted and
said (docs/hdf5-schema.md, "Damaged rows"), with what a reader must
know of how complete the file is."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .reader_format import (
    CALIBRATION,
    DAMAGED_STATUS,
    FILL_POINT_ID,
    OPTIONAL_TEXT_COLUMNS,
    STATUS_NAMES,
    Run,
)


def _written(rows, plan, first=0):
    """The rows sweep wrote and no damage changed; how many fill, damaged and
    marked rows were dropped, why the first damaged one is, and each kept
    row's index in /measurements (which /model_accesses keys by). first: the
    /measurements index of rows' first row (a slice of the table)."""
    status = rows["status"].to_numpy()
    fill = (rows["point_id"] == FILL_POINT_ID).to_numpy() & (status == -1)
    marked = status == DAMAGED_STATUS
    damaged, why = _damaged(rows, plan, ~fill & ~marked, first)
    keep = ~fill & ~marked & ~damaged
    # a copy only where there is something to drop
    kept = rows if keep.all() else rows[keep].reset_index(drop=True)
    at = np.flatnonzero(keep).astype(np.uint64) + np.uint64(first)
    return kept, int(fill.sum()), int(damaged.sum()), int(marked.sum()), why, at


def _damaged(rows: pd.DataFrame, plan, written, first=0) -> tuple[np.ndarray, str]:
    """Which of the written rows (not fill rows, not rows a resume marked) are
    damaged, and why the first of them is ("row 16: its family or variant is
    empty"; rows counted from first)."""
    fam = rows["family"].astype(str).to_numpy()
    var = rows["variant"].astype(str).to_numpy()
    status = rows["status"].to_numpy()
    checks = [
        (~np.isin(status, list(STATUS_NAMES)), "its status {s} is none sweep writes"),
        ((fam == "") | (var == ""), "its family or variant is empty"),
    ]
    if plan is not None:
        at = plan.index.get_indexer(rows["point_id"].to_numpy(np.uint64))
        known = at >= 0
        pf = np.where(known, plan["family"].to_numpy(object)[at], "")
        pv = np.where(known, plan["variant"].to_numpy(object)[at], "")
        checks.append((~known, "point {id} is no point of the file's plan (/plan)"))
        checks.append(
            (known & ((pf != fam) | (pv != var)), "it says {f}/{v}, /plan says {pf}/{pv}")
        )
    bad = np.zeros(len(rows), dtype=bool)
    for mask, _ in checks:
        bad |= mask & written
    if not bad.any():
        return bad, ""
    i = int(np.argmax(bad))
    text = next(t for m, t in checks if m[i])
    return bad, f"row {first + i}: " + text.format(
        s=status[i],
        id=f"{int(rows['point_id'].iat[i]):016x}",
        f=fam[i],
        v=var[i],
        pf=pf[i] if plan is not None else "",
        pv=pv[i] if plan is not None else "",
    )


def _add_damage_notes(run: Run, why: str):
    if run.damaged_rows:
        run.warnings.append(
            f"{run.damaged_rows} damaged row(s) of /measurements were left out ({why}): "
            "`sweep --resume` marks them and measures their points again"
        )
    if run.marked_rows:
        run.warnings.append(
            f"{run.marked_rows} row(s) a resume found damaged and marked (status "
            f"{DAMAGED_STATUS}) were left out"
        )
    run.notes.extend(run.warnings)


def _complete(rows, absent):
    """The rows with the optional columns a file lacks (NaN, "" for text) and
    calibration (0 before schema 5)."""
    for c in absent:
        rows[c] = "" if c in OPTIONAL_TEXT_COLUMNS else np.nan
    if CALIBRATION not in rows.columns:
        rows[CALIBRATION] = 0
    return rows


def zero_time(rows: pd.DataFrame) -> np.ndarray:
    """Measured ok rows whose median time is not above 0 ns: every sample 0
    (a timer that saw nothing), which sweep writes as it found it. They tell
    no time and no speed (their GB/s is infinite)."""
    if "median_ns" not in rows:
        return np.zeros(len(rows), dtype=bool)
    return (
        (rows["backend"] != "model").to_numpy()
        & (rows["status"] == 0).to_numpy()
        & ~(rows["median_ns"].to_numpy(np.float64) > 0)
        & (rows["n_samples"].to_numpy(np.float64) > 0)
    )


def timed(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows without those of zero_time: what a report's tables, figures
    and speeds are made of (its notes say how many were left out)."""
    zero = zero_time(rows)
    return rows[~zero] if zero.any() else rows


def _add_notes(run: Run):
    """What the reader of a report must know about how complete the file is."""
    if run.fill_rows:
        run.notes.append(
            f"{run.fill_rows} unwritten row(s) left by an interrupted flush were ignored"
        )
    if not run.closed_cleanly:
        run.notes.append(
            "the file has no end_time: the sweep that wrote it was killed or "
            "is still running; the report shows what was flushed"
        )
    rows = run.rows
    if run.replay_rows:
        run.notes.append(
            f"{run.replay_rows} row(s) of the replay backend (a test instrument: each point "
            "slept a duration recorded in another file) are no measurements and were left out"
        )
    zero = zero_time(run.all_rows)
    if zero.any():
        ranks = sorted(set(run.all_rows["rank"].to_numpy()[zero].tolist()))
        run.notes.append(
            f"{int(zero.sum())} measured row(s) (rank(s) {', '.join(map(str, ranks))}) have a "
            "median time of 0 ns: their samples are 0, a timer that saw nothing; they tell no "
            "time and no speed, and the report's tables and figures leave them out"
        )
    bad = (rows["sample_offset"].astype(np.float64) + rows["n_samples"]) > len(run.samples)
    if bad.any():
        run.notes.append(
            f"{int(bad.sum())} row(s) point past the end of /samples: their raw samples are ignored"
        )
