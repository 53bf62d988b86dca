"""Bad input to the analysis tools end to end: docs/bad-inputs.md, section
"Analysis tools", rows A1.. . Each row runs an installed console script (the
venv's sweep-report, sweep-compare, sweep-export; `python -m` without one) in
a directory of its own and checks the exit status, that stderr is exactly one
line `sweep-<tool>: ...` holding the row's text (none for a closed stdout),
no traceback, and that the directory is unchanged byte for byte: nothing
written, no input overwritten, no temporary left.
"""

import hashlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest

from conftest import SOURCE, writable_copy

LIMIT_S = 120  # a hang fails the row instead of holding the suite


def tool_command(tool):
    """The console script next to this Python (a venv's), else the module."""
    script = os.path.join(sys.prefix, "bin", f"sweep-{tool}")
    if os.access(script, os.X_OK):
        return [script]
    return [sys.executable, "-m", f"sweep_analysis.{tool}"]


def snapshot(d):
    """Every entry under d (hidden ones too) with its type and content hash."""
    out = {}
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            p = os.path.join(root, n)
            st = os.lstat(p)
            h = ""
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as fh:
                    h = hashlib.sha1(fh.read()).hexdigest()
            out[os.path.relpath(p, d)] = (stat.S_IFMT(st.st_mode), h)
    return out


