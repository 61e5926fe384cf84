#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""admission_simpy.py: qctl's admission controller (qctl.control.Admission,
the C step object `qctl sim admission` and `qctl proxy` run) driven from a
Python loop against a plant written in SimPy.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/admission_simpy.py

The plant: one server (exponential service, rate 1) shared by a
delay-bounded class (Poisson, rate 0.4) and a best-effort class (rate 0.35,
raised to 0.5 halfway: total load 0.75, then 0.9). When the server frees
up it picks the next class at random in proportion to the weights: the
bounded class's priority p, the best effort's max(1 - p, 0.01) (the
share left, as qctl's multiclass server and limiter give it). Every 50
time units the loop hands the controller the bounded class's mean
response time over the completions of the interval and their count, and
applies the priority it returns.

The controller is told only the bound D = 4 and epsilon = 0.1: it tracks
the target T = (1 - eps) D = 3.6. Plain FCFS would give the class about
4 and then 10 (M/M/1 at 0.75 and 0.9); strict priority about 2.3 and 2.5.
The example prints the priority and the delay as it goes and, for each
half after its first 2000 time units, the class's mean response time
against the target, with a 95% interval over blocks of samples.
"""
import math
import random

import numpy as np
import simpy

import qctl

BOUND, EPS = 4.0, 0.1
LAM_BOUNDED, MU = 0.4, 1.0
LAM_BE = (0.35, 0.5)
HORIZON, DT = 40000.0, 50.0


def main(seed=1):
    rnd = random.Random(seed)
    env = simpy.Environment()
    adm = qctl.control.Admission(bound=BOUND, epsilon=EPS)  # an admitted class
    weight = [adm.priority, max(1 - adm.priority, 0.01)]
    queues = ([], [])
    wake = [env.event()]
    done = [[], []]  # (completion time, response time) per class

    def server(env):
        while True:
            if not queues[0] and not queues[1]:
                yield wake[0]
                wake[0] = env.event()
                continue
            w = [weight[i] if queues[i] else 0.0 for i in (0, 1)]
            i = 0 if rnd.random() * (w[0] + w[1]) < w[0] else 1
            t_arr = queues[i].pop(0)
            yield env.timeout(rnd.expovariate(MU))
            done[i].append((env.now, env.now - t_arr))

    def source(env, i):
        while True:
            lam = LAM_BOUNDED if i == 0 else LAM_BE[env.now >= HORIZON / 2]
            yield env.timeout(rnd.expovariate(lam))
            queues[i].append(env.now)
            if not wake[0].triggered:
                wake[0].succeed()

    env.process(server(env))
    env.process(source(env, 0))
    env.process(source(env, 1))

    print("bounded class: bound D = %g, target T = (1 - %g) D = %g" % (BOUND, EPS, adm.target))
    print("%8s  %10s  %14s  %s" % ("time", "priority", "delay, last 50", "total load"))
    rows = []  # (time, samples' mean delay, count)
    seen = 0
    t = DT
    while t <= HORIZON:
        env.run(until=t)
        new = done[0][seen:]
        seen = len(done[0])
        if new:
            d = sum(r for _, r in new) / len(new)
            act = adm.step(delay=d, count=len(new))
            weight[0], weight[1] = act.priority, max(1 - act.priority, 0.01)
            rows.append((t, d, len(new)))
            if int(t) % 2000 == 0:
                print("%8.0f  %10.4g  %14.4g  %g" % (t, act.priority, d,
                                                    LAM_BE[t > HORIZON / 2] + LAM_BOUNDED))
        t += DT

    print("\nmean response time of the bounded class (completion-weighted), target %g:"
          % adm.target)
    ok = True
    for lo, hi in ((2000, HORIZON / 2), (HORIZON / 2 + 2000, HORIZON)):
        sel = [(d, n) for (tt, d, n) in rows if lo < tt <= hi]
        # 16 blocks of consecutive samples: mean per block, t interval
        blocks = np.array_split(np.array(sel), 16)
        bm = np.array([np.sum(b[:, 0] * b[:, 1]) / np.sum(b[:, 1]) for b in blocks])
        mean = sum(d * n for d, n in sel) / sum(n for _, n in sel)
        half = 2.131 * bm.std(ddof=1) / math.sqrt(len(bm))  # t(0.975, 15)
        load = LAM_BOUNDED + LAM_BE[lo >= HORIZON / 2]
        within = abs(mean - adm.target) <= max(half, 0.05 * adm.target)
        ok = ok and within
        print("  t in (%5.0f, %5.0f], load %.2f: %.3f +- %.3f (%s; FCFS would give %.3g)"
              % (lo, hi, load, mean, half,
                 "tracks the target" if within else "OFF the target", 1 / (MU - load)))
    print("\nthe controller %s" % ("tracked its target in both halves" if ok
                                   else "did NOT track its target"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
