"""docs/own-kernel.md's commands, run as a reader would run them.

Takes every ```sh block of the guide, in order, and runs them as one bash
script (set -e -o pipefail: any failing command fails the test) in a fresh
temporary folder. The guide's three variables are set here: SWEEP_SRC (this
source tree), SWEEP_BUILD (this build) and SWEEP_PREFIX (a fresh prefix), in
place of the block that sets them (after `<!-- doc-test: env ... -->`). A
block after the comment
`<!-- doc-test: skip ... -->` is not run (it installs system packages), one
after `<!-- doc-test: gpu ... -->` only where test_gpu --probe finds a GPU.
Every ```cuda, ```cmake and ```yaml excerpt must still be in the example's
file it quotes, its lines in order: the stencil's, or the file named by
`<!-- doc-test: from PATH -->` before it.

Then the gather of section 9 (examples/gather: its own fill, addresses from
its index input, a reference without the locality axis) must have given the
model's figures it describes: the copy one point per n, the loads' counts
exact, the data load's sectors per request 4 up to locality 32 and near 32
when the indices scatter, the same in its own /model_accesses rows; and on a
GPU every row validated. The spmv of section 10 (five arrays, a categorical
axis, named accesses) must have given what it says: the gather of x 32
sectors a request at random columns, 4 to 5 banded, col and val 4. Section
12's `sweep --check-plugin` of it must pass (exit 0), its host reference
held to its check.

usage: test_own_kernel_doc.py BUILD SOURCE [--probe TEST_GPU]
"""

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import h5py

DOC = os.path.join("docs", "own-kernel.md")
VARIABLES = ("SWEEP_SRC", "SWEEP_BUILD", "SWEEP_PREFIX")
QUOTED = {
    "cuda": "examples/stencil2d/stencil2d.cu",
    "cmake": "examples/stencil2d/CMakeLists.txt",
    "yaml": "examples/stencil2d/stencil2d.yaml",
}
MARKER = re.compile(r"<!-- doc-test: (\w+)(?: (\S+))?")
GATHER = os.path.join("my-gather", "gather.h5")  # section 9's result files
GATHER_GPU = os.path.join("my-gather", "gather-gpu.h5")
GATHER_N = 16 << 20
GATHER_LOCALITIES = (1, 8, 32, 1024, 16 << 20)
GATHER_CCS = (70, 90)
SPMV = os.path.join("my-spmv", "spmv.h5")  # section 10's
SPMV_RANDOM = os.path.join("my-spmv", "random.h5")


def blocks(text):
    """(language, marker or None, first line number, body, the marker's
    argument or None) of each fenced block."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.match(r"^```(\w+)\s*$", lines[i])
        if not m:
            i += 1
            continue
        prev = next((s for s in reversed(lines[:i]) if s.strip()), "")
        mark = MARKER.match(prev.strip())
        start = i + 1
        i += 1
        while lines[i] != "```":
            i += 1
        out.append(
            (
                m.group(1),
                mark.group(1) if mark else None,
                start,
                lines[start:i],
                mark.group(2) if mark else None,
            )
        )
        i += 1
    return out


def check_excerpts(source, found):
    for lang, mark, line, body, arg in found:
        if lang not in QUOTED:
            continue
        quoted = arg if mark == "from" else QUOTED[lang]
        with open(os.path.join(source, quoted)) as f:
            have = f.read().split("\n")
        at = 0
        for want in (s for s in body if s.strip()):
            while at < len(have) and have[at] != want:
                at += 1
            assert at < len(have), f"{DOC}:{line}: not in {quoted} (in order): {want!r}"
            at += 1


def script(found, gpu):
    parts, variables = [], False
    for lang, mark, line, body, _ in found:
        if lang != "sh":
            continue
        if mark == "env":  # the variables, which the test sets itself
            names = {re.match(r"export (\w+)=", s).group(1) for s in body}
            assert names == set(VARIABLES), f"{DOC}:{line}: sets {sorted(names)}"
            variables = True
            continue
        assert mark in (None, "skip", "gpu"), f"{DOC}:{line}: unknown marker {mark}"
        if mark == "skip" or (mark == "gpu" and not gpu):
            print(f"not run: the block at {DOC}:{line} ({mark})")
            continue
        parts.append(f"echo '### {DOC}:{line}'")
        parts.extend(body)
    assert variables, f"{DOC} has no block setting {', '.join(VARIABLES)}"
    return "\n".join(parts) + "\n"


def rows_of(path, table="measurements"):
    """The rows of a table of a result file, strings decoded."""
    with h5py.File(path, "r") as f:
        m = f[table][:]
    return [
        {k: (r[k].decode() if isinstance(r[k], bytes) else r[k]) for k in m.dtype.names} for r in m
    ]


def accesses_of(path):
    """Each /measurements row's /model_accesses rows, by name."""
    out = {}
    for a in rows_of(path, "model_accesses"):
        out.setdefault(int(a["row"]), {})[a["name"]] = a
    return out


