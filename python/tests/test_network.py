# SPDX-License-Identifier: GPL-3.0-or-later
# qctl.sim.network: the Jackson values of a tandem, identity with the
# command `qctl sim network` on the same seed, and errors naming the field.
import json
import os
import subprocess

import pytest

import qctl

TANDEM = {"stations": [{"name": "a", "service": "exp:2"},
                       {"name": "b", "service": "exp:1.5"},
                       {"name": "c", "discipline": "ps", "service": "exp:3"}],
          "classes": [{"name": "x", "arrival": "exp:1", "entry": "a"}],
          "routing": {"x": {"a": {"b": 1}, "b": {"c": 1}}}}


@pytest.fixture
def tandem(tmp_path):
    p = tmp_path / "tandem.json"
    p.write_text(json.dumps(TANDEM))
    return p


def test_tandem_exact_and_same_as_command(tandem):
    r = qctl.sim.network(tandem, customers=20000, reps=5, seed=7)
    # Jackson: M/M/1 at 1/2, 2/3 and the M/M/1-PS at 1/3 in series
    assert r.end_to_end["x"]["response_time"].exact == pytest.approx(3.5, rel=1e-12)
    assert r.stations["b"]["x"]["number"].exact == pytest.approx(2.0, rel=1e-12)
    assert r.exact_method.startswith("open product form")
    cmd = subprocess.run([os.environ.get("QCTL", "qctl"), "sim", "network", str(tandem),
                          "--customers", "20000", "--reps", "5", "--seed", "7", "--json",
                          "--quiet"], capture_output=True, text=True, check=True)
    doc = json.loads(cmd.stdout)
    for s in ("a", "b", "c"):
        for m in ("response_time", "number", "utilization", "throughput"):
            assert doc["stations"][s]["x"][m]["value"] == pytest.approx(
                r.stations[s]["x"][m].value, rel=1e-9)
    e = r.end_to_end["x"]["response_time"]
    assert doc["end_to_end"]["x"]["response_time"]["value"] == pytest.approx(e.value, rel=1e-9)


def test_analytic_alone(tandem):
    r = qctl.sim.network(tandem, analytic=True)
    assert not r.simulated
    assert r.stations["a"]["x"]["response_time"].exact == pytest.approx(1.0, rel=1e-12)


def test_bad_field_names_it(tmp_path):
    p = tmp_path / "bad.json"
    bad = dict(TANDEM)
    bad["stations"] = [{"name": "a", "service": "exp:2", "servers": 0}]
    p.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match=r"stations\[0\]\.servers"):
        qctl.sim.network(p)
