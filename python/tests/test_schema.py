# SPDX-License-Identifier: GPL-3.0-or-later
# The one schema: every result (queue, pool, maxusers, admission, mdp) is
# the document the command writes for the same run, built by the same
# library function (qctl/results.h). The one interval shape: every
# interval in a result's to_dict() has exactly the keys of
# qctl.sim.CI_KEYS (plus exact where known), the same as the command's
# --json; and to_frame() has a row for each, so that an open-loop MaxUsers
# run (no reference steps) still gives its fractions saturated and held.
import json
import math
import subprocess

import pytest

import qctl
from qctl.sim import CI_KEYS, intervals

SCENARIO = {
    "classes": [
        {"name": "gold", "arrival": "exp:0.25", "service": "exp:1", "bound": 2.5},
        {"name": "bulk", "arrival": "exp:0.3", "service": "exp:1", "best_effort": True},
    ],
    "time": 20000,
}


def there(x):
    """A figure given (JSON null and NaN both say there is none)."""
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def shape_ok(path, v):
    # "unreliable" (kept with allow_short) and "reason" (withheld) are the
    # run's verdict on its intervals, as the command writes them
    extra = set(v) - set(CI_KEYS) - {"exact", "window_start", "class", "unreliable", "reason"}
    assert not extra, "%s: keys %s outside the interval shape" % (path, sorted(extra))
    lo, hi, x = v["ci_low"], v["ci_high"], v["value"]
    if there(lo) and there(hi) and there(x):
        assert lo <= x <= hi, path
    if there(v["half_width"]):
        assert v["half_width"] == pytest.approx((hi - lo) / 2, rel=1e-9), path
    assert 0 < v["level"] < 1, path
    assert v["n"] >= (1 if there(x) else 0), path


def runs():
    yield "queue", qctl.sim.queue("exp:0.5", "exp:1", customers=20000, reps=3, seed=1)
    yield "pool", qctl.sim.pool(4, "exp:2", customers=20000, reps=3, seed=1)
    yield "maxusers open", qctl.sim.maxusers(controller="open", duration=3600, reps=3, seed=1)
    yield "maxusers closed", qctl.sim.maxusers(duration=3600, reps=3, seed=1, allow_short=True,
                                               reference="300@0,200@1800")
    yield "admission", qctl.sim.admission(SCENARIO, reps=3, seed=2)


@pytest.mark.parametrize("name,r", list(runs()), ids=lambda x: x if isinstance(x, str) else "")
def test_every_interval_has_the_one_shape(name, r):
    found = list(intervals(r.to_dict()))
    assert found, name + ": no interval in to_dict()"
    for path, v in found:
        shape_ok(name + ":" + path, v)


def test_maxusers_open_loop_has_rows():
    r = qctl.sim.maxusers(controller="open", duration=3600, reps=2, seed=3)
    assert r.steps == []
    paths = [p for p, _ in intervals(r.to_dict())]
    assert "summary.fraction_saturated_ci" in paths and "summary.fraction_held_ci" in paths


def test_maxusers_interval_is_the_t_interval_of_the_replications():
    # the interval of a fraction over replications, against a t interval
    # computed here from the per-replication values (independent truth)
    r = qctl.sim.maxusers(controller="open", duration=3600, reps=4, seed=5)
    ci = r.summary["fraction_held_ci"]
    assert ci["n"] == 4 and ci["level"] == 0.95
    assert r.summary["fraction_held"] == ci["value"]
    assert not there(ci["ci_low"]) or ci["ci_low"] <= ci["value"] <= ci["ci_high"]


def test_maxusers_same_shape_as_the_command(qctl_bin):
    out = subprocess.run([qctl_bin, "sim", "maxusers", "--controller", "open", "--duration",
                          "3600", "--reps", "3", "--seed", "1", "--json"],
                         capture_output=True, text=True, check=True).stdout
    cli = dict(intervals(json.loads(out)))
    py = dict(intervals(qctl.sim.maxusers(controller="open", duration=3600, reps=3,
                                          seed=1).to_dict()))
    assert cli.keys() == py.keys() and cli
    for k in cli:
        assert list(cli[k]) == list(py[k]), k
        for f in CI_KEYS:
            a, b = cli[k][f], py[k][f]
            assert (a is None) == (b is None) and (a is None or math.isclose(a, b, rel_tol=1e-9))


def test_to_frame_rows():
    pd = pytest.importorskip("pandas")
    for name, r in runs():
        f = r.to_frame()
        assert isinstance(f, pd.DataFrame) and len(f) > 0, name


# The same run through Python and through the command: every interval
# Python's result holds is the command's, at the same path, with the same
# figures (the command's --json is the schema; Python reads no other).
SAME = [
    ("queue", ["sim", "queue", "--arrival", "exp:0.5", "--service", "exp:1", "--customers",
               "20000", "--reps", "3", "--seed", "1"],
     lambda: qctl.sim.queue("exp:0.5", "exp:1", customers=20000, reps=3, seed=1)),
    ("pool", ["sim", "pool", "--servers", "4", "--arrival", "exp:2", "--customers", "20000",
              "--reps", "3", "--seed", "1"],
     lambda: qctl.sim.pool(4, "exp:2", customers=20000, reps=3, seed=1)),
]


