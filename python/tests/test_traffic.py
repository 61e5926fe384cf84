# SPDX-License-Identifier: GPL-3.0-or-later
# qctl.traffic: a model fitted from numpy arrays generates at the rate of
# its source; generation is the packets `qctl gen` writes for the same
# model and seed; a capture read and fitted validates.
import csv
import os
import subprocess

import numpy as np
import pytest

import qctl

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "captures")


def test_fit_from_arrays_keeps_the_rate():
    rng = np.random.default_rng(1)
    n = 3000
    t = np.cumsum(rng.exponential(1 / 50.0, n))  # Poisson, 50 packets/s
    size = rng.integers(60, 1400, n)
    m = qctl.traffic.fit(t, size, name="synthetic", threshold=float("inf"))
    assert m.name == "synthetic"
    # the source's rate is n / t[-1], 50 within 2% (one sd of 3000 gaps)
    assert m.rate("fitted") == pytest.approx(n / t[-1], rel=0.02)
    assert m.rate("fitted") == pytest.approx(50, rel=0.08)
    pk = qctl.traffic.generate(m, users=2, duration=200, seed=1, approach="fitted")
    assert pk["t"].dtype == np.float64 and np.all(np.diff(pk["t"]) >= 0)
    # two users for 200 s at 50/s: 20000 packets, sd about 140
    assert abs(len(pk["t"]) - 20000) < 5 * 141
    assert set(np.unique(pk["user"])) == {0, 1}


def test_same_packets_as_cli(qctl_bin, tmp_path):
    model_dir = tmp_path / "model"
    r = subprocess.run([qctl_bin, "fit", os.path.join(DATA, "gaming.pcap"), "--activity",
                        "gaming", "--out", str(model_dir), "--quiet"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    path = model_dir / "gaming.json"
    out = tmp_path / "g.csv"
    r = subprocess.run([qctl_bin, "gen", "--model", str(path), "--users", "gaming=3",
                        "--duration", "20", "--seed", "2", "--output", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = [row for row in csv.reader(open(out)) if row and row[0][0].isdigit()]
    pk = qctl.traffic.generate(qctl.traffic.load(str(path)), users=3, duration=20, seed=2)
    assert len(rows) == len(pk["t"]) > 100
    assert np.array_equal(np.array([float(x[0]) for x in rows]), np.round(pk["t"], 9))
    assert np.array_equal(np.array([int(x[1]) for x in rows]), pk["size"])


def test_read_fit_validate_capture():
    cap = qctl.traffic.read(os.path.join(DATA, "gaming.pcap"))
    assert len(cap["t"]) > 500 and cap["t"][0] == 0
    m = qctl.traffic.fit(cap["t"], cap["size"], cap["dir"], name="gaming")
    v = qctl.traffic.validate(m, cap["t"], cap["size"], seed=1)
    assert v["real"]["packets"] == len(cap["t"])
    for a in ("fitted", "copula"):
        assert 0 <= v[a]["ks_size"] <= 1 and 0 <= v[a]["p_gap"] <= 1
        assert v[a]["rate"] == pytest.approx(v["real"]["rate"], rel=0.5)


def test_bad_inputs():
    with pytest.raises(qctl.QctlError):
        qctl.traffic.read(os.path.join(DATA, "bad_magic.pcap"))
    with pytest.raises(ValueError):
        qctl.traffic.generate(qctl.traffic.fit(np.arange(100.0), np.full(100, 100)), users=1)
