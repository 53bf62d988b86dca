#!/usr/bin/env python3
"""The time model's figures (docs/results/time-model.md), from committed files.

For each measured class (the H100 and the H200 of docs/results/), runs the
model backend over jobs/full.yaml's points for that GPU in three modes,
then compares each prediction with the class's own full file:

  datasheet    sweep --backend model --model-devices DEV JOB
  calibrated   ... --model-calibrate FLEET            (the class's fleet file)
  transfer     ... --model-calibrate FLEET --model-from OTHER_FULL

over the ok points of at least 20 us that the time model covers (variants
with term "none" are left out and counted). Prints Markdown; --out writes
it. The job's CC targets are dropped (model.ccs: [9.0]) to keep the runs
short: they do not change the device targets' rows.

    build/venv/bin/python scripts/time-model-figures.py --sweep build/sweep \\
        --out docs/results/time-model.md
"""

import argparse
import datetime
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np
import pandas as pd

from sweep_analysis.gpus import parse_list_devices

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(TOP, "docs", "results")
# (table name, full file, calibration files, the first that exists) of each
# measured class: its fleet check, else its seeds run (the fleet's points
# but float3 at block 32), said so in the output
CLASSES = [
    ("H100-SXM", "h100-full.h5", ("h100-fleet.h5",)),
    ("H200", "h200-full.h5", ("h200-fleet.h5", "h200-seeds.h5")),
]
MIN_NS = 20_000
AXES = [
    *("stride", "n", "block", "grid", "vec", "elem_bytes", "offset", "rows", "cols"),
    *("tile", "block_rows", "pad", "word_stride", "size", "bins", "dist", "distinct"),
    "pattern",
]
# The published predictors the issue names, beside which the errors stand.
ANCHORS = (
    "Braun et al., ACM TACO 2020 (random forests over 189 kernels, five GPUs): "
    "median error 9-52% across GPUs; GPUMech, MICRO 2014 (an analytical "
    "interval model): about 13%."
)


def table(path, name):
    with h5py.File(path, "r") as f:
        t = pd.DataFrame(f[name][:])
    for c in t.select_dtypes(object):
        t[c] = t[c].str.decode("utf-8", "replace")
    return t


def predict(sweep, job, dev, out, extra):
    cmd = [sweep, "-q", "--backend", "model", "--model-devices", dev, *extra, job, "-o", out]
    subprocess.run(cmd, check=True, cwd=TOP)
    return " ".join(["sweep", *cmd[1:-3], "jobs/full.yaml"])


def errors(pred_path, dev, full):
    pred = table(pred_path, "measurements")
    meas = full[(full.status == 0) & (full.backend == "cuda")]
    key = ["family", "variant"] + [a for a in AXES if a in pred and a in meas]
    p = pred[pred.model_device == dev][key + ["model_time_ns", "model_time_term"]]
    x = meas[key + ["median_ns"]].merge(p, on=key)
    x = x[x.median_ns >= MIN_NS]
    left_out = x[x.model_time_term == "none"]
    x = x[np.isfinite(x.model_time_ns)].copy()
    x["err"] = (x.model_time_ns / x.median_ns - 1).abs()
    return x, left_out


def summary(x):
    return x.err.median(), x.err.quantile(0.9), len(x)


def fits(pred_path):
    r = table(pred_path, "model_rates")
    return r[r.file != ""]


