# SPDX-License-Identifier: GPL-3.0-or-later
# qctl.sim.queue: closed forms (as tests/unit/models/test_queue.c checks them in C) and
# identity with the command `qctl sim queue` on the same seed.
import json
import math
import subprocess

import pytest

import qctl


def cli(qctl_bin, *args):
    return subprocess.run([qctl_bin, "sim", "queue", "--quiet", *args],
                          capture_output=True, text=True)


def test_mm1_mean_within_interval_and_exact():
    lam, mu = 0.7, 1.0
    r = qctl.sim.queue(arrival="exp:%g" % lam, service="exp:%g" % mu,
                       customers=50000, reps=10, seed=3)
    rt = r["response_time"]
    # the exact value is M/M/1's 1/(mu - lambda), computed by the library
    assert rt.exact == pytest.approx(1 / (mu - lam), rel=1e-12)
    assert r["number_in_system"].exact == pytest.approx(lam / (mu - lam), rel=1e-12)
    assert r["utilization"].exact == pytest.approx(lam / mu, rel=1e-12)
    # one seed: every estimate within three half-widths of the truth (a
    # 99.7%-ish band; the coverage of the 95% interval is checked below)
    for name in ("response_time", "waiting_time", "number_in_system", "utilization"):
        e = r[name]
        assert abs(e.value - e.exact) < 3 * e.half, (name, e)
    assert r.exact_model == "M/M/1"
    assert r.reps == 10 and r.ci_method == "replications"
    assert rt.lo < rt.value < rt.hi and rt.n == 10


def test_mm1_coverage_over_seeds():
    """20 fixed seeds: the 95% interval of E[T] holds 1/(mu - lambda) in at
    least 16 (as coverage/quick does in C; P(<= 15 | 0.95) = 0.016)."""
    held = 0
    for seed in range(1, 21):
        r = qctl.sim.queue(arrival="exp:0.7", service="exp:1", customers=10000, reps=5,
                           seed=seed)
        held += r["response_time"].covers(1 / 0.3)
    assert held >= 16, held


def test_mmc_erlang_c():
    # M/M/2 at load 0.8: E[W] = C(2, a) / (c mu - lambda)
    lam, mu, c = 1.6, 1.0, 2
    r = qctl.sim.queue(arrival="exp:%g" % lam, service="exp:%g" % mu, servers=c,
                       customers=50000, reps=10, seed=2)
    a = lam / mu
    p0 = 1 / (1 + a + a * a / (2 * (1 - a / c)))
    erlang_c = a * a / (2 * (1 - a / c)) * p0
    ew = erlang_c / (c * mu - lam)
    assert r["waiting_time"].exact == pytest.approx(ew, rel=1e-9)
    assert r["waiting_time"].covers(ew)


def test_md1_pollaczek_khinchine():
    # M/D/1: E[T] = 1 + rho / (2 (1 - rho))
    r = qctl.sim.queue(arrival="exp:0.8", service="det:1", customers=50000, reps=10, seed=1)
    et = 1 + 0.8 / (2 * 0.2)
    assert r["response_time"].exact == pytest.approx(et, rel=1e-12)
    assert r["response_time"].covers(et)


def test_mm1k_blocking():
    # M/M/1/5 at rho 1.2 (stable with a buffer): P(block) = rho^K (1-rho)/(1-rho^(K+1))
    rho, k = 1.2, 5
    r = qctl.sim.queue(arrival="exp:1.2", service="exp:1", capacity=k, customers=100000,
                       reps=10, seed=1)
    pb = rho ** k * (1 - rho) / (1 - rho ** (k + 1))
    assert r["blocking_probability"].exact == pytest.approx(pb, rel=1e-9)
    assert r["blocking_probability"].covers(pb)


def test_short_run_as_the_command(qctl_bin):
    # half that run is too short for its intervals (the buffer's empty
    # places relax too slowly): the command exits 1 with its reason, and
    # Python raises QctlShortRunError with the same words, the result
    # (its intervals withheld, as --json writes them) in .result
    kw = dict(arrival="exp:1.2", service="exp:1", capacity=5, customers=50000, reps=10, seed=1)
    args = ["--arrival", "exp:1.2", "--service", "exp:1", "--capacity", "5", "--customers",
            "50000", "--reps", "10", "--seed", "1"]
    with pytest.raises(qctl.QctlShortRunError) as e:
        qctl.sim.queue(**kw)
    t = cli(qctl_bin, *args, "--json")
    assert t.returncode == 1
    doc = json.loads(t.stdout)
    ours = e.value.result.to_dict()
    assert ours["run"]["interval_support"] == doc["run"]["interval_support"]
    assert ours["metrics"]["blocking_probability"]["ci_low"] is None
    assert doc["run"]["interval_support"]["reason"] in t.stderr
    kept = qctl.sim.queue(**kw, allow_short=True)["blocking_probability"]
    assert kept.unreliable and kept.lo < kept.value < kept.hi


