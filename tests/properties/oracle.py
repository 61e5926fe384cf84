# SPDX-License-Identifier: GPL-3.0-or-later
"""oracle.py: closed forms of the queues the property harness checks,
computed here from the textbook formulas and not from qctl's own exact.c,
so that a shared mistake cannot hide.

  M/M/c/K (K finite or infinite): the birth-death chain's stationary law,
      p_n proportional to prod_{i<n} lambda / (min(i+1, c) mu), summed in
      logs so that c in the hundreds and K in the thousands neither
      overflow nor underflow; L = sum n p_n, lambda_eff = lambda (1 - p_K),
      T = L / lambda_eff (Little), W = T - 1/mu.
  M/G/1 FCFS: Pollaczek-Khinchine, W = lambda E[S^2] / (2 (1 - rho)).
  M/G/c-PS: the number in system is insensitive to the service law and
      equals that of M/M/c with the same mean (the chain is the same), so
      T = L_{M/M/c} / lambda.
  GI/M/1 FCFS: sigma the root in (0, 1) of sigma = A*(mu (1 - sigma)) (A*
      the arrival law's Laplace-Stieltjes transform), found by bisection;
      T is exponential of rate mu (1 - sigma): mean and every quantile.
Each function returns a dict of metric -> exact value, or None where the
formula does not apply."""
import math

# ---- moments and transforms of the specs the harness draws ------------


def moments(spec):
    """(E[X], E[X^2]) of a qctl distribution spec the harness draws."""
    name, args = spec.split(":", 1)
    a = [float(x) for x in args.split(",")]
    if name == "exp":
        return 1 / a[0], 2 / a[0] ** 2
    if name == "det":
        return a[0], a[0] ** 2
    if name == "erlang":
        k, r = a
        return k / r, k * (k + 1) / r ** 2
    if name == "hyperexp":
        p1, r1, p2, r2 = a
        return p1 / r1 + p2 / r2, 2 * p1 / r1 ** 2 + 2 * p2 / r2 ** 2
    if name == "uniform":
        lo, hi = a
        return (lo + hi) / 2, (lo * lo + lo * hi + hi * hi) / 3
    if name == "gamma":
        k, th = a
        return k * th, k * (k + 1) * th * th
    if name == "lognormal":
        mu, s = a
        return math.exp(mu + s * s / 2), math.exp(2 * mu + 2 * s * s)
    raise ValueError("no moments for " + spec)


def lst(spec, s):
    """E[exp(-s X)] of a spec (for GI/M/1), s >= 0."""
    name, args = spec.split(":", 1)
    a = [float(x) for x in args.split(",")]
    if name == "exp":
        return a[0] / (a[0] + s)
    if name == "det":
        return math.exp(-s * a[0])
    if name == "erlang":
        k, r = a
        return (r / (r + s)) ** k
    if name == "hyperexp":
        p1, r1, p2, r2 = a
        return p1 * r1 / (r1 + s) + p2 * r2 / (r2 + s)
    if name == "uniform":
        lo, hi = a
        if s * (hi - lo) < 1e-8:
            return math.exp(-s * (lo + hi) / 2)
        return (math.exp(-s * lo) - math.exp(-s * hi)) / (s * (hi - lo))
    if name == "gamma":
        k, th = a
        return (1 + th * s) ** (-k)
    raise ValueError("no transform for " + spec)


# ---- the queues ---------------------------------------------------------


def _logsumexp(xs):
    m = max(xs)
    return m + math.log(sum(math.exp(x - m) for x in xs))


def mmck(lam, mu, c, K=None):
    """M/M/c/K means (K None: infinite, needs lam < c mu). Returns
    response_time, waiting_time, number_in_system, utilization,
    throughput, blocking_probability."""
    rho = lam / (c * mu)
    if K is None:
        if not rho < 1:
            return None
        # Erlang C in logs; the tail beyond c is geometric.
        a = lam / mu
        logp = [0.0]
        for n in range(1, c + 1):
            logp.append(logp[-1] + math.log(a) - math.log(n))
        # sum_{n<c} a^n/n! + a^c/c! * 1/(1-rho)
        head = _logsumexp(logp[:c])
        tailc = logp[c] - math.log1p(-rho)
        lz = _logsumexp([head, tailc])
        pc = math.exp(logp[c] - lz)  # P(N = c)
        C = pc / (1 - rho)  # P(wait)
        Lq = C * rho / (1 - rho)
        W = Lq / lam
        T = W + 1 / mu
        return {"response_time": T, "waiting_time": W, "number_in_system": lam * T,
                "utilization": rho, "throughput": lam, "blocking_probability": 0.0}
    logp = [0.0]
    for n in range(1, K + 1):
        logp.append(logp[-1] + math.log(lam) - math.log(min(n, c) * mu))
    lz = _logsumexp(logp)
    p = [math.exp(x - lz) for x in logp]
    L = sum(n * pn for n, pn in enumerate(p))
    pk = p[K]
    lam_eff = lam * (1 - pk)
    T = L / lam_eff
    busy = sum(min(n, c) * pn for n, pn in enumerate(p)) / c
    # no one waits when K = c; else the difference, never below 0 by rounding
    W = 0.0 if K == c else max(T - 1 / mu, 0.0)
    return {"response_time": T, "waiting_time": W, "number_in_system": L,
            "utilization": busy, "throughput": lam_eff, "blocking_probability": pk}


def mg1(lam, service):
    """M/G/1 FCFS (Pollaczek-Khinchine)."""
    m1, m2 = moments(service)
    rho = lam * m1
    if not rho < 1:
        return None
    W = lam * m2 / (2 * (1 - rho))
    T = W + m1
    return {"response_time": T, "waiting_time": W, "number_in_system": lam * T,
            "utilization": rho, "throughput": lam}


def mgc_ps(lam, service, c):
    """M/G/c-PS mean response time and number in system (insensitive)."""
    m1, _ = moments(service)
    r = mmck(lam, 1 / m1, c)
    if r is None:
        return None
    return {"response_time": r["response_time"], "number_in_system": r["number_in_system"],
            "utilization": r["utilization"], "throughput": lam}


def gim1(arrival, mu):
    """GI/M/1 FCFS: sigma, mean response and waiting time, and the
    response-time quantiles (T is exponential of rate mu (1 - sigma))."""
    ma, _ = moments(arrival)
    lam = 1 / ma
    rho = lam / mu
    if not rho < 1:
        return None
    lo, hi = 0.0, 1.0 - 1e-15
    # f(s) = A*(mu (1 - s)) - s: f(0) > 0, f(1-) < 0 when rho < 1
    for _ in range(200):
        mid = (lo + hi) / 2
        if lst(arrival, mu * (1 - mid)) - mid > 0:
            lo = mid
        else:
            hi = mid
    sigma = (lo + hi) / 2
    r = mu * (1 - sigma)
    T = 1 / r
    out = {"response_time": T, "waiting_time": T - 1 / mu, "number_in_system": lam * T,
           "utilization": rho, "throughput": lam}
    for q, name in ((0.5, "response_time_p50"), (0.95, "response_time_p95"),
                    (0.99, "response_time_p99")):
        out[name] = -math.log(1 - q) / r
    return out
