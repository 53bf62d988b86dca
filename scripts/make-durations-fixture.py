#!/usr/bin/env python3
"""Per-point wall durations of a sweep result file, as a CSV fixture.

    make-durations-fixture.py RESULT.h5 [OUT.csv]

Writes `point_id_hex,family,variant,seconds`, one line per ok or skipped row
in file order, by the rule of src/h5/h5durations.c (durations.h): end_unix -
start_unix where the file has end_unix and both are finite; otherwise the gap
to the next start_unix of the same rank and session (rows with status >= 0
ordered by start_unix, ties in file order), and timed_s (0 when NaN) for a
rank's last row of a session. Prints T1, the longest point and the bound on
a static schedule's efficiency for some rank counts. Needs h5py and NumPy.

The committed fixture, from the shared H200 file:
    scripts/make-durations-fixture.py ../shared/data/h200-full-2026-12-01.h5 \\
        tests/data/replay/h200-full-durations.csv
"""

import sys

import h5py
import numpy as np

OK, SKIPPED = 0, 1


def durations(m):
    """wall seconds of every row of the structured array m."""
    timed = np.where(np.isnan(m["timed_s"]), 0.0, m["timed_s"])
    wall = timed.astype(np.float64).copy()
    start = m["start_unix"]
    live = np.nonzero((m["status"] >= 0) & np.isfinite(start))[0]
    # lexsort: the last key is the primary one; the row index breaks ties.
    order = live[np.lexsort((live, start[live], m["session"][live], m["rank"][live]))]
    # successive pairs (itertools.pairwise is Python 3.10; the tree supports 3.9)
    for a, b in zip(order[:-1], order[1:]):
        if m["rank"][a] == m["rank"][b] and m["session"][a] == m["session"][b]:
            wall[a] = start[b] - start[a]
    if "end_unix" in m.dtype.names:
        end = m["end_unix"]
        has = np.isfinite(end) & np.isfinite(start)
        wall[has] = end[has] - start[has]
    return wall


def write_csv(out, m, wall, keep):
    out.write("point_id_hex,family,variant,seconds\n")
    for i in keep:
        family, variant = m["family"][i].decode(), m["variant"][i].decode()
        out.write(f"{int(m['point_id'][i]):016x},{family},{variant},{float(wall[i])!r}\n")


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    # As sweep_analysis reads: a SWMR reader without HDF5's lock.
    with h5py.File(argv[1], "r", swmr=True, locking=False) as f:
        m = f["measurements"][:]
    wall = durations(m)
    keep = np.nonzero((m["status"] == OK) | (m["status"] == SKIPPED))[0]
    if len(argv) == 3:
        with open(argv[2], "w", newline="\n") as out:
            write_csv(out, m, wall, keep)
    else:
        write_csv(sys.stdout, m, wall, keep)
    t1, longest = float(wall[keep].sum()), float(wall[keep].max())
    i_max = keep[int(np.argmax(wall[keep]))]
    family, variant = m["family"][i_max].decode(), m["variant"][i_max].decode()
    print(
        f"{len(keep)} rows, T1 = {t1:.3f} s, longest {longest:.3f} s "
        f"({family}/{variant}, point {int(m['point_id'][i_max]):016x})",
        file=sys.stderr,
    )
    for ranks in (2, 4, 8, 16):
        bound = t1 / (ranks * max(t1 / ranks, longest))
        print(
            f"N = {ranks:2d}: T1/N = {t1 / ranks:.3f} s, "
            f"bound on efficiency T1/(N*max(T1/N, longest)) = {bound:.4f}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
