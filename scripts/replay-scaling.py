#!/usr/bin/env python3
"""The schedule's scaling by replay (the replay backend, a test instrument).

Replays tests/data/replay/h200-full-durations.csv (jobs/full.yaml measured on
one H200) at each rank count, with and without --costs, and prints the
efficiency table of docs/results/scaling.md: T1 = the replayed durations
over the speed, TN = last end_unix - first start_unix of the output file,
efficiency T1 / (N x TN), and the bound T1 / (N x max(T1/N, longest)).
--serve measures how many points a second rank 0 can serve: a job of
103,200 points that take no time at all, at the given rank counts.

    build/venv/bin/python scripts/replay-scaling.py --ranks 2,4,8,16,64
"""

import argparse
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(TOP, "tests/data/replay/h200-full-durations.csv")
SHORT_JOB = """name: short
families:
  strided_read:
    axes:
      stride: 1:128
      n: 1024:409600:1024
"""


def durations(path):
    with open(path) as f:
        next(f)
        return {int(line.split(",")[0], 16): float(line.split(",")[3]) for line in f}


def run(sweep, np_, job, table, out, speed, costs):
    cmd = ["mpirun", "-np", str(np_), "--oversubscribe", "--bind-to", "none", sweep, "-q"]
    cmd += ["--backend", f"replay={table}", "--replay-speed", str(speed), "-o", out, job]
    if costs:
        cmd += ["--costs", table]
    subprocess.run(cmd, check=True)


def figures(out, table, speed, np_):
    with h5py.File(out, "r") as f:
        m = f["measurements"][:]
    tn = m["end_unix"].max() - m["start_unix"].min()
    d = np.array(
        [table[int(i)] / speed for i in m["point_id"][m["status"] == 0] if int(i) in table]
    )
    t1 = d.sum()
    bound = t1 / (np_ * max(t1 / np_, d.max())) if len(d) and t1 > 0 else float("nan")
    return len(m), t1, tn, t1 / (np_ * tn), bound


def short_job(tmp):
    """The short job's file; its point ids come from a dry run (--points)."""
    job = os.path.join(tmp, "short.yaml")
    with open(job, "w") as f:
        f.write(SHORT_JOB)
    return job


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sweep", default=os.path.join(TOP, "build/sweep"))
    ap.add_argument("--ranks", default="2,4,8,16")
    ap.add_argument("--speed", type=float, default=10)
    ap.add_argument("--serve", default="", help="rank counts for the serving-rate runs")
    a = ap.parse_args()
    table = durations(FIXTURE)
    with tempfile.TemporaryDirectory() as tmp:
        print("| ranks | --costs | T1 (s) | TN (s) | efficiency | bound | ratio |")
        print("|---:|:---:|---:|---:|---:|---:|---:|")
        for n in [int(x) for x in a.ranks.split(",") if x]:
            for costs in (True, False):
                out = os.path.join(tmp, f"full-{n}-{int(costs)}.h5")
                run(a.sweep, n, os.path.join(TOP, "jobs/full.yaml"), FIXTURE, out, a.speed, costs)
                _, t1, tn, eff, bound = figures(out, table, a.speed, n)
                print(
                    f"| {n} | {'yes' if costs else 'no'} | {t1:.2f} | {tn:.2f} | {eff:.3f} "
                    f"| {bound:.3f} | {eff / bound:.3f} |",
                    flush=True,
                )
        if a.serve:
            job = short_job(tmp)
            ids = os.path.join(tmp, "ids.csv")
            dry = subprocess.run(
                [a.sweep, "--dry-run", "--points", "--backend", f"replay={ids}", job],
                check=True,
                capture_output=True,
                text=True,
            )
            lines = [ln.split() for ln in dry.stdout.splitlines()]
            pts = [ln[1] for ln in lines if len(ln) >= 4 and len(ln[1]) == 16 and ln[0].isdigit()]
            for secs in (0.0, 0.001):
                with open(ids, "w") as f:
                    f.write("point_id_hex,family,variant,seconds\n")
                    f.writelines(f"{p},strided_read,course,{secs}\n" for p in pts)
                print(f"\n{len(pts)} points of {secs * 1e3:g} ms:\n")
                print("| ranks | TN (s) | points/s | efficiency |")
                print("|---:|---:|---:|---:|")
                for n in [int(x) for x in a.serve.split(",") if x]:
                    out = os.path.join(tmp, f"serve-{n}-{secs}.h5")
                    run(a.sweep, n, job, ids, out, 1, True)
                    rows, _, tn, _, _ = figures(out, {}, 1, n)
                    eff = rows * secs / (n * tn)
                    print(f"| {n} | {tn:.2f} | {rows / tn:.0f} | {eff:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
