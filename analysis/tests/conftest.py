"""Fixtures: result files written by the real C writer (the sweep binary ctest
names in SW_SWEEP, model backend: no GPU needed), the committed real H200
file, and copies of them edited with h5py to make the bad, slow, noisy and
many-device cases.
"""

import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("SW_SOURCE_DIR") or os.path.dirname(os.path.dirname(HERE))
H200 = os.path.join(SOURCE, "docs", "results", "legacy", "h200-quick.h5")
# Test this tree's package, whatever copy of it is installed.
sys.path.insert(0, os.path.join(SOURCE, "analysis"))


def run_tool(module, *args, env=None, timeout=300):
    """Run a console tool of the package as its own process, from this tree;
    env: variables to set for it, beside the caller's."""
    full = dict(os.environ, **(env or {}))
    full["PYTHONPATH"] = os.path.join(SOURCE, "analysis") + os.pathsep + full.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", f"sweep_analysis.{module}", *map(str, args)],
        capture_output=True,
        text=True,
        env=full,
        timeout=timeout,
    )


def writable_copy(src, dst):
    shutil.copyfile(src, dst)
    os.chmod(dst, 0o644)
    return str(dst)


@pytest.fixture(scope="session")
def sweep_bin():
    path = os.environ.get("SW_SWEEP")
    if not path:
        pytest.skip(
            "SW_SWEEP is not set: ctest sets it to the sweep binary "
            "(or: SW_SWEEP=build/sweep pytest analysis/tests)"
        )
    if not os.access(path, os.X_OK):
        pytest.fail(f"SW_SWEEP={path} is not an executable")
    return path


