"""Writing outputs so that a failure leaves nothing half-written: files and
folders are made under a hidden temporary name beside the target and renamed
into place at the end (the same rule as sweep's own result files). No output
replaces one of the tool's inputs (same inode, or the same resolved path, or
a folder holding one) or anything but a regular file (a file output) or a
folder (a report): those are refused before anything is read or written.
A stop signal (cli.Stopped) removes the temporary like any failure; it does
not cut a rename into place short (cli.renaming).
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from contextlib import contextmanager

from .cli import ToolError, published, renaming, stop_for_test
from .text import BYTES

REPORT_MARKER = ".sweep-report"


class OutputError(ToolError):
    """An output that cannot be written, with a message for the user."""


def _stat(path):
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise OutputError(f"{path}: cannot check the output: {e.strerror}") from None


def _same(a, b):
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def check_output(path, inputs=(), folder=False):
    """Refuse an output that is an input, holds one (folder), or exists as
    something other than a regular file (a folder, for a report)."""
    real = os.path.realpath(path)
    st = _stat(path)
    for i in inputs:
        ist = _stat(i)
        ireal = os.path.realpath(i)
        inside = folder and ireal.startswith(real.rstrip("/") + "/")
        if ireal == real or inside or (st and ist and _same(st, ist)):
            raise OutputError(
                f"{path}: is {'the folder of ' if inside else ''}the input {i}: "
                "refusing to write over it; choose another output"
            )
    if st is None:
        return
    if folder and not stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{path} exists and is not a folder")
    if not folder and not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise OutputError(
            f"{path}: exists and is {kind}: refusing to replace it; name a regular file "
            "(or leave out -o for stdout)"
        )


@contextmanager
def atomic_file(path, mode="w", inputs=()):
    """Open a temporary file beside path; rename it to path on success. An
    existing regular file is replaced, unless it is one of inputs."""
    check_output(path, inputs)
    path = os.path.abspath(path)
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise OutputError(f"{path}: the folder {parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.tmp", dir=parent)
    try:
        with os.fdopen(
            fd,
            mode,
            **({} if "b" in mode else {"encoding": "utf-8", "errors": BYTES, "newline": ""}),
        ) as fh:
            stop_for_test("temporary")
            yield fh
        check_output(path, inputs)  # again: what path names may have changed meanwhile
        with renaming():  # a stop signal (cli.Stopped) waits for the rename
            os.replace(tmp, path)
            published(path)
    except BaseException:  # a failure, or cli.Stopped: the temporary goes
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


@contextmanager
def atomic_dir(path, force=False, inputs=()):
    """A temporary folder beside path, renamed to path on success. An existing
    path is replaced when it is an earlier report (it holds REPORT_MARKER) or
    empty, or with force; otherwise refused. Never when it holds an input."""
    check_output(path, inputs, folder=True)
    path = os.path.abspath(path.rstrip("/") or "/")
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise OutputError(f"{path}: the folder {parent} does not exist")
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise OutputError(f"{path} exists and is not a folder")
        earlier = os.path.exists(os.path.join(path, REPORT_MARKER)) or not os.listdir(path)
        if not earlier and not force:
            raise OutputError(
                f"{path} exists and is not an earlier report: "
                f"choose another -o or pass --force to replace it"
            )
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(path)}.tmp", dir=parent)
    try:
        stop_for_test("temporary")
        yield tmp
        with open(os.path.join(tmp, REPORT_MARKER), "w") as fh:
            fh.write("made by sweep-report; replaced whole by the next run\n")
        os.chmod(tmp, 0o755)
        with renaming():  # a stop signal (cli.Stopped) waits for the renames
            if os.path.exists(path):
                old = tempfile.mkdtemp(prefix=f".{os.path.basename(path)}.old", dir=parent)
                os.rename(path, os.path.join(old, "x"))
                os.rename(tmp, path)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(tmp, path)
            published(path)
    except BaseException:  # a failure, or cli.Stopped: the temporary goes
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def fail(tool, msg, code=2):
    """The one line of a failure, for a tool that goes on to return code
    (the tools raise ToolError instead: cli.entry prints the same line)."""
    print(f"{tool}: error: {msg}", file=sys.stderr)
    return code
