# SPDX-License-Identifier: GPL-3.0-or-later
# Ctrl-C during a long qctl.sim.queue: KeyboardInterrupt reaches Python at
# once, not after the run (which would take minutes here).
import os
import signal
import subprocess
import sys
import time

SCRIPT = r"""
import sys, qctl
print("ready", flush=True)
try:
    qctl.sim.queue(arrival="exp:0.9", service="exp:1", customers=10**9, reps=10, seed=1)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(3)
print("finished", flush=True)
"""


def test_ctrl_c_interrupts_a_long_run():
    p = subprocess.Popen([sys.executable, "-c", SCRIPT], env=dict(os.environ),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert p.stdout.readline().strip() == "ready"
        time.sleep(0.5)  # inside qc_queue_run by now
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        waited = time.monotonic() - t0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 3, (out, err)
    assert "interrupted" in out
    # 10^10 customers take minutes; the interrupt is seen within a slice
    # of the wait (0.05 s), well under 20 s even on a loaded machine
    assert waited < 20, waited
