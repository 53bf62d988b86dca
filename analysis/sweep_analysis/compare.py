"""sweep-compare A.h5 B.h5: did anything change between two runs?
sweep-compare FILE.h5 --class A --class B: how does class B differ from A?

Points are matched by point_id and backend (the id hashes family, variant,
axis values and, for the model, the CC: the same on any machine). For a
measured point both files' raw samples (ns per launch) are compared:
the Mann-Whitney U test says whether B differs from A at all, a bootstrap
interval of median(B) / median(A) says by how much, and the threshold says
what matters:

  slower     significant, and B's median time more than threshold above A's
  faster     significant, and more than threshold below
  same       the whole interval lies within +-threshold
  ambiguous  anything else: too few or too noisy samples to tell
  broken     ok in A, skipped, invalid or failed in B

Model rows have no samples: their predicted moved bytes are compared
exactly, and for a device target (`--model-devices`, shown apart from the
CC targets) the predicted time on its GPU. The exit status is 1 when any
point is slower or broken, 0 when none is, 2 when a file cannot be read, a
measured row's raw samples are damaged (outside /samples, or a negative or
infinite time: the file is refused, not judged ambiguous; a median of 0 ns,
a timer that saw nothing, is legal and judged ambiguous), or the files have
no point in common (nothing compared is an error, not a pass). When fewer
than half of either file's points are in both, it warns: the verdict covers
only part of a run.

With --class twice, the two sides are two device classes of one file
(/devices' device_class, schema 5; derived in older files): each point's
row of that class, the median GPU's where several GPUs of the class ran it
(reader.class_rows). Emulated classes (replay backend) are compared too,
and the summary says they are emulated. Two files whose GPU rows share no
device class compare classes too. Classes are not revisions: a class that
is simply slower is no regression, so a slower point does not make the
exit status 1 there (a broken one does); --regression judges B as a later
run of A all the same. The summary then gives the two classes' datasheet
bandwidths and how many points scale with them (timemodel.SCALE_RULE).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import sys

import numpy as np
import pandas as pd

from . import timemodel
from .cli import ArgumentParser, ToolError, emit, entry, warn_run
from .doc import Table, md_table_lines
from .output import atomic_file, check_output
from .reader import (
    DEVICE_CLASS,
    MODEL_DEVICE,
    STATUS_NAMES,
    SweepFileError,
    class_rows,
    latest,
    read,
)
from .stats import mann_whitney, median_ratio_ci
from .tables import fmt, fmt_int

TOOL = "sweep-compare"
ORDER = ["slower", "broken", "ambiguous", "faster", "same"]
MIN_SAMPLES = 5


def classify(a, b, threshold=0.05, alpha=0.01, seed=0) -> dict:
    """Compare two sample sets (times: larger is slower). Returns ratio
    (median b / median a), its interval, the p-value and the class."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    zero = [x for x, s in (("A", a), ("B", b)) if len(s) and not np.median(s) > 0]
    if zero:  # every sample 0 (a timer that saw nothing): no ratio to tell
        return {
            "ratio": np.nan,
            "lo": np.nan,
            "hi": np.nan,
            "p": np.nan,
            "class": "ambiguous",
            "why": f"{' and '.join(zero)}: a median time of 0 ns, no time to compare",
        }
    if len(a) < MIN_SAMPLES or len(b) < MIN_SAMPLES:
        r = np.median(b) / np.median(a) if len(a) and len(b) else np.nan
        return {
            "ratio": r,
            "lo": np.nan,
            "hi": np.nan,
            "p": np.nan,
            "class": "ambiguous",
            "why": f"fewer than {MIN_SAMPLES} samples",
        }
    ratio = float(np.median(b) / np.median(a))
    _, p = mann_whitney(a, b)
    lo, hi = median_ratio_ci(a, b, level=1 - alpha, seed=seed)
    up, down = 1 + threshold, 1 / (1 + threshold)
    significant = p < alpha and (lo > 1 or hi < 1)
    if significant and ratio > up:
        c, why = "slower", ""
    elif significant and ratio < down:
        c, why = "faster", ""
    elif down <= lo and hi <= up:
        c, why = "same", ""
    else:
        c = "ambiguous"
        why = (
            "change within the threshold is not certain"
            if significant
            else "no significant change, but the samples cannot exclude one beyond the threshold"
        )
    return {"ratio": ratio, "lo": lo, "hi": hi, "p": p, "class": c, "why": why}