def run(tool, args, cwd, stdout=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(SOURCE, "analysis") + os.pathsep + env.get("PYTHONPATH", "")
    env["MPLBACKEND"] = "Agg"
    return subprocess.run(
        tool_command(tool) + args,
        cwd=cwd,
        stdout=stdout if stdout is not None else subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        timeout=LIMIT_S,
    )


# ---- files a row makes first, in its directory --------------------------------


def good(d, src):
    writable_copy(src, os.path.join(d, "in.h5"))


def edited(fn):
    def make(d, src):
        good(d, src)
        with h5py.File(os.path.join(d, "in.h5"), "r+") as f:
            fn(f)

    return make


def _set(table, col, value, rows=slice(None)):
    def fn(f):
        m = f[table][:]
        m[col][rows] = value
        f[table][:] = m

    return fn


def _retype(table, col, dtype):
    def fn(f):
        m = f[table][:]
        fields = [(c, dtype if c == col else m.dtype.fields[c][0]) for c in m.dtype.names]
        new = np.zeros(m.shape, fields)
        for c in m.dtype.names:
            new[c] = m[c]
        del f[table]
        f.create_dataset(table, data=new, maxshape=(None,), chunks=True)

    return fn


def _replace(name, data):
    def fn(f):
        if name in f:
            del f[name]
        f.create_dataset(name, data=data)

    return fn


def _nan_samples(f):
    f["samples"][:] = np.nan


def _empty(table):
    def fn(f):
        f[table].resize((0,))

    return fn


def _attr(name, value):
    def fn(f):
        f.attrs[name] = value

    return fn


def _delete(name):
    def fn(f):
        del f[name]

    return fn


def fifo(name):
    def make(d, src):
        good(d, src)
        os.mkfifo(os.path.join(d, name))

    return make


def folder(name):
    def make(d, src):
        good(d, src)
        os.mkdir(os.path.join(d, name))

    return make


def text(name, body):
    def make(d, src):
        good(d, src)
        with open(os.path.join(d, name), "w") as fh:
            fh.write(body)

    return make


def symlink_to_input(d, src):
    good(d, src)
    os.symlink("in.h5", os.path.join(d, "out.csv"))


def hardlink_to_input(d, src):
    good(d, src)
    os.link(os.path.join(d, "in.h5"), os.path.join(d, "out.csv"))


def device_out(d, src):
    good(d, src)
    try:  # a real device node, as root can make it; else a FIFO is as non-regular
        os.mknod(os.path.join(d, "out.csv"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        os.mkfifo(os.path.join(d, "out.csv"))


def cut(d, src):
    with open(src, "rb") as fh:
        data = fh.read(4096)
    with open(os.path.join(d, "in.h5"), "wb") as fh:
        fh.write(data)


def report_holding_input(d, src):
    os.mkdir(os.path.join(d, "rep"))
    writable_copy(src, os.path.join(d, "rep", "in.h5"))


# /model_rates (schema 8) with its columns, `device` a number
RATES_WITH_A_NUMBER_FOR_A_NAME = [("device", "f8"), ("role", "S12"), ("basis", "S12")]
RATES_WITH_A_NUMBER_FOR_A_NAME += [("file", "S64"), ("file_class", "S96"), ("points", "<i4")]
# /model_rates (schema 9) with its columns, a rate's RATE_fit word a number
RATES_WITH_A_NUMBER_FOR_A_FIT = [("device", "S32"), *RATES_WITH_A_NUMBER_FOR_A_NAME[1:]]
RATES_WITH_A_NUMBER_FOR_A_FIT += [("l2_gbps", "f8"), ("l2_gbps_fit", "f8")]


def reference_in_report(d, src):
    good(d, src)
    report_holding_input(d, src)


# id, tool, arguments, files made first, exit status, text of the one stderr line
ROWS = [
    ("A1", "report", ["fifo.h5", "-o", "rep"], fifo("fifo.h5"), 2, "is a FIFO"),
    ("A2", "export", ["fifo.h5", "--csv"], fifo("fifo.h5"), 2, "is a FIFO"),
    ("A3", "compare", ["in.h5", "fifo.h5"], fifo("fifo.h5"), 2, "is a FIFO"),
    ("A4", "report", ["dir", "-o", "rep"], folder("dir"), 2, "is a directory"),
    ("A5", "export", ["/dev/null", "--csv"], good, 2, "is a character device"),
    ("A6", "export", ["junk.h5", "--json"], text("junk.h5", "name: x\n"), 2, "not an HDF5 file"),
    ("A7", "compare", ["in.h5", "in.h5"], cut, 2, "truncated"),
    ("A8", "export", ["in.h5", "--csv", "-o", "in.h5"], good, 2, "the input in.h5"),
    ("A9", "export", ["in.h5", "--csv", "-o", "out.csv"], symlink_to_input, 2, "the input"),
    ("A10", "export", ["in.h5", "--json", "-o", "out.csv"], hardlink_to_input, 2, "the input"),
    ("A11", "export", ["in.h5", "--csv", "-o", "dir"], folder("dir"), 2, "is a folder"),
    ("A12", "export", ["in.h5", "--csv", "-o", "out.csv"], device_out, 2, "not a regular file"),
    ("A13", "export", ["in.h5", "--csv", "-o", "f"], fifo("f"), 2, "not a regular file"),
    ("A14", "compare", ["in.h5", "in.h5", "--md", "in.h5"], good, 2, "the input in.h5"),
    ("A15", "report", ["rep/in.h5", "-o", "rep", "--force"], report_holding_input, 2, "folder of"),
    ("A16", "report", ["in.h5", "-o", "in.h5"], good, 2, "the input"),
    ("A17", "report", ["in.h5", "-o", "t.txt"], text("t.txt", "x\n"), 2, "is not a folder"),
    (
        "A18",
        "compare",
        ["in.h5", "in.h5"],
        edited(_set("measurements", "sample_offset", 10**9, 0)),
        2,
        "damaged sample table",
    ),
    (
        "A19",
        "compare",
        ["in.h5", "in.h5"],
        edited(_nan_samples),
        2,
        "damaged sample table",
    ),
    (
        "A20",
        "export",
        ["in.h5", "--csv"],
        edited(_retype("measurements", "point_id", "f8")),
        2,
        "column point_id is float64",
    ),
    (
        "A21",
        "export",
        ["in.h5", "--csv"],
        edited(_retype("measurements", "status", "S4")),
        2,
        "column status is |S4",
    ),
    (
        "A22",
        "report",
        ["in.h5", "-o", "rep"],
        edited(_attr("schema_version", "two")),
        2,
        "is not an integer",
    ),
    (
        "A23",
        "export",
        ["in.h5", "--json"],
        edited(_replace("samples", np.zeros((4, 2)))),
        2,
        "/samples is float64 of shape (4, 2)",
    ),
    ("A24", "export", ["in.h5", "--csv"], edited(_delete("devices")), 2, "no /devices dataset"),
    ("A25", "export", ["in.h5", "--csv", "--xml"], good, 2, "unrecognized arguments: --xml"),
    ("A26", "compare", ["in.h5", "in.h5", "--alpha", "7"], good, 2, "--alpha in (0, 0.5)"),
    # issue 29 item 6, issue 31 items 4-5, issue 32 item 2 (docs/bad-inputs.md, AN rows)
    (
        "AN01",
        "report",
        ["in.h5", "-o", "rep", "--headline", "strided_read"],
        good,
        2,
        "--headline 'strided_read': give FAMILY:AXIS=VALUE[,AXIS=VALUE...]",
    ),
    (
        "AN02",
        "report",
        ["in.h5", "-o", "rep", "--headline", "strided_read:stride=one"],
        good,
        2,
        "'one' is not an integer (K/M/G), max or min",
    ),
    (
        "AN03",
        "report",
        ["in.h5", "-o", "rep", "--fleet-reference", "ref.h5"],
        fifo("ref.h5"),
        2,
        "ref.h5: is a FIFO, not a result file",
    ),
    (
        "AN04",
        "report",
        ["in.h5", "-o", "rep", "--fleet-reference", "no.h5"],
        good,
        2,
        "no such file",
    ),
    (
        "AN05",
        "report",
        ["in.h5", "-o", "rep", "--fleet-reference", "rep/in.h5", "--force"],
        reference_in_report,
        2,
        "is the folder of the input rep/in.h5",
    ),
    (
        "AN06",
        "export",
        ["in.h5", "--json"],
        edited(_replace("model_rates", np.zeros(2, RATES_WITH_A_NUMBER_FOR_A_NAME))),
        2,
        "/model_rates column device is float64 where the schema has a fixed-length string",
    ),
    (
        "AN07",
        "export",
        ["in.h5", "--csv", "--table", "model_rates"],
        edited(_replace("model_rates", np.zeros(2, [("device", "S32")]))),
        2,
        "/model_rates lacks the column(s) role, basis, file, file_class, points",
    ),
    (
        "AN08",
        "export",
        ["in.h5", "--csv", "--table", "model_rates"],
        edited(_replace("model_rates", np.zeros(2, RATES_WITH_A_NUMBER_FOR_A_FIT))),
        2,
        "/model_rates column l2_gbps_fit is float64 where the schema has a fixed-length string",
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_row(row, h200_file, tmp_path):
    _, tool, args, make, code, want = row
    make(str(tmp_path), h200_file)
    before = snapshot(tmp_path)
    p = run(tool, args + (["-q"] if tool == "report" else []), tmp_path)
    lines = p.stderr.splitlines()
    assert p.returncode == code, p.stderr
    assert len(lines) == 1 and lines[0].startswith(f"sweep-{tool}: "), p.stderr
    assert want in lines[0], lines[0]
    assert p.stdout == ""
    assert snapshot(tmp_path) == before


def test_empty_table_is_read(h200_file, tmp_path):
    """A27: a file whose /measurements is empty (a sweep just started) exports
    as a header alone, exit 0: empty is not damaged."""
    edited(_empty("measurements"))(str(tmp_path), h200_file)
    p = run("export", ["in.h5", "--csv"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("\n") == 1 and p.stdout.startswith("point_id,")


@pytest.mark.parametrize("tool,args", [("report", ["-o", "rep"]), ("export", ["--json"])])
def test_full_stdout(tool, args, h200_file, tmp_path):
    """A28, A29: stdout on /dev/full: one line that says so, exit 2; the report
    folder is still written (stdout only carries where it is)."""
    good(str(tmp_path), h200_file)
    with open("/dev/full", "w") as full:
        p = run(tool, ["in.h5", *args], tmp_path, stdout=full)
    lines = p.stderr.splitlines()
    assert p.returncode == 2, p.stderr
    assert lines[-1] == f"sweep-{tool}: error: cannot write to stdout: No space left on device"
    assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr


def test_closed_stdout(tmp_path):
    """A30: `sweep-export big.h5 --csv | head -c1`: exit 2, nothing on stderr."""
    big = os.path.join(SOURCE, "docs", "results", "h200-full.h5")
    shutil.copyfile(big, tmp_path / "in.h5")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(SOURCE, "analysis") + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen(
        tool_command("export") + ["in.h5", "--csv"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert len(proc.stdout.read(1)) == 1  # the export is > 64 KiB: it cannot be done yet
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=LIMIT_S) == 2, err
    assert err == ""


# ---- N01..N04: family names that are no file names --------------------------


def renamed(names):
    """in.h5: the seeds file with families renamed, {old: new} (bytes)."""

    def make(d, src):
        good(d, src)
        with h5py.File(os.path.join(d, "in.h5"), "r+") as f:
            m = f["measurements"][:]
            for old, new in names.items():
                m["family"][m["family"] == old] = new
            f["measurements"][:] = m

    return make


FIGURE_FILE = re.compile(r"[0-9]{2,}-[A-Za-z0-9_-]+\.png")
MD_FIGURE = re.compile(r"^!\[(?:\\.|[^\]\\])*\]\((figures/[^)\s]+)\)$", re.M)
HTML_FIGURE = re.compile(r'<figure(?: class="[a-z]+")?><a href="(figures/[^"]+)">')

NAMES = [
    ("N01", {b"float3": b"a/b"}, ["a/b"]),
    ("N02", {b"rowsum": b"../../x", b"float3": b"/etc/passwd"}, ["../../x", "/etc/passwd"]),
    ("N03", {b"float3": b"a/b", b"reduce": b"a-b", b"rowsum": b"a b"}, ["a/b", "a-b", "a b"]),
    ("N04", {b"histogram": b"x]y (z)", b"reduce": b"[r](#s)"}, ["x]y (z)", "[r](#s)"]),
]


@pytest.mark.parametrize("row", NAMES, ids=[r[0] for r in NAMES])
def test_family_names_in_figures(row, seeds_files, tmp_path):
    """A family whose name is no file name (a file of an older writer or of
    another: sweep itself now refuses such names, P26, P27): the report is
    written, each figure under figures/ with a name of safe characters and a
    number of its own, every link of report.md and index.html names one of
    them, and nothing is written outside the report folder (was: exit 2,
    "figures/03-a/b-....png: No such file or directory")."""
    _, names, shown = row
    renamed(names)(str(tmp_path), seeds_files[0])
    before = snapshot(tmp_path)
    p = run("report", ["in.h5", "-o", "rep", "-q"], tmp_path)
    assert p.returncode == 0 and p.stderr == "" and p.stdout == "", p.stderr
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if not k.startswith("rep")} == before
    files = os.listdir(tmp_path / "rep" / "figures")
    assert files and all(FIGURE_FILE.fullmatch(f) for f in files), files
    assert len({f.split("-", 1)[0] for f in files}) == len(files)  # one number each
    md = (tmp_path / "rep" / "report.md").read_text()
    html = (tmp_path / "rep" / "index.html").read_text()
    assert sorted(MD_FIGURE.findall(md)) == sorted(f"figures/{f}" for f in files)
    assert sorted(HTML_FIGURE.findall(html)) == sorted(f"figures/{f}" for f in files)
    for name in shown:
        assert f"\n### {name}\n" in md


# ---- N05..N11: a stop signal while an output is half made ---------------------


def _stat_of(pid):
    """(state, parent) of a process from /proc, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            st = fh.read()
    except OSError:
        return None
    f = st[st.rindex(")") + 2 :].split()
    return f[0], int(f[1])


def _children(pid):
    """The processes whose parent is pid (its forked worker)."""
    found = [(int(d), _stat_of(d)) for d in os.listdir("/proc") if d.isdigit()]
    return [k for k, st in found if st is not None and st[1] == pid]


def _wait_for(what, ready):
    """Wait until ready() holds (a state of the processes, not a time), or fail."""
    deadline = time.monotonic() + LIMIT_S
    while not ready():
        assert time.monotonic() < deadline, f"not seen within {LIMIT_S} s: {what}"
        time.sleep(0.01)


def start_stopped(tool, args, cwd):
    """Start the tool with the test hook cli.TEST_STOP_ENV: its worker stops
    itself (SIGSTOP) once it has made its output's hidden temporary. Returns
    the process and its worker's pid, once the worker is stopped there."""
    env = dict(os.environ, SWEEP_ANALYSIS_TEST_STOP="temporary", MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.path.join(SOURCE, "analysis") + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.Popen(
        tool_command(tool) + args,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    kids = []

    def stopped():
        assert p.poll() is None, p.communicate()
        kids[:] = _children(p.pid)
        return len(kids) == 1 and (_stat_of(kids[0]) or "-")[0] == "T"

    _wait_for("the worker stopped at its temporary", stopped)
    return p, kids[0]


def _hidden(d):
    return [n for n in os.listdir(d) if n.startswith(".")]


def earlier_report(d, src):
    good(d, src)
    p = run("report", ["in.h5", "-o", "rep", "-q"], d)
    assert p.returncode == 0, p.stderr


STOPS = [
    ("N05", "report", ["in.h5", "-o", "rep", "-q"], good, signal.SIGTERM),
    ("N06", "report", ["in.h5", "-o", "rep", "-q"], good, signal.SIGINT),
    ("N07", "report", ["in.h5", "-o", "rep", "-q"], good, signal.SIGHUP),
    ("N09", "report", ["in.h5", "-o", "rep", "-q"], earlier_report, signal.SIGTERM),
    ("N10", "compare", ["in.h5", "in.h5", "--md", "c.md"], good, signal.SIGTERM),
    ("N11", "export", ["in.h5", "--csv", "-o", "out.csv"], good, signal.SIGTERM),
]


@pytest.mark.parametrize("row", STOPS, ids=[r[0] for r in STOPS])
def test_stop_signal(row, h200_file, tmp_path):
    """A stop signal to the tool's process (not to its process group, as
    `kill PID` sends it) while its worker has the output's temporary: the
    worker is stopped and waited for, the temporary removed, nothing is
    written (an earlier report stays as it was), exit 128 + the signal, one
    line (was: the signal ended the tool's process alone; its worker ran on
    and wrote the output later, or SIGINT was ignored)."""
    _, tool, args, make, sig = row
    make(str(tmp_path), h200_file)
    before = snapshot(tmp_path)
    p, worker = start_stopped(tool, args, tmp_path)
    assert len(_hidden(tmp_path)) == 1  # the temporary, beside the output
    os.kill(p.pid, sig)
    out, err = p.communicate(timeout=LIMIT_S)
    assert p.returncode == 128 + sig, err
    assert err == f"sweep-{tool}: error: stopped by {sig.name}: nothing was written\n"
    assert out == ""
    assert _stat_of(worker) is None  # waited for: gone
    assert snapshot(tmp_path) == before


def test_tool_killed(h200_file, tmp_path):
    """N08: SIGKILL to the tool's process, which cannot pass it on: the
    kernel sends its worker SIGTERM (PR_SET_PDEATHSIG), which removes the
    temporary and writes nothing (was: the worker ran on and wrote the report)."""
    good(str(tmp_path), h200_file)
    before = snapshot(tmp_path)
    p, worker = start_stopped("report", ["in.h5", "-o", "rep", "-q"], tmp_path)
    os.kill(p.pid, signal.SIGKILL)
    assert p.wait(timeout=LIMIT_S) == -signal.SIGKILL
    os.kill(worker, signal.SIGCONT)  # its SIGTERM waits while it is stopped
    err = p.stderr.read()  # to the end: the worker held the pipe until it ended
    assert err.startswith("sweep-report: error: stopped by SIG"), err
    assert err.endswith(": nothing was written\n") and err.count("\n") == 1, err
    # ended: gone, or a zombie where the process that adopted it does not reap
    _wait_for("the worker ended", lambda: (_stat_of(worker) or "Z")[0] == "Z")
    assert snapshot(tmp_path) == before
