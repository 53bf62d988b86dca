#!/usr/bin/env python3
"""The figures of issue 22 from sweep result files, with h5py and numpy only
(the GPU machine may lack pandas): per file, timed / wall (sum of timed_s
over sum of end_unix - start_unix, measured rows), the share of ok rows at
rse <= 0.005, and the per-family time budget from the phase columns (files
without them: timed against wall only). With --ref REF (once per file, in
order), the median ratios NEW / REF as scripts/median-ratios.py counts them.

usage: budget-figures.py NEW.h5 [NEW2.h5 ...] [--ref REF.h5 ...]"""

import argparse
import os
import subprocess
import sys

import h5py
import numpy as np

# (heading, columns added, columns taken away): sweep_analysis/budget.py's phases
PHASES = (
    ("flush", ("flush_s",), ()),
    ("gaps", ("sampling_s",), ("timed_s", "flush_s")),
    ("warmup", ("warmup_s",), ()),
    ("check", ("check_launch_s",), ()),
    ("wait", ("check_wait_s",), ()),
    ("fill", ("alloc_s", "fill_s"), ()),
)


def rows_of(path):
    with h5py.File(path, "r", swmr=True, locking=False) as f:
        m = f["measurements"][:]
    return m[m["backend"] == b"cuda"]


def budget_line(name, m, phased):
    wall = float(np.nansum(m["end_unix"] - m["start_unix"]))
    timed = float(np.nansum(m["timed_s"]))
    cells = [name, str(len(m)), f"{wall:.1f}", f"{timed:.1f}"]
    if phased:
        parts = []
        for _, plus, minus in PHASES:
            v = sum(float(np.nansum(m[c])) for c in plus)
            parts.append(v - sum(float(np.nansum(m[c])) for c in minus))
        cells += [f"{p:.1f}" for p in parts] + [f"{wall - timed - sum(parts):.1f}"]
    else:
        cells += ["-"] * (len(PHASES) + 1)
    return cells + [f"{timed / wall:.3f}" if wall > 0 else "-"]


def print_table(lines):
    widths = [max(len(c) for c in col) for col in zip(*lines)]
    for line in lines:
        print(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))
            )
        )


def one_file(path):
    m = rows_of(path)
    phased = "check_launch_s" in m.dtype.names
    heads = ["family", "points", "wall", "timed", *[p[0] for p in PHASES], "idle", "timed/wall"]
    lines = [heads]
    for fam in sorted(set(m["family"])):
        lines.append(budget_line(fam.decode(), m[m["family"] == fam], phased))
    total = budget_line("all", m, phased)
    lines.append(total)
    print(f"== {path}: seconds per phase, measured rows")
    print_table(lines)
    ok = m[m["status"] == 0]
    rse_ok = float(np.mean(ok["rse"] <= 0.005)) if len(ok) else float("nan")
    return total, rse_ok, len(ok)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--ref", action="append", default=[])
    a = ap.parse_args()
    summary = [["file", "points", "wall s", "timed s", "timed/wall", "ok rse<=0.005", "vs ref"]]
    ratios = os.path.join(os.path.dirname(os.path.abspath(__file__)), "median-ratios.py")
    for i, path in enumerate(a.files):
        total, rse_ok, n_ok = one_file(path)
        verdict = "-"
        if i < len(a.ref):
            print(f"== median ratios {path} / {a.ref[i]}")
            r = subprocess.run(
                [sys.executable, ratios, a.ref[i], path, "--limit", "0.05"],
                capture_output=True,
                text=True,
            )
            print(r.stdout + r.stderr, end="")
            last = (r.stdout.strip().splitlines() or ["?"])[-1]
            verdict = last.split(": ")[-1]
        summary.append(
            [
                os.path.basename(path),
                total[1],
                total[2],
                total[3],
                total[-1],
                f"{rse_ok:.4f} of {n_ok}",
                verdict,
            ]
        )
    print(
        "== summary (targets: timed/wall >= 0.85 full, 0.90 seeds; rse rule >= 0.995; "
        "at most 2% of points beyond 5%)"
    )
    print_table(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
