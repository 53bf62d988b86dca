"""The one error path (cli.entry), the input check (reader.open_regular) and
the output check (output.check_output), in process; test_bad_input_tools.py
runs the same end to end."""

import os
import signal
from pathlib import Path

import pytest

from sweep_analysis import cli, output, reader
from sweep_analysis.cli import ToolError, entry

from conftest import SOURCE, run_tool, writable_copy


def _fails_with(exc):
    @entry("sweep-test")
    def main(argv=None):
        raise exc

    return main


@pytest.mark.parametrize(
    "exc,text",
    [
        (ToolError("x.h5: no such file"), "sweep-test: error: x.h5: no such file"),
        (ToolError("two\nlines"), "sweep-test: error: two lines"),
        (OSError(28, "No space left on device", "out.csv"), "out.csv: No space left on device"),
        (KeyError("family"), "internal error, please report it: KeyError: 'family'"),
        (MemoryError(), "sweep-test: error: out of memory"),
    ],
)
def test_any_failure_is_one_line_and_2(exc, text, capsys):
    assert _fails_with(exc)([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and text in err and "Traceback" not in err


def test_bad_argument_is_one_line(capsys):
    @entry("sweep-test")
    def main(argv=None):
        ap = cli.ArgumentParser(prog="sweep-test")
        ap.add_argument("--n", type=int)
        ap.parse_args(argv)
        return 0

    assert main(["--n", "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid int value: 'x'" in err and "usage" not in err
    assert main([]) == 0


def test_help_still_exits_0(capsys):
    from sweep_analysis import export

    assert export.main(["--help"]) == 0
    assert "--csv" in capsys.readouterr().out


def test_fifo_input_refused_at_once(tmp_path):
    fifo = tmp_path / "f.h5"
    os.mkfifo(fifo)
    with pytest.raises(reader.SweepFileError, match="is a FIFO"):
        reader.read(fifo)


def test_damaged_metadata_does_not_hold_the_read(tmp_path):
    """h200-seeds-counters.h5 cut at 649 bytes: its root object's checksum
    fails, and a SWMR reader retried each read 100 times with a doubling wait
    (minutes; the fuzzer found it). Now refused; the subprocess limit turns a
    return of the hang into a failure."""
    src = os.path.join(SOURCE, "docs", "results", "h200-seeds-counters.h5")
    bad = tmp_path / "cut.h5"
    with open(src, "rb") as fh:
        bad.write_bytes(fh.read(649))
    p = run_tool("export", bad, "--csv", timeout=60)
    assert p.returncode == 2 and "checksum" in p.stderr, p.stderr


def test_output_over_input_refused(h200_file, tmp_path):
    src = writable_copy(h200_file, tmp_path / "in.h5")
    os.symlink("in.h5", tmp_path / "link")
    os.link(src, tmp_path / "hard")
    for out in (src, tmp_path / "link", tmp_path / "hard", tmp_path / "." / "in.h5"):
        with pytest.raises(output.OutputError, match="the input"):
            output.check_output(str(out), [src])
    with pytest.raises(output.OutputError, match="folder of the input"):
        output.check_output(str(tmp_path), [src], folder=True)
    output.check_output(str(tmp_path / "other.csv"), [src])  # a new file: fine


def test_output_not_regular_refused(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(output.OutputError, match="not a regular file"):
        output.check_output(str(tmp_path / "fifo"))
    with pytest.raises(output.OutputError, match="is a folder"):
        output.check_output(str(tmp_path))
    with pytest.raises(output.OutputError, match="not a regular file"):
        output.check_output("/dev/null")
    (tmp_path / "old.csv").write_text("old\n")
    with output.atomic_file(str(tmp_path / "old.csv")) as fh:  # an unrelated file: replaced
        fh.write("new\n")
    assert (tmp_path / "old.csv").read_text() == "new\n"


def test_big_endian_column_reads(h200_file, tmp_path):
    """A float column stored big-endian (legal HDF5; the fuzzer made one by
    flipping a byte order bit): pandas refused to take rows of it."""
    import h5py
    import numpy as np

    from sweep_analysis import export

    p = writable_copy(h200_file, tmp_path / "be.h5")
    with h5py.File(p, "r+") as f:
        m = f["measurements"][:]
        fields = [(c, m.dtype.fields[c][0]) for c in m.dtype.names]
        fields = [(c, ">f8" if c == "median_ns" else t) for c, t in fields]
        new = np.zeros(m.shape, fields)
        for c in m.dtype.names:
            new[c] = m[c]
        del f["measurements"]
        f.create_dataset("measurements", data=new, maxshape=(None,), chunks=True)
    run = reader.read(p)
    assert (
        run.rows["median_ns"].to_numpy().tolist()
        == reader.read(h200_file).rows["median_ns"].to_numpy().tolist()
    )
    assert len(export.samples(run)) == len(export.samples(reader.read(h200_file)))


def test_attribute_name_not_utf8(h200_file, tmp_path):
    """A root attribute whose name is not UTF-8 (the fuzzer's second find: one
    byte of `tool_version` overwritten): h5py names it with bytes, and the
    JSON export failed on a bytes key."""
    import json

    from sweep_analysis import export

    p = tmp_path / "name.h5"
    data = bytearray(Path(h200_file).read_bytes())
    data[data.find(b"tool_version")] = 0xFF
    p.write_bytes(bytes(data))
    run = reader.read(p)
    assert "\ufffdool_version" in run.attrs
    assert "\ufffdool_version" in json.loads(json.dumps(export.to_json(run)))["attributes"]


def test_hdf5_crash_on_one_byte(h200_file, tmp_path):
    """One byte of h200-quick.h5 (offset 13457, 0x01 -> 0xd9) makes HDF5 crash
    with SIGSEGV inside an attribute read of a table, where no Python runs:
    the tool's forked child dies, and the tool says so in one line, exit 2."""
    data = bytearray(Path(h200_file).read_bytes())
    assert data[13457] == 0x01
    data[13457] = 0xD9
    p = tmp_path / "segv.h5"
    p.write_bytes(bytes(data))
    r = run_tool("export", p, "--csv", timeout=60)
    assert r.returncode in (0, 2), (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 0 or (
        len(lines) == 1 and lines[0].startswith("sweep-export: error: ")
    ), r.stderr


def test_hdf5_loop_gives_up(tmp_path):
    """data/hdf5-loops.h5, an input the reader fuzzer made (seed 3), makes
    HDF5 loop in C inside an attribute read, where no Python runs: the
    tool's child is stopped after the read limit and the tool says so in
    one line, exit 2, instead of hanging."""
    p = os.path.join(os.path.dirname(__file__), "data", "hdf5-loops.h5")
    r = run_tool(
        "export",
        p,
        "--csv",
        "-o",
        tmp_path / "x.csv",
        env={"SWEEP_ANALYSIS_READ_LIMIT_S": "3"},
        timeout=120,
    )
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.strip().splitlines() == [
        "sweep-export: error: gave up reading its input: HDF5 did not finish (a damaged file)"
    ]
    assert not (tmp_path / "x.csv").exists()


def test_stop_waits_for_a_rename(tmp_path, capsys, monkeypatch):
    """A stop signal during the rename of a finished output into place does
    not cut it short: the output is whole, then the tool stops, and its one
    line names the output (issue 23, cause 10)."""
    target = tmp_path / "out.csv"

    real = os.replace

    def replace(a, b):
        os.kill(os.getpid(), signal.SIGTERM)  # its handler runs before the rename
        real(a, b)

    @entry("sweep-test")
    def main(argv=None):
        with output.atomic_file(target) as fh:
            fh.write("x\n")
        return 0

    monkeypatch.setattr(output.os, "replace", replace)
    assert main([]) == 128 + signal.SIGTERM
    err = capsys.readouterr().err
    assert err == f"sweep-test: error: stopped by SIGTERM; {target} had been written whole\n"
    assert target.read_text() == "x\n" and os.listdir(tmp_path) == ["out.csv"]


def test_stop_before_the_rename_writes_nothing(tmp_path, capsys):
    """A stop signal while the output is being made: the temporary is
    removed, nothing is written, exit 143, one line."""

    @entry("sweep-test")
    def main(argv=None):
        with output.atomic_file(tmp_path / "out.csv") as fh:
            fh.write("x\n")
            os.kill(os.getpid(), signal.SIGTERM)
            fh.write("never\n")
        return 0

    assert main([]) == 128 + signal.SIGTERM
    err = capsys.readouterr().err
    assert err == "sweep-test: error: stopped by SIGTERM: nothing was written\n"
    assert os.listdir(tmp_path) == []


def test_stop_after_stdout_says_so(capsys):
    """A stop signal once part of stdout is out: the line does not say that
    nothing was written."""

    @entry("sweep-test")
    def main(argv=None):
        cli.emit("a,b\n")
        os.kill(os.getpid(), signal.SIGTERM)
        cli.emit("never\n")
        return 0

    assert main([]) == 128 + signal.SIGTERM
    out, err = capsys.readouterr()
    assert out == "a,b\n"
    assert (
        err
        == "sweep-test: error: stopped by SIGTERM: no file was written; stdout may be cut short\n"
    )
