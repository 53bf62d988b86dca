#!/usr/bin/env python3
"""Markdown tables of a sweep file's measured rows, one per family: each row's
time, bandwidth, GFLOP/s and its ratio to every reference variant of the same
family measured in the same file at the same values of the axes the reference
uses; and the sweep's timed-GPU-time over wall-time efficiency. The tables of
docs/results/ come from it. Reads through sweep_analysis.reader, the one
module that opens result files.

usage: family_tables.py FILE.h5 [FAMILY ...]"""

import sys

from sweep_analysis.cli import ToolError, entry
from sweep_analysis.reader import read


def main(path, families):
    run = read(path)
    m = run.rows[run.rows["backend"] == "cuda"]
    ranks = max(1, run.devices["rank"].nunique())
    wall = (
        float(run.attrs["end_unix"] - run.attrs["start_unix"])
        if run.closed_cleanly
        else float("nan")
    )
    timed = float(m["timed_s"].sum())
    device = run.devices["name"].iloc[0] if len(run.devices) else "no device"
    efficiency = f"{timed / wall / ranks:.2f}" if wall > 0 else "- (no wall time)"
    print(
        f"file `{path}`: {len(m)} measured rows on {device}, started "
        f"{run.attrs.get('start_time', '?')}; timed GPU time {timed:.1f} s of {wall:.1f} s wall "
        f"x {ranks} rank(s): sweep efficiency {efficiency}\n"
    )
    for fam in families or sorted(m["family"].unique()):
        rows = m[m["family"] == fam]
        used = [a for a in run.axes if (rows[a] >= 0).any()]
        refs = rows[rows["is_reference"] == 1]
        ref_names = sorted(refs["variant"].unique())
        print(f"### {fam}\n")
        head = (
            ["variant"]
            + used
            + ["median us", "GB/s", "GFLOP/s", "samples", "rse", "check"]
            + [f"/ {r}" for r in ref_names]
            + ["status"]
        )
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for _, r in rows.iterrows():
            cells = [r["variant"]] + [str(r[a]) if r[a] >= 0 else "" for a in used]
            cells += [
                f"{r['median_ns'] / 1e3:.1f}",
                f"{r['gbps']:.0f}",
                f"{r['gflops']:.0f}" if r["gflops"] > 0 else "",
                str(r["n_samples"]),
                f"{r['rse']:.4f}",
                r["check_mode"],
            ]
            for name in ref_names:
                q = refs[refs["variant"] == name]
                for a in used:
                    q = q[(q[a] < 0) | (q[a] == r[a])]
                # a time of 0 ns (a timer that saw nothing) gives no ratio
                if q.empty or not r["median_ns"] > 0 or not q.iloc[0]["median_ns"] > 0:
                    cells.append("")
                    continue
                q = q.iloc[0]
                # the ratio of rates: flops for compute-bound kernels (more flops
                # than bytes, matmul), else useful bandwidth
                if r["flops"] > r["useful_bytes"] and q["flops"] > q["useful_bytes"]:
                    cells.append(f"{r['gflops'] / q['gflops']:.3f}")
                else:
                    cells.append(f"{r['gbps'] / q['gbps']:.3f}")
            cells.append(f"{r['status']} {r['message']}".strip())
            print("| " + " | ".join(cells) + " |")
        print()


@entry("family_tables")
def cli(argv=None):
    """The one error path of the package's tools (sweep_analysis.cli): any
    failure one line and exit 2."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        raise ToolError(__doc__.strip().splitlines()[-1])
    main(argv[0], argv[1:])
    return 0


if __name__ == "__main__":
    sys.exit(cli())
