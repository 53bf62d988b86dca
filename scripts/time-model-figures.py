#!/usr/bin/env python3
"""The time model's figures (docs/results/time-model.md), from committed files.

For each measured class (the H100 and the H200 of docs/results/), runs the
model backend over jobs/full.yaml's points for that GPU in three modes,
then compares each prediction with the class's own full file:

  datasheet    sweep --backend model --model-devices DEV JOB
  calibrated   ... --model-calibrate FLEET            (the class's fleet file)
  transfer     ... --model-calibrate FLEET --model-from OTHER_FULL
  transfer alone  ... --model-from OTHER_FULL            (no calibration)

over the ok points of at least 20 us that the time model covers (variants
with term "none" are left out and counted). Prints Markdown; --out writes
it. The job's CC targets are dropped (model.ccs: [9.0]) to keep the runs
short: they do not change the device targets' rows.

Out of sample: each family of the class's fleet file left out in turn (a
copy without its rows, sweep_analysis.leaveout), its points of the full
job predicted calibrated on that copy; and published streaming
bandwidths of other GPUs (docs/results/published-bandwidth.csv) beside
the datasheet mode's prediction of the same kernel.

    build/venv/bin/python scripts/time-model-figures.py --sweep build/sweep \\
        --out docs/results/time-model-figures.md
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
from sweep_analysis.leaveout import families, without_family

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


def predict(sweep, job, dev, out, extra, label="jobs/full.yaml"):
    cmd = [sweep, "-q", "--backend", "model", "--model-devices", dev, *extra, job, "-o", out]
    subprocess.run(cmd, check=True, cwd=TOP)
    return " ".join(["sweep", *cmd[1:-3], label])


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
    """The three modes against the class's full file; the transfer three
    times: with the target's calibration alone (the issue's command),
    without it (transfer alone: the datasheet rates scaled by the other
    class's measured times), and with the other class's fleet check too,
    which gives the source its own chunk cost (docs/model.md, "Three levels
    of trust")."""
    full = table(os.path.join(RESULTS, full_name), "measurements")
    res = os.path.join("docs", "results")
    cal = ["--model-calibrate", os.path.join(res, fleet_name)]
    src = ["--model-from", os.path.join(res, other_full)]
    modes = [("datasheet", []), ("calibrated", cal), ("transfer", cal + src)]
    modes.append(("transfer alone", src))
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


# Families whose mechanism only their own fleet points fit (the constant
# cache's passes, shared-memory wavefronts): left out, that rate falls back
# to the datasheet's, so they are held to the datasheet figure (issue 35).
OWN_MECHANISM = ("constant_read", "smem_bank")


def job_of(job, tmp, fams):
    """The job file job (the one-CC copy of jobs/full.yaml) with only the
    blocks of families fams: a left-out family's points alone."""
    out, keep, inside = [], True, False
    with open(job) as f:
        for line in f:
            if line.startswith("families:"):
                inside = True
            elif inside and re.match(r"^  [a-z_0-9]+:", line):
                keep = line.strip().rstrip(":") in fams
            elif inside and re.match(r"^\S", line):
                inside, keep = False, True
            if keep:
                out.append(line)
    path = os.path.join(tmp, f"full-{'-'.join(fams)}.yaml")
    with open(path, "w") as f:
        f.writelines(out)
    return path


def left_out(sweep, job, tmp, dev, full_name, fleet_name):
    """Each family of the fleet file left out in turn: its points of the
    full job predicted calibrated on a copy of the fleet file without its
    rows. {family: (rows dropped, errors)}, and the command, written for one
    family F."""
    full = table(os.path.join(RESULTS, full_name), "measurements")
    fleet = os.path.join(RESULTS, fleet_name)
    out = {}
    for fam in families(fleet):
        less = os.path.join(tmp, f"{dev}-without-{fam}.h5")
        dropped = without_family(fleet, less, fam)
        path = os.path.join(tmp, f"{dev}-left-out-{fam}.h5")
        predict(sweep, job_of(job, tmp, [fam]), dev, path, ["--model-calibrate", less])
        out[fam] = (dropped, errors(path, dev, full)[0])
    cmd = (
        f"sweep -q --backend model --model-devices {dev} --model-calibrate "
        f"<docs/results/{fleet_name} less F's /measurements rows> <jobs/full.yaml, F's block>"
    )
    return out, cmd


def quantiles(x):
    """Median and 90th percentile of x's errors, and its points."""
    return (x.err.median(), x.err.quantile(0.9), len(x)) if len(x) else (np.nan, np.nan, 0)


def md_out_of_sample(dev, fleet_name, res, lofo):
    """Per family: calibrated in sample beside left out; the overall
    figures over the families other families' points also fit; the
    transfer alone per family."""
    lofo, cmd = lofo
    cal, sheet, alone = res["calibrated"][1], res["datasheet"][1], res["transfer alone"][1]
    lines = [f"### {dev}: out of sample", ""]
    lines.append(
        f"Each family of `docs/results/{fleet_name}` left out in turn: its points of the "
        f"full job predicted calibrated on a copy of the fleet file without its rows (`{cmd}`)."
    )
    lines += ["", "| family | points | in sample: median | 90th pct | left out: median | "]
    lines[-1] += "90th pct | fleet rows left out | note |"
    lines.append("|---|---:|---:|---:|---:|---:|---:|---|")
    pooled, pooled_all, insample, names, nofleet = [], [], [], [], []
    for fam in sorted(set(cal.family)):
        c = cal[cal.family == fam]
        cm, c9, n = quantiles(c)
        if fam in lofo:
            dropped, x = lofo[fam]
            lm, l9, _ = quantiles(x)
            note = ""
            if fam in OWN_MECHANISM:
                dm = quantiles(sheet[sheet.family == fam])[0]
                note = f"held to the datasheet figure ({dm:.3f}): only its own points fit its rate"
            else:
                pooled.append(x)
                insample.append(c)
                names.append(fam)
            if abs(lm - cm) < 5e-4 and abs(l9 - c9) < 5e-4:
                note = (note + "; " if note else "") + "unchanged: no row left out fits a rate"
            cells = f"{lm:.3f} | {l9:.3f} | {dropped}"
        else:
            nofleet.append(c)
            cells = "| | 0"
            note = "no fleet point: out of sample already (its calibrated figure)"
        lines.append(f"| {fam} | {n} | {cm:.3f} | {c9:.3f} | {cells} | {note} |")
    pooled_all = pooled + nofleet
    lines += ["", "| over | points | median | 90th pct |", "|---|---:|---:|---:|"]
    for what, xs in (
        (f"left out, the families other families' points also fit ({', '.join(names)})", pooled),
        ("the same points in sample (calibrated on the whole fleet file)", insample),
        ("left out, with the families no fleet point fits (calibrated)", pooled_all),
    ):
        m, p9, n = quantiles(pd.concat(xs)) if xs else (np.nan, np.nan, 0)
        lines.append(f"| {what} | {n} | {m:.3f} | {p9:.3f} |")
    lines += ["", f"Transfer alone (`{res['transfer alone'][0]}`), per family:", ""]
    lines += ["| family | points | median | 90th pct |", "|---|---:|---:|---:|"]
    for fam in sorted(set(alone.family)):
        m, p9, n = quantiles(alone[alone.family == fam])
        lines.append(f"| {fam} | {n} | {m:.3f} | {p9:.3f} |")
    return lines + [""]


# Published streaming bandwidths of GPUs never measured here, with sources;
# none is fitted to: docs/results/time-model.md, "Out of sample".
PUBLISHED = os.path.join(RESULTS, "published-bandwidth.csv")
PUBLISHED_SETS = {"strided_read": ["stride=1"]}


def published(sweep, tmp):
    """Each published figure beside the datasheet mode's time for the same
    bytes on sweep's own kernel (a float4 read, a float4 copy)."""
    t = pd.read_csv(PUBLISHED)
    got, cmds = {}, []
    for (fam, var, n), g in t.groupby(["family", "variant", "n"], sort=False):
        out = os.path.join(tmp, f"published-{fam}-{n}.h5")
        sets = [f"{fam}.variants={var}", f"{fam}.n={n}"]
        sets += [f"{fam}.{a}" for a in PUBLISHED_SETS.get(fam, [])]
        cmd = [sweep, "-q", "--backend", "model", "--model-devices", ",".join(dict.fromkeys(g.gpu))]
        cmd += ["--family", fam] + [x for s_ in sets for x in ("--set", s_)]
        subprocess.run(cmd + ["-o", out], check=True, cwd=TOP)
        cmds.append(" ".join(["sweep", *cmd[1:]]))
        p = table(out, "measurements")
        for _, r in p[p.model_device != ""].iterrows():
            got[(fam, var, n, r.model_device)] = (r.model_time_ns, r.model_time_term)
    lines = ["### Published measurements of other architectures", ""]
    lines.append(
        "Datasheet mode (nothing fitted to anything) against streaming bandwidths "
        "published for GPUs of other architectures, each with its source "
        "(`docs/results/published-bandwidth.csv`). The prediction is sweep's own kernel "
        "moving the bytes the source counts; the error is |predicted / measured time - 1|, "
        "the measured time being the counted bytes over the published bandwidth."
    )
    lines += ["", "| GPU (sweep's table) | as the source names it | architecture | kernel | "]
    lines[-1] += "measured GB/s | predicted GB/s | error | term | source |"
    lines.append("|---|---|---|---|---:|---:|---:|---|---|")
    errs = []
    for r in t.itertuples():
        key = (r.family, r.variant, r.n, r.gpu)
        if key not in got:
            sys.exit(f"{PUBLISHED}: no prediction for {key} (a point sweep skips?)")
        ns, term = got[key]
        pred = r.counted_bytes / ns
        err = abs(r.measured_gbps / pred - 1)
        errs.append(err)
        lines.append(
            f"| {r.gpu} | {r.board} | {r.architecture} | {r.kernel} | {r.measured_gbps:g} | "
            f"{pred:.0f} | {err:.3f} | {term} | {r.source} |"
        )
    lines += [
        "",
        f"Median error over the {len(errs)} figures ({t.gpu.nunique()} table rows, "
        f"{t.architecture.nunique()} architectures): {np.median(errs):.3f}; "
        f"largest {max(errs):.3f}.",
        "",
    ]
    return (
        lines + [f"`{c}`" + (";" if i < len(cmds) - 1 else "") for i, c in enumerate(cmds)] + [""]
    )


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
            lofo = left_out(a.sweep, job, tmp, dev, full_name, fleet_name)
            lines += md_out_of_sample(dev, fleet_name, res, lofo)
        lines += published(a.sweep, tmp)
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
