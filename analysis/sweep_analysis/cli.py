"""The one error path of the console tools (sweep-report, sweep-compare,
sweep-export): every entry point is `@entry(TOOL)`, so any failure ends as one
line `sweep-<tool>: error: <what>` on stderr and exit status 2, never a
traceback. Readers and writers raise ToolError with the user's message; what
else escapes is reported as an internal error, still on one line.

HDF5 is C: a damaged file can crash it (a segfault, a failed free) where no
Python runs. So where stdout and stderr are real files, the tool runs in a
forked child, and a child killed by a signal is one more one-line error.

A stdout the reader closed (`| head`) ends the tool quietly with 2: the output
was not delivered whole. A stdout that cannot be written (full disk,
/dev/full) is an error like any other. It does not open or write files.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import os
import signal
import sys

CHILD_ENV = "SWEEP_ANALYSIS_CHILD"  # set in the forked child (reader.py bounds reads there)
EXIT_ERROR = 2  # any failure: a file, an output, an argument, stdout
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT


class ToolError(Exception):
    """A failure with a message for the user (the tools' only expected error)."""


class _StdoutGone(Exception):
    """The reader of stdout left (EPIPE): stop quietly."""


class _StdoutFailed(ToolError):
    """stdout cannot be written (ENOSPC, EIO): an error like any other."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse with one line for a bad argument instead of the usage block."""

    def error(self, message):
        raise ToolError(f"{message} (see {self.prog} --help)")


def _write_all(text):
    sys.stdout.flush()
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (pytest's capture)
        sys.stdout.write(text)
        return
    # os.write, not sys.stdout.write: a big write that the reader cuts short
    # after a partial write loses its EPIPE in the buffered layer (exit 0).
    view = memoryview(text.encode(sys.stdout.encoding or "utf-8", "replace"))
    while view:
        view = view[os.write(fd, view) :]


def emit(text):
    """Write text to stdout now, so that a stdout that fails is found here."""
    try:
        _write_all(text)
    except BrokenPipeError:
        raise _StdoutGone() from None
    except OSError as e:
        raise _StdoutFailed(f"cannot write to stdout: {e.strerror or e}") from None


def _say(tool, msg):
    line = " ".join(str(msg).split())  # one line, whatever the message held
    with contextlib.suppress(OSError, ValueError):  # no stderr: the exit status still tells
        print(f"{tool}: error: {line}", file=sys.stderr, flush=True)
    return EXIT_ERROR


def warn(tool, msg):
    """A warning, one line on stderr (`sweep-<tool>: warning: ...`); the tool goes on."""
    line = " ".join(str(msg).split())
    with contextlib.suppress(OSError, ValueError):
        print(f"{tool}: warning: {line}", file=sys.stderr, flush=True)


def warn_run(tool, run):
    """The warnings the reader gave a file (damaged rows left out), each with its path."""
    for w in run.warnings:
        warn(tool, f"{run.path}: {w}")


def _silence_stdout():
    """Point fd 1 at /dev/null, so that what stdout still buffers is dropped
    at exit instead of failing again there (Python's 'Exception ignored')."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def _os_text(e: OSError) -> str:
    where = e.filename if e.filename is not None else "I/O"
    return f"{where}: {e.strerror or errno.errorcode.get(e.errno, e)}"


def _call(tool, main, argv):
    try:
        code = main(argv)
        emit("")  # flush: a full stdout fails here, not at interpreter exit
        return EXIT_ERROR if code is None else code
    except SystemExit as e:  # --help: argparse has printed it
        emit("")
        return e.code if isinstance(e.code, int) else EXIT_ERROR


def _run(tool, main, argv):
    try:
        return _call(tool, main, argv)
    except (_StdoutGone, BrokenPipeError):
        _silence_stdout()
        return EXIT_ERROR
    except _StdoutFailed as e:
        _silence_stdout()
        return _say(tool, e)
    except ToolError as e:
        return _say(tool, e)
    except KeyboardInterrupt:
        _say(tool, "interrupted")
        return EXIT_INTERRUPTED
    except MemoryError:
        return _say(tool, "out of memory")
    except OSError as e:
        return _say(tool, _os_text(e))
    except Exception as e:  # a bug: still one line, and the name to report
        return _say(tool, f"internal error, please report it: {type(e).__name__}: {e}")


def _can_fork():
    """A fork keeps the output only where it goes to file descriptors (not
    to pytest's in-memory capture)."""
    try:
        sys.stdout.fileno()
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return hasattr(os, "fork") and not os.environ.get("SWEEP_ANALYSIS_NO_FORK")


def isolated(tool, fn):
    """fn() -> exit status, run in a forked child where possible: a crash in
    C code (HDF5 on a damaged file) becomes one line and EXIT_ERROR."""
    if not _can_fork():
        return fn()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: everything the tool does, then out without atexit
        code = EXIT_ERROR
        os.environ[CHILD_ENV] = "1"
        try:
            code = fn()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code if isinstance(code, int) else EXIT_ERROR)
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the child has Ctrl-C
    try:
        _, status = os.waitpid(pid, 0)
    finally:
        signal.signal(signal.SIGINT, old)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
        return _say(tool, "gave up reading its input: HDF5 did not finish (a damaged file)")
    if os.WIFSIGNALED(status):
        sig = signal.Signals(os.WTERMSIG(status)).name
        return _say(tool, f"crashed ({sig}) reading its input: HDF5 cannot read this damaged file")
    return os.WEXITSTATUS(status)


def entry(tool):
    """Decorator for a tool's main(argv) -> exit status: the one error path."""

    def wrap(main):
        @functools.wraps(main)
        def run(argv=None):
            return isolated(tool, lambda: _run(tool, main, argv))

        return run

    return wrap
