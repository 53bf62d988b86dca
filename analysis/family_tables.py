#!/usr/bin/env python3
"""Markdown tables of a sweep file's measured rows, one per family: each row's
time, bandwidth, GFLOP/s and its ratio to every reference variant of the same
family measured in the same file at the same values of the axes the reference
uses. Also the sweep's timed-GPU-time over wall-time efficiency.

usage: family_tables.py FILE.h5 [FAMILY ...]"""
import sys

import h5py
import numpy as np

AXES = ["stride", "offset", "n", "rows", "cols", "size", "tile", "block_rows", "pad",
        "word_stride", "bins", "dist", "distinct", "pattern"]


def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def main(path, families):
    with h5py.File(path, "r") as f:
        m = f["measurements"][:]
        dev = f["devices"][:]
        wall = float(f.attrs["end_unix"] - f.attrs["start_unix"]) if "end_unix" in f.attrs else float("nan")
        started = text(f.attrs["start_time"])
    m = m[(m["status"] >= 0) & (m["backend"] == b"cuda")]
    axes = [a for a in AXES if a in m.dtype.names]
    timed = float(np.nansum(m["timed_s"]))
    print(f"file `{path}`: {len(m)} measured rows on {text(dev['name'][0])}, started {started}; "
          f"timed GPU time {timed:.1f} s of {wall:.1f} s wall x {len(set(dev['rank']))} rank(s): "
          f"sweep efficiency {timed / wall / len(set(dev['rank'])):.2f}\n")
    for fam in families or sorted(set(text(x) for x in m["family"])):
        rows = m[m["family"] == fam.encode()]
        used = [a for a in axes if (rows[a] >= 0).any()]
        refs = rows[rows["is_reference"] == 1]
        ref_names = sorted(set(text(r["variant"]) for r in refs))
        print(f"### {fam}\n")
        head = ["variant"] + used + ["median us", "GB/s", "GFLOP/s", "samples", "rse", "check"] + \
               [f"/ {r}" for r in ref_names] + ["status"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            cells = [text(r["variant"])] + [str(r[a]) if r[a] >= 0 else "" for a in used]
            cells += [f"{r['median_ns'] / 1e3:.1f}", f"{r['gbps']:.0f}",
                      f"{r['gflops']:.0f}" if r["gflops"] > 0 else "", str(r["n_samples"]),
                      f"{r['rse']:.4f}", text(r["check_mode"])]
            for name in ref_names:
                match = [q for q in refs if text(q["variant"]) == name and
                         all(q[a] < 0 or q[a] == r[a] for a in used)]
                if not match or not r["median_ns"] > 0:
                    cells.append("")
                    continue
                q = match[0]
                # the ratio of rates: flops for compute-bound kernels (more flops
                # than bytes, matmul), else useful bandwidth
                if r["flops"] > r["useful_bytes"] and q["flops"] > q["useful_bytes"]:
                    cells.append(f"{r['gflops'] / q['gflops']:.3f}")
                else:
                    cells.append(f"{r['gbps'] / q['gbps']:.3f}")
            cells.append(f"{r['status']} {text(r['message'])}".strip())
            print("| " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
