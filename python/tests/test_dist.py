# SPDX-License-Identifier: GPL-3.0-or-later
# qctl.dist: parsing, moments, CDF and quantile against closed forms, and
# samples against the CDF (Kolmogorov-Smirnov at a fixed seed).
import math

import numpy as np
import pytest

import qctl


def ks_stat(x, cdf):
    x = np.sort(x)
    n = len(x)
    f = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


def test_exp_closed_forms():
    d = qctl.dist.parse("exp:2")
    assert d.mean == pytest.approx(0.5) and d.var == pytest.approx(0.25)
    assert d.cdf(1.0) == pytest.approx(1 - math.exp(-2))
    assert d.quantile(0.5) == pytest.approx(math.log(2) / 2)
    assert d.canonical == "exp:2"


@pytest.mark.parametrize("spec", ["exp:2", "lognormal:0,0.5", "erlang:3,2", "weibull:1.5,2",
                                  "uniform:1,3", "hyperexp:0.3,0.5,0.7,3"])
def test_samples_follow_the_cdf(spec):
    d = qctl.dist.parse(spec)
    x = d.sample(20000, seed=5)
    assert x.dtype == np.float64 and x.shape == (20000,)
    # KS at 1%: critical value 1.63 / sqrt(n)
    assert ks_stat(x, d.cdf) < 1.63 / math.sqrt(len(x))
    assert x.mean() == pytest.approx(d.mean, rel=0.05)


def test_quantile_inverts_cdf():
    d = qctl.dist.parse("gamma:2,1.5")
    q = np.array([0.01, 0.25, 0.5, 0.9, 0.999])
    assert d.cdf(d.quantile(q)) == pytest.approx(q, abs=1e-9)


def test_streams_reproduce_and_continue():
    d = qctl.dist.parse("exp:1")
    a = d.sample(1000, seed=3)
    assert np.array_equal(a, d.sample(1000, seed=3))
    assert not np.array_equal(a, d.sample(1000, seed=3, stream=1))
    rng = qctl.dist.Rng(3)
    b = np.concatenate([d.sample(400, rng=rng), d.sample(600, rng=rng)])
    assert np.array_equal(a, b)


def test_empirical():
    d = qctl.dist.empirical([1.0, 2.0, 3.0, 4.0])
    assert d.mean == pytest.approx(2.5)
    assert set(np.unique(d.sample(1000))) <= {1.0, 2.0, 3.0, 4.0}


def test_bad_spec_is_value_error_with_the_library_message():
    with pytest.raises(ValueError) as e:
        qctl.dist.parse("exp:-1")
    assert isinstance(e.value, qctl.QctlError) and e.value.code < 0
    assert "exp" in str(e.value)
    with pytest.raises(ValueError):
        qctl.dist.parse("nosuch:1")
