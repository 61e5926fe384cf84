# SPDX-License-Identifier: GPL-3.0-or-later
# qctl.sim.pool: M/M/k when the servers never switch off, and identity
# with `qctl sim pool --json` on the same seed.
import json
import math
import subprocess

import pytest

import qctl


def erlang_c_response(lam, mu, k):
    a = lam / mu
    s = sum(a ** i / math.factorial(i) for i in range(k))
    last = a ** k / math.factorial(k) * k / (k - a)
    c = last / (s + last)
    return c / (k * mu - lam) + 1 / mu


def test_never_off_is_mmk():
    # jsq with servers that never switch off: an M/M/k with a queue per
    # server is not M/M/k, but the central queue is; its response time
    # covers Erlang C's (fixed seed; the interval is 95%)
    r = qctl.sim.pool(3, "exp:2", policy="central", idle_timer="inf", customers=40000, reps=10,
                      seed=1)
    truth = erlang_c_response(2.0, 1.0, 3)
    rt = r["response_time"]
    assert abs(rt.value - truth) < 3 * rt.half, (rt, truth)
    assert r["throughput"].value == pytest.approx(2.0, rel=0.02)


def test_same_as_cli(qctl_bin):
    args = ["--servers", "4", "--arrival", "exp:2", "--customers", "20000", "--reps", "4",
            "--seed", "3", "--idle-timer", "2", "--policy", "jsq-off"]
    t = subprocess.run([qctl_bin, "sim", "pool", *args, "--json", "--quiet"],
                       capture_output=True, text=True)
    assert t.returncode == 0, t.stderr
    doc = json.loads(t.stdout)
    r = qctl.sim.pool(4, "exp:2", customers=20000, reps=4, seed=3, idle_timer=2,
                      policy="jsq-off")
    for name, m in doc["metrics"].items():
        if name not in r.metrics:
            continue
        for key, ours in (("value", r[name].value), ("ci_low", r[name].lo)):
            if m[key] is None:
                assert not math.isfinite(ours)
            else:
                assert float("%.10g" % ours) == m[key], (name, key)


def test_bad_policy_message(qctl_bin):
    with pytest.raises(ValueError) as e:
        qctl.sim.pool(2, "exp:1", policy="nosuch")
    t = subprocess.run([qctl_bin, "sim", "pool", "--servers", "2", "--arrival", "exp:1",
                        "--policy", "nosuch"], capture_output=True, text=True)
    assert t.returncode == 2 and t.stderr.strip() == "qctl: " + str(e.value)
