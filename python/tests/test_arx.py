# SPDX-License-Identifier: GPL-3.0-or-later
# qctl.control.arx_fit and Design: recovery of known ARX parameters from
# numpy arrays, and the Jury bound of integral control (qctl/design.h).
import numpy as np
import pytest

import qctl


def plant_data(n=2000, a=0.8, b=0.5, sd=0.5, seed=1):
    rng = np.random.default_rng(seed)
    u = rng.choice([10.0, 20.0], size=n)  # a random binary excitation
    y = np.zeros(n)
    for k in range(n - 1):
        y[k + 1] = a * y[k] + b * u[k] + rng.normal(0, sd)
    return u, y


def test_recovers_known_parameters():
    u, y = plant_data()
    f = qctl.control.arx_fit(u, y, na=(1, 3), nb=(1, 3), delay=(0, 2))
    assert (len(f.a), len(f.b), f.delay) == (1, 1, 0)
    # within four standard errors of the truth
    assert abs(f.a[0] - 0.8) < 4 * f.se_a[0]
    assert abs(f.b[0] - 0.5) < 4 * f.se_b[0]
    assert f.dc_gain == pytest.approx(0.5 / 0.2, rel=0.05)
    assert f.sigma2 == pytest.approx(0.25, rel=0.15)
    assert f.val_fit > 50
    y1, ys = f.predict(u, y, start=f.n_est)
    assert np.isnan(y1[: f.n_est]).all() and np.isfinite(y1[f.n_est + 1:]).all()


def test_integral_stable_range_is_jury():
    m = qctl.control.ArxModel(a=[0.7], b=[0.4])
    d = qctl.control.Design(m)
    (lo, hi), _ = d.stable_range()
    assert lo == pytest.approx(0, abs=1e-9)
    assert hi == pytest.approx(2 * (1 + 0.7) / 0.4, rel=1e-6)
    assert d.poles(0, 0.99 * hi).stable and not d.poles(0, 1.01 * hi).stable


def test_pi_design_places_the_target_pole():
    d = qctl.control.Design(qctl.control.ArxModel(a=[0.7], b=[0.4]))
    g = d.pi(settling=10, overshoot=0.05)
    assert g.exact and g.dominant
    assert abs(g.poles.dominant) == pytest.approx(np.exp(-4 / 10), rel=1e-6)
    assert g.poles.overshoot == pytest.approx(0.05, rel=1e-6)


def test_bad_data():
    with pytest.raises(ValueError):
        qctl.control.arx_fit(np.ones(5), np.ones(6))
    with pytest.raises(qctl.QctlError):
        qctl.control.arx_fit(np.ones(200), np.arange(200.0))  # u constant
