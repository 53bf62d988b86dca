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

A stop signal (SIGTERM, SIGINT, SIGHUP) to the tool's process is passed on
to its worker, which raises `Stopped` where it runs: every output not yet
renamed into place is removed on the way out (output.py), the worker is
waited for, and the tool exits 128 + the signal's number (143, 130, 129)
with one line. A rename into place is not cut short: a signal that comes
during it stops the tool once it is done, and the line names the output.
If the tool's process dies without passing it on (SIGKILL), the kernel
sends the worker SIGTERM (PR_SET_PDEATHSIG): no worker outlives the tool.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import errno
import functools
import os
import signal
import sys
import threading

from .text import BYTES, shown, streams

CHILD_ENV = "SWEEP_ANALYSIS_CHILD"  # set in the forked child (reader.py bounds reads there)
EXIT_ERROR = 2  # any failure: a file, an output, an argument, stdout
# The signals that stop a tool; it exits 128 + the number, as a shell reports a
# process a signal ended: 143 SIGTERM, 130 SIGINT (Ctrl-C), 129 SIGHUP.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
EXIT_INTERRUPTED = 128 + signal.SIGINT
# A test hook (analysis/tests/test_bad_input_tools.py): with "temporary", the
# worker stops itself (SIGSTOP) once it has made an output's hidden temporary,
# a state a test can wait for before it sends a signal.
TEST_STOP_ENV = "SWEEP_ANALYSIS_TEST_STOP"
PR_SET_PDEATHSIG = 1


class ToolError(Exception):
    """A failure with a message for the user (the tools' only expected error)."""