def check_gather(work, gpu):
    """Section 9's figures, as the guide states them."""
    rows = rows_of(os.path.join(work, GATHER))
    assert all(r["status"] == 0 for r in rows), [r["message"] for r in rows if r["status"]]
    copy = [r for r in rows if r["variant"] == "copy"]
    # the reference has no locality: one point per n and CC, the axis unused
    assert len(copy) == len(GATHER_CCS), len(copy)
    assert all(r["locality"] == -1 for r in copy), [r["locality"] for r in copy]
    warps = GATHER_N // 32
    for cc in GATHER_CCS:
        g = {r["locality"]: r for r in rows if r["variant"] == "gather" and r["cc"] == cc}
        assert sorted(g) == list(GATHER_LOCALITIES), sorted(g)
        data = {}
        for loc, r in g.items():
            # index and data loads, one store a warp: counted exactly
            assert r["model_ld_requests"] == 2 * warps, (loc, r["model_ld_requests"])
            assert r["model_st_requests"] == warps, (loc, r["model_st_requests"])
            data[int(loc)] = float(2 * r["model_ld_transactions"] / r["model_ld_requests"] - 4)
        # the same, read directly from the data load's own row
        acc = accesses_of(os.path.join(work, GATHER))
        for loc, r in g.items():
            mine = acc[rows.index(r)]
            assert list(mine) == ["index", "data", "store"], list(mine)
            assert all(a["counts"] == "requests_exact" for a in mine.values()), loc
            d = mine["data"]
            assert d["requests"] == warps and mine["index"]["transactions"] == 4 * warps
            assert math.isclose(d["transactions"] / d["requests"], data[int(loc)], rel_tol=1e-9)
        print(f"CC {cc}: data-load sectors/request by locality {data}")
        assert all(data[loc] == 4 for loc in (1, 8)), data
        assert abs(data[32] - 4) < 1e-3, data
        assert 31 < data[16 << 20] <= 32 and 20 < data[1024] < data[16 << 20], data
        # the point's average mixes the three: 13.3 where the data load is near 32
        whole = g[16 << 20]["model_sectors_per_request"]
        assert math.isclose(whole, (4 + data[16 << 20] + 4) / 3, rel_tol=1e-9), whole
    if gpu:
        measured = rows_of(os.path.join(work, GATHER_GPU))
        assert len(measured) == 1 + len(GATHER_LOCALITIES), len(measured)
        bad = [(r["variant"], r["locality"], r["message"]) for r in measured if r["status"]]
        assert not bad and all(r["checked_elems"] > 0 for r in measured), bad


def check_spmv(work):
    """Section 10's figures, as the guide states them."""
    path = os.path.join(work, SPMV)
    rows, acc = rows_of(path), accesses_of(path)
    assert rows and all(r["status"] == 0 for r in rows), "every spmv point modelled"
    names = {
        (n["axis"], n["value"]): n["name"]
        for n in rows_of(path, "axis_names")
        if n["family"] == "spmv"
    }
    assert names[("pattern", 0)] == "banded" and names[("pattern", 1)] == "random", names
    for i, r in enumerate(rows):
        if r["variant"] == "stream" or r["cc"] != 90:
            continue
        x, col = acc[i]["x"], acc[i]["col"]
        spr = x["transactions"] / x["requests"]
        if r["variant"] == "vector" and r["per_row"] == 64:
            assert col["transactions"] == 4 * col["requests"], r
            assert spr == 32 if r["pattern"] == 1 else 4 <= spr <= 5, spr
        elif r["variant"] == "scalar":  # a warp's lanes walk 32 rows
            assert col["transactions"] == 32 * col["requests"], r
    random = rows_of(os.path.join(work, SPMV_RANDOM))
    assert {(r["variant"], r["pattern"]) for r in random} == {("vector", 1)}, "--set by name"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("source")
    ap.add_argument("--probe", help="test_gpu, whose --probe says whether a GPU exists")
    a = ap.parse_args()
    source, build = os.path.abspath(a.source), os.path.abspath(a.build)
    with open(os.path.join(source, DOC)) as f:
        found = blocks(f.read())
    check_excerpts(source, found)
    gpu = bool(a.probe) and subprocess.run([a.probe, "--probe"], check=False).returncode == 0
    tmp = tempfile.mkdtemp(prefix="sw-own-kernel-")
    work = os.path.join(tmp, "work")
    os.mkdir(work)
    env = dict(os.environ, SWEEP_SRC=source, SWEEP_BUILD=build)
    env["SWEEP_PREFIX"] = os.path.join(tmp, "prefix")
    # the build's compiler cache for the plug-in too (CMake reads the variable)
    if os.environ.get("SW_CUDA_LAUNCHER"):
        env["CMAKE_CUDA_COMPILER_LAUNCHER"] = os.environ["SW_CUDA_LAUNCHER"]
    with open(os.path.join(tmp, "guide.sh"), "w") as f:
        f.write(script(found, gpu))
    cmd = ["bash", "-e", "-o", "pipefail", "-x", os.path.join(tmp, "guide.sh")]
    status = subprocess.run(cmd, cwd=work, env=env, check=False).returncode
    if status != 0:
        print(f"the guide's commands failed (exit {status}): kept {tmp}")
        return 1
    try:
        check_gather(work, gpu)
        check_spmv(work)
    except AssertionError as e:
        print(f"section 9's gather or 10's spmv is not as the guide says ({e!r}): kept {tmp}")
        return 1
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
