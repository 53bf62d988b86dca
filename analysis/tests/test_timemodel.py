"""The time model in the tools: device targets shown apart from CC targets
(reader, report, compare, export), the report's "Predicted against
measured" section (from the rows' own model_time_ns, or from a device
target of the measured GPU in another file), and what the Summary says
when a file has no predicted time. The GPU table copy (gpu_table.csv)
against the binary's."""

import csv
import io
import os
import re
import subprocess
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest

from sweep_analysis import gpus, timemodel
from sweep_analysis.reader import device_targets, read

from conftest import SEEDS, SOURCE, run_tool, timed_copy, writable_copy


def _summary(md) -> list:
    """The Summary's lines of a report.md."""
    lines = md.splitlines()
    start = lines.index("## Summary")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("**"))
    return lines[start:end]


def _report(tmp_path, *files, extra=()):
    out = tmp_path / "rep"
    p = run_tool("report", *files, "-o", out, *extra)
    assert p.returncode == 0, p.stderr
    return (out / "report.md").read_text(), out


def _section(md, heading):
    start = md.index(f"## {heading}")
    nxt = md.find("\n## ", start + 3)
    return md[start : nxt if nxt > 0 else len(md)]


def test_gpu_table_is_the_binarys(sweep_bin):
    """gpu_table.csv is sweep --list-devices parsed: regenerate it when they differ
    (python -m sweep_analysis.gpus build/sweep > analysis/sweep_analysis/gpu_table.csv)."""
    p = subprocess.run([sweep_bin, "--list-devices"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    fresh = gpus.to_csv(gpus.parse_list_devices(p.stdout))
    assert fresh == Path(gpus.CSV).read_text()


def test_gpu_table_find_and_a_changed_format():
    h200 = gpus.find("NVIDIA H200")
    assert h200["name"] == "H200" and h200["dram_gbps"] == 4800
    assert gpus.find("h100-sxm")["driver_name"] == "NVIDIA H100 80GB HBM3"
    assert gpus.find("H100") is None and gpus.find("") is None  # no partial match
    with pytest.raises(ValueError, match="announces 2 GPUs, 1 rows"):
        gpus.parse_list_devices(
            "GPUs the time model knows (2): ...\n"
            "H200              9.0  132   1980    4800.0    60.0     66908  NVIDIA H200; X\n"
        )


def test_device_targets_apart_in_the_reader(targets_file):
    r = read(targets_file)
    t = device_targets(r.rows)
    assert t.sum() == 2 * int((r.rows["device"] == "model CC 9.0").sum())
    assert set(r.rows["device"][t]) == {"model H100-SXM (CC 9.0)", "model H200 (CC 9.0)"}
    assert (r.rows["model_device"][~t] == "").all()
    assert list(r.model_rates["device"]) == ["H100-SXM", "H200"]
    assert set(r.model_rates["role"]) == {"target"}
    # an older file reads with the time model's columns empty
    old = read(SEEDS)
    assert (old.rows["model_device"] == "").all() and old.rows["model_time_ns"].isna().all()
    assert old.model_rates.empty


def test_report_of_device_targets(targets_file, tmp_path):
    md, out = _report(tmp_path, targets_file)
    targets = _section(md, "Device targets (time model)")
    assert "H100-SXM, H200" in targets
    # its per-point tables: in the appendix, under the section's heading
    app = _section((out / "report-appendix.md").read_text(), "Device targets (time model)")
    assert "| variant | point | H100-SXM us (term) |" in app
    assert "Rates (/model_rates): H100-SXM: target, datasheet rates" in targets
    assert any("time-model-targets" in f for f in os.listdir(out / "figures"))
    # the CC targets' section holds none of them
    assert "H100-SXM" not in _section(md, "Cross-architecture (model)")
    summary = "\n".join(_summary(md))
    assert "**Time model**: predicted for H100-SXM, H200 (230 rows" in summary
    assert "(1150 for CC targets and 230 for device targets (H100-SXM, H200))" in summary


# The points of jobs/fleet.yaml before it grew (git 49b7bd2), as tests/launch.c's
# launch_old_fleet has them: a fleet file of that job is these rows alone.
OLD_FLEET_IDS = np.array(
    [0x1FD17C0582C5CAC5, 0xF35901AC7DB4A7B0, 0xB12CF8A2E66C30AF, 0xF4FAE5D0C5BC13D7]
    + [0x026EF6BFFE9B2E7D, 0xC9B9EDC7C0EF0928, 0x7B08A2FE6060B534, 0x6D018564A7529A98]
    + [0xFE66E3AB579DB3BB],
    dtype=np.uint64,
)


def test_report_says_what_a_calibration_could_not_fit(sweep_bin, tmp_path):
    """A fleet file of an earlier jobs/fleet.yaml calibrates what its points
    fit: sweep names on stderr the rates the job needs that none of them fits,
    /model_rates records them "not identifiable" (schema 9), and the report's
    time-model section says so too."""
    old = writable_copy(os.path.join(SOURCE, "docs", "results", "h100-fleet.h5"), tmp_path / "o.h5")
    with h5py.File(old, "r+") as f:
        m = f["measurements"][:]
        keep = m[np.isin(m["point_id"], OLD_FLEET_IDS)]
        f["measurements"].resize((len(keep),))
        f["measurements"][:] = keep
    assert len(keep) == 9
    out = tmp_path / "old.h5"
    job = os.path.join(SOURCE, "jobs", "fleet.yaml")
    p = subprocess.run(
        [sweep_bin, "-q", "--backend", "model", "--model-devices", "H100-SXM"]
        + ["--model-calibrate", old, job, "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    said = re.search(f"--model-calibrate {re.escape(old)}: rates (.*) not identifiable", p.stderr)
    assert said, p.stderr
    r = read(str(out))
    row = r.model_rates.iloc[0]
    fits = [c for c in r.model_rates.columns if c.endswith("_fit")]
    unfitted = [c[: -len("_fit")] for c in fits if row[c] == "not identifiable"]
    assert said.group(1).split(", ") == unfitted
    assert {"l2_gbps", "blocks_per_us_sm"} <= set(unfitted)
    assert row["dram_efficiency_fit"] == "fitted" and row["dram_efficiency_points"] > 0
    md, _ = _report(tmp_path, out)
    targets = _section(md, "Device targets (time model)")
    assert (
        f"Not fitted: --model-calibrate {old} (H100-SXM): {', '.join(unfitted)} not identifiable"
        in targets
    )


def _own_prediction(r):
    """A prediction 20% over the measured median, none for cuBLAS."""
    if r["variant"] == b"cublas":
        return np.nan, "none"
    return r["median_ns"] * 1.2, "dram"


def test_predicted_against_measured_from_own_rows(tmp_path):
    """The rows' own model_time_ns (schema 8): every error is 20%, cuBLAS is
    left out and counted."""
    p = timed_copy(tmp_path / "timed.h5", _own_prediction)
    md, out = _report(tmp_path, p)
    sec = _section(md, "Predicted against measured")
    run = read(p)
    ok = run.rows[(run.rows["status"] == 0) & (run.rows["median_ns"] >= timemodel.MIN_NS)]
    n_cublas = int((ok["variant"] == "cublas").sum())
    n = len(ok) - n_cublas
    assert (
        f"median error 20%, 90th percentile 20% over {n} points, 0 of them within +-10%; "
        f"left out: {n_cublas} points of variants the model does not cover"
    ) in sec
    assert "from the rows' own model_time_ns (datasheet)" in sec
    worst = sec[sec.index("| variant | point | measured us") :].splitlines()[2:12]
    assert len(worst) == 10 and all("| 1.2 | dram | datasheet |" in w for w in worst)
    assert "01-time-model.png" in os.listdir(out / "figures")
    line = next(ln for ln in _summary(md) if ln.startswith("- **Time model**"))
    assert (
        f"NVIDIA H200: error |predicted / measured - 1| median 20%, 90th percentile 20% over "
        f"{n} points ({n_cublas} of variants it does not cover left out), datasheet mode (the "
        "weakest), from the rows' own model_time_ns"
    ) in line
    # the way to the stronger modes, for this class's GPU and this file's job
    assert (
        "calibrated or transferred: `sweep --backend model --model-devices H200 "
        "--model-calibrate FLEET.h5 [--model-from OTHER.h5] jobs/seeds.yaml -o pred.h5`"
    ) in line
    assert "then `sweep-report timed.h5 pred.h5`" in line


def test_a_calibrated_target_beats_the_rows_own_datasheet(sweep_bin, tmp_path):
    """The command the Summary gives does what it says: the rows' own
    predictions (datasheet) beside a device target of their GPU calibrated
    to the H200's fleet run (`--model-calibrate`): the report sets the
    measured points against the calibrated target, says calibrated mode
    and gives no command; a datasheet target does not replace them."""
    timed = timed_copy(tmp_path / "timed.h5", _own_prediction)
    fleet = os.path.join(os.path.dirname(SEEDS), "h200-fleet.h5")
    cal = tmp_path / "pred.h5"
    job = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(SEEDS))), "jobs")
    p = subprocess.run(
        [sweep_bin, "-q", "--backend", "model", "--model-devices", "H200"]
        + ["--model-calibrate", fleet, os.path.join(job, "seeds.yaml"), "-o", str(cal)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    md, _ = _report(tmp_path, timed, str(cal))
    line = next(ln for ln in _summary(md) if ln.startswith("- **Time model**"))
    m = re.search(r"calibrated mode \(rates fitted to a measured run of the class, "
                  r"`--model-calibrate`\) for (\d+) of them", line)  # fmt: skip
    assert m, line
    # points the target lacks keep the rows' own prediction, said so
    rest = re.search(r"datasheet mode \(the weakest\) for (\d+)", line)
    assert int(m.group(1)) > 5 * int(rest.group(1) if rest else 0)
    assert "from device target H200 of pred.h5" in line
    assert "--model-calibrate FLEET.h5" not in line
    sec = _section(md, "Predicted against measured")
    assert "from device target H200 of pred.h5" in sec and "(calibrated" in sec


def test_predicted_from_a_device_target_file(targets_file, tmp_path):
    """A measured file of schema 6 beside a model file with its GPU as a device
    target: each measured point set against the same point's prediction."""
    md, _ = _report(tmp_path, SEEDS, targets_file)
    sec = _section(md, "Predicted against measured")
    assert "from device target H200 of targets.h5 (datasheet)" in sec
    runs = [read(SEEDS), read(targets_file)]
    rows = pd.concat([r.rows for r in runs], ignore_index=True)
    axes = list(dict.fromkeys(runs[0].axes + runs[1].axes))
    for a in axes:
        rows[a] = rows[a].fillna(-1).astype(np.int64)
    p, _ = timemodel.predicted(rows, axes)
    e = timemodel.errors(p, ["class"]).iloc[0]
    assert e["compared"] > 50
    assert f"median error {100 * e['median']:.0f}%, 90th percentile {100 * e['p90']:.0f}%" in sec
    # a matched prediction is the model row's own figure
    t = runs[1].rows
    pick = p[(p["family"] == "strided_read") & (p["point"].str.startswith("stride=1 "))]
    want = t[(t["model_device"] == "H200") & (t["family"] == "strided_read") & (t["stride"] == 1)]
    assert set(pick["predicted_ns"]) == set(want["model_time_ns"])


def test_no_predicted_time_says_so(tmp_path):
    md, _ = _report(tmp_path, SEEDS)
    line = next(ln for ln in _summary(md) if ln.startswith("- **Time model**"))
    assert "not compared: NVIDIA H200: its rows carry no predicted time (schema 6, before " in line
    assert "and no file here has device target H200" in line
    sec = _section(md, "Predicted against measured")
    assert "`sweep --backend model --model-devices H200 JOB.yaml -o model.h5`" in sec


def test_compare_device_targets(targets_file, tmp_path):
    """Device targets are compared by their predicted time, CC targets by bytes."""
    import h5py

    b = writable_copy(targets_file, tmp_path / "slow.h5")
    with h5py.File(b, "r+") as f:
        m = f["measurements"][:]
        m["model_time_ns"][m["model_device"] == b"H200"] *= 1.2
        f["measurements"][:] = m
    p = run_tool("compare", targets_file, b, "--changes")
    assert p.returncode == 1, p.stdout + p.stderr
    rows = [ln for ln in p.stdout.splitlines() if ln.startswith("slower")]
    assert rows and all("dev=H200" in ln and "+20.0%" in ln for ln in rows)
    assert "Model rows: 230 of the device targets (H100-SXM, H200) compared by their " in p.stdout
    assert "1150 of the CC targets by their predicted moved bytes" in p.stdout


def test_export_device_targets(targets_file):
    p = run_tool("export", targets_file, "--csv")
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    devices = {r["device"] for r in rows if r["model_device"] == "H200"}
    assert devices == {"model H200 (CC 9.0)"}
    assert {r["device"] for r in rows if r["model_device"] == ""} >= {"model CC 9.0"}
    p = run_tool("export", targets_file, "--csv", "--table", "model_rates")
    assert p.returncode == 0 and re.search(r"^H200,target,datasheet,", p.stdout, re.M)