def job_one_cc(tmp):
    with open(os.path.join(TOP, "jobs", "full.yaml")) as f:
        text = re.sub(r"(?m)^  ccs: .*$", "  ccs: [9.0]", f.read())
    path = os.path.join(tmp, "full.yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def revision(sweep):
    v = subprocess.run([sweep, "--version"], capture_output=True, text=True).stdout
    return v.splitlines()[0] if v else "?"


def run_class(sweep, job, tmp, dev, full_name, fleet_name, other_full, other_fleet):
    """The three modes against the class's full file; the transfer twice:
    with the target's calibration alone (the issue's command), and with the
    other class's fleet check too, which gives the source its own chunk
    cost (docs/model.md, "Three levels of trust")."""
    full = table(os.path.join(RESULTS, full_name), "measurements")
    res = os.path.join("docs", "results")
    cal = ["--model-calibrate", os.path.join(res, fleet_name)]
    src = ["--model-from", os.path.join(res, other_full)]
    modes = [("datasheet", []), ("calibrated", cal), ("transfer", cal + src)]
    if other_fleet:
        both = cal + ["--model-calibrate", os.path.join(res, other_fleet)]
        modes.append(("transfer, both fleets", both + src))
    out = {}
    for mode, extra in modes:
        path = os.path.join(tmp, f"{dev}-{len(out)}.h5")
        cmd = predict(sweep, job, dev, path, extra)
        x, left = errors(path, dev, full)
        out[mode] = (cmd, x, left, fits(path))
    return out


def md_class(dev, full_name, fleet_name, res):
    lines = [f"### {dev}: against `docs/results/{full_name}`", ""]
    if "fleet" not in fleet_name:
        lines += [
            f"Calibrated on `{fleet_name}`: no fleet check of this class is committed "
            "(a run of `jobs/fleet.yaml` on it could not be made).",
            "",
        ]
    lines.append("| mode | median | 90th pct | points | command |")
    lines.append("|---|---|---|---|---|")
    for mode, (cmd, x, _, _) in res.items():
        med, p90, n = summary(x)
        lines.append(f"| {mode} | {med:.3f} | {p90:.3f} | {n} | `{cmd}` |")
    _, x0, left, _ = next(iter(res.values()))
    lines += [
        "",
        f"Left out, the variants the time model does not cover ({len(left)} points "
        "of at least 20 us): ",
    ]
    lines[-1] += ", ".join(
        f"{f}/{v} ({n})" for (f, v), n in left.groupby(["family", "variant"]).size().items()
    )
    lines += ["", "Per family, median |predicted / measured - 1|:", ""]
    modes = list(res)
    lines.append("| family | points | " + " | ".join(modes) + " |")
    lines.append("|---|---|" + "---|" * len(modes))
    fams = sorted(set(x0.family))
    for fam in fams:
        cells = []
        for m in modes:
            x = res[m][1]
            cells.append(f"{x[x.family == fam].err.median():.3f}")
        lines.append(f"| {fam} | {int((x0.family == fam).sum())} | " + " | ".join(cells) + " |")
    lines += ["", "Which fits saw which data (`/model_rates` of each run):", ""]
    lines.append("| mode | GPU | role | file | points | error before | error after |")
    lines.append("|---|---|---|---|---|---|---|")
    for mode, (_, _, _, fr) in res.items():
        for _, r in fr.iterrows():
            lines.append(
                f"| {mode} | {r.device} | {r.role} | `{r.file}` | {r.points} | "
                f"{r.error_before:.3f} | {r.error_after:.3f} |"
            )
    return lines


# The GPUs never measured here whose predictions the plausibility table shows.
PLAUSIBLE_DEVICES = "K80,V100-SXM2,T4,A100-SXM4-80GB,L4,H100-PCIe,B200,RTX-5090"
PLAUSIBLE_RUNS = (
    ("streaming read, 1 GiB", "strided_read", ["stream_read"], ["n=1G"], "useful_bytes"),
    ("matmul naive 4096", "matmul", ["naive"], ["size=4096", "tile=16"], "flops"),
)


def device_peaks(sweep):
    """{name: (DRAM GB/s, FP32 GFLOP/s)}: the binary's own table, read as the
    report reads it (sweep_analysis.gpus)."""
    out = subprocess.run([sweep, "--list-devices"], capture_output=True, text=True, check=True)
    t = parse_list_devices(out.stdout)
    return {r.name: (r.dram_gbps, r.fp32_gflops) for r in t.itertuples()}


def plausibility(sweep, tmp):
    """Datasheet predictions for GPUs never measured here: the streaming
    read against the peak bandwidth, the naive matmul against FP32 peak."""
    peaks = device_peaks(sweep)
    got, cmds = {}, []
    for what, fam, variants, axes, unit in PLAUSIBLE_RUNS:
        out = os.path.join(tmp, f"plausible-{fam}.h5")
        sets = [f"{fam}.variants={','.join(variants)}"] + [f"{fam}.{a}" for a in axes]
        cmd = [sweep, "-q", "--backend", "model", "--model-devices", PLAUSIBLE_DEVICES]
        cmd += ["--family", fam] + [x for s_ in sets for x in ("--set", s_)]
        subprocess.run(cmd + ["-o", out], check=True, cwd=TOP)
        cmds.append(" ".join(["sweep", *cmd[1:]]))
        t = table(out, "measurements")
        t = t[t.model_device != ""]
        for _, r in t.iterrows():
            got[(r.model_device, what)] = (r[unit] / r.model_time_ns, r.model_time_term)
    lines = ["### Plausibility for GPUs never measured here", ""]
    lines.append(
        "Datasheet mode: useful bytes and flops over `model_time_ns`, against the "
        "table's peaks (`sweep --list-devices`)."
    )
    lines += [
        "",
        "| GPU | streaming read, 1 GiB: GB/s | of the peak | matmul naive 4096: "
        "GFLOP/s | of the FP32 peak | terms |",
        "|---|---|---|---|---|---|",
    ]
    for dev in PLAUSIBLE_DEVICES.split(","):
        (bw, t1), (fl, t2) = got[(dev, PLAUSIBLE_RUNS[0][0])], got[(dev, PLAUSIBLE_RUNS[1][0])]
        dram, fp32 = peaks[dev]
        lines.append(
            f"| {dev} | {bw:.0f} | {bw / dram:.2f} | {fl:.0f} | {fl / fp32:.3f} | {t1}, {t2} |"
        )
    lines += [""] + [f"`{c}`" + ("; " if i == 0 else "") for i, c in enumerate(cmds)]
    return lines + [""]


# The ten device targets of the rows-per-second benchmark: CC 3.7 to 10.0.
BENCH_DEVICES = "K80,M40,P100-SXM,V100-SXM,T4,A100-SXM4-80GB,L4,H100-SXM,H200,B200"


def timed(cmd):
    """Wall and user+system CPU seconds of a command (its children's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, cwd=TOP)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return time.monotonic() - t0, cpu


def bench(sweep, before, tmp):
    """The model backend over jobs/full.yaml: before (a sweep without device
    targets) and after, with ten device targets added."""
    job = os.path.join(TOP, "jobs", "full.yaml")
    lines = ["### The model backend's rows per second", ""]
    lines.append(
        "`jobs/full.yaml` on the model backend, one process, the same machine one after "
        "the other; CPU time (user + system) is what the machine's load changes least."
    )
    lines += ["", "| run | rows | wall s | CPU s | rows / CPU s |", "|---|---|---|---|---|"]
    rates = []
    for name, binary, extra in (
        ("before: " + revision(before), before, []),
        (
            "after: " + revision(sweep) + ", 10 device targets",
            sweep,
            ["--model-devices", BENCH_DEVICES],
        ),
    ):
        out = os.path.join(tmp, "bench.h5")
        if os.path.exists(out):
            os.remove(out)
        wall, cpu = timed([binary, "-q", "--backend", "model", *extra, job, "-o", out])
        rows = len(table(out, "measurements"))
        rates.append(rows / cpu)
        lines.append(f"| {name} | {rows} | {wall:.1f} | {cpu:.1f} | {rows / cpu:.0f} |")
    lines += ["", f"After over before: {rates[1] / rates[0]:.2f} of the rows per CPU second.", ""]
    return lines


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sweep", default=os.path.join(TOP, "build", "sweep"))
    ap.add_argument("--out", help="write the Markdown here (default: stdout)")
    ap.add_argument(
        "--bench",
        metavar="BEFORE_SWEEP",
        help="also time the model backend against this older binary",
    )
    a = ap.parse_args()
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    lines = [
        "<!-- made by scripts/time-model-figures.py; rerun it, do not edit -->",
        "## The time model against two measured classes",
        "",
        f"Made by `scripts/time-model-figures.py` with {revision(a.sweep)} on "
        f"{platform.node() or 'this machine'} ({os.cpu_count()} cores), "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC. Errors are "
        "|predicted / measured - 1| over the ok points of at least 20 us of each "
        f"class's full file that the time model covers. Anchors: {ANCHORS}",
        "",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        job = job_one_cc(tmp)
        for i, (dev, full_name, fleets) in enumerate(CLASSES):
            other = CLASSES[1 - i][1]
            here = [n for n in fleets if os.path.exists(os.path.join(RESULTS, n))]
            fleet_name = here[0] if here else fleets[0]
            missing = [
                n
                for n in (full_name, fleet_name, other)
                if not os.path.exists(os.path.join(RESULTS, n))
            ]
            if missing:
                lines += [
                    f"### {dev}",
                    "",
                    f"Not run: docs/results/ lacks {', '.join(missing)}.",
                    "",
                ]
                continue
            theirs = [n for n in CLASSES[1 - i][2] if os.path.exists(os.path.join(RESULTS, n))]
            other_fleet = theirs[0] if theirs and "fleet" in theirs[0] else None
            res = run_class(a.sweep, job, tmp, dev, full_name, fleet_name, other, other_fleet)
            lines += md_class(dev, full_name, fleet_name, res) + [""]
        lines += plausibility(a.sweep, tmp)
        if a.bench:
            lines += bench(a.sweep, a.bench, tmp)
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