@pytest.mark.parametrize("args,kw", [
    (["--arrival", "exp:0.9", "--service", "exp:1", "--customers", "20000", "--reps", "5",
      "--seed", "1"],
     dict(arrival="exp:0.9", service="exp:1", customers=20000, reps=5, seed=1)),
    (["--arrival", "exp:1.5", "--service", "lognormal:0,0.5", "--servers", "2", "--capacity",
      "8", "--customers", "20000", "--seed", "7"],
     dict(arrival="exp:1.5", service="lognormal:0,0.5", servers=2, capacity=8,
          customers=20000, seed=7)),
    (["--arrival", "exp:0.5", "--service", "exp:1", "--discipline", "ps", "--time", "20000",
      "--warmup", "100", "--reps", "3", "--seed", "4"],
     dict(arrival="exp:0.5", service="exp:1", discipline="ps", time=20000, warmup=100,
          reps=3, seed=4)),
])
def test_same_as_cli(qctl_bin, args, kw):
    """The Python result is the command's, to the JSON's 10 digits, and its
    str() is the command's table, line for line."""
    r = qctl.sim.queue(**kw)
    j = cli(qctl_bin, *args, "--json")
    assert j.returncode == 0, j.stderr
    doc = json.loads(j.stdout)
    assert doc["model"]["load"] == float("%.10g" % r.load)
    assert doc["run"]["measured_customers"] == r.measured_customers
    assert doc["run"]["events"] == r.events
    for name, m in doc["metrics"].items():
        est = r[name]
        for key, ours in (("value", est.value), ("ci_low", est.lo), ("ci_high", est.hi),
                          ("exact", est.exact)):
            theirs = m[key]
            if theirs is None:
                assert not math.isfinite(ours), (name, key, ours)
            else:
                assert float("%.10g" % ours) == theirs, (name, key, ours, theirs)
    t = cli(qctl_bin, *args)
    assert t.returncode == 0, t.stderr
    assert str(r) == t.stdout.rstrip("\n")


def test_to_dict_and_frame():
    r = qctl.sim.queue(arrival="exp:0.5", service="exp:1", customers=5000, reps=2, seed=1)
    d = r.to_dict()
    assert d["metrics"]["response_time"]["exact"] == pytest.approx(2.0)
    assert d["model"]["exact_model"] == "M/M/1"
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            r.to_frame()
    else:
        f = r.to_frame()
        assert f.loc["response_time", "exact"] == pytest.approx(2.0)


@pytest.mark.parametrize("kw,args", [
    (dict(arrival="exp:0.9", service="exp:1", customers=0),
     ["--arrival", "exp:0.9", "--service", "exp:1", "--customers", "0"]),
    (dict(arrival="exp:0.9", service="exp:1", discipline="lifo"),
     ["--arrival", "exp:0.9", "--service", "exp:1", "--discipline", "lifo"]),
    (dict(arrival="exp:-1", service="exp:1"), ["--arrival", "exp:-1", "--service", "exp:1"]),
    (dict(arrival="exp:0.9", service="gamma:1"), ["--arrival", "exp:0.9", "--service", "gamma:1"]),
    (dict(arrival="exp:0.9", service="exp:1", precision=2),
     ["--arrival", "exp:0.9", "--service", "exp:1", "--precision", "2"]),
    (dict(arrival="exp:0.9", service="exp:1", customers=100, warmup=1000),
     ["--arrival", "exp:0.9", "--service", "exp:1", "--customers", "100", "--warmup", "1000"]),
])
def test_bad_arguments_same_message_as_cli(qctl_bin, kw, args):
    with pytest.raises(ValueError) as e:
        qctl.sim.queue(**kw)
    t = cli(qctl_bin, *args)
    assert t.returncode == 2
    assert t.stderr.strip() == "qctl: " + str(e.value)
    assert isinstance(e.value, qctl.QctlError)


def test_unstable_is_a_qctl_error(qctl_bin):
    with pytest.raises(qctl.QctlError) as e:
        qctl.sim.queue(arrival="exp:1.1", service="exp:1", customers=1000)
    assert e.value.name == "EUNSTABLE" and e.value.code == -6
    assert not isinstance(e.value, ValueError)
    t = cli(qctl_bin, "--arrival", "exp:1.1", "--service", "exp:1", "--customers", "1000")
    assert t.stderr.strip() == "qctl: " + str(e.value)


def test_gil_released_during_run():
    """Another Python thread runs while qc_queue_run works: the count it
    makes during the run is a good part of what it makes in the same time
    alone (with the GIL held by the call it would be near zero)."""
    import threading
    import time
    done = threading.Event()
    ticks = [0]

    def count():
        while not done.is_set():
            ticks[0] += 1

    th = threading.Thread(target=count)
    th.start()
    try:
        c0, t0 = ticks[0], time.perf_counter()
        time.sleep(0.1)
        rate = (ticks[0] - c0) / (time.perf_counter() - t0)
        c0, t0 = ticks[0], time.perf_counter()
        r = qctl.sim.queue(arrival="exp:0.9", service="exp:1", customers=300000, reps=2, seed=1)
        during = (ticks[0] - c0) / (time.perf_counter() - t0)
    finally:
        done.set()
        th.join()
    assert r.reps == 2 and r.customers == 300000
    assert during > 0.1 * rate, (during, rate)


def test_series_same_as_cli(qctl_bin, tmp_path):
    """result.series (numpy arrays) is the CSV `--series` writes."""
    out = tmp_path / "s.csv"
    t = cli(qctl_bin, "--arrival", "exp:0.5", "--service", "exp:1", "--customers", "20000",
            "--seed", "1", "--series", str(out), "--series-dt", "100")
    assert t.returncode == 0, t.stderr
    import numpy as np
    rows = np.loadtxt(out, delimiter=",", skiprows=1)
    r = qctl.sim.queue(arrival="exp:0.5", service="exp:1", customers=20000, seed=1,
                       series_dt=100)
    s = r.series
    assert len(s["t"]) == len(rows) > 100
    assert np.array_equal(np.array([float("%.10g" % x) for x in s["mean"]]), rows[:, 1])
    assert np.array_equal(s["n"], rows[:, 2].astype(np.uint32))