def _sweep(sweep_bin, job, out):
    p = subprocess.run(
        [sweep_bin, "-q", "--backend", "model", str(job), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, f"sweep failed ({p.returncode}): {p.stderr}"
    return str(out)


@pytest.fixture(scope="session")
def ci_file(sweep_bin, tmp_path_factory):
    """jobs/ci.yaml on the model backend: strided_read for CC 6.0-9.0."""
    out = tmp_path_factory.mktemp("ci") / "ci.h5"
    return _sweep(sweep_bin, os.path.join(SOURCE, "jobs", "ci.yaml"), out)


@pytest.fixture(scope="session")
def families(sweep_bin):
    """Names of the families the binary was built with."""
    p = subprocess.run([sweep_bin, "--list"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return re.findall(r"^([a-z0-9_]+): ", p.stdout, flags=re.M)


@pytest.fixture(scope="session")
def all_model_file(sweep_bin, families, tmp_path_factory):
    """Every registered family at its default axes, modelled for CC 1.0 to 9.0."""
    d = tmp_path_factory.mktemp("allmodel")
    job = d / "allmodel.yaml"
    job.write_text(
        "name: allmodel\nmodel:\n  ccs: [1.0, 1.2, 2.0, 6.0, 9.0]\nfamilies:\n"
        + "".join(f"  {f}:\n" for f in families)
    )
    return _sweep(sweep_bin, job, d / "allmodel.h5")


@pytest.fixture(scope="session")
def launch_file(sweep_bin, tmp_path_factory):
    """jobs/launch.yaml on the model backend: the block, grid, vec and
    elem_bytes axes, modelled for CC 9.0."""
    out = tmp_path_factory.mktemp("launch") / "launch.h5"
    return _sweep(sweep_bin, os.path.join(SOURCE, "jobs", "launch.yaml"), out)


def _committed(name):
    path = os.path.join(SOURCE, "docs", "results", "legacy", name)
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing: it is committed with the repository")
    return path


@pytest.fixture(scope="session")
def h200_file():
    """jobs/quick.yaml on an H200: strided_read at 16M, 64M and 256M floats."""
    return _committed("h200-quick.h5")


@pytest.fixture(scope="session")
def seeds_files():
    """jobs/seeds.yaml on an H200 (every family), and the same job run again
    half a minute later: two real runs of the same points."""
    return _committed("h200-seeds.h5"), _committed("h200-seeds-repeat.h5")


@pytest.fixture(scope="session")
def seeds_counters():
    """jobs/seeds.yaml on an H200 with --counters."""
    return _committed("h200-seeds-counters.h5")


def noisy_copy(src, dst, seed, rel=0.005):
    """A second 'run': every raw sample times independent noise of rel."""
    writable_copy(src, dst)
    with h5py.File(dst, "r+") as f:
        s = f["samples"][:]
        rng = np.random.default_rng(seed)
        f["samples"][:] = s * (1 + rng.normal(0, rel, s.shape))
    return str(dst)


METRIC_NAMES = ("dram__bytes_read.sum", "lts__t_sectors_srcunit_tex_op_read.sum")


def metrics_copy(src, dst, points=2):
    """A copy of a cuda file as `--metrics` makes it (schema 3): a /metrics table of
    METRIC_NAMES for the first `points` rows, value 1000 * row + k, a fill row and a
    point counted twice (the last counts), and the `metrics` attribute."""
    writable_copy(src, dst)
    dt = np.dtype([("point_id", "<u8"), ("name", "S96"), ("value", "<f8"), ("unit", "S16")])
    with h5py.File(dst, "r+") as f:
        ids = f["measurements"]["point_id"][:points]
        rows = [(2**64 - 1, b"", np.nan, b"")]  # never written
        for i, pid in enumerate(ids):
            for k, name in enumerate(METRIC_NAMES):
                unit = b"sector" if k else b"byte"
                if i == 0:  # written twice, as a cut and resumed run may
                    rows.append((pid, name.encode(), -1.0, unit))
                rows.append((pid, name.encode(), 1000.0 * i + k, unit))
        f.create_dataset("metrics", data=np.array(rows, dtype=dt), maxshape=(None,))
        f.attrs["metrics"] = ",".join(METRIC_NAMES)
        f.attrs["schema_version"] = np.int32(3)
    return str(dst)


def slowed_copy(src, dst, factor=1.10):
    """A planted slowdown: samples and time statistics x factor."""
    writable_copy(src, dst)
    with h5py.File(dst, "r+") as f:
        f["samples"][:] = f["samples"][:] * factor
        m = f["measurements"][:]
        for c in ("median_ns", "min_ns", "mean_ns", "stddev_ns"):
            m[c] *= factor
        for c in ("gbps", "gflops"):
            m[c] /= factor
        f["measurements"][:] = m
    return str(dst)


SEEDS4 = os.path.join(SOURCE, "docs", "results", "gpu-runs", "h200-check-2b86d9f", "seeds-gpu-1.h5")


def _gpu_devices(dev, gpus, emulated, class_column, seed):
    """/devices of multi_gpu_copy: one row per rank, copied from dev's first."""
    ddt = [(k, dev.dtype[k]) for k in dev.dtype.names]
    devs = np.zeros(len(gpus), dtype=ddt + ([("device_class", "S64")] if class_column else []))
    for i, (c, _) in enumerate(gpus):
        for k in dev.dtype.names:
            devs[k][i] = dev[k][0]
        devs["rank"][i], devs["local_rank"][i], devs["device_index"][i] = i, i, i
        devs["name"][i] = c.encode()
        devs["cc"][i] = dev["cc"][0] if c == gpus[0][0] else 80
        devs["uuid"][i] = f"{'EMU' if emulated else 'GPU'}-{i:08x}-{c}-7e57-{seed:012x}".encode()
        devs["host"][i] = f"node{i // 2}".encode()
        devs["backend"][i] = b"replay" if emulated else devs["backend"][i]
        if class_column:
            devs["device_class"][i] = c.encode()
    return devs


def _gpu_row(r, mdt, g, gpus, cal, emulated):
    """One rank's copy of measurement row r, its samples not yet set."""
    row = np.zeros(1, dtype=mdt)[0]
    for k in r.dtype.names:
        row[k] = r[k]
    row["rank"], row["calibration"] = g, int(cal)
    if emulated and r["backend"] == b"cuda":
        row["backend"] = b"replay"
    if row["cc"] != 0 and gpus[g][0] != gpus[0][0]:
        row["cc"] = 80
    return row


def _ranks_of(j, cal, placement, gpus):
    if cal or placement == "every_gpu":
        return range(len(gpus))
    if placement == "per_class":
        return sorted({c: i for i, (c, _) in reversed(list(enumerate(gpus)))}.values())
    return [j % len(gpus)]


def multi_gpu_copy(
    dst,
    gpus,
    placement="every_gpu",
    calibrate=None,
    emulated=False,
    noise=0.004,
    seed=0,
    src=SEEDS4,
    class_column=True,
):
    """A schema-5 file as a run over several GPUs writes it, made from a real
    one-GPU file (seeds-gpu-1.h5, schema 4, one H200): gpus is a list of
    (class name, speed), one per rank; each GPU gets a /devices row of its own
    (its class as name, a UUID of its own; CC 8.0 for a class other than the
    first) and its rows the recorded samples / speed, times independent noise
    of `noise` per sample and per point (the H200's noise floor is 0.3-0.5% per
    point). placement: every_gpu (each point on every rank), per_class (on the
    first rank of each class) or once (rank i % n). calibrate(row) -> bool
    marks calibration points: on every rank, calibration = 1. emulated: the
    replay backend (/devices and rows), EMU- UUIDs. class_column=False leaves
    /devices without device_class (the reader derives it)."""
    rng = np.random.default_rng(seed)
    with h5py.File(src, "r") as f:
        m, dev, s = f["measurements"][:], f["devices"][:], f["samples"][:]
        attrs = dict(f.attrs)
        mattrs, dattrs = dict(f["measurements"].attrs), dict(f["devices"].attrs)
    devs = _gpu_devices(dev, gpus, emulated, class_column, seed)
    mdt = [(k, m.dtype[k]) for k in m.dtype.names] + [("calibration", "<i4")]
    rows, samples, n_s = [], [], 0
    for j, r in enumerate(m):
        cal = bool(calibrate(r)) if calibrate else False
        for g in _ranks_of(j, cal, placement, gpus):
            row = _gpu_row(r, mdt, g, gpus, cal, emulated)
            n, o = int(r["n_samples"]), int(r["sample_offset"])
            if n > 0:
                x = s[o : o + n] / gpus[g][1]
                x = x * (1 + rng.normal(0, noise)) * (1 + rng.normal(0, noise, n))
                row["sample_offset"], row["median_ns"] = n_s, np.median(x)
                row["min_ns"], row["mean_ns"] = x.min(), x.mean()
                row["gbps"] = r["useful_bytes"] / row["median_ns"]
                row["gflops"] = r["flops"] / row["median_ns"]
                samples.append(x)
                n_s += n
            rows.append(row)
    with h5py.File(dst, "w") as f:
        for k, v in attrs.items():
            f.attrs[k] = v
        f.attrs["schema_version"] = np.int32(5)
        f.attrs["placement"] = placement
        f.attrs["mpi_size"] = np.int32(len(gpus))
        meas = np.array(rows, dtype=mdt)
        for name, data, at in (("measurements", meas, mattrs), ("devices", devs, dattrs)):
            ds = f.create_dataset(name, data=data, maxshape=(None,), chunks=True)
            for k, v in at.items():
                ds.attrs[k] = v
        all_s = np.concatenate(samples) if samples else np.empty(0)
        f.create_dataset("samples", data=all_s, maxshape=(None,), chunks=True)
    return str(dst)


SEEDS = os.path.join(SOURCE, "docs", "results", "h200-seeds.h5")


@pytest.fixture(scope="session")
def targets_file(sweep_bin, tmp_path_factory):
    """jobs/seeds.yaml on the model backend with device targets H100-SXM and
    H200 (--model-devices) beside the job's CC targets."""
    out = tmp_path_factory.mktemp("targets") / "targets.h5"
    p = subprocess.run(
        [sweep_bin, "-q", "--backend", "model", "--model-devices", "H100-SXM,H200"]
        + [os.path.join(SOURCE, "jobs", "seeds.yaml"), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    return str(out)


def mpi_sweep(sweep_bin, ranks, *args, cwd=None):
    """sweep on `ranks` MPI ranks (ctest names mpiexec in SW_MPIEXEC); skips
    without one."""
    mpirun = os.environ.get("SW_MPIEXEC") or shutil.which("mpiexec")
    if not mpirun:
        pytest.skip("no mpiexec (ctest names it in SW_MPIEXEC)")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    cmd = [mpirun, "--oversubscribe", "-np", str(ranks), sweep_bin, "-q", *map(str, args)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, cwd=cwd)
    assert p.returncode == 0, f"{' '.join(cmd)}: {p.stdout}{p.stderr}"


def class_copy(dst, name, factor, src=SEEDS):
    """A copy of a one-GPU cuda file as if another GPU model had measured it:
    /devices names `name` (and its class), a UUID of its own, and each row's
    samples and times x factor(family) (throughputs / it)."""
    writable_copy(src, dst)
    with h5py.File(dst, "r+") as f:
        d = f["devices"][:]
        d["name"], d["uuid"] = name.encode(), f"GPU-copy-{name.replace(' ', '-')}".encode()
        if "device_class" in d.dtype.names:
            d["device_class"] = name.encode()
        f["devices"][:] = d
        m, s = f["measurements"][:], f["samples"][:]
        for i, r in enumerate(m):
            k = factor(r["family"].decode())
            o, n = int(r["sample_offset"]), int(r["n_samples"])
            s[o : o + n] *= k
            for c in ("median_ns", "min_ns", "mean_ns", "stddev_ns"):
                m[c][i] *= k
            for c in ("gbps", "gflops"):
                m[c][i] /= k
        f["measurements"][:], f["samples"][:] = m, s
    return str(dst)


TIME_COLUMNS = [
    ("model_device", "S32"),
    ("model_time_ns", "<f8"),
    ("model_time_term", "S12"),
    ("model_time_basis", "S12"),
]


def timed_copy(dst, predict, src=SEEDS, device="H200"):
    """A copy of a cuda file as the cuda backend of schema 8 writes it: each
    row with the time model's columns for its GPU (`device`), predict(row)
    -> (model_time_ns, term) giving them (NaN, "none" for a variant the
    model does not cover)."""
    with h5py.File(src, "r") as f:
        attrs = dict(f.attrs)
        tables = {k: (f[k][:], dict(f[k].attrs)) for k in f if isinstance(f[k], h5py.Dataset)}
    m, mattrs = tables["measurements"]
    dt = np.dtype([(k, m.dtype[k]) for k in m.dtype.names] + TIME_COLUMNS)
    out = np.zeros(len(m), dtype=dt)
    for k in m.dtype.names:
        out[k] = m[k]
    for i, r in enumerate(m):
        t, term = predict(r)
        out["model_device"][i], out["model_time_ns"][i] = device.encode(), t
        out["model_time_term"][i], out["model_time_basis"][i] = term.encode(), b"datasheet"
    tables["measurements"] = (out, mattrs)
    if "plan" not in tables:  # schema 7 on: the file's plan, which judges every row
        pdt = np.dtype([("point_id", "<u8"), ("family", "S32"), ("variant", "S32")])
        _, first = np.unique(m["point_id"], return_index=True)
        plan = np.zeros(len(first), dtype=pdt)
        for k in pdt.names:
            plan[k] = m[k][np.sort(first)]
        tables["plan"] = (plan, {})
    with h5py.File(dst, "w") as f:
        for k, v in attrs.items():
            f.attrs[k] = v
        f.attrs["schema_version"] = np.int32(8)
        f.attrs["plan_points"] = np.int64(len(tables["plan"][0]))
        for k, (data, at) in tables.items():
            ds = f.create_dataset(k, data=data, maxshape=(None,), chunks=True)
            for a, v in at.items():
                ds.attrs[a] = v
    return str(dst)
