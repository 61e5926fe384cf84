# SPDX-License-Identifier: GPL-3.0-or-later
# The MaxUsers plant stepped from Python: Little's law on its samples, and
# qctl.control.MaxUsers holding the RIS at its reference in a Python loop.
import numpy as np
import pytest

import qctl


def run(n=120, r=325.0, seed=1):
    plant = qctl.sim.MaxUsersPlant(seed=seed)
    ctl = qctl.control.MaxUsers(ki=0.5, u_min=1, u_max=1000, u_init=400)
    u, rows = 400.0, []
    for _ in range(n):
        s = plant.step(u)
        u = ctl.step(r=r, y=s["ris"], peak=s["connected_peak"]).u
        rows.append(s)
    return rows


def test_closed_loop_tracks_the_reference_and_littles_law():
    rows = run()
    late = rows[60:]
    ris = np.array([s["ris"] for s in late])
    # integral control removes the steady-state error: the mean RIS over
    # the last half is the reference within 3% (fixed seed)
    assert ris.mean() == pytest.approx(325, rel=0.03)
    # Little's law over the same intervals: E[RIS] = X E[R]
    x = np.array([s["throughput"] for s in late])
    resp = np.array([s["response"] for s in late])
    done = np.array([s["completed"] for s in late], dtype=float)
    little = x.mean() * np.sum(resp * done) / done.sum()
    assert ris.mean() == pytest.approx(little, rel=0.03)


def test_bad_spec():
    with pytest.raises(ValueError) as e:
        qctl.sim.MaxUsersPlant(think="exp:0")
    assert str(e.value).startswith("--think: ")
