# SPDX-License-Identifier: GPL-3.0-or-later
# qctl.sim.maxusers, qctl.sim.admission and qctl.sim.pool(compare=True):
# the same summary as the command's --json for the same flags and seed
# (every field the command writes, numbers to its 10 digits), and bad
# arguments give the command's message.
import json
import math
import subprocess

import pytest

import qctl

SCENARIO = {
    "classes": [
        {"name": "gold", "arrival": "exp:0.25", "service": "exp:1", "bound": 2.5},
        {"name": "silver", "arrival": "exp:0.2", "service": "exp:1", "bound": 3.0,
         "start": 4000, "candidate": True},
        {"name": "web", "arrival": "exp:0.3", "service": "exp:1", "best_effort": True}],
    "time": 12000, "warmup": 1000}


def cli_json(qctl_bin, *args):
    t = subprocess.run([qctl_bin, *args, "--quiet", "--json"], capture_output=True, text=True)
    assert t.returncode == 0, t.stderr
    return norm(json.loads(t.stdout))


# The command's verdict on whether a run supports its intervals
# (interval_support, "unreliable" on each interval of a short run kept
# with --allow-short, null ends with the reason without it) is compared
# like every other field: qctl.sim.maxusers and qctl.sim.admission carry
# it (qc_mu_run_support, qc_mc_run_support).
NOT_COMPARED = ("elapsed_seconds",)


def norm(x):
    """x as the command's JSON holds it: reals to 10 significant digits,
    non-finite numbers as null, no wall-clock fields."""
    if isinstance(x, float):
        return float("%.10g" % x) if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items() if k not in NOT_COMPARED}
    if isinstance(x, (list, tuple)):
        return [norm(v) for v in x]
    return x