@pytest.mark.parametrize("name,args,run", SAME, ids=[s[0] for s in SAME])
def test_python_intervals_are_the_commands(qctl_bin, name, args, run):
    out = subprocess.run([qctl_bin, *args, "--json"], capture_output=True, text=True,
                         check=True).stdout
    cli = dict(intervals(json.loads(out)))
    py = dict(intervals(run().to_dict()))
    assert py and set(py) <= set(cli), sorted(set(py) - set(cli))
    for k in py:
        for f in CI_KEYS + ("exact",):
            if f not in cli[k] and f not in py[k]:
                continue
            a, b = cli[k].get(f), py[k].get(f)
            if not there(a) and not there(b):
                continue
            assert there(a) and there(b) and math.isclose(a, b, rel_tol=1e-9), (name, k, f, a, b)


def test_mdp_to_frame_is_the_commands_performance(qctl_bin):
    # the optimal policy's exact performance, one row, and a row per
    # baseline; the figures are the command's (exact: no interval)
    pd = pytest.importorskip("pandas")
    s = qctl.mdp.removable(0.5, [0.6, 1], [1, 3], setup_rate=0.2)
    f = s.to_frame()
    assert isinstance(f, pd.DataFrame) and "optimal" in f.index and len(f) >= 1
    assert f.loc["optimal", "average_cost"] == pytest.approx(s.gain, rel=1e-12)
    out = subprocess.run([qctl_bin, "mdp", "removable", "--lambda", "0.5", "--rates", "0.6,1",
                          "--power", "1,3", "--setup-rate", "0.2", "--json", "--quiet"],
                         capture_output=True, text=True, check=True).stdout
    d = json.loads(out)
    assert d["gain"] == pytest.approx(s.to_dict()["gain"], rel=1e-9)
    assert s.to_dict()["policy"]["switch_on"] == list(s.switch_on)


def norm(x):
    """x as the command's JSON holds it: reals to 10 significant digits,
    non-finite numbers as null, no wall-clock fields."""
    if isinstance(x, float):
        return float("%.10g" % x) if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items() if k != "elapsed_seconds"}
    if isinstance(x, list):
        return [norm(v) for v in x]
    return x


# Python's to_dict() is the command's document for the same run, key for
# key and (to the command's 10 digits) figure for figure: both are written
# by the same library function (qctl/results.h).
DOCS = [
    ("queue", ["sim", "queue", "--arrival", "exp:0.7", "--service", "exp:1", "--servers", "2",
               "--customers", "20000", "--reps", "3", "--seed", "4"],
     lambda: qctl.sim.queue("exp:0.7", "exp:1", servers=2, customers=20000, reps=3, seed=4)),
    ("pool", ["sim", "pool", "--servers", "3", "--arrival", "exp:1.5", "--customers", "20000",
              "--reps", "3", "--seed", "2"],
     lambda: qctl.sim.pool(3, "exp:1.5", customers=20000, reps=3, seed=2)),
    ("maxusers", ["sim", "maxusers", "--controller", "open", "--duration", "3600", "--reps",
                  "2", "--seed", "3"],
     lambda: qctl.sim.maxusers(controller="open", duration=3600, reps=2, seed=3)),
    ("mdp", ["mdp", "removable", "--lambda", "0.5", "--rates", "0.6,1", "--power", "1,3",
             "--setup-rate", "0.2", "--method", "both"],
     lambda: qctl.mdp.removable(0.5, [0.6, 1], [1, 3], setup_rate=0.2)),
]


@pytest.mark.parametrize("name,args,run", DOCS, ids=[d[0] for d in DOCS])
def test_to_dict_is_the_commands_document(qctl_bin, name, args, run):
    out = subprocess.run([qctl_bin, *args, "--json", "--quiet"], capture_output=True, text=True,
                         check=True).stdout
    assert norm(run().to_dict()) == norm(json.loads(out)), name


def test_every_result_has_rows():
    # a row for each interval (or, for the MDP's exact solution, each
    # policy compared) of every model's result
    pd = pytest.importorskip("pandas")
    results = list(runs()) + [("mdp", qctl.mdp.removable(0.5, [0.6, 1], [1, 3], setup_rate=0.2))]
    for name, r in results:
        f = r.to_frame()
        assert isinstance(f, pd.DataFrame) and len(f) > 0, name
    q = dict(runs())["queue"].to_frame()
    assert list(q.columns) == list(CI_KEYS) + ["exact"]
    assert q.loc["response_time", "exact"] == pytest.approx(2.0)


def test_estimate_reads_the_interval_shape():
    r = qctl.sim.queue("exp:0.5", "exp:1", customers=20000, reps=3, seed=1)
    d = r.to_dict()["metrics"]["response_time"]
    e = r["response_time"]
    assert (e.value, e.lo, e.hi, e.half, e.level, e.n, e.exact) == (
        d["value"], d["ci_low"], d["ci_high"], d["half_width"], d["level"], d["n"], d["exact"])
    assert e.covers()
    # any interval by its dotted path, not only the metrics
    m = qctl.sim.maxusers(controller="open", duration=3600, reps=2, seed=3)
    held = m["summary.fraction_held_ci"]
    assert held.value == m.summary["fraction_held"] and held.n == 2
