#!/usr/bin/env python3
"""Per-point median ratio NEW / OLD of two sweep result files, matched by
point id, over the ok rows both files share whose OLD median is at least
--min-us: prints the worst points and a summary. Used to check that a
change leaves timings alone (docs/results/)."""

import argparse
import sys

import h5py
import numpy as np


def medians(path):
    with h5py.File(path, "r", swmr=True, locking=False) as f:
        m = f["measurements"][:]
    ok = m[m["status"] == 0]
    return {
        int(r["point_id"]): (float(r["median_ns"]), r["family"].decode(), r["variant"].decode())
        for r in ok
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--min-us", type=float, default=100.0)
    ap.add_argument("--limit", type=float, default=0.02, help="allowed |ratio - 1|")
    a = ap.parse_args()
    old, new = medians(a.old), medians(a.new)
    rows = [
        (new[i][0] / old[i][0], old[i][0] / 1e3, old[i][1], old[i][2], i)
        for i in old
        if i in new and old[i][0] >= a.min_us * 1e3
    ]
    if not rows:
        print("no point in common at or above the minimum time", file=sys.stderr)
        return 2
    rows.sort(key=lambda r: abs(r[0] - 1), reverse=True)
    for ratio, us, fam, var, pid in rows[:10]:
        print(f"{ratio:8.4f}  {us:12.1f} us  {fam}/{var}  {pid:016x}")
    r = np.array([x[0] for x in rows])
    bad = int(np.sum(np.abs(r - 1) > a.limit))
    print(
        f"{len(rows)} points >= {a.min_us:g} us in both: median ratio {np.median(r):.4f}, "
        f"min {r.min():.4f}, max {r.max():.4f}, {bad} beyond {a.limit:.0%}"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