def check_samples(run, rows):
    """Raise SweepFileError when a measured ok row among rows has samples that
    do not lie in /samples or are negative or not finite: a damaged table,
    which must not pass for too few or too noisy samples. A sample of 0 ns
    is legal (a timer that saw nothing): classify says so."""
    r = rows[(rows["status"] == 0) & (rows["backend"] != "model")]
    off = r["sample_offset"].to_numpy(np.float64)
    n = r["n_samples"].to_numpy(np.float64)
    inside = (off >= 0) & (off + n <= len(run.samples))
    outside = ~np.isfinite(off + n) | (n < 0) | ((n > 0) & ~inside)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise SweepFileError(
            f"{run.path}: damaged sample table: {int(outside.sum())} measured row(s) point "
            f"outside /samples ({len(run.samples)} values), the first point_id "
            f"{int(r['point_id'].iloc[i])} at offset {off[i]:.0f} with {n[i]:.0f} samples"
        )
    for o, k, pid in zip(off.astype(np.int64), n.astype(np.int64), r["point_id"]):
        s = run.samples[o : o + k]
        if not (np.isfinite(s) & (s >= 0)).all():
            raise SweepFileError(
                f"{run.path}: damaged sample table: point_id {int(pid)} has samples that are "
                "negative or not finite times (ns)"
            )


# What compare reads of a row (beside the axes); read() reads no other
# column of /measurements for the tool (a file of a million rows has some 90).
COLUMNS = (
    ("point_id", "plan_index", "rank", "session", "family", "variant", "backend", "cc")
    + ("status", "message", "median_ns", "n_samples", "sample_offset", "model_moved_bytes")
    + ("calibration", MODEL_DEVICE, "model_time_ns")
)
RESULT = ["ratio", "lo", "hi", "p", "class", "why"]  # the columns of a verdict
# The columns of each side a comparison reads (suffixed _a, _b), beside the
# axes (A's; B's where A has none) and the keys point_id and backend.
SIDE_A = ["family", "variant", "plan_index", "cc", "median_ns", "n_samples", "device"]
SIDE_A += ["status", "model_moved_bytes", "sample_offset", MODEL_DEVICE, "model_time_ns"]
SIDE_B = ["median_ns", "n_samples", "device", "status", "message", "model_moved_bytes"]
SIDE_B += ["sample_offset", "model_time_ns"]


def _side_columns(rows, cols, suffix) -> pd.DataFrame:
    """The keys and these columns of one side, named with the suffix."""
    return rows[["point_id", "backend", *cols]].rename(columns={c: c + suffix for c in cols})


