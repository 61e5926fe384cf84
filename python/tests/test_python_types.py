# SPDX-License-Identifier: GPL-3.0-or-later
# The binding behaves as Python code does: numpy integers wherever an int
# is taken, FileNotFoundError and ValueError where Python raises them,
# Python objects back (never a raw cffi pointer), and a capture's segments
# split as the command splits them.
import json
import math
import os
import subprocess

import numpy as np
import pytest

import qctl

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "tests", "data")
CAP = os.path.join(DATA, "captures")

NP_INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("t", NP_INTS)
def test_numpy_integers_everywhere(t):
    """servers, customers, reps, seed and capacity as any numpy integer
    give the estimates of the same Python ints, bit for bit."""
    kw = dict(arrival="exp:1.5", service="exp:1", servers=2, customers=3000, reps=2, seed=7,
              capacity=12)
    ref = qctl.sim.queue(**kw)
    # (customers >= 256 does not fit in 8 bits: a wider numpy integer there)
    got = qctl.sim.queue(**{k: ((t if v <= np.iinfo(t).max else np.int64)(v)
                                if isinstance(v, int) else v) for k, v in kw.items()})
    for name, m in ref.metrics.items():
        a, b = m.value, got[name].value
        assert (math.isnan(a) and math.isnan(b)) or a == b, name
    assert got.servers == 2 and type(got.servers) is int and type(got.seed) is int


def test_numpy_integer_seed_of_rng_and_gen():
    a = qctl.dist.parse("exp:1").sample(5, rng=qctl.dist.Rng(np.int64(3), np.uint8(1)))
    b = qctl.dist.parse("exp:1").sample(5, rng=qctl.dist.Rng(3, 1))
    assert np.array_equal(a, b)
    cap = qctl.traffic.read(os.path.join(CAP, "gaming.pcap"))
    m = qctl.traffic.fit(cap["t"], cap["size"], cap["dir"], name="gaming")
    p1 = qctl.traffic.generate(m, users=np.int64(2), duration=5, seed=np.uint32(4))
    p2 = qctl.traffic.generate(m, users=2, duration=5, seed=4)
    assert np.array_equal(p1["t"], p2["t"])


@pytest.mark.parametrize("bad", [np.bool_(True), True, 2.5, "2", -1, np.int64(-2)])
def test_not_whole_numbers_are_value_errors(bad):
    with pytest.raises(ValueError, match="--servers"):
        qctl.sim.queue(arrival="exp:0.5", service="exp:1", servers=bad, customers=1000)


def test_missing_files_raise_file_not_found():
    missing = os.path.join(HERE, "no-such-file.pcap")
    with pytest.raises(FileNotFoundError) as e:
        qctl.traffic.read(missing)
    assert e.value.errno == 2 and e.value.filename == missing
    with pytest.raises(FileNotFoundError):
        qctl.traffic.load(missing)
    with pytest.raises(FileNotFoundError):
        qctl.sim.queue(arrival="exp:0.5", service="empirical:" + missing, customers=1000)
    with pytest.raises(FileNotFoundError):
        qctl.sim.admission(scenario=missing)
    # a file that exists but is not a capture stays a QctlError
    with pytest.raises(qctl.QctlError) as e2:
        qctl.traffic.read(os.path.join(CAP, "bad_magic.pcap"))
    assert not isinstance(e2.value, FileNotFoundError)


def test_limiter_acquire_returns_a_python_object():
    lim = qctl.control.Limiter("fixed", initial_limit=2)
    t = lim.acquire()
    assert isinstance(t, qctl.control.Token)
    assert not type(t).__module__.startswith("_cffi")
    assert t.cls == 0 and type(t.cls) is int
    assert t.inflight == 1 and t.live is True
    assert "Token" in repr(t)
    lim.release(t, 0.01)
    assert t.live is False
    lim.release(t, 0.01)  # twice: a no-op, as in C
    assert lim.stats()["inflight"] == 0
    with pytest.raises(ValueError):
        lim.release(object(), 0.01)
    t2 = lim.acquire(np.int64(0))
    assert t2 is not None
    lim.release(t2, 0.01)


def test_validate_splits_segments_as_the_command(qctl_bin, tmp_path):
    """1kxun.pcap holds two captures 5.8 years apart: the rate is that of
    the segments joined (9.671 packets/s, as `qctl gen --validate` says),
    not of the whole span (9.3e-06), and the Hurst exponent is a number or
    None with a statement, never nan."""
    path = os.path.join(CAP, "1kxun.pcap")
    cap = qctl.traffic.read(path)
    m = qctl.traffic.fit(cap["t"], cap["size"], cap["dir"], name="video")
    v = qctl.traffic.validate(m, cap["t"], cap["size"], seed=1)
    assert v["segments"] == 2
    out = subprocess.run([qctl_bin, "gen", "--validate", path, "--json", "--realisations", "2"],
                         capture_output=True, text=True, check=True)
    cli = json.loads(out.stdout)
    assert cli["segments"] == 2
    assert v["real"]["rate"] == pytest.approx(cli["metrics"]["packets_per_second"]["real"],
                                              rel=1e-6)
    assert v["real"]["rate"] == pytest.approx(9.671, abs=0.001)
    for k in ("real", "fitted", "copula"):
        h = v[k]["hurst"]
        assert h is None and v[k]["hurst_note"] or (0 < h < 1.5 and v[k]["hurst_note"] is None)
        for x in v[k].values():
            assert not (isinstance(x, float) and math.isnan(x)), (k, v[k])


def test_join_segments_matches_the_library():
    t = np.array([0.0, 1.0, 2.0, 1e8, 1e8 + 0.5])
    j, n = qctl.traffic.join_segments(t, 3600)
    assert n == 2 and np.allclose(j, [0, 1, 2, 2, 2.5])
    with pytest.raises(ValueError):
        qctl.traffic.join_segments([1.0, 0.0])
