"""Legal files with odd values through every tool (issue 30, cause 7;
docs/bad-inputs.md, H4A01 to H4A08): each tool gives a correct answer or a
clear word, never "internal error".

- A GPU whose samples are all 0 ns (a timer that saw nothing): sweep writes
  such a row as it finds it (median 0, GB/s infinite, rse infinite; the
  replay backend writes recorded samples / speed). Made here from a real
  H200 file as conftest.multi_gpu_copy makes a file of several GPUs, then
  one GPU's rows set to what sweep's statistics give for zeros (was:
  sweep-report "internal error: ZeroDivisionError", sweep-compare "damaged
  sample table").
- Names holding bytes that are not UTF-8 (a job file's path, an output's
  name: Linux names are bytes): the real sweep binary writes the file, the
  tools read and write such names (was: sweep-report "internal error:
  UnicodeEncodeError"). Every output shows such a byte as \\xNN.
"""

import json
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

from conftest import SOURCE, multi_gpu_copy, run_tool

ANALYSIS = os.path.join(SOURCE, "analysis")


def strided(r):
    return r["family"] == b"strided_read"


def zero_gpu(path, rank):
    """Rank's measured rows as sweep writes all-zero samples (stats.c,
    measure.c): samples and time statistics 0, rse and GB/s infinite,
    GFLOP/s infinite (NaN where the point counts no flops)."""
    with h5py.File(path, "r+") as f:
        m, s = f["measurements"][:], f["samples"][:]
        for i in np.flatnonzero((m["rank"] == rank) & (m["n_samples"] > 0)):
            o, n = int(m["sample_offset"][i]), int(m["n_samples"][i])
            s[o : o + n] = 0.0
            for c in ("median_ns", "min_ns", "mean_ns", "stddev_ns", "timed_s"):
                m[c][i] = 0.0
            m["rse"][i] = np.inf
            with np.errstate(divide="ignore", invalid="ignore"):
                m["gbps"][i] = m["useful_bytes"][i] / 0.0
                m["gflops"][i] = m["flops"][i] / 0.0
        f["measurements"][:] = m
        f["samples"][:] = s
    return str(path)


def no_internal_error(p):
    assert "internal error" not in p.stderr and "Traceback" not in p.stderr, p.stderr


@pytest.fixture
def zero_files(tmp_path):
    """every_gpu over two H200s, the second at 0 ns; the same without; per_class
    over classes A and B, B at 0 ns; three GPUs of one class with calibration
    points (the fleet section), the third at 0 ns; one GPU all at 0 ns."""
    two = [("H200", 1.0), ("H200", 1.0)]
    good = multi_gpu_copy(tmp_path / "good.h5", two, "every_gpu")
    gpu = zero_gpu(multi_gpu_copy(tmp_path / "gpu.h5", two, "every_gpu"), 1)
    ab = [("A", 1.0), ("B", 0.8)]
    cls = zero_gpu(multi_gpu_copy(tmp_path / "cls.h5", ab, "per_class"), 1)
    three = [("H200", 1.0)] * 3
    fleet = multi_gpu_copy(tmp_path / "fleet.h5", three, "once", calibrate=strided)
    fleet = zero_gpu(fleet, 2)
    alone = zero_gpu(multi_gpu_copy(tmp_path / "all.h5", [("H200", 1.0)], "once"), 0)
    return {"good": good, "gpu": gpu, "cls": cls, "fleet": fleet, "all": alone}


def test_zero_ns_report(zero_files, tmp_path):
    """H4A01: sweep-report of the fleet, the classes, and a file all at 0 ns
    beside a good one: exit 0, the rows of 0 ns left out of tables and
    figures and said. (gpu.h5 is read by the other tests: a report takes
    some 10 s.)"""
    z = zero_files
    for files in ([z["fleet"]], [z["cls"]], [z["all"], z["good"]]):
        name = os.path.basename(files[0])
        out = tmp_path / f"rep-{name}-{len(files)}"
        p = run_tool("report", *files, "-o", out, "-q")
        no_internal_error(p)
        assert p.returncode == 0, (name, p.stderr)
        md = (out / "report.md").read_text()
        assert "have a median time of 0 ns: their samples are 0" in md, name


def test_zero_ns_compare(zero_files):
    """H4A02: sweep-compare takes 0 ns samples (legal), and a point whose median is
    0 ns is ambiguous, saying why; --class too."""
    for a, b in (("gpu", "good"), ("good", "all"), ("all", "all")):
        p = run_tool("compare", zero_files[a], zero_files[b])
        no_internal_error(p)
        assert p.returncode == 0, (a, b, p.stderr)
        if "all" in (a, b):
            assert "a median time of 0 ns, no time to compare" in p.stdout
    p = run_tool("compare", zero_files["cls"], "--class", "A", "--class", "B")
    assert p.returncode == 0, p.stderr
    assert "B: a median time of 0 ns, no time to compare" in p.stdout


def test_zero_ns_export(zero_files):
    """H4A03: sweep-export writes the rows as they are: 0 ns, GB/s inf in
    CSV, null in JSON."""
    p = run_tool("export", zero_files["all"], "--csv")
    assert p.returncode == 0, p.stderr
    assert "inf" in p.stdout
    p = run_tool("export", zero_files["all"], "--json", "--samples")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)["measurements"]
    timed = [r for r in rows if r["n_samples"] > 0]
    assert timed and all(r["median_ns"] == 0 and r["gbps"] is None for r in timed)
    assert all(set(r["samples_ns"]) == {0.0} for r in timed)


