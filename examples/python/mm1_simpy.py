#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""mm1_simpy.py: an M/M/1 queue in SimPy beside qctl.sim.queue, with the
closed form and the speed ratio.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/mm1_simpy.py [CUSTOMERS]

(or /usr/bin/python3 alone after `make install`). Both simulate M/M/1 at
load 0.9; SimPy gives one run's mean response time, qctl ten
replications with a 95% interval and MSER warm-up. The ratio compares
the wall-clock time per simulated customer, measured in this run.
"""
import sys
import time

import numpy as np
import simpy

import qctl

LAM, MU = 0.9, 1.0


def simpy_mm1(customers, seed):
    """The SimPy textbook model: a generator of customers, each asking a
    Resource of capacity 1 for an exponential service."""
    rng = np.random.default_rng(seed)
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=1)
    resp = []

    def customer(env):
        t0 = env.now
        with server.request() as req:
            yield req
            yield env.timeout(rng.exponential(1 / MU))
        resp.append(env.now - t0)

    def source(env):
        for _ in range(customers):
            yield env.timeout(rng.exponential(1 / LAM))
            env.process(customer(env))

    env.process(source(env))
    env.run()
    return np.array(resp)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
    exact = 1 / (MU - LAM)
    print("M/M/1 at load %.1f, E[T] = 1/(mu - lambda) = %g\n" % (LAM / MU, exact))

    t0 = time.perf_counter()
    resp = simpy_mm1(n, seed=1)
    t_simpy = time.perf_counter() - t0
    cut = len(resp) // 10  # the first tenth as warm-up
    print("SimPy:  %d customers, one run: mean response %.4g (first tenth cut; no interval)"
          % (n, resp[cut:].mean()))
    print("        %.3g s, %.3g us per customer" % (t_simpy, 1e6 * t_simpy / n))

    reps = 10
    per = max(10 * n // reps, 100000)  # qctl gets ten times the customers
    t0 = time.perf_counter()
    r = qctl.sim.queue(arrival="exp:%g" % LAM, service="exp:%g" % MU, customers=per, reps=reps,
                       seed=1)
    t_qctl = time.perf_counter() - t0
    rt = r["response_time"]
    total = per * reps
    print("qctl:   %d replications of %d customers: mean response %.4g, 95%% CI [%.4g, %.4g] (%s)"
          % (reps, per, rt.value, rt.lo, rt.hi, "holds" if rt.covers(exact) else "misses")
          + " exact %g" % exact)
    print("        %.3g s, %.3g us per customer" % (t_qctl, 1e6 * t_qctl / total))
    print("\nspeed ratio (SimPy time per customer / qctl time per customer): %.0fx"
          % ((t_simpy / n) / (t_qctl / total)))


if __name__ == "__main__":
    main()