def assert_same(ours, theirs, path="$"):
    """Every field of the command's document, and no other, equal in ours."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), path
        assert sorted(ours) == sorted(theirs), (path, sorted(ours), sorted(theirs))
        for k in theirs:
            assert_same(ours[k], theirs[k], path + "." + k)
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, "%s[%d]" % (path, i))
    else:
        assert ours == theirs, (path, ours, theirs)


@pytest.mark.parametrize("args,kw", [
    (["--duration", "3600", "--reps", "3", "--seed", "2", "--reference", "325@0,250@1800"],
     dict(duration=3600, reps=3, seed=2, reference="325@0,250@1800")),
    (["--controller", "pi", "--kp", "0.2", "--ki", "0.05", "--sensor", "logged",
      "--sensor-gain", "0.7", "--duration", "2400", "--warmup", "600", "--seed", "5",
      "--reference", "150", "--reps", "2", "--band", "0.2"],
     dict(controller="pi", kp=0.2, ki=0.05, sensor="logged", sensor_gain=0.7, duration=2400,
          warmup=600, seed=5, reference=150, reps=2, band=0.2)),
    (["--controller", "open", "--excite", "prbs", "--amplitude", "40", "--hold", "2",
      "--duration", "1800", "--seed", "3", "--population", "800"],
     dict(controller="open", excite="prbs", amplitude=40, hold=2, duration=1800, seed=3,
          population=800)),
])
def test_maxusers_same_as_cli(qctl_bin, args, kw):
    r = qctl.sim.maxusers(**kw, allow_short=True)
    assert_same(norm(r.to_dict()), cli_json(qctl_bin, "sim", "maxusers", *args, "--allow-short"))


def test_maxusers_series_same_as_cli(qctl_bin, tmp_path):
    """result.series is the CSV of --series, row for row."""
    import numpy as np
    out = tmp_path / "mu.csv"
    t = subprocess.run([qctl_bin, "sim", "maxusers", "--duration", "3000", "--seed", "4",
                        "--reference", "300@0,200@1500", "--quiet", "--series", str(out)],
                       capture_output=True, text=True)
    assert t.returncode == 0, t.stderr
    with open(out) as fp:
        lines = [ln for ln in fp if not ln.startswith("#")]
    header = lines[0].strip().split(",")
    rows = [[float(v) if v else math.nan for v in ln.strip().split(",")] for ln in lines[1:]]
    r = qctl.sim.maxusers(duration=3000, seed=4, reference="300@0,200@1500")
    assert len(rows) == len(r.series["time"]) == 51
    for j, col in enumerate(header):
        ours = np.array([float("%.10g" % x) if math.isfinite(x) else math.nan
                         for x in r.series[col]])
        theirs = np.array([row[j] for row in rows])
        assert np.array_equal(ours, theirs, equal_nan=True), col


def test_maxusers_tracks_its_reference():
    """Integral control on the true RIS: the second half's mean RIS within
    10% of the reference (the settling band), and every replication
    settles."""
    r = qctl.sim.maxusers(duration=7200, reps=3, seed=1, reference=300)
    assert abs(r.summary["ris_mean_second_half"] - 300) < 30
    assert r.steps[0]["settled_reps"] == 3
    assert len(r.steps[0]["settling"]) == 3


@pytest.mark.parametrize("policy", ["autonomic", "all"])
def test_admission_same_as_cli(qctl_bin, tmp_path, policy):
    path = tmp_path / "scen.json"
    path.write_text(json.dumps(SCENARIO))
    args = ["sim", "admission", "--scenario", str(path), "--reps", "3", "--seed", "2",
            "--policy", policy]
    theirs = cli_json(qctl_bin, *args)
    # the scenario as Python dicts: the same run (named "scenario" instead of the path)
    r = qctl.sim.admission(SCENARIO, reps=3, seed=2, policy=policy)
    theirs["scenario"] = "scenario"
    assert_same(norm(r.to_dict()), theirs)
    # and from the file
    r = qctl.sim.admission(str(path), reps=3, seed=2, policy=policy)
    theirs["scenario"] = str(path)
    assert_same(norm(r.to_dict()), theirs)


def test_admission_series():
    r = qctl.sim.admission(SCENARIO, reps=2, seed=1, series=True)
    s = r.series
    assert len(s["t"]) > 100 and (s["t"][1:] >= s["t"][:-1]).all()
    assert set(s["gold"]) == {"delay", "priority", "weight", "state"}
    assert s["gold"]["state"][-1] in ("admitted", "candidate", "rejected")


@pytest.mark.parametrize("policy", ["djsq", "random"])
def test_pool_compare_same_as_cli(qctl_bin, policy):
    args = ["sim", "pool", "--servers", "4", "--arrival", "exp:2", "--customers", "20000",
            "--reps", "4", "--seed", "3", "--policy", policy, "--compare"]
    theirs = cli_json(qctl_bin, *args)["comparison"]
    r = qctl.sim.pool(servers=4, arrival="exp:2", customers=20000, reps=4, seed=3,
                      policy=policy, compare=True)
    assert list(r.comparison)[0] == policy
    assert_same(norm(r.to_dict()["comparison"]), theirs)
    # the run's own row is its metrics
    assert r.comparison[policy]["average_cost"].value == r["average_cost"].value


def run_cli_error(qctl_bin, *args):
    t = subprocess.run([qctl_bin, *args, "--quiet"], capture_output=True, text=True)
    assert t.returncode == 2, (t.stdout, t.stderr)
    return t.stderr.strip()


@pytest.mark.parametrize("kw,args", [
    (dict(controller="fuzzy"), ["--controller", "fuzzy"]),
    (dict(ki=0), ["--ki", "0"]),
    (dict(reference="2000"), ["--reference", "2000"]),
    (dict(reference="x@y"), ["--reference", "x@y"]),
    (dict(excite="prbs"), ["--excite", "prbs"]),
    (dict(think="nope:1"), ["--think", "nope:1"]),
    (dict(reps=0), ["--reps", "0"]),
])
def test_maxusers_bad_arguments_same_message(qctl_bin, kw, args):
    with pytest.raises(ValueError) as e:
        qctl.sim.maxusers(**kw)
    assert run_cli_error(qctl_bin, "sim", "maxusers", *args) == "qctl: " + str(e.value)


@pytest.mark.parametrize("change,args", [
    (lambda s: s["classes"][0].pop("bound"), []),
    (lambda s: s["classes"][1].update(bound=-1), []),
    (lambda s: s["classes"][0].update(colour="red"), []),
    (lambda s: s["classes"][0].update(arrival="exp"), []),
    (lambda s: s.update(discipline="lifo"), []),
    (lambda s: None, ["--epsilon", "1.5"]),
    (lambda s: None, ["--policy", "best"]),
])
def test_admission_bad_scenario_same_message(qctl_bin, tmp_path, change, args):
    scen = json.loads(json.dumps(SCENARIO))
    change(scen)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(scen))
    kw = {}
    for flag, v in zip(args[::2], args[1::2]):
        kw[flag[2:]] = float(v) if flag == "--epsilon" else v
    with pytest.raises(ValueError) as e:
        qctl.sim.admission(str(path), **kw)
    assert run_cli_error(qctl_bin, "sim", "admission", "--scenario", str(path),
                         *args) == "qctl: " + str(e.value)
    if not args:  # the same check on the dicts, named "scenario"
        with pytest.raises(ValueError) as e2:
            qctl.sim.admission(scen)
        assert str(e2.value) == str(e.value).replace(str(path), "scenario")


def cli_short(qctl_bin, *args):
    """The command's --json of a run too short for its intervals (exit 1)
    and its message."""
    t = subprocess.run([qctl_bin, *args, "--quiet", "--json"], capture_output=True, text=True)
    assert t.returncode == 1, t.stderr
    return norm(json.loads(t.stdout)), t.stderr.strip()


SHORT_MU = (["--reps", "3", "--reference", "300@0,350@3000", "--duration", "4000",
             "--seed", "5"], dict(reps=3, reference="300@0,350@3000", duration=4000, seed=5))


def test_maxusers_short_run_same_verdict_as_cli(qctl_bin):
    """A step too short for its steady-state error (tests/cli/maxusers_short.t):
    Python raises where the command exits 1, with the same reason and the
    same withheld intervals; allow_short=True gives the command's
    --allow-short document, every interval marked unreliable."""
    args, kw = SHORT_MU
    theirs, msg = cli_short(qctl_bin, "sim", "maxusers", *args)
    with pytest.raises(qctl.QctlShortRunError) as e:
        qctl.sim.maxusers(**kw)
    why = theirs["interval_support"]["reason"]
    assert theirs["interval_support"]["supported"] is False and why
    assert why in str(e.value) and why in msg
    assert_same(norm(e.value.result.to_dict()), theirs)
    assert e.value.result.summary["fraction_saturated_ci"]["ci_low"] is None
    r = qctl.sim.maxusers(**kw, allow_short=True)
    allowed = cli_json(qctl_bin, "sim", "maxusers", *args, "--allow-short")
    assert_same(norm(r.to_dict()), allowed)
    assert r.summary["fraction_saturated_ci"]["unreliable"] is True


def test_admission_short_run_same_verdict_as_cli(qctl_bin, tmp_path):
    """A bounded class with about 95 jobs per replication
    (tests/cli/admission_short.t): the same verdict as the command."""
    path = tmp_path / "scen.json"
    path.write_text(json.dumps(SCENARIO))
    args = ["sim", "admission", "--scenario", str(path), "--reps", "3", "--seed", "2",
            "--time", "600", "--warmup", "100"]
    theirs, msg = cli_short(qctl_bin, *args)
    with pytest.raises(qctl.QctlShortRunError) as e:
        qctl.sim.admission(str(path), reps=3, seed=2, time=600, warmup=100)
    why = theirs["interval_support"]["reason"]
    assert why and why in str(e.value) and why in msg
    assert_same(norm(e.value.result.to_dict()), theirs)
    r = qctl.sim.admission(str(path), reps=3, seed=2, time=600, warmup=100, allow_short=True)
    assert_same(norm(r.to_dict()), cli_json(qctl_bin, *args, "--allow-short"))
    assert r["autonomic"]["classes"]["gold"]["delay"]["unreliable"] is True
