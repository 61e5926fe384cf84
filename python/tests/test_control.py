# SPDX-License-Identifier: GPL-3.0-or-later
# qctl.control: the C step objects from Python, against hand computations
# and small plants.
import threading

import pytest

import qctl


def test_integral_control_drives_a_static_plant_to_the_reference():
    # plant y = 2 u; integral control u(k) = u(k-1) + ki e(k) converges
    # when 0 < 2 ki < 2; the fixed point is u = r / 2
    pi = qctl.control.PI(kp=0.0, ki=0.3, u_min=0, u_max=100, u_init=0)
    u = 0.0
    for _ in range(200):
        u = pi.step(r=10.0, y=2 * u).u
    assert u == pytest.approx(5.0, rel=1e-9)


def test_pi_first_step_by_hand():
    pi = qctl.control.PI(kp=0.5, ki=0.2, u_min=-10, u_max=10, u_init=0)
    a = pi.step(r=1.0, y=0.0)
    # u = kp e + I, I = ki e (the integral of the first error)
    assert a.u == pytest.approx(0.5 + 0.2) and a.saturated == 0


def test_pi_saturates():
    pi = qctl.control.PI(kp=10, ki=10, u_min=0, u_max=1, u_init=0)
    a = pi.step(r=100, y=0)
    assert a.u == 1 and a.saturated == 1 and a.v > 1


def test_bad_pi_parameters():
    with pytest.raises(ValueError):
        qctl.control.PI(u_min=1, u_max=0)
    with pytest.raises(ValueError):
        qctl.control.PI(antiwindup="sometimes")


def test_admission_tracks_on_a_plant_of_known_response():
    # delay = 8 / p: tracking T = (1 - 0.1) * 4 = 3.6 gives p = 8 / 3.6
    adm = qctl.control.Admission(bound=4, epsilon=0.1)
    for _ in range(300):
        act = adm.step(delay=8 / adm.priority, count=20)
    assert act.state == "admitted" and act.target == pytest.approx(3.6)
    assert adm.priority == pytest.approx(8 / 3.6, rel=1e-3)


def test_admission_bad_parameter():
    with pytest.raises(ValueError) as e:
        qctl.control.Admission(bound=4, epsilon=-0.1)
    assert "epsilon" in str(e.value)
    with pytest.raises(ValueError):
        qctl.control.Admission(bound=4, nosuch=1)


def test_limiter_counts_across_threads():
    lim = qctl.control.Limiter("fixed", initial_limit=4)
    assert lim.limit == 4
    toks = [lim.acquire() for _ in range(6)]
    assert sum(t is not None for t in toks) == 4
    for t in toks:
        if t is not None:
            lim.release(t, 0.01)
    n = 2000

    def worker():
        for _ in range(n):
            t = lim.acquire()
            if t is not None:
                lim.release(t, 0.001)

    ths = [threading.Thread(target=worker) for _ in range(4)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    s = lim.stats()
    assert s["inflight"] == 0
    assert s["admitted"] + s["refused"] == 6 + 4 * n
    assert s["completed"] == s["admitted"]


def test_limiter_maxusers_moves_the_limit():
    lim = qctl.control.Limiter("maxusers", initial_limit=10, reference=5, ki=0.5)
    # hold 10 requests for a whole second: logged in-flight y = 10 > r = 5
    toks = [lim.acquire() for _ in range(10)]
    for t in toks:
        lim.release(t, 1.0)
    lim.tick(1.0)
    assert lim.stats()["limit"] < 10


def test_limiter_bad_algorithm_message():
    with pytest.raises(ValueError) as e:
        qctl.control.Limiter("nosuch")
    assert "nosuch" in str(e.value)
