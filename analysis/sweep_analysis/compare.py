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
exactly. The exit status is 1 when any point is slower or broken, 0 when
none is, 2 when a file cannot be read, a measured row's raw samples are
damaged (outside /samples, or not a positive finite time: the file is
refused, not judged ambiguous), or the files have no point in common
(nothing compared is an error, not a pass). When fewer than half of either
file's points are in both, it warns: the verdict covers only part of a run.

With --class twice, the two sides are two device classes of one file
(/devices' device_class, schema 5; derived in older files): each point's
row of that class, the median GPU's where several GPUs of the class ran it
(reader.class_rows). Emulated classes (replay backend) are compared too,
and the summary says they are emulated.
"""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pandas as pd

from .cli import ArgumentParser, ToolError, emit, entry, warn_run
from .doc import Para, Table, to_markdown
from .output import atomic_file, check_output
from .reader import DEVICE_CLASS, STATUS_NAMES, SweepFileError, class_rows, latest, read
from .stats import mann_whitney, median_ratio_ci
from .tables import axes_text, fmt

TOOL = "sweep-compare"
ORDER = ["slower", "broken", "ambiguous", "faster", "same"]
MIN_SAMPLES = 5


def classify(a, b, threshold=0.05, alpha=0.01, seed=0) -> dict:
    """Compare two sample sets (times: larger is slower). Returns ratio
    (median b / median a), its interval, the p-value and the class."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
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
    do not lie in /samples or are not positive finite times: a damaged table,
    which must not pass for too few or too noisy samples."""
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
        if not (np.isfinite(s) & (s > 0)).all():
            raise SweepFileError(
                f"{run.path}: damaged sample table: point_id {int(pid)} has samples that are "
                "not positive finite times (ns)"
            )


def compare(ra, rb, threshold=0.05, alpha=0.01) -> pd.DataFrame:
    """One row per point present in both files (and a count of the others).
    Raises SweepFileError when a compared row's samples are damaged."""
    a, b = latest(ra.rows), latest(rb.rows)
    axes = list(dict.fromkeys(ra.axes + rb.axes))
    j = a.merge(b, on=["point_id", "backend"], suffixes=("_a", "_b"))
    check_samples(ra, a[a["point_id"].isin(j["point_id"])])
    check_samples(rb, b[b["point_id"].isin(j["point_id"])])
    out = []
    for _, r in j.iterrows():
        base = {
            "family": r["family_a"],
            "variant": r["variant_a"],
            "backend": r["backend"],
            "point": axes_text({k: r.get(f"{k}_a", r.get(k, -1)) for k in axes}, axes)
            + (f" cc={r['cc_a']}" if r["backend"] == "model" else ""),
            "a_ns": r["median_ns_a"],
            "b_ns": r["median_ns_b"],
            "n_a": int(r["n_samples_a"]),
            "n_b": int(r["n_samples_b"]),
            "device_a": r["device_a"],
            "device_b": r["device_b"],
            "plan_index": r["plan_index_a"],
        }
        sa, sb = int(r["status_a"]), int(r["status_b"])
        if sa != 0 or sb != 0:
            c = "broken" if sa == 0 else ("same" if sa == sb else "ambiguous")
            res = {
                "ratio": np.nan,
                "lo": np.nan,
                "hi": np.nan,
                "p": np.nan,
                "class": c,
                "why": f"A {STATUS_NAMES.get(sa, sa)}, B {STATUS_NAMES.get(sb, sb)}"
                + (f": {r['message_b']}" if sb != 0 and r["message_b"] else ""),
            }
        elif r["backend"] == "model":
            res = _model(r, threshold)
        else:
            seed = int(r["point_id"]) % (2**32)
            res = classify(
                ra.samples_of(_side(r, "_a")), rb.samples_of(_side(r, "_b")), threshold, alpha, seed
            )
        out.append({**base, **res})
    df = pd.DataFrame(out)
    if len(df):
        df["order"] = df["class"].map(ORDER.index)
        df = df.sort_values(["order", "plan_index"]).drop(columns="order")
    df.attrs["only_a"] = len(a) - len(j)
    df.attrs["only_b"] = len(b) - len(j)
    return df


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


def _side(r, suffix):
    return {"sample_offset": r[f"sample_offset{suffix}"], "n_samples": r[f"n_samples{suffix}"]}


def _model(r, threshold):
    """Model rows: predicted bytes moved (more is slower), exactly."""
    a, b = r["model_moved_bytes_a"], r["model_moved_bytes_b"]
    if not (np.isfinite(a) and np.isfinite(b)) or a <= 0:
        same = np.isnan(a) == np.isnan(b) and (a == b or np.isnan(a))
        return {
            "ratio": np.nan,
            "lo": np.nan,
            "hi": np.nan,
            "p": np.nan,
            "class": "same" if same else "ambiguous",
            "why": "model: nothing to compare"
            if same
            else "model: moved bytes modelled in one file only",
        }
    ratio = b / a
    c = "slower" if ratio > 1 + threshold else "faster" if ratio < 1 / (1 + threshold) else "same"
    return {
        "ratio": ratio,
        "lo": ratio,
        "hi": ratio,
        "p": np.nan,
        "class": c,
        "why": "model: predicted moved bytes" if ratio != 1 else "",
    }


def _table(df) -> Table:
    rows = []
    for _, r in df.iterrows():
        ci = (
            f"{(r['lo'] - 1) * 100:+.1f}..{(r['hi'] - 1) * 100:+.1f}%"
            if np.isfinite(r["lo"]) and r["lo"] != r["hi"]
            else "-"
        )
        rows.append(
            [
                r["class"],
                r["family"],
                r["variant"],
                r["point"],
                r["backend"],
                fmt(r["a_ns"] / 1e3, 4),
                fmt(r["b_ns"] / 1e3, 4),
                f"{(r['ratio'] - 1) * 100:+.1f}%" if np.isfinite(r["ratio"]) else "-",
                ci,
                f"{r['p']:.1g}" if np.isfinite(r["p"]) else "-",
                f"{r['n_a']}/{r['n_b']}",
                r["why"] or "",
            ]
        )
    return Table(
        [
            "verdict",
            "family",
            "variant",
            "point",
            "backend",
            "A median us",
            "B median us",
            "time change",
            "interval",
            "p",
            "samples A/B",
            "note",
        ],
        rows,
        right={5, 6, 7, 8, 9, 10},
    )


def summary(df, ra, rb, threshold, alpha) -> list:
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


def _text_table(t: Table) -> str:
    widths = [
        max(len(str(h)), *(len(str(r[i])) for r in t.rows)) if t.rows else len(str(h))
        for i, h in enumerate(t.headers)
    ]
    widths[-1] = min(widths[-1], 60)

    def line(cells):
        return "  ".join(
            str(c)[:w].rjust(w) if i in t.right else str(c)[:w].ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths))
        ).rstrip()

    return "\n".join([line(t.headers), line(["-" * w for w in widths])] + [line(r) for r in t.rows])


