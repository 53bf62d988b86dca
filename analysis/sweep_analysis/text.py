"""Text as the tools write it. A name sweep stores or a user types may hold
bytes that are not UTF-8 (a job's path, an output's name: Linux names are
bytes); Python carries each such byte as a lone surrogate (surrogateescape),
which no UTF-8 output takes. Every output of the tools (stdout, stderr,
report.md, index.html, CSV, JSON) shows such a byte as the four characters
\\xNN instead: the name is shown as it is, visibly, and the output stays
UTF-8. Importing this module registers the codec error handler BYTES."""

from __future__ import annotations

import codecs
import contextlib
import sys

BYTES = "sweep-bytes"  # the codec error handler: encode(..., BYTES)


def _escape(err):
    """A byte surrogateescape kept (U+DC80..U+DCFF) as \\xNN; any other
    character the encoding lacks (a stream that is not UTF-8) as
    backslashreplace writes it."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    out = []
    for c in err.object[err.start : err.end]:
        o = ord(c)
        if 0xDC80 <= o <= 0xDCFF:
            out.append(f"\\x{o - 0xDC00:02x}")
        else:
            out.append(c.encode("ascii", "backslashreplace").decode("ascii"))
    return "".join(out), err.end


codecs.register_error(BYTES, _escape)


def shown(text: str) -> str:
    """text with each byte that was not UTF-8 as \\xNN: no lone surrogate
    left, so any encoder (json, a file, a stream) takes it."""
    return text.encode("utf-8", BYTES).decode("utf-8")


def streams():
    """stdout and stderr write such bytes as \\xNN too (a print of a name)."""
    for s in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            s.reconfigure(errors=BYTES)