def compare(ra, rb, threshold=0.05, alpha=0.01) -> pd.DataFrame:
    """One row per point present in both files (and a count of the others).
    Raises SweepFileError when a compared row's samples are damaged. Column
    by column: a file of a million points is compared in seconds."""
    a, b = latest(ra.rows), latest(rb.rows)
    axes = list(dict.fromkeys(ra.axes + rb.axes))
    j = _side_columns(a, SIDE_A + [k for k in axes if k in a], "_a").merge(
        _side_columns(b, SIDE_B + [k for k in axes if k not in a and k in b], "_b"),
        on=["point_id", "backend"],
    )
    both = j["point_id"]
    where = ["point_id", "status", "backend", "sample_offset", "n_samples"]
    check_samples(ra, a.loc[a["point_id"].isin(both), where])
    check_samples(rb, b.loc[b["point_id"].isin(both), where])
    model = (j["backend"] == "model").to_numpy()
    df = pd.DataFrame(
        {
            "family": j["family_a"],
            "variant": j["variant_a"],
            "backend": j["backend"],
            "point": _points(j, axes, model, {**ra.axis_names, **rb.axis_names}),
            "a_ns": j["median_ns_a"],
            "b_ns": j["median_ns_b"],
            "n_a": j["n_samples_a"].astype(np.int64),
            "n_b": j["n_samples_b"].astype(np.int64),
            "device_a": j["device_a"],
            "device_b": j["device_b"],
            "plan_index": j["plan_index_a"],
            "target": j[f"{MODEL_DEVICE}_a"].fillna(""),
        }
    )
    res = _model(
        j["model_moved_bytes_a"].to_numpy(), j["model_moved_bytes_b"].to_numpy(), threshold
    )
    target = (df["target"] != "").to_numpy()
    if target.any():  # device targets: their predicted time, besides the moved bytes
        _model_time(res, target, j["model_time_ns_a"], j["model_time_ns_b"], threshold)
        df.loc[target, "a_ns"] = j.loc[target, "model_time_ns_a"].to_numpy()
        df.loc[target, "b_ns"] = j.loc[target, "model_time_ns_b"].to_numpy()
    sa, sb = j["status_a"].to_numpy(), j["status_b"].to_numpy()
    pid = j["point_id"].to_numpy()
    side = {x: j[[f"sample_offset_{x}", f"n_samples_{x}"]].to_numpy() for x in "ab"}
    for i in np.flatnonzero(~model & (sa == 0) & (sb == 0)):
        got = classify(
            ra.samples_of(_side(side["a"][i])),
            rb.samples_of(_side(side["b"][i])),
            threshold,
            alpha,
            int(pid[i]) % (2**32),
        )
        for k in RESULT:
            res[k][i] = got[k]
    _statuses(res, sa, sb, j["message_b"].to_numpy())
    for k in RESULT:
        df[k] = res[k]
    if len(df):
        df["order"] = df["class"].map(ORDER.index)
        df = df.sort_values(["order", "plan_index"]).drop(columns="order")
    df.attrs["only_a"] = len(a) - len(j)
    df.attrs["only_b"] = len(b) - len(j)
    return df


def _points(j, axes, model, names) -> list:
    """Each joined row's point: its axes (A's values; an axis only one file
    has, that file's) as axes_text writes them, a categorical axis's value by
    the name its family gives it (names: the files' /axis_names), and a
    model row's CC."""
    cols = [j[f"{k}_a"] if f"{k}_a" in j else j[f"{k}_b"] for k in axes]
    vals = [c.to_numpy() for c in cols]
    fams = j["family_a"].astype(str).to_numpy()
    text = {}  # family, axis, value -> "axis=value"

    def one(f, k, v):
        if (f, k, v) not in text:
            name = names.get((f, k), {}).get(int(v))
            text[f, k, v] = f"{k}={name if name is not None else fmt_int(v)}"
        return text[f, k, v]

    out = (
        [
            " ".join(one(f, k, v) for k, v in zip(axes, row) if v != -1) or "-"
            for f, row in zip(fams, zip(*vals))
        ]
        if axes
        else ["-"] * len(j)
    )
    cc = j["cc_a"].to_numpy()
    dev = j[f"{MODEL_DEVICE}_a"].fillna("").to_numpy()
    return [
        (p + (f" dev={d}" if d else f" cc={c}")) if m else p
        for p, c, d, m in zip(out, cc, dev, model)
    ]


def _statuses(res, sa, sb, message_b):
    """The verdict of the rows that are not ok on both sides: broken (ok in A
    only), same (the same status) or ambiguous, and both statuses."""
    for i in np.flatnonzero((sa != 0) | (sb != 0)):
        a, b, msg = int(sa[i]), int(sb[i]), message_b[i]
        res["ratio"][i] = res["lo"][i] = res["hi"][i] = res["p"][i] = np.nan
        res["class"][i] = "broken" if a == 0 else ("same" if a == b else "ambiguous")
        res["why"][i] = f"A {STATUS_NAMES.get(a, a)}, B {STATUS_NAMES.get(b, b)}" + (
            f": {msg}" if b != 0 and msg else ""
        )


