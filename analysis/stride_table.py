#!/usr/bin/env python3
"""Print a Markdown table of a sweep file's strided_read rows: bandwidth per
stride and variant, each as a ratio to the stream_read reference of the same
n measured in the same run, and the model's sectors per request."""
import sys

import h5py
import numpy as np


def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def main(path):
    with h5py.File(path, "r") as f:
        m = f["measurements"][:]
        dev = f["devices"][:]
        print(f"file {path}: {len(m)} rows, device {text(dev['name'][0])} "
              f"(CC {dev['cc'][0] / 10:.1f}), started {text(f.attrs['start_time'])}")
    m = m[m["family"] == b"strided_read"]
    for n in sorted(set(m["n"][m["n"] > 0])):
        rows = m[m["n"] == n]
        ref = rows[rows["variant"] == b"stream_read"]
        ref_gbps = float(ref["gbps"][0]) if len(ref) else float("nan")
        print(f"\nn = {n} floats; stream_read reference {ref_gbps:.0f} GB/s")
        print("| variant | stride | median us | GB/s | / stream_read | sectors/req (model) | samples | rse | status |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {text(r['variant'])} | {r['stride']} | {r['median_ns'] / 1e3:.1f} | {r['gbps']:.0f} | "
                  f"{r['gbps'] / ref_gbps:.3f} | {r['model_sectors_per_request']:.1f} | {r['n_samples']} | "
                  f"{r['rse']:.4f} | {r['status']} {text(r['message'])} |")


if __name__ == "__main__":
    main(sys.argv[1])
