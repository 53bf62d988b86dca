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