def classes_of(run) -> list:
    """The device classes of a file's GPU rows (measured or emulated), sorted."""
    r = run.all_rows
    return sorted(set(r[r["backend"] != "model"][DEVICE_CLASS].dropna()))


def class_side(run, label):
    """The run seen as one of its device classes: a copy whose rows are that
    class's, one per point (reader.class_rows), replay rows included.
    Raises ToolError naming the file's classes when it has no such class."""
    known = classes_of(run)
    if label not in known:
        raise ToolError(
            f"{run.path}: no device class {label!r}; its classes: "
            + (", ".join(repr(c) for c in known) or "none (no GPU rows)")
        )
    rows = run.all_rows
    rows = class_rows(rows[rows[DEVICE_CLASS] == label], run.placement)
    return dataclasses.replace(
        run, rows=rows.reset_index(drop=True), path=f"{run.path} [class {label}]"
    )


def nothing_compared(df, ra, rb) -> str:
    """The error when no point is in both files, else ''."""
    if len(df):
        return ""

    def side(r):
        n = len(latest(r.rows))
        backends = ", ".join(sorted(set(r.rows["backend"]))) or "no rows"
        return f"{r.path} ({n} points, backend {backends})"

    return (
        f"no point in common: nothing was compared. A = {side(ra)}, B = {side(rb)}; "
        "points match by point_id and backend (a model file and a GPU file never share one)"
    )


def coverage_warning(df) -> str:
    """A warning when fewer than half of either file's points were compared, else ''."""
    n = len(df)
    low = [
        f"{n} of {name}'s {n + only} points"
        for name, only in (("A", df.attrs.get("only_a", 0)), ("B", df.attrs.get("only_b", 0)))
        if 2 * n < n + only
    ]
    if not low:
        return ""
    return (
        f"only {' and '.join(low)} could be compared (the others are in one file "
        "only): the verdicts cover less than half of the run."
    )


def _side(where):
    """A row's (sample_offset, n_samples) as Run.samples_of takes them."""
    return {"sample_offset": where[0], "n_samples": where[1]}


def _model(a, b, threshold) -> dict:
    """Model rows: predicted bytes moved (more is slower), exactly; the
    verdict columns of every joined row (rows not of the model are set
    again by compare)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = b / a
    n = len(a)
    none = ~(np.isfinite(a) & np.isfinite(b)) | ~(a > 0)
    same = (np.isnan(a) == np.isnan(b)) & ((a == b) | np.isnan(a))
    # object arrays of a few shared strings, not fixed-width text a row
    cls = np.full(n, "same", dtype=object)
    cls[ratio < 1 / (1 + threshold)] = "faster"
    cls[ratio > 1 + threshold] = "slower"
    why = np.full(n, "", dtype=object)
    why[ratio != 1] = "model: predicted moved bytes"
    cls[none & same], why[none & same] = "same", "model: nothing to compare"
    cls[none & ~same] = "ambiguous"
    why[none & ~same] = "model: moved bytes modelled in one file only"
    ratio[none] = np.nan
    return {
        "ratio": ratio,
        "lo": ratio.copy(),
        "hi": ratio.copy(),
        "p": np.full(n, np.nan),
        "class": cls,
        "why": why,
    }


def _model_time(res, target, a, b, threshold):
    """The verdicts of device-target rows (target: a mask) where both sides
    predict a time: slower or faster by the predicted time on the GPU."""
    a, b = a.to_numpy(float), b.to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = b / a
    timed = target & np.isfinite(ratio) & (a > 0)
    for i in np.flatnonzero(timed):
        r = ratio[i]
        res["ratio"][i] = res["lo"][i] = res["hi"][i] = r
        res["class"][i] = (
            "slower" if r > 1 + threshold else "faster" if r < 1 / (1 + threshold) else "same"
        )
        res["why"][i] = "model: predicted time on the device target" if r != 1 else ""


HEADERS = ["verdict", "family", "variant", "point", "backend", "A median us", "B median us"]
HEADERS += ["time change", "interval", "p", "samples A/B", "note"]
RIGHT = {5, 6, 7, 8, 9, 10}
ROW_COLUMNS = ["class", "family", "variant", "point", "backend", "a_ns", "b_ns", "ratio", "lo"]
ROW_COLUMNS += ["hi", "p", "n_a", "n_b", "why"]
BLOCK_ROWS = 1 << 14  # rows formatted, and lines written, at a time


def _blocks(df):
    """The table's cells as columns of text, a block of rows at a time: a
    million rows are never all held as text."""
    for s in range(0, len(df), BLOCK_ROWS):
        yield _columns(df.iloc[s : s + BLOCK_ROWS])


def _columns(part) -> list:
    """The twelve columns of text of these rows."""
    c = {k: part[k].tolist() for k in ROW_COLUMNS}
    fin = math.isfinite
    return [
        *(list(map(str, c[k])) for k in ("class", "family", "variant", "point", "backend")),
        [fmt(v / 1e3, 4) for v in c["a_ns"]],
        [fmt(v / 1e3, 4) for v in c["b_ns"]],
        [f"{(r - 1) * 100:+.1f}%" if fin(r) else "-" for r in c["ratio"]],
        [
            f"{(lo - 1) * 100:+.1f}..{(hi - 1) * 100:+.1f}%" if fin(lo) and lo != hi else "-"
            for lo, hi in zip(c["lo"], c["hi"])
        ],
        [f"{p:.1g}" if fin(p) else "-" for p in c["p"]],
        [f"{a}/{b}" for a, b in zip(c["n_a"], c["n_b"])],
        [str(w or "") for w in c["why"]],
    ]


def _rows(df):
    """The table's rows, lists of text."""
    for cols in _blocks(df):
        yield from map(list, zip(*cols))


