#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes latency.csv: 3000 request latencies of a service with a cache,
# drawn with a fixed seed from a known model, so that what `qctl fit
# --column` recovers can be checked against the truth:
#   70% hits:   lognormal(mu = log 0.002, sigma = 0.3)   (about 2 ms)
#   30% misses: lognormal(mu = log 0.020, sigma = 0.5)   (about 20 ms)
# True mean 0.7 * 0.002 e^0.045 + 0.3 * 0.02 e^0.125 = 0.0082627 s.
# Timestamps are those of Poisson requests at 80 per second.
import math
import random

rng = random.Random(20261130)
t = 0.0
with open("latency.csv", "w") as f:
    f.write("time,path,latency_s\n")
    for i in range(3000):
        t += rng.expovariate(80.0)
        hit = rng.random() < 0.7
        mu, sigma = (math.log(0.002), 0.3) if hit else (math.log(0.020), 0.5)
        lat = math.exp(rng.gauss(mu, sigma))
        f.write("%.6f,%s,%.7f\n" % (t, "/item" if hit else "/search", lat))
