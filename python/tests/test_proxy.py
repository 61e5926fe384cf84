# SPDX-License-Identifier: GPL-3.0-or-later
# qctl.sim.proxy: the simulated twin of qctl proxy. M/M/c through a proxy
# without a limiter, two classes under the admission limiter, and
# identity with `qctl sim proxy --json` on the same seed.
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


def cli_json(qctl_bin, args):
    """`qctl sim proxy ARGS --json --quiet`'s document."""
    t = subprocess.run([qctl_bin, "sim", "proxy", *args, "--json", "--quiet"],
                       capture_output=True, text=True)
    assert t.returncode == 0, t.stderr
    return json.loads(t.stdout)


def test_no_limiter_is_mmc():
    r = qctl.sim.proxy(arrival="exp:300", workers=4, service="exp:100", limiter="none",
                       time=100, reps=10, seed=1)
    truth = erlang_c_response(300.0, 100.0, 4)
    lat = r["latency"]
    assert abs(lat.value - truth) < 3 * lat.half, (lat, truth)
    assert r["refused"].value == 0
    assert math.isnan(r.limit.value)


def test_same_as_cli(qctl_bin):
    args = ["--workers", "4", "--service", "det:0.01", "--limiter", "admission",
            "--class", "gold=0.05", "--class", "silver=0.3", "--class-arrival", "gold=exp:250",
            "--class-arrival", "silver=exp:350", "--time", "10", "--warmup", "2", "--reps", "3",
            "--seed", "5"]
    doc = cli_json(qctl_bin, args)
    r = qctl.sim.proxy(classes=[{"name": "gold", "bound": 0.05, "arrival": "exp:250"},
                                {"name": "silver", "bound": 0.3, "arrival": "exp:350"}],
                       workers=4, service="det:0.01", limiter="admission", time=10, warmup=2,
                       reps=3, seed=5)
    for k, c in enumerate(doc["classes"]):
        for m in ("goodput", "latency", "latency_p99", "refused"):
            assert r.classes[c["name"]][m].value == pytest.approx(c[m]["value"], rel=1e-9)
    assert r["goodput"].value == pytest.approx(doc["metrics"]["goodput"]["value"], rel=1e-9)
    # overloaded 1.5x: the refusals fall on the looser class (silver, bound
    # 0.3 s), a third of the offered load at least, the tighter one keeps
    # most of its requests
    assert r.classes["silver"]["refused"].value > 0.3
    assert r.classes["gold"]["refused"].value < r.classes["silver"]["refused"].value / 4


def test_transit_same_as_cli(qctl_bin):
    # a transit of 10 ms on 4 workers of det:0.05 at a saturated limit of
    # 4: each slot cycles in 60 ms, 4 / 0.06 a second, as the command says
    args = ["--workers", "4", "--service", "det:0.05", "--limiter", "fixed", "--limit", "4",
            "--arrival", "exp:200", "--transit", "det:0.01", "--time", "20", "--reps", "2",
            "--seed", "3"]
    doc = cli_json(qctl_bin, args)
    assert doc["model"]["transit"] == "det:0.01"
    r = qctl.sim.proxy(arrival="exp:200", workers=4, service="det:0.05", limiter="fixed",
                       limit=4, transit="det:0.01", time=20, reps=2, seed=3)
    assert r["goodput"].value == pytest.approx(doc["metrics"]["goodput"]["value"], rel=1e-9)
    assert r["goodput"].value == pytest.approx(4 / 0.06, rel=0.005)


def test_bad_arguments():
    with pytest.raises(ValueError, match="--arrival"):
        qctl.sim.proxy(workers=4)
    with pytest.raises(ValueError, match="--limiter"):
        qctl.sim.proxy(arrival="exp:1", limiter="nope")
    with pytest.raises(ValueError, match="workers"):
        qctl.sim.proxy(arrival="exp:1", workers=0)