def script(name, *args):
    return subprocess.run(
        [sys.executable, os.path.join(ANALYSIS, name), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ANALYSIS,
        timeout=300,
    )


def test_zero_ns_other_entry_points(zero_files):
    """H4A04: the budget table and family_tables.py of the same files."""
    for name in ("gpu", "all"):
        p = run_tool("budget", zero_files[name])
        no_internal_error(p)
        assert p.returncode == 0 and "timed/wall" in p.stdout, p.stderr
        p = script("family_tables.py", zero_files[name])
        no_internal_error(p)
        assert p.returncode == 0 and "### strided_read" in p.stdout, p.stderr


def test_other_entry_points_say_one_line(tmp_path):
    """H4A05: budget, family_tables.py and counter_agreement.py end as the
    tools do, one line and exit 2 (was: a traceback)."""
    for p, says in (
        (run_tool("budget"), "sweep-budget: error: usage:"),
        (run_tool("budget", tmp_path / "none.h5"), "sweep-budget: error: "),
        (script("family_tables.py"), "family_tables: error: usage:"),
        (script("family_tables.py", tmp_path / "none.h5"), "family_tables: error: "),
        (script("counter_agreement.py"), "counter_agreement: error: usage:"),
    ):
        assert p.returncode == 2, p.stderr
        (line,) = p.stderr.splitlines()
        assert line.startswith(says), line


# ---- names that are not UTF-8 ---------------------------------------------------

JOB = b"job\xff.yaml"
OUT = b"out\xfe.h5"


@pytest.fixture
def bytes_file(sweep_bin, tmp_path):
    """jobs/ci.yaml as job\\xff.yaml, run by the real sweep into out\\xfe.h5,
    so its job_path and command line hold the bytes."""
    d = os.fsencode(tmp_path)
    with open(os.path.join(SOURCE, "jobs", "ci.yaml"), "rb") as src:
        text = src.read()
    with open(os.path.join(d, JOB), "wb") as fh:
        fh.write(text)
    p = subprocess.run(
        [sweep_bin, "-q", "--backend", "model", JOB, "-o", OUT],
        cwd=d,
        capture_output=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    return d


def tool(d, name, *args):
    """A tool run in d, its arguments bytes where a name is; stdout and
    stderr must be UTF-8 (they are decoded strictly)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ANALYSIS + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run(
        [sys.executable, "-m", f"sweep_analysis.{name}", *args],
        cwd=d,
        capture_output=True,
        env=env,
        timeout=300,
    )
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def test_names_not_utf8_report(bytes_file):
    """H4A06: sweep-report of out\\xfe.h5 into rep\\xfd: exit 0, the names in
    report.md and index.html as \\xNN, both files UTF-8."""
    rc, out, err = tool(bytes_file, "report", OUT, "-o", b"rep\xfd")
    assert rc == 0 and "internal error" not in err, err
    assert "rep\\xfd" in out  # the line that says where the report is
    for page in (b"report.md", b"index.html"):
        with open(os.path.join(bytes_file, b"rep\xfd", page), "rb") as fh:
            text = fh.read().decode("utf-8")
        assert "out\\xfe.h5" in text and "job\\xff.yaml" in text, page


def test_names_not_utf8_export_compare(bytes_file):
    """H4A07: sweep-export (CSV and JSON, to stdout and to a file of such a
    name) and sweep-compare (and its --md file): exit 0, names as \\xNN."""
    rc, out, err = tool(bytes_file, "export", OUT, "--json")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["file"] == "out\\xfe.h5" and doc["attributes"]["job_path"] == "job\\xff.yaml"
    rc, out, err = tool(bytes_file, "export", OUT, "--csv", "-o", b"x\xfc.csv")
    assert rc == 0 and "wrote x\\xfc.csv" in err, err
    assert os.path.exists(os.path.join(bytes_file, b"x\xfc.csv"))
    rc, out, err = tool(bytes_file, "compare", OUT, OUT, "--md", b"c\xfb.md")
    assert rc == 0, err
    assert "A = out\\xfe.h5" in out
    with open(os.path.join(bytes_file, b"c\xfb.md"), "rb") as fh:
        assert "A = out\\xfe.h5" in fh.read().decode("utf-8")
    rc, out, err = tool(bytes_file, "budget", OUT)
    assert rc == 0 and "timed/wall" in out, err


def test_names_not_utf8_errors(bytes_file):
    """H4A08: a refusal that names such a file is one line, the name as \\xNN
    (was: "\\udcf0", Python's own escape of the byte)."""
    for name, args in (
        ("export", [b"none\xf0.h5", "--csv"]),
        ("report", [b"none\xf0.h5", "-o", "rep", "-q"]),
        ("compare", [OUT, b"none\xf0.h5"]),
    ):
        rc, out, err = tool(bytes_file, name, *args)
        assert rc == 2, err
        (line,) = err.splitlines()
        assert "none\\xf0.h5" in line and "\\udc" not in line, line
