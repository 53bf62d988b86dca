"""examples/stencil2d and examples/spmv built outside the tree and run, as a
user would.

Installs the build into a fresh prefix (cmake --install), configures and
builds a copy of each example as a project of its own against that prefix,
runs the installed sweep on the example's job, and checks the rows of the
result file: the model backend's figures, or (--backend cuda) that every
point validated. spmv shows family API 2: five arrays, a categorical axis
(`pattern: banded | random`, stored as its values with the names in
/axis_names) and named accesses, whose figures /model_accesses holds (the
gather of x: 4 sectors a request banded, 32 random). Both pass sweep
--check-plugin on their jobs first (spmv's reference held to its check at
every point). Exits 77 (SKIPPED) for cuda without a GPU.

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


def install(build, tmp):
    """The build installed into a fresh prefix."""
    prefix = os.path.join(tmp, "prefix")
    run(["cmake", "--install", build, "--prefix", prefix])
    return prefix


def build_example(prefix, source, tmp, name="stencil2d"):
    """The example's folder, built against the installed prefix."""
    example = os.path.join(tmp, name)
    shutil.copytree(
        os.path.join(source, "examples", name),
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
    so = os.path.join(example, "build", name + ".so")
    assert os.path.isfile(so), f"the build made no {so}"
    return example


def table(path, name):
    """A table of the file as a list of dicts, strings decoded."""
    with h5py.File(path, "r") as f:
        m = f[name][:]
    rows = []
    for r in m:
        d = {}
        for col in m.dtype.names:
            v = r[col]
            d[col] = v.decode() if isinstance(v, bytes) else v
        rows.append(d)
    return rows


def rows_of(path):
    return table(path, "measurements")


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


SPMV_ROWS = 1 << 20
SPMV_PER_ROW = (8, 64)
SPMV_ACCESSES = ["row_ptr", "col", "val", "x", "y"]


def check_spmv_common(rows, backend):
    """spmv's job: rows 1M, per_row 8 and 64, pattern banded and random."""
    per_cc = len(CCS) if backend == "model" else 1
    by = {v: [r for r in rows if r["variant"] == v] for v in ("stream", "scalar", "vector")}
    assert len(by["stream"]) == 2 * per_cc, len(by["stream"])  # no pattern: one per per_row
    assert len(by["scalar"]) == len(by["vector"]) == 4 * per_cc, len(by["vector"])
    assert all(r["pattern"] == -1 for r in by["stream"]), "the reference has no pattern"
    assert {r["pattern"] for r in by["vector"]} == {0, 1}, "banded and random, by value"
    for r in rows:
        assert r["status"] == 0, (r["variant"], r["message"])
        assert r["rows"] == SPMV_ROWS and r["per_row"] in SPMV_PER_ROW, (r["rows"], r["per_row"])


def check_spmv_model(path):
    rows = rows_of(path)
    check_spmv_common(rows, "model")
    names = {(n["family"], n["axis"], n["value"]): n["name"] for n in table(path, "axis_names")}
    assert names[("spmv", "pattern", 0)] == "banded" and names[("spmv", "pattern", 1)] == "random"
    assert names[("texture_read", "pattern", 1)] == "gather", "the built-ins' names too"
    for r in rows:  # the model ran no check, and each row says so
        assert r["check_mode"] == "none" and r["message"].startswith("not checked: the model")
    acc = {}
    for a in table(path, "model_accesses"):
        acc.setdefault(a["row"], []).append(a)
    for i, r in enumerate(rows):
        got = acc[i]
        want = ["row_ptr", "val", "y"] if r["variant"] == "stream" else SPMV_ACCESSES
        assert [a["name"] for a in got] == want, (r["variant"], [a["name"] for a in got])
        assert all(a["point_id"] == r["point_id"] and a["cc"] == r["cc"] for a in got)
        # numbered access by access: every request count exact
        assert all(a["counts"] in ("exact", "requests_exact") for a in got), got
        assert sum(a["requests"] for a in got) == r["model_requests"], r["variant"]
        if r["variant"] != "vector":
            continue
        x = next(a for a in got if a["name"] == "x")
        k = r["per_row"]
        assert x["requests"] == SPMV_ROWS * ((k + 31) // 32), (k, x["requests"])
        spr = x["transactions"] / x["requests"]
        if r["pattern"] == 1 and k == 64:  # random columns: a sector a lane
            assert spr == 32, spr
        elif r["pattern"] == 0:  # a band: the warp's 32 columns are neighbours
            assert 4 <= spr <= 5 if k == 64 else spr <= 3, (k, spr)
    print(f"{len(rows)} spmv model rows and their accesses as expected")


def check_spmv_cuda(path):
    rows = rows_of(path)
    check_spmv_common(rows, "cuda")
    for r in rows:
        assert r["check_mode"] in ("full", "sampled") and r["checked_elems"] > 0, r["variant"]
        assert r["max_rel_err"] <= 1e-4, (r["variant"], r["max_rel_err"])
    print(f"{len(rows)} spmv measured rows validated")


def run_spmv(prefix, source, tmp, backend):
    """examples/spmv: --list shows its names, then its job on the backend."""
    example = build_example(prefix, source, tmp, "spmv")
    sweep = os.path.join(prefix, "bin", "sweep")
    plugin = ["--plugin", os.path.join(example, "build", "spmv.so")]
    listing = subprocess.run([sweep, "--list"] + plugin, check=True, capture_output=True, text=True)
    assert "values by name: banded (0), random (1)" in listing.stdout, listing.stdout
    assert "accesses: row_ptr, col, val, x, y" in listing.stdout, listing.stdout
    said = check_plugin(sweep, example, "spmv")
    # the reference at every point: full at 8 nonzeros a row, sampled at 64
    assert "2 full, 2 sampled, 2 sampled views, 0 not" in said, said
    out = os.path.join(tmp, "spmv.h5")
    job = os.path.join(example, "spmv.yaml")
    done = subprocess.run(
        [sweep, "--backend", backend] + plugin + [job, "-o", out],
        check=True,
        capture_output=True,
        text=True,
    )
    print(done.stderr, end="")
    if backend == "model":  # the summary says the check never ran
        assert "20 ok rows were never checked against a CPU reference" in done.stderr
        check_spmv_model(out)
    else:
        check_spmv_cuda(out)


def check_plugin(sweep, example, name):
    """sweep --check-plugin on the example's job: its hooks on the host, its
    requests held to their buffers, its reference (where it has one) held
    to its check; the summary, exit 0."""
    so = os.path.join(example, "build", name + ".so")
    job = os.path.join(example, name + ".yaml")
    done = subprocess.run(
        [sweep, "--check-plugin", so, job], check=True, capture_output=True, text=True
    )
    assert done.stdout.endswith(f"plug-in {so} passes\n"), done.stdout
    return done.stdout


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
    prefix = install(os.path.abspath(a.build), tmp)
    example = build_example(prefix, os.path.abspath(a.source), tmp)
    sweep = os.path.join(prefix, "bin", "sweep")
    out = os.path.join(tmp, "stencil2d.h5")
    listing = subprocess.run(
        [sweep, "--list"] + ["--plugin", os.path.join(example, "build", "stencil2d.so")],
        check=True,
        capture_output=True,
        text=True,
    )
    assert "stencil2d" in listing.stdout, listing.stdout
    check_plugin(sweep, example, "stencil2d")
    run([sweep, "--backend", a.backend, os.path.join(example, "stencil2d.yaml"), "-o", out])
    rows = rows_of(out)
    (check_model if a.backend == "model" else check_cuda)(rows)
    run_spmv(prefix, os.path.abspath(a.source), tmp, a.backend)
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