def _table(df) -> Table:
    return Table(HEADERS, list(_rows(df)), right=RIGHT)


def compared_classes(ra, rb, named=None):
    """(A's classes, B's) when the comparison is of device classes, not of
    revisions: two classes of one file (--class), or two files whose GPU
    rows share no class; else None."""
    if named:
        return named[0], named[1]
    ca, cb = classes_of(ra), classes_of(rb)
    if ca and cb and not set(ca) & set(cb):
        return ", ".join(ca), ", ".join(cb)
    return None


def classes_lines(df, ra, rb, classes) -> list:
    """What the summary says of a comparison of classes: that it is one, and
    which points scale with memory bandwidth (timemodel.SCALE_RULE)."""
    lines = [
        f"Classes, not revisions: A is {classes[0]}, B is {classes[1]}. A point B runs slower "
        "is a property of its class, not a regression: it does not make the exit status 1 "
        "(--regression judges B as a later run of A)."
    ]
    gpu_a = ra.rows[ra.rows["backend"] != "model"]
    gpu_b = rb.rows[rb.rows["backend"] != "model"]
    (bw_a, src_a), (bw_b, src_b) = timemodel.datasheet_gbps(gpu_a), timemodel.datasheet_gbps(gpu_b)
    if not (np.isfinite(bw_a) and np.isfinite(bw_b)) or not len(df):
        return lines + ["Memory bandwidth: a datasheet bandwidth is unknown, not judged."]
    m = df[(df["backend"] != "model") & np.isfinite(df["b_ns"] / df["a_ns"])]
    expected = bw_a / bw_b
    scales = ((m["b_ns"] / m["a_ns"]) / expected - 1).abs() <= timemodel.SCALE_TOLERANCE
    return lines + [
        f"Memory bandwidth: A {fmt(bw_a, 4)} GB/s ({src_a}), B {fmt(bw_b, 4)} GB/s ({src_b}): "
        f"a point bound by it takes {fmt(expected, 3)}x the time on B; {int(scales.sum())} of "
        f"{len(m)} measured points do, within {timemodel.SCALE_TOLERANCE:.0%} (they scale with "
        "memory bandwidth)."
    ]


