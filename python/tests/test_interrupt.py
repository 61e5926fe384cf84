# SPDX-License-Identifier: GPL-3.0-or-later
# Ctrl-C during a long run: KeyboardInterrupt reaches Python at once, and
# the C run itself stops (the library's cancel hook), rather than going on
# to its end on a thread whose result would be dropped.
#
# No wall-clock bound: the child measures how long a small run of the same
# model takes, so that "stopped early" is a fraction of what the full run
# would take, and checks that the thread which ran the C call has ended
# when KeyboardInterrupt reaches it.
import os
import signal
import subprocess
import sys

import pytest

SCRIPT = r"""
import sys, threading, time, qctl
small_kw, big_kw, scale = %r, %r, %r
f = getattr(qctl.sim, %r)
t0 = time.perf_counter()
f(**small_kw)
small = time.perf_counter() - t0
print("ready", flush=True)
t0 = time.perf_counter()
try:
    f(**big_kw)
except KeyboardInterrupt:
    elapsed = time.perf_counter() - t0
    # (not Thread.is_alive: an interrupted join can make it say False)
    alive = any(t.name == "qctl-run" for t in threading.enumerate())
    print("interrupted", elapsed / (small * scale), int(alive), flush=True)
    sys.exit(3)
print("finished", flush=True)
"""

CASES = {
    # the big run is `scale` times the small one's work
    "queue": (dict(arrival="exp:0.9", service="exp:1", customers=100000, seed=1),
              dict(arrival="exp:0.9", service="exp:1", customers=10**10, reps=4, seed=1),
              4 * 10**5),
    "pool": (dict(servers=4, arrival="exp:2", customers=50000, reps=1, seed=1),
             dict(servers=4, arrival="exp:2", customers=10**10, reps=2, seed=1),
             4 * 10**5),
    "maxusers": (dict(duration=3600, seed=1, jobs=1),
                 dict(duration=3.6e7, seed=1, jobs=1), 10**4),
    "admission": (dict(scenario={"classes": [
        {"name": "gold", "arrival": "exp:0.3", "service": "exp:1", "bound": 3},
        {"name": "web", "arrival": "exp:0.3", "service": "exp:1", "best_effort": True}]},
        time=10000, reps=1, jobs=1),
        dict(scenario={"classes": [
            {"name": "gold", "arrival": "exp:0.3", "service": "exp:1", "bound": 3},
            {"name": "web", "arrival": "exp:0.3", "service": "exp:1", "best_effort": True}]},
            time=1e9, reps=1, jobs=1), 10**5),
}


@pytest.mark.parametrize("what", sorted(CASES))
def test_ctrl_c_stops_the_c_run(what):
    small, big, scale = CASES[what]
    p = subprocess.Popen([sys.executable, "-c", SCRIPT % (small, big, scale, what)],
                         env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert p.stdout.readline().strip() == "ready"
        import time
        time.sleep(0.5)  # inside the C run by now
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=600)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 3, (out, err)
    words = out.split()
    assert words[0] == "interrupted", out
    fraction, alive = float(words[1]), int(words[2])
    # returned after a small part of the whole run's work (about 0.5 s of
    # it; the whole is thousands of times the small run)
    assert fraction < 0.01, out
    # the run's thread is gone: the C run returned
    assert alive == 0, out


def test_interrupt_cancels_the_library_run():
    """The mechanism itself, on a run whose arguments the test keeps alive
    (so that nothing but the cancel can end it): SIGINT in the wait
    requests the qc_cancel, qc_queue_run returns, and its thread is gone
    when KeyboardInterrupt reaches the caller. Without the cancel the run
    (10^10 customers) would go on for hours on its thread."""
    import threading

    import qctl
    from qctl._native import ffi, lib, new_cancel, new_err, run_interruptible
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    a, s = qctl.dist.parse("exp:0.9"), qctl.dist.parse("exp:1")
    p = ffi.new("qc_queue_params *")
    lib.qc_queue_params_init(p)
    p.arrival, p.service, p.customers, p.reps = a._d, s._d, 10**10, 1
    c = new_cancel()
    p.cancel = c
    res, err = ffi.new("qc_queue_result *"), new_err()
    box = {}

    def run(*args):
        box["rc"] = lib.qc_queue_run(*args)
        return box["rc"]
    main = threading.main_thread().ident
    timer = threading.Timer(0.5, lambda: signal.pthread_kill(main, signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_interruptible(run, p, res, err, cancel=c)
    finally:
        timer.cancel()
    assert lib.qc_cancel_requested(c) == 1
    # the C call had returned QC_ECANCELED, with its message, when the
    # KeyboardInterrupt reached the caller
    assert box.get("rc") == -12, box
    # and how far it got: the one replication was stopped inside
    assert err.code == -12 and ffi.string(err.msg) == b"cancelled after 0 of 1 replication"
    assert not [t for t in threading.enumerate() if t.name == "qctl-run"]
