# SPDX-License-Identifier: GPL-3.0-or-later
"""_native.py: the compiled binding (qctl._ffi), qctl's errors as Python
exceptions, and long calls run so that Ctrl-C reaches Python at once.

Every libqctl function returns 0 or a negative QC_E* code and fills a
qc_err with a one-line message; check() turns that into QctlError (the
code in .code, qc_strerror's name in .name, the message as str()).
Codes that mean "the caller gave something wrong" (invalid argument,
malformed input, out of range) raise QctlValueError, which is also a
ValueError, with the message the command prints for the same input.
"""
import errno
import os
import threading

from ._ffi import ffi, lib

lib.qcpy_init()  # GSL errors become return codes, not an abort

_NAMES = {-1: "EINVAL", -2: "ENOMEM", -3: "EPARSE", -4: "EIO", -5: "ERANGE",
          -6: "EUNSTABLE", -7: "EEMPTY", -8: "ENOTSUP", -9: "EINTR",
          -10: "EREFUSED", -11: "EREJECTED", -12: "ECANCELED", -13: "ENOLIB"}
CANCELED = -12
_BAD_INPUT = (-1, -3, -5)


class QctlError(Exception):
    """A libqctl call failed: .code (negative QC_E* code), .name ("EINVAL",
    ...), .description (qc_strerror), str() the library's message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.name = _NAMES.get(code, "E%d" % -code)
        self.description = ffi.string(lib.qc_strerror(code)).decode()


class QctlValueError(QctlError, ValueError):
    """Bad input refused by libqctl (or by the binding, with the message the
    command prints): both a QctlError and a ValueError."""


class QctlFileNotFoundError(QctlError, FileNotFoundError):
    """A file named in an argument (a spec's empirical:FILE, a curve, a
    scenario) does not exist: both a QctlError and a FileNotFoundError
    (errno ENOENT), as Python's own open() raises."""

    def __init__(self, code, message):
        QctlError.__init__(self, code, message)
        self.errno = errno.ENOENT
        self.strerror = message


class QctlShortRunError(QctlError):
    """The run is too short to support its intervals (the command's exit
    status 1 without --allow-short): str() says why, .result holds the
    run's result with its intervals withheld (ends None, with the
    reason), as the command prints them. allow_short=True returns the
    result instead, its intervals marked unreliable."""

    def __init__(self, message, result):
        super().__init__(-1, message)
        self.result = result


_ENOENT_TEXT = os.strerror(errno.ENOENT)


def error(code, message):
    if code == -4 and _ENOENT_TEXT in message:  # QC_EIO on a missing file
        return QctlFileNotFoundError(code, message)
    cls = QctlValueError if code in _BAD_INPUT else QctlError
    return cls(code, message)


def bad(message):
    """A bad argument found by the binding itself: ValueError with the
    command's message."""
    return QctlValueError(-1, message)


def new_err():
    return ffi.new("qc_err *")


def message(err):
    return ffi.string(err.msg).decode(errors="replace")


def check(rc, err, prefix=""):
    if rc < 0:
        msg = message(err) if err is not None else ""
        if not msg:
            msg = ffi.string(lib.qc_strerror(rc)).decode()
        raise error(rc, prefix + msg)
    return rc


def new_cancel():
    """A qc_cancel (qctl/cancel.h) to put in a run's parameters (.cancel),
    for run_interruptible to set."""
    return ffi.new("qc_cancel *")


def run_interruptible(fn, *args, cancel=None):
    """Calls fn(*args) (a cffi call, which releases the GIL) on a worker
    thread and waits for it in short slices, so that Ctrl-C reaches the
    caller at once instead of after the run. cancel (a qc_cancel the
    call's parameters point to): on KeyboardInterrupt (or any exception
    raised in the wait) it is requested, the C run stops at its next check
    (within a few thousand events) and returns QC_ECANCELED; the worker is
    joined, so nothing of the run is left going, and the exception goes
    on. A run that returns QC_ECANCELED without an interrupt here (another
    thread cancelled it) raises KeyboardInterrupt too."""
    if threading.current_thread() is not threading.main_thread():
        return _cancelled(fn(*args))  # signals are only delivered to the main thread
    box = {}
    done = threading.Event()

    def work():
        try:
            box["rc"] = fn(*args)
        except BaseException as e:  # pragma: no cover - re-raised below
            box["exc"] = e
        finally:
            done.set()

    # The end is awaited on an Event, not Thread.join: a join interrupted
    # by KeyboardInterrupt can leave the thread marked stopped while it
    # still runs (CPython before 3.12), and then nothing would wait for it.
    t = threading.Thread(target=work, name="qctl-run", daemon=True)
    t.start()
    try:
        while not done.wait(0.05):
            pass
    except BaseException:
        if cancel is not None:
            lib.qc_cancel_request(cancel)
            _wait_through_interrupts(done)
        raise
    if "exc" in box:
        raise box["exc"]
    return _cancelled(box["rc"])


def _wait_through_interrupts(done):
    """Waits for the cancelled run to return; a second Ctrl-C while it
    stops (a fraction of a second) does not abandon it."""
    while not done.is_set():
        try:
            done.wait(0.05)
        except KeyboardInterrupt:
            pass


def _cancelled(rc):
    if rc == CANCELED:
        raise KeyboardInterrupt("qctl run cancelled")
    return rc


def cstr(s):
    return s.encode() if isinstance(s, str) else s


def existing_path(path, what):
    """path (str, bytes or os.PathLike) as a str, after checking it names
    something: a missing file raises FileNotFoundError (errno ENOENT,
    .filename the path), as Python's own open() does, before any work."""
    try:
        p = os.fsdecode(os.fspath(path))
    except TypeError:
        raise bad("%s: %r is not a path" % (what, path)) from None
    if not os.path.exists(p):
        raise FileNotFoundError(errno.ENOENT, "%s: %s" % (what, os.strerror(errno.ENOENT)), p)
    return p