def summary(df, ra, rb, threshold, alpha, classes=None) -> list:
    counts = df["class"].value_counts() if len(df) else pd.Series(dtype=int)
    parts = ", ".join(f"{int(counts.get(c, 0))} {c}" for c in ORDER)
    lines = [
        f"A = {ra.path} ({ra.attrs.get('start_time', '?')}), "
        f"B = {rb.path} ({rb.attrs.get('start_time', '?')}).",
        f"{len(df)} points in both files: {parts}; "
        f"{df.attrs.get('only_a', 0)} only in A, {df.attrs.get('only_b', 0)} only in B. "
        f"Threshold {threshold * 100:g}% of the median time; significance "
        f"{alpha:g} (Mann-Whitney U on the raw samples) with a {100 * (1 - alpha):g}% "
        f"bootstrap interval of median(B) / median(A).",
    ]
    warning = coverage_warning(df)
    if warning:
        lines.append("Warning: " + warning)
    if classes:
        lines += classes_lines(df, ra, rb, classes)
    targets = df[df["target"] != ""] if len(df) else df
    if len(targets):
        lines.append(
            f"Model rows: {len(targets)} of the device targets "
            f"({', '.join(sorted(set(targets['target'])))}) compared by their predicted time, "
            f"{int((df['backend'] == 'model').sum()) - len(targets)} of the CC targets by their "
            "predicted moved bytes."
        )
    emulated = [name for name, r in (("A", ra), ("B", rb)) if (r.rows["backend"] == "replay").any()]
    if emulated:
        lines.append(
            f"Emulated: {' and '.join(emulated)} replay(s) times recorded elsewhere, scaled by "
            "the emulated GPU's speed (replay backend): a test of the chain, not a measurement."
        )
    if len(df):
        da, db = set(df["device_a"]), set(df["device_b"])
        if da != db:
            lines.append(
                f"Note: measured on different devices: A {', '.join(sorted(da))}; "
                f"B {', '.join(sorted(db))}."
            )
    return lines


def _text_lines(headers, blocks, right):
    """The lines of the plain-text table; blocks() gives the cells afresh,
    as columns of text a block of rows at a time: once to size the columns,
    once to write them."""
    widths = [len(str(h)) for h in headers]
    for cols in blocks():
        widths = [max(w, *map(len, col)) if col else w for w, col in zip(widths, cols)]
    widths[-1] = min(widths[-1], 60)

    def pad(col, i, w):
        return [c[:w].rjust(w) for c in col] if i in right else [c[:w].ljust(w) for c in col]

    def lines(cols):
        padded = [pad(col, i, w) for i, (col, w) in enumerate(zip(cols, widths))]
        return ("  ".join(t).rstrip() for t in zip(*padded))

    yield from lines([[str(h)] for h in headers])
    yield from lines([["-" * w] for w in widths])
    for cols in blocks():
        yield from lines(cols)


def _text_table(t: Table) -> str:
    cols = [[str(c) for c in col] for col in zip(*t.rows)]
    return "\n".join(_text_lines(t.headers, lambda: iter([cols] if cols else []), t.right))


def _write_lines(write, lines, end):
    """write("\n".join(lines) + end), a block of lines at a time."""
    first = True
    for block in iter(lambda: list(itertools.islice(lines, BLOCK_ROWS)), []):
        write(("" if first else "\n") + "\n".join(block))
        first = False
    write(end)


