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
file it quotes, its lines in order.

usage: test_own_kernel_doc.py BUILD SOURCE [--probe TEST_GPU]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

DOC = os.path.join("docs", "own-kernel.md")
VARIABLES = ("SWEEP_SRC", "SWEEP_BUILD", "SWEEP_PREFIX")
QUOTED = {
    "cuda": "examples/stencil2d/stencil2d.cu",
    "cmake": "examples/stencil2d/CMakeLists.txt",
    "yaml": "examples/stencil2d/stencil2d.yaml",
}
MARKER = re.compile(r"<!-- doc-test: (\w+)")


def blocks(text):
    """(language, marker or None, first line number, body) of each fenced block."""
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
        out.append((m.group(1), mark.group(1) if mark else None, start, lines[start:i]))
        i += 1
    return out


def check_excerpts(source, found):
    for lang, _, line, body in found:
        if lang not in QUOTED:
            continue
        with open(os.path.join(source, QUOTED[lang])) as f:
            have = f.read().split("\n")
        at = 0
        for want in (s for s in body if s.strip()):
            while at < len(have) and have[at] != want:
                at += 1
            assert at < len(have), f"{DOC}:{line}: not in {QUOTED[lang]} (in order): {want!r}"
            at += 1


def script(found, gpu):
    parts, variables = [], False
    for lang, mark, line, body in found:
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
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
