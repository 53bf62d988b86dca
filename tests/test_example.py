"""examples/stencil2d built outside the tree and run, as a user would.

Installs the build into a fresh prefix (cmake --install), configures and
builds a copy of examples/stencil2d as a project of its own against that
prefix, runs the installed sweep on the example's job, and checks the rows
of the result file: the model backend's figures, or (--backend cuda) that
every point validated. Exits 77 (SKIPPED) for cuda without a GPU.

usage: test_example.py BUILD SOURCE [--backend model|cuda] [--probe TEST_GPU]
"""

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile

import h5py

SKIPPED = 77
VARIANTS = ("copy", "naive", "shared")
# the job's axes: nx [1024, 4096], ny 4096, bx [32, 128], by [1, 8]
POINTS = 2 * 1 * 2 * 2
CCS = (70, 90)


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)


def build_example(build, source, tmp):
    """The installed prefix and the example's folder, built."""
    prefix = os.path.join(tmp, "prefix")
    run(["cmake", "--install", build, "--prefix", prefix])
    example = os.path.join(tmp, "stencil2d")
    shutil.copytree(
        os.path.join(source, "examples", "stencil2d"),
        example,
        ignore=shutil.ignore_patterns("build", "*.h5"),
    )
    configure = ["cmake", "-S", example, "-B", os.path.join(example, "build")]
    configure.append("-DCMAKE_PREFIX_PATH=" + prefix)
    # the build's compiler cache, where it has one, so a rerun compiles nothing
    launcher = os.environ.get("SW_CUDA_LAUNCHER")
    if launcher:
        configure.append("-DCMAKE_CUDA_COMPILER_LAUNCHER=" + launcher)
    run(configure)
    run(["cmake", "--build", os.path.join(example, "build")])
    so = os.path.join(example, "build", "stencil2d.so")
    assert os.path.isfile(so), f"the build made no {so}"
    return prefix, example


def rows_of(path):
    with h5py.File(path, "r") as f:
        m = f["measurements"][:]
    rows = []
    for r in m:
        d = {}
        for name in m.dtype.names:
            v = r[name]
            d[name] = v.decode() if isinstance(v, bytes) else v
        rows.append(d)
    return rows


def check_common(rows, backend):
    fam = [r for r in rows if r["family"] == "stencil2d"]
    assert len(fam) == len(rows), "rows of other families in the example's file"
    per_cc = len(CCS) if backend == "model" else 1
    assert len(fam) == len(VARIANTS) * POINTS * per_cc, f"{len(fam)} rows"
    for r in fam:
        assert r["status"] == 0, f"{r['variant']}: status {r['status']}: {r['message']}"
        assert r["backend"] == backend, r["backend"]
        assert r["ny"] == 4096 and r["nx"] in (1024, 4096), (r["nx"], r["ny"])
        assert r["bx"] in (32, 128) and r["by"] in (1, 8), (r["bx"], r["by"])
        assert r["is_reference"] == (r["variant"] == "copy"), r["variant"]
        want = 8.0 * r["nx"] * r["ny"]  # read once, written once, 4 bytes each
        assert r["useful_bytes"] == want, (r["useful_bytes"], want)
    assert {r["variant"] for r in fam} == set(VARIANTS)
    return fam


def check_model(rows):
    for r in check_common(rows, "model"):
        assert r["cc"] in CCS, r["cc"]
        # the model backend runs no kernel, so nothing is checked
        assert r["check_mode"] == "none", r["check_mode"]
        assert math.isnan(r["median_ns"]), r["median_ns"]
        for col in ("model_requests", "model_moved_bytes", "model_efficiency"):
            assert math.isfinite(r[col]) and r[col] > 0, (r["variant"], col, r[col])
        assert r["model_ld_requests"] > 0 and r["model_st_requests"] > 0, r["variant"]
        spr = r["model_sectors_per_request"]
        if r["variant"] == "copy":
            # a warp's 32 floats are 128 aligned bytes: 4 sectors, nothing wasted
            assert spr == 4 and r["model_efficiency"] == 1, (spr, r["model_efficiency"])
            assert r["model_shared_ld_requests"] == 0
        else:
            # the neighbours' and the halo's loads straddle sectors
            assert spr > 4 and r["model_efficiency"] < 1, (r["variant"], spr)
        if r["variant"] == "shared":
            assert r["model_shared_ld_requests"] > 0 and r["model_conflict_degree"] >= 1
    print(f"{len(rows)} model rows as expected")


def check_cuda(rows):
    for r in check_common(rows, "cuda"):
        assert r["check_mode"] in ("full", "sampled"), r["check_mode"]
        assert r["checked_elems"] > 0 and r["max_rel_err"] <= 1e-6, r["max_rel_err"]
        assert r["n_samples"] >= 3 and r["gbps"] > 0, (r["n_samples"], r["gbps"])
    print(f"{len(rows)} measured rows validated")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("source")
    ap.add_argument("--backend", choices=("model", "cuda"), default="model")
    ap.add_argument("--probe", help="test_gpu, whose --probe says whether a GPU exists")
    a = ap.parse_args()
    if a.backend == "cuda" and subprocess.run([a.probe, "--probe"], check=False).returncode != 0:
        print("no CUDA device: SKIPPED")
        return SKIPPED
    tmp = tempfile.mkdtemp(prefix="sw-example-")
    prefix, example = build_example(os.path.abspath(a.build), os.path.abspath(a.source), tmp)
    sweep = os.path.join(prefix, "bin", "sweep")
    out = os.path.join(tmp, "stencil2d.h5")
    listing = subprocess.run(
        [sweep, "--list"] + ["--plugin", os.path.join(example, "build", "stencil2d.so")],
        check=True,
        capture_output=True,
        text=True,
    )
    assert "stencil2d" in listing.stdout, listing.stdout
    run([sweep, "--backend", a.backend, os.path.join(example, "stencil2d.yaml"), "-o", out])
    rows = rows_of(out)
    (check_model if a.backend == "model" else check_cuda)(rows)
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
