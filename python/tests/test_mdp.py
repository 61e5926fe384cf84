# SPDX-License-Identifier: GPL-3.0-or-later
# qctl.mdp.removable: the always-on baseline against M/M/1's closed form,
# and the solution identical to `qctl mdp removable --json`.
import json
import subprocess

import numpy as np
import pytest

import qctl


def test_always_on_is_mm1():
    # always on at the fastest rate mu: E[N] = rho / (1 - rho), cost
    # h E[N] + rho power + (1 - rho) idle_power
    lam, mu = 0.5, 1.0
    s = qctl.mdp.removable(lam, [0.6, mu], [1, 3], setup_rate=0.2, idle_power=0.5)
    b = s.baselines["always on"]
    rho = lam / mu
    assert b["mean_jobs"] == pytest.approx(rho / (1 - rho), rel=1e-6)
    assert b["average_cost"] == pytest.approx(rho / (1 - rho) + rho * 3 + (1 - rho) * 0.5,
                                              rel=1e-6)
    assert s.gain <= b["average_cost"] + 1e-9
    assert s.policies_agree


def test_same_as_cli(qctl_bin):
    args = ["--lambda", "0.7", "--rates", "0.5,1", "--power", "1,4", "--setup-rate", "0.1",
            "--idle-power", "0.6", "--switch-cost", "2"]
    t = subprocess.run([qctl_bin, "mdp", "removable", *args, "--json", "--quiet"],
                       capture_output=True, text=True)
    assert t.returncode == 0, t.stderr
    doc = json.loads(t.stdout)
    s = qctl.mdp.removable(0.7, [0.5, 1], [1, 4], setup_rate=0.1, idle_power=0.6,
                           switch_cost=2)
    assert float("%.10g" % s.gain) == doc["gain"]
    assert s.nmax == doc["truncation"]["N"]
    assert np.array_equal(s.switch_on, np.array(doc["policy"]["switch_on"]))
    cli_rate = np.array([x if x is not None else 0.0 for x in doc["policy"]["rate"]])
    assert np.array_equal(s.rate, cli_rate)
    assert float("%.10g" % s.performance["mean_jobs"]) == doc["performance"]["mean_jobs"]


def test_bad_arguments_same_message_as_cli(qctl_bin):
    with pytest.raises(ValueError) as e:
        qctl.mdp.removable(1.5, [0.6, 1], [1, 3], setup_rate=0.2)
    t = subprocess.run([qctl_bin, "mdp", "removable", "--lambda", "1.5", "--rates", "0.6,1",
                        "--power", "1,3", "--setup-rate", "0.2"], capture_output=True, text=True)
    assert t.returncode == 2
    assert t.stderr.strip() == "qctl: " + str(e.value)