class Stopped(BaseException):
    """A stop signal reached the tool. A BaseException, as KeyboardInterrupt:
    no `except Exception` takes it for a failure of its own, and every `with`
    on the way out removes what it made."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


class _Stops:
    """The state of the stop signals in the process that does the work."""

    deferred = None  # the first stop signal that came (None: none yet)
    renaming = False
    published = []  # outputs renamed into place, for the last line
    stdout = False  # something was written to stdout


def _on_stop(signum, frame):
    """Raise Stopped, once: a second signal (Ctrl-C reaches the worker from the
    terminal and again from the tool's process) must not cut the clean-up
    short, and none cuts a rename into place short (renaming())."""
    first = _Stops.deferred is None
    if first:
        _Stops.deferred = signum
    if first and not _Stops.renaming:
        raise Stopped(signum)


@contextlib.contextmanager
def renaming():
    """A rename into place (output.py) that a stop signal does not cut short:
    one that comes meanwhile stops the tool when it is done."""
    _Stops.renaming = True
    stopped = _Stops.deferred
    try:
        yield
    finally:
        _Stops.renaming = False
    if _Stops.deferred is not None and stopped is None:
        raise Stopped(_Stops.deferred)


def published(path):
    """Say that path was renamed into place (the line of a stop names it)."""
    _Stops.published.append(path)


def stop_for_test(what):
    """The test hook TEST_STOP_ENV: stop here, as a test asked."""
    if os.environ.get(TEST_STOP_ENV) == what:
        os.kill(os.getpid(), signal.SIGSTOP)


def _stopped_text(e: Stopped) -> str:
    name = signal.Signals(e.signum).name
    if _Stops.published:
        return f"stopped by {name}; {', '.join(_Stops.published)} had been written whole"
    if _Stops.stdout:
        return f"stopped by {name}: no file was written; stdout may be cut short"
    return f"stopped by {name}: nothing was written"


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
    view = memoryview(text.encode(sys.stdout.encoding or "utf-8", BYTES))
    while view:
        view = view[os.write(fd, view) :]


def emit(text):
    """Write text to stdout now, so that a stdout that fails is found here."""
    _Stops.stdout = _Stops.stdout or bool(text)  # (part of) it may reach stdout
    try:
        _write_all(text)
    except BrokenPipeError:
        raise _StdoutGone() from None
    except OSError as e:
        raise _StdoutFailed(f"cannot write to stdout: {e.strerror or e}") from None


def _say(tool, msg):
    line = shown(" ".join(str(msg).split()))  # one line, whatever the message held
    with contextlib.suppress(OSError, ValueError):  # no stderr: the exit status still tells
        print(f"{tool}: error: {line}", file=sys.stderr, flush=True)
    return EXIT_ERROR


def warn(tool, msg):
    """A warning, one line on stderr (`sweep-<tool>: warning: ...`); the tool goes on."""
    line = shown(" ".join(str(msg).split()))
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
    streams()  # a name's bytes that are not UTF-8 print as \xNN (text.py)
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
    except Stopped as e:
        _say(tool, _stopped_text(e))
        return 128 + e.signum
    except KeyboardInterrupt:  # SIGINT where the tool did not arm its handler
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


def _arm():
    """Stop signals raise Stopped in this process (the main thread's only)."""
    _Stops.deferred, _Stops.published, _Stops.stdout = None, [], False
    return {sig: signal.signal(sig, _on_stop) for sig in STOP_SIGNALS}


def _disarm(old):
    for sig, h in old.items():
        signal.signal(sig, h)


def _in_process(tool, fn):
    """fn() here (no fork: pytest's capture), stop signals armed if it can."""
    if threading.current_thread() is not threading.main_thread():
        return fn()
    old = _arm()
    try:
        return fn()
    except Stopped as e:  # outside fn's own error path
        _say(tool, _stopped_text(e))
        return 128 + e.signum
    finally:
        _disarm(old)


def _die_with(parent):
    """In the worker: SIGTERM when the tool's process dies (Linux), and stop
    at once if it already has."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:
        raise Stopped(signal.SIGTERM)


def _worker(tool, fn, parent):
    """The forked worker: everything the tool does, then out without atexit."""
    code = EXIT_ERROR
    os.environ[CHILD_ENV] = "1"
    try:
        _arm()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        try:
            _die_with(parent)
            code = fn()
            sys.stdout.flush()
            sys.stderr.flush()
        except Stopped as e:  # outside fn's own error path
            _say(tool, _stopped_text(e))
            code = 128 + e.signum
    finally:
        os._exit(code if isinstance(code, int) else EXIT_ERROR)


def _wait(tool, pid):
    """In the tool's process: pass each stop signal on to the worker (and
    SIGCONT, should it be stopped) until it ends; its exit status."""

    def forward(signum, frame):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)
            os.kill(pid, signal.SIGCONT)

    old = {sig: signal.signal(sig, forward) for sig in STOP_SIGNALS}
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    try:
        _, status = os.waitpid(pid, 0)  # retried after each signal (PEP 475)
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
        return _say(tool, "gave up reading its input: HDF5 did not finish (a damaged file)")
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (*STOP_SIGNALS, signal.SIGKILL):
        sig = signal.Signals(os.WTERMSIG(status))  # sent to the worker itself
        _say(tool, f"its worker was ended by {sig.name}: nothing was written")
        return 128 + sig
    if os.WIFSIGNALED(status):
        sig = signal.Signals(os.WTERMSIG(status)).name
        return _say(tool, f"crashed ({sig}) reading its input: HDF5 cannot read this damaged file")
    return os.WEXITSTATUS(status)


def isolated(tool, fn):
    """fn() -> exit status, run in a forked worker where possible: a crash in
    C code (HDF5 on a damaged file) becomes one line and EXIT_ERROR, and a
    stop signal to the tool stops the worker first (the module's doc)."""
    if not _can_fork():
        return _in_process(tool, fn)
    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    # no stop signal between the fork and the handlers: it waits, blocked
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        pid = os.fork()
        if pid == 0:
            _worker(tool, fn, parent)
        return _wait(tool, pid)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def entry(tool):
    """Decorator for a tool's main(argv) -> exit status: the one error path."""

    def wrap(main):
        @functools.wraps(main)
        def run(argv=None):
            return isolated(tool, lambda: _run(tool, main, argv))

        return run

    return wrap