def _parser():
    ap = ArgumentParser(
        prog=TOOL,
        description="Compare two sweep result files point by point, using the raw "
        "samples; or, with --class A --class B, two device classes of one file (class B "
        "judged against class A, each point's median GPU of the class). Exit status: 0 "
        "nothing regressed, 1 a point is slower beyond the threshold "
        "or broken (comparing two device classes, a --class pair or two files of no common "
        "class: broken only, unless --regression), "
        "2 a file could not be read or its samples are damaged, a bad argument, "
        "no point in common (nothing compared), or stdout closed before the end. Fewer than "
        "half of either file's points compared: a warning.",
    )
    ap.add_argument("a", metavar="A.h5", help="the baseline (e.g. last month's run)")
    ap.add_argument("b", metavar="B.h5", nargs="?", help="the run to judge (not with --class)")
    ap.add_argument(
        "--class",
        dest="classes",
        action="append",
        metavar="CLASS",
        help="give twice, with one file: compare device class B (the second) against "
        "class A (the first) of A.h5, e.g. --class 'NVIDIA A100' --class 'NVIDIA H100' "
        "(the names are /devices' device_class; an unknown name lists the file's)",
    )
    ap.add_argument(
        "--threshold",
        type=float,
        default=5.0,
        metavar="PERCENT",
        help="smallest change of the median time that counts (default 5)",
    )
    ap.add_argument(
        "--alpha", type=float, default=0.01, help="significance level of the test (default 0.01)"
    )
    ap.add_argument(
        "--regression",
        action="store_true",
        help="judge B as a later run of A even when the two are different device classes "
        "(--class, or two files of no common class): a slower point makes the exit status 1",
    )
    ap.add_argument("--md", metavar="FILE", help="also write the table as Markdown")
    ap.add_argument("--changes", action="store_true", help="print only points that are not 'same'")
    return ap


def _inputs(a) -> list:
    """The files the arguments name: two, or one with --class twice."""
    if a.classes is None:
        if a.b is None:
            raise ToolError("give two files (A.h5 B.h5), or one file and --class A --class B")
        return [a.a, a.b]
    if len(a.classes) != 2 or a.b is not None:
        raise ToolError("--class: give one file and --class twice (--class A --class B)")
    if a.classes[0] == a.classes[1]:
        raise ToolError(f"--class: the two classes are the same ({a.classes[0]!r})")
    return [a.a]


@entry(TOOL)
def main(argv=None):
    a = _parser().parse_args(argv)
    if not 0 < a.threshold < 1000 or not 0 < a.alpha < 0.5:
        raise ToolError("--threshold must be a percentage > 0 and --alpha in (0, 0.5)")
    t = a.threshold / 100
    inputs = _inputs(a)
    if a.md:  # before reading: a refused output costs nothing
        check_output(a.md, inputs)
    if a.classes:
        run = read(a.a, COLUMNS)
        warn_run(TOOL, run)
        ra, rb = class_side(run, a.classes[0]), class_side(run, a.classes[1])
    else:
        ra, rb = read(a.a, COLUMNS), read(a.b, COLUMNS)
        warn_run(TOOL, ra)
        warn_run(TOOL, rb)
    df = compare(ra, rb, t, a.alpha)
    error = nothing_compared(df, ra, rb)
    if error:
        raise ToolError(error)
    classes = compared_classes(ra, rb, a.classes)
    lines = summary(df, ra, rb, t, a.alpha, classes)
    shown = df[df["class"] != "same"] if a.changes and len(df) else df
    if a.md:  # as to_markdown([Para(...), Table(...)]) writes it, a block at a time
        with atomic_file(a.md, inputs=inputs) as fh:
            fh.write("# sweep-compare\n\n" + "\n\n".join(lines) + "\n\n")
            _write_lines(fh.write, md_table_lines(HEADERS, _rows(shown), RIGHT), "\n")
    text = _text_lines(HEADERS, lambda: _blocks(shown), RIGHT)
    _write_lines(emit, text, "\n\n" + "\n".join(lines) + "\n")
    warning = coverage_warning(df)
    if warning:
        print(f"{TOOL}: warning: {warning}", file=sys.stderr)
    judged = ["broken"] if classes and not a.regression else ["slower", "broken"]
    slower = int((df["class"] == "slower").sum())
    if "slower" not in judged and slower:
        print(
            f"{TOOL}: {slower} point(s) slower on B, another device class than A: not a "
            "regression (--regression judges them as one)",
            file=sys.stderr,
        )
    bad = df[df["class"].isin(judged)]
    if len(bad):
        print(
            f"{TOOL}: {len(bad)} point(s) regressed ("
            + (
                f"slower by more than {a.threshold:g}%, or broken)"
                if len(judged) > 1
                else "broken)"
            ),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
