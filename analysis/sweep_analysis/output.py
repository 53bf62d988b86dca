"""Writing outputs so that a failure leaves nothing half-written: files and
folders are made under a hidden temporary name beside the target and renamed
into place at the end (the same rule as sweep's own result files).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from contextlib import contextmanager

REPORT_MARKER = ".sweep-report"


class OutputError(Exception):
    """An output that cannot be written, with a message for the user."""


@contextmanager
def atomic_file(path, mode="w"):
    """Open a temporary file beside path; rename it to path on success."""
    path = os.path.abspath(path)
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise OutputError(f"{path}: the folder {parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.tmp", dir=parent)
    try:
        with os.fdopen(
            fd, mode, **({} if "b" in mode else {"encoding": "utf-8", "newline": ""})
        ) as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@contextmanager
def atomic_dir(path, force=False):
    """A temporary folder beside path, renamed to path on success. An existing
    path is replaced when it is an earlier report (it holds REPORT_MARKER) or
    empty, or with force; otherwise refused."""
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
        yield tmp
        with open(os.path.join(tmp, REPORT_MARKER), "w") as fh:
            fh.write("made by sweep-report; replaced whole by the next run\n")
        os.chmod(tmp, 0o755)
        if os.path.exists(path):
            old = tempfile.mkdtemp(prefix=f".{os.path.basename(path)}.old", dir=parent)
            os.rename(path, os.path.join(old, "x"))
            os.rename(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def fail(tool, msg, code=2):
    print(f"{tool}: error: {msg}", file=sys.stderr)
    return code
