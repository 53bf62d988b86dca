#!/usr/bin/env python3
"""The schedule's scaling by replay (the replay backend, a test instrument).

Replays tests/data/replay/h200-full-durations.csv (jobs/full.yaml measured on
one H200) at each rank count, with and without --costs, and prints the
efficiency table of docs/results/scaling.md: T1 = the replayed durations
over the speed, TN = last end_unix - first start_unix of the output file,
efficiency T1 / (N x TN), and the bound T1 / (N x max(T1/N, longest)).
--serve measures how many points a second rank 0 can serve: a job of
103,200 points that take no time at all, at the given rank counts.
--hetero replays a real H200 file (--hetero-file, its job --hetero-job) on
emulated devices of 2 and 4 classes (--replay-devices) under per_class, and
prints each class against its own bound, from the output's rows of that
class's ranks: T1_C = sum of end_unix - start_unix, TN_C = last end_unix -
first start_unix, efficiency T1_C / (N_C x TN_C), bound T1_C / (N_C x
max(T1_C / N_C, longest row)); each SPEC runs without --costs, then with
--costs of that first run's file (its times per class).

    build/venv/bin/python scripts/replay-scaling.py --ranks 2,4,8,16,64
    build/venv/bin/python scripts/replay-scaling.py --ranks '' --hetero --speed 4
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


HETERO_SPECS = [
    "A:2,B:2:0.5",
    "A:4,B:4:0.5",
    "A:8,B:8:0.5",
    "A:1,B:1:0.5,C:1:2,D:1:0.8",
    "A:2,B:2:0.5,C:2:2,D:2:0.8",
    "A:4,B:4:0.5,C:4:2,D:4:0.8",
]


def run_devices(sweep, spec, job, recorded, out, speed, costs):
    n = sum(int(part.split(":")[1]) for part in spec.split(","))
    cmd = ["mpirun", "-np", str(n), "--oversubscribe", "--bind-to", "none", sweep, "-q"]
    cmd += ["--backend", f"replay={recorded}", "--replay-devices", spec]
    cmd += ["--replay-speed", str(speed), "--placement", "per_class", "-o", out, job]
    if costs:
        cmd += ["--costs", costs]
    subprocess.run(cmd, check=True)


def class_figures(out):
    """Each class's (label, ranks, rows, T1, TN, efficiency, bound) from out's rows."""
    with h5py.File(out, "r") as f:
        m = f["measurements"][:]
        dev = f["devices"][:]
    label = {int(d["rank"]): d["device_class"].decode() for d in dev}
    rows = []
    for cls in sorted(set(label.values())):
        ranks = [r for r, c in label.items() if c == cls]
        mine = m[np.isin(m["rank"], ranks)]
        d = mine["end_unix"] - mine["start_unix"]
        t1, n = d.sum(), len(ranks)
        tn = mine["end_unix"].max() - mine["start_unix"].min()
        bound = t1 / (n * max(t1 / n, d.max()))
        rows.append((cls, n, len(mine), t1, tn, t1 / (n * tn), bound))
    return rows


def hetero(a, tmp):
    print(
        "| SPEC | ranks | --costs | class | class ranks | rows | T1_C (s) | TN_C (s) "
        "| efficiency | bound | ratio |"
    )
    print("|---|---:|:---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for i, spec in enumerate(HETERO_SPECS):
        n = sum(int(part.split(":")[1]) for part in spec.split(","))
        first = None
        for costs in ("no", "per class"):
            out = os.path.join(tmp, f"hetero-{i}-{costs[0]}.h5")
            run_devices(a.sweep, spec, a.hetero_job, a.hetero_file, out, a.speed, first)
            first = first or out
            for cls, nc, rows, t1, tn, eff, bound in class_figures(out):
                print(
                    f"| `{spec}` | {n} | {costs} | {cls} | {nc} | {rows} | {t1:.2f} "
                    f"| {tn:.2f} | {eff:.3f} | {bound:.3f} | {eff / bound:.3f} |",
                    flush=True,
                )


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
    ap.add_argument("--hetero", action="store_true", help="the heterogeneous per_class table")
    ap.add_argument(
        "--hetero-file",
        default=os.path.join(TOP, "docs/results/gpu-runs/h200-check-2b86d9f/seeds-gpu-1.h5"),
    )
    ap.add_argument("--hetero-job", default=os.path.join(TOP, "jobs/seeds.yaml"))
    a = ap.parse_args()
    table = durations(FIXTURE)
    with tempfile.TemporaryDirectory() as tmp:
        if a.hetero:
            hetero(a, tmp)
        if not a.ranks:
            return 0
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