def _parser():
    ap = ArgumentParser(
        prog=TOOL,
        description="Compare two sweep result files point by point, using the raw "
        "samples; or, with --class A --class B, two device classes of one file (class B "
        "judged against class A, each point's median GPU of the class). Exit status: 0 "
        "nothing regressed, 1 a point is slower beyond the threshold "
        "or broken, 2 a file could not be read or its samples are damaged, a bad argument, "
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
        run = read(a.a)
        warn_run(TOOL, run)
        ra, rb = class_side(run, a.classes[0]), class_side(run, a.classes[1])
    else:
        ra, rb = read(a.a), read(a.b)
        warn_run(TOOL, ra)
        warn_run(TOOL, rb)
    df = compare(ra, rb, t, a.alpha)
    error = nothing_compared(df, ra, rb)
    if error:
        raise ToolError(error)
    lines = summary(df, ra, rb, t, a.alpha)
    table = _table(df[df["class"] != "same"] if a.changes and len(df) else df)
    if a.md:
        with atomic_file(a.md, inputs=inputs) as fh:
            fh.write(to_markdown([Para("# sweep-compare\n\n" + "\n\n".join(lines)), table]))
    emit(_text_table(table) + "\n\n" + "\n".join(lines) + "\n")
    warning = coverage_warning(df)
    if warning:
        print(f"{TOOL}: warning: {warning}", file=sys.stderr)
    bad = df[df["class"].isin(["slower", "broken"])]
    if len(bad):
        print(
            f"{TOOL}: {len(bad)} point(s) regressed (slower by more than "
            f"{a.threshold:g}%, or broken)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
