# SPDX-License-Identifier: GPL-3.0-or-later
# net_check.py: `qctl sim network` against exact values computed here,
# independently of qctl's own solver (pure Python, no numpy), and the
# coverage of its intervals over seeds.
#
# The reference values come from textbook methods written out anew:
#   - open networks: the traffic equations solved by Gauss-Jordan
#     elimination, each station an M/M/c (Erlang C), an M/G/1-PS or a delay;
#   - closed single chains: Buzen's convolution algorithm with
#     load-dependent rates (not MVA: another road to the same numbers);
#   - the mixed network: the mixed MVA recursion (Lazowska et al. 1984, 7.4);
#   - M/M/1 with preemptive priority per class: Kleinrock's formula;
#   - Erlang-A (M/M/1 + exponential patience): the birth-death chain,
#     summed to 1e-16;
#   - blocking after service: a tandem M/M/1 -> ./M/1/K whose full second
#     station holds the first's server, as the Markov chain on (number at
#     the first, number at the second, the first blocked), truncated where
#     its tail is below 1e-14 and solved by Gauss-Seidel on the balance
#     equations (qctl prints no exact value there: none is known in
#     closed form).
# For each case: qctl's printed exact values must match these to 1e-6
# (relative), and over the seeds the intervals must cover them at the
# rate asked (--min, per metric), with the Wilson interval printed.
# Beside each coverage, what would cause a shortfall: over the seeds, the
# mean and the spread of z = (estimate - exact) / half-width. With R
# replications an exact interval gives z = T / t, T of Student's law on
# R - 1 degrees of freedom and t its 0.975 quantile: mean 0 and standard
# deviation sqrt((R-1)/(R-3)) / t (0.501 for R = 10). A biased estimate
# (a warm-up left in, a biased time average) moves the mean; an
# underestimated variance (correlated batches, too few replications for a
# skewed mean) widens the spread. Either, beyond 3.5 standard errors, is
# named on the metric's line ("bias", "narrow"); a coverage below --min
# with neither is what chance gives some metrics among many (the case's
# last line says how many an exact 95% interval would leave below).
#
# usage: net_check.py QCTL [--seeds N] [--min FRACTION] [--case SUBSTRING]
#                           [--customers N] [--vs-queue]
import json
import math
import os
import subprocess
import sys
import tempfile


def erlang_c(c, a):
    """P(wait) in M/M/c with offered load a < c."""
    below = sum(a ** k / math.factorial(k) for k in range(c))
    top = a ** c / math.factorial(c) * c / (c - a)
    return top / (below + top)


def mmc_number(c, a):
    return a + erlang_c(c, a) * a / (c - a)


def solve(A, b):
    n = len(b)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(M[r][col]))
        M[col], M[piv] = M[piv], M[col]
        p = M[col][col]
        M[col] = [x / p for x in M[col]]
        for r in range(n):
            if r != col and M[r][col] != 0:
                f = M[r][col]
                M[r] = [x - f * y for x, y in zip(M[r], M[col])]
    return [M[i][n] for i in range(n)]


def open_network(st, lam0, P):
    """st: list of (kind, c, mean service); lam0: external rates; P: routing
    matrix. Returns per station (X, R, N, U) and end-to-end (R, N)."""
    n = len(st)
    A = [[(1.0 if i == j else 0.0) - P[j][i] for j in range(n)] for i in range(n)]
    lam = solve(A, lam0)
    out = []
    for i, (kind, c, s) in enumerate(st):
        a = lam[i] * s
        if kind == "is":
            N = a
            U = a
        elif c == 1:
            N = a / (1 - a)
            U = a
        else:
            N = mmc_number(c, a)
            U = a / c
        out.append({"throughput": lam[i], "response_time": N / lam[i], "number": N,
                    "utilization": U})
    Ntot = sum(o["number"] for o in out)
    L = sum(lam0)
    e2e = {"throughput": L, "number": Ntot, "response_time": Ntot / L}
    return out, e2e


def convolution(st, D, N, Z):
    """One closed chain: st (kind, c), demands D, population N, think Z.
    Buzen's algorithm with load-dependent factors; Z as a delay."""
    def f(kind, c, d, j):
        if kind == "is":
            return d ** j / math.factorial(j)
        v = 1.0
        for m in range(1, j + 1):
            v *= d / min(m, c)
        return v
    stations = list(zip([k for k, _ in st], [c for _, c in st], D))
    if Z > 0:
        stations.append(("is", 0, Z))
    def G_of(skip):
        g = [1.0] + [0.0] * N
        for idx, (kind, c, d) in enumerate(stations):
            if idx == skip:
                continue
            fs = [f(kind, c, d, j) for j in range(N + 1)]
            g = [sum(fs[j] * g[n - j] for j in range(n + 1)) for n in range(N + 1)]
        return g
    G = G_of(-1)
    X = G[N - 1] / G[N]
    res = []
    for i, (kind, c, d) in enumerate(stations[:len(st)]):
        gi = G_of(i)
        Q = sum(j * f(kind, c, d, j) * gi[N - j] for j in range(N + 1)) / G[N]
        res.append(Q)
    return X, res


def mixed_mva(st, Dc, N, Z, Do, lam_o):
    """One closed chain (demands Dc, population N, think Z) and open classes
    (demands Do[o][i], rates lam_o[o]) at single-server or delay stations."""
    M = len(st)
    Uo = [sum(lam_o[o] * Do[o][i] for o in range(len(lam_o))) for i in range(M)]
    Dp = [Dc[i] if st[i][0] == "is" else Dc[i] / (1 - Uo[i]) for i in range(M)]
    Q = [0.0] * M
    X = 0.0
    R = [0.0] * M
    for n in range(1, N + 1):
        R = [Dp[i] if st[i][0] == "is" else Dp[i] * (1 + Q[i]) for i in range(M)]
        X = n / (Z + sum(R))
        Q = [X * R[i] for i in range(M)]
    Ro = [[Do[o][i] if st[i][0] == "is" else Do[o][i] * (1 + Q[i]) / (1 - Uo[i])
           for i in range(M)] for o in range(len(lam_o))]
    return X, R, Q, Ro


def priority_preemptive(lams, mus):
    """M/M/1 preemptive-resume priority, class 0 first: response times."""
    out = []
    for k in range(len(lams)):
        s_above = sum(lams[j] / mus[j] for j in range(k))
        s_upto = s_above + lams[k] / mus[k]
        r = sum(lams[j] * 2 / mus[j] ** 2 / 2 for j in range(k + 1))
        out.append(1 / mus[k] / (1 - s_above) + r / ((1 - s_above) * (1 - s_upto)))
    return out


def erlang_a(lam, mu, theta, c=1):
    pis, p, n = [], 1.0, 0
    while True:
        pis.append(p)
        down = min(n + 1, c) * mu + max(n + 1 - c, 0) * theta
        p *= lam / down
        n += 1
        if p < 1e-16 * sum(pis) and n > c + 5:
            break
    Z = sum(pis)
    pis = [x / Z for x in pis]
    N = sum(i * x for i, x in enumerate(pis))
    X = sum(min(i, c) * mu * x for i, x in enumerate(pis))
    ab = sum(max(i - c, 0) * theta * x for i, x in enumerate(pis)) / lam
    return N, X, ab


def balking_mm1(lam, mu, balk):
    """M/M/1 where an arrival finding n balks with balk[min(n, last)]: the
    birth-death chain summed until its terms fall below 1e-16."""
    pis, p, n = [], 1.0, 0
    while True:
        pis.append(p)
        b = balk[min(n, len(balk) - 1)]
        p *= lam * (1 - b) / mu
        n += 1
        if p < 1e-16 * sum(pis) or p == 0:
            break
    Z = sum(pis)
    pis = [x / Z for x in pis]
    N = sum(i * x for i, x in enumerate(pis))
    X = mu * (1 - pis[0])
    fb = sum(x * balk[min(i, len(balk) - 1)] for i, x in enumerate(pis))
    return N, X, fb


def tandem_bas(lam, mu1, mu2, K, n1max=80):
    """M/M/1 -> ./M/1/K, blocking after service: stationary means."""
    # state (n1, m): m = 0..K the number at station 2, m = K + 1: station 2
    # full and station 1's finished customer blocked (counted in n1)
    states = [(a, m) for a in range(n1max + 1) for m in range(K + 2) if m <= K or a >= 1]
    idx = {st: x for x, st in enumerate(states)}
    out = [[] for _ in states]   # (target, rate)
    for x, (a, m) in enumerate(states):
        if a < n1max:
            out[x].append((idx[(a + 1, m)], lam))
        if a >= 1 and m < K:
            out[x].append((idx[(a - 1, m + 1)], mu1))
        if a >= 1 and m == K:
            out[x].append((idx[(a, K + 1)], mu1))
        if 1 <= m <= K:
            out[x].append((idx[(a, m - 1)], mu2))
        if m == K + 1:
            out[x].append((idx[(a - 1, K)], mu2))
    inc = [[] for _ in states]
    qout = [0.0] * len(states)
    for x, lst in enumerate(out):
        for y, q in lst:
            inc[y].append((x, q))
            qout[x] += q
    pi = [1.0 / len(states)] * len(states)
    for _ in range(20000):
        delta = 0.0
        for y in range(len(states)):
            v = sum(pi[x] * q for x, q in inc[y]) / qout[y]
            delta = max(delta, abs(v - pi[y]))
            pi[y] = v
        t = sum(pi)
        pi = [v / t for v in pi]
        if delta < 1e-15:
            break
    N1 = sum(p * a for p, (a, m) in zip(pi, states))
    N2 = sum(p * min(m, K) for p, (a, m) in zip(pi, states))
    U1 = sum(p for p, (a, m) in zip(pi, states) if a >= 1)
    U2 = sum(p for p, (a, m) in zip(pi, states) if m >= 1)
    tail = sum(p for p, (a, m) in zip(pi, states) if a >= n1max - 5)
    assert tail < 1e-12, tail
    return N1, N2, U1, U2


# ---- the cases ----------------------------------------------------------------

def cases():
    out = []
    # a tandem: M/M/1, M/M/1, M/M/1-PS
    net = {"stations": [{"name": "a", "service": "exp:2"},
                        {"name": "b", "service": "exp:1.5"},
                        {"name": "c", "discipline": "ps", "service": "exp:3"}],
           "classes": [{"name": "x", "arrival": "exp:1", "entry": "a"}],
           "routing": {"x": {"a": {"b": 1}, "b": {"c": 1}}}}
    st, e2e = open_network([("fcfs", 1, 0.5), ("fcfs", 1, 1 / 1.5), ("ps", 1, 1 / 3)],
                           [1, 0, 0], [[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    out.append(("tandem", net, st, e2e))
    # feedback: a (M/M/2) -> b; b -> a with 0.3, else out
    net = {"stations": [{"name": "a", "servers": 2, "service": "exp:1"},
                        {"name": "b", "service": "exp:2.5"}],
           "classes": [{"name": "x", "arrival": "exp:1", "entry": "a"}],
           "routing": {"x": {"a": {"b": 1}, "b": {"a": 0.3, "out": 0.7}}}}
    st, e2e = open_network([("fcfs", 2, 1.0), ("fcfs", 1, 0.4)], [1, 0],
                           [[0, 1], [0.3, 0]])
    out.append(("feedback", net, st, e2e))
    # three tiers, routing back to the front: web (PS, 2) -> app (4) -> db
    net = {"stations": [{"name": "web", "discipline": "ps", "servers": 2, "service": "exp:10"},
                        {"name": "app", "servers": 4, "service": "exp:2"},
                        {"name": "db", "service": "exp:8"}],
           "classes": [{"name": "req", "arrival": "exp:4", "entry": "web"}],
           "routing": {"req": {"web": {"app": 0.5, "out": 0.5},
                               "app": {"db": 0.6, "web": 0.4},
                               "db": {"app": 0.5, "web": 0.5}}}}
    st, e2e = open_network([("ps", 2, 0.1), ("fcfs", 4, 0.5), ("fcfs", 1, 0.125)],
                           [4, 0, 0], [[0, 0.5, 0], [0.4, 0, 0.6], [0.5, 0.5, 0]])
    out.append(("three-tier", net, st, e2e))
    # central server, populations 1, 10, 50: cpu (PS) and two disks; think 5
    for N in (1, 10, 50):
        net = {"stations": [{"name": "cpu", "discipline": "ps", "service": "exp:50"},
                            {"name": "disk1", "service": "exp:25"},
                            {"name": "disk2", "service": "exp:12.5"}],
               "classes": [{"name": "job", "population": N, "think": "exp:0.2",
                            "entry": "cpu"}],
               "routing": {"job": {"cpu": {"disk1": 0.5, "disk2": 0.3, "out": 0.2},
                                   "disk1": {"cpu": 1}, "disk2": {"cpu": 1}}}}
        # visits per cycle: cpu 5, disk1 2.5, disk2 1.5
        D = [5 * 0.02, 2.5 * 0.04, 1.5 * 0.08]
        X, Q = convolution([("ps", 1), ("fcfs", 1), ("fcfs", 1)], D, N, 5.0)
        visits = [5, 2.5, 1.5]
        st = []
        for i in range(3):
            Xi = X * visits[i]
            st.append({"throughput": Xi, "number": Q[i], "response_time": Q[i] / Xi,
                       "utilization": Xi * [0.02, 0.04, 0.08][i]})
        e2e = {"throughput": X, "number": sum(Q), "response_time": sum(Q) / X}
        out.append(("central-server N=%d" % N, net, st, e2e))
    # two classes, mixed: an open class and a closed chain at a PS cpu and
    # an FCFS disk (one mean for both classes there), and a delay
    net = {"stations": [{"name": "cpu", "discipline": "ps",
                         "service": {"web": "exp:20", "batch": "exp:10"}},
                        {"name": "disk", "service": "exp:30"},
                        {"name": "net", "discipline": "is", "service": "exp:5"}],
           "classes": [{"name": "web", "arrival": "exp:6", "entry": "cpu"},
                       {"name": "batch", "population": 8, "think": "exp:1",
                        "entry": "cpu"}],
           "routing": {"web": {"cpu": {"disk": 0.5, "net": 0.5}, "disk": {"out": 1},
                               "net": {"out": 1}},
                       "batch": {"cpu": {"disk": 0.75, "out": 0.25}, "disk": {"cpu": 1}}}}
    kinds = [("ps", 1), ("fcfs", 1), ("is", 0)]
    Do = [[0.05, 0.5 / 30, 0.5 * 0.2]]
    Dc = [4 * 0.1, 3 / 30, 0.0]
    X, R, Q, Ro = mixed_mva(kinds, Dc, 8, 1.0, Do, [6.0])
    st = {"web": [], "batch": []}
    vo = [1, 0.5, 0.5]
    for i in range(3):
        st["web"].append({"throughput": 6 * vo[i], "response_time": Ro[0][i] / vo[i],
                          "number": 6 * Ro[0][i]})
    vc = [4, 3, 0]
    for i in range(2):
        st["batch"].append({"throughput": X * vc[i], "response_time": R[i] / vc[i],
                            "number": Q[i]})
    e2e = {"web": {"throughput": 6, "response_time": sum(Ro[0]), "number": 6 * sum(Ro[0])},
           "batch": {"throughput": X, "response_time": sum(R), "number": sum(Q)}}
    out.append(("mixed two-class", net, st, e2e))
    # M/M/1 with preemptive priority: gold before silver
    net = {"stations": [{"name": "s", "discipline": "preemptive",
                         "service": {"gold": "exp:2", "silver": "exp:1"}}],
           "classes": [{"name": "gold", "arrival": "exp:0.6", "priority": 0, "entry": "s"},
                       {"name": "silver", "arrival": "exp:0.4", "priority": 1, "entry": "s"}]}
    T = priority_preemptive([0.6, 0.4], [2, 1])
    st = {"gold": [{"response_time": T[0], "number": 0.6 * T[0], "throughput": 0.6}],
          "silver": [{"response_time": T[1], "number": 0.4 * T[1], "throughput": 0.4}]}
    e2e = {"gold": {"response_time": T[0]}, "silver": {"response_time": T[1]}}
    out.append(("priority preemptive M/M/1", net, st, e2e))
    # Erlang-A: M/M/1 + exponential patience (mean 2), offered load 1.2
    net = {"stations": [{"name": "s", "service": "exp:1", "patience": "exp:0.5"}],
           "classes": [{"name": "x", "arrival": "exp:1.2", "entry": "s"}]}
    N, X, ab = erlang_a(1.2, 1.0, 0.5)
    st = [{"number": N, "throughput": X, "reneging": ab, "utilization": X}]
    e2e = {"number": N, "throughput": X, "lost": ab}
    out.append(("Erlang-A M/M/1+M", net, st, e2e))
    # balking: M/M/1 at an offered 1.5, arrivals finding n balk with
    # 0, 0.25, 0.5, 0.75 (the last for more)
    net = {"stations": [{"name": "s", "service": "exp:1", "balking": [0, 0.25, 0.5, 0.75]}],
           "classes": [{"name": "x", "arrival": "exp:1.5", "entry": "s"}]}
    N, X, fb = balking_mm1(1.5, 1.0, [0, 0.25, 0.5, 0.75])
    st = [{"number": N, "throughput": X, "balking": fb, "utilization": X,
           "response_time": N / X}]
    e2e = {"number": N, "throughput": X, "lost": fb, "response_time": N / X}
    out.append(("balking M/M/1", net, st, e2e))
    # blocking after service: M/M/1 (rate 2) -> ./M/1/2 (rate 2), lambda 1
    net = {"stations": [{"name": "a", "service": "exp:2"},
                        {"name": "b", "service": "exp:2", "capacity": 2,
                         "blocking": "after-service"}],
           "classes": [{"name": "x", "arrival": "exp:1", "entry": "a"}],
           "routing": {"x": {"a": {"b": 1}}}}
    N1, N2, U1, U2 = tandem_bas(1.0, 2.0, 2.0, 2)
    # nothing is lost: the first station's queue is unbounded
    st = [{"number": N1, "utilization": U1, "throughput": 1.0, "response_time": N1},
          {"number": N2, "utilization": U2, "throughput": 1.0, "response_time": N2,
           "loss": 0.0}]
    e2e = {"number": N1 + N2, "response_time": N1 + N2, "throughput": 1.0}
    out.append(("blocking after service", net, st, e2e, "no exact"))
    return out


def expected_rows(name, net, st, e2e):
    """(path in the JSON, exact value) pairs."""
    rows = []
    classes = [c["name"] for c in net["classes"]]
    stations = [s["name"] for s in net["stations"]]
    if isinstance(st, dict):
        for k, lst in st.items():
            for i, d in enumerate(lst):
                for m, v in d.items():
                    rows.append((("stations", stations[i], k, m), v))
        for k, d in e2e.items():
            for m, v in d.items():
                rows.append((("end_to_end", k, m), v))
    else:
        k = classes[0]
        for i, d in enumerate(st):
            for m, v in d.items():
                rows.append((("stations", stations[i], k, m), v))
        for m, v in e2e.items():
            rows.append((("end_to_end", k, m), v))
    return rows


def get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


# 0.975 quantiles of Student's t, by degrees of freedom
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
        19: 2.093, 29: 2.045, 39: 2.023}


def z_spread(reps):
    """The standard deviation of (estimate - exact) / half-width of an
    exact t interval over reps replications (None when undefined)."""
    df = reps - 1
    if df < 3 or df not in T975:
        return None
    return math.sqrt(df / (df - 2)) / T975[df]


def diagnose(zs, reps):
    """(text, flag) for the z values of one metric over the seeds."""
    n = len(zs)
    if n < 10:
        return "", ""
    m = sum(zs) / n
    sd = math.sqrt(sum((z - m) ** 2 for z in zs) / (n - 1))
    ref = z_spread(reps)
    flag = ""
    if ref is not None:
        if abs(m) > 3.5 * ref / math.sqrt(n):
            flag = "bias"
        elif sd > ref * (1 + 3.5 / math.sqrt(2 * (n - 1))):
            flag = "narrow"
    text = "z %+.3f sd %.3f" % (m, sd) + (" (exact: 0 sd %.3f)" % ref if ref else "")
    return text, flag


def wilson(k, n, z=1.96):
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def vs_queue(qctl, seeds, minimum, reps, cust):
    """One station, M/M/2 at 0.75: sim network and sim queue on the same
    parameters print the same exact values, and both cover them."""
    net = {"stations": [{"name": "s", "servers": 2, "service": "exp:1"}],
           "classes": [{"name": "x", "arrival": "exp:1.5", "entry": "s"}]}
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "one.json")
    with open(path, "w") as f:
        json.dump(net, f)
    pairs = [("response_time", ("stations", "s", "x", "response_time")),
             ("waiting_time", ("stations", "s", "x", "waiting_time")),
             ("number_in_system", ("stations", "s", "x", "number")),
             ("utilization", ("stations", "s", "x", "utilization")),
             ("throughput", ("stations", "s", "x", "throughput")),
             ("response_time_p95", ("end_to_end", "x", "response_time_p95"))]
    a = 1.5
    N = mmc_number(2, a)
    ref = {"response_time": N / 1.5, "waiting_time": N / 1.5 - 1, "number_in_system": N,
           "utilization": 0.75, "throughput": 1.5}
    cov_q = [0] * len(pairs)
    cov_n = [0] * len(pairs)
    failed = 0
    common = ["--reps", str(reps), "--customers", str(cust), "--json", "--quiet", "-j", "2"]
    for seed in range(1, seeds + 1):
        q = json.loads(subprocess.run(
            [qctl, "sim", "queue", "--arrival", "exp:1.5", "--service", "exp:1", "--servers",
             "2", "--seed", str(seed)] + common, capture_output=True, text=True,
            check=True).stdout)
        n = json.loads(subprocess.run([qctl, "sim", "network", path, "--seed", str(seed)] +
                                      common, capture_output=True, text=True,
                                      check=True).stdout)
        for r, (qm, npath) in enumerate(pairs):
            qc = q["metrics"][qm]
            nc = get(n, npath)
            ex = qc["exact"]
            if seed == 1:
                if ex is None or nc.get("exact") is None or abs(ex - nc["exact"]) > 1e-9 * ex:
                    print("FAIL %s: sim queue's exact %s, sim network's %s"
                          % (qm, ex, nc.get("exact")))
                    failed += 1
                if qm in ref and abs(ex - ref[qm]) > 1e-6 * ref[qm]:
                    print("FAIL %s: exact %s, the reference %.9g" % (qm, ex, ref[qm]))
                    failed += 1
            cov_q[r] += qc["ci_low"] is not None and qc["ci_low"] <= ex <= qc["ci_high"]
            cov_n[r] += nc["ci_low"] is not None and nc["ci_low"] <= ex <= nc["ci_high"]
    for r, (qm, _) in enumerate(pairs):
        for who, cov in (("sim queue", cov_q), ("sim network", cov_n)):
            lo, hi = wilson(cov[r], seeds)
            ok = cov[r] / seeds >= minimum
            print("%-4s M/M/2 one station  %-12s %-20s covered %3d/%d = %.2f [%.2f, %.2f]"
                  % ("ok" if ok else "FAIL", who, qm, cov[r], seeds, cov[r] / seeds, lo, hi))
            failed += not ok
    return 1 if failed else 0


def main():
    args = sys.argv[1:]
    qctl = args[0]
    seeds, minimum, only, reps, cust = 40, 0.85, None, 10, 20000
    i = 1
    queue = False
    while i < len(args):
        if args[i] == "--seeds":
            seeds = int(args[i + 1]); i += 2
        elif args[i] == "--min":
            minimum = float(args[i + 1]); i += 2
        elif args[i] == "--case":
            only = args[i + 1]; i += 2
        elif args[i] == "--customers":
            cust = int(args[i + 1]); i += 2
        elif args[i] == "--vs-queue":
            queue = True; i += 1
        else:
            print("unknown argument", args[i]); return 2
    if queue:
        return vs_queue(qctl, seeds, minimum, reps, cust)
    failed = 0
    tmp = tempfile.mkdtemp()
    for case in cases():
        name, net, st, e2e = case[:4]
        # qctl prints no exact value where none is known in closed form
        has_exact = len(case) < 5
        if only and only not in name:
            continue
        path = os.path.join(tmp, "net.json")
        with open(path, "w") as f:
            json.dump(net, f)
        rows = expected_rows(name, net, st, e2e)
        covered = [0] * len(rows)
        zs = [[] for _ in rows]
        for seed in range(1, seeds + 1):
            out = subprocess.run([qctl, "sim", "network", path, "--json", "--quiet",
                                  "--reps", str(reps), "--customers", str(cust),
                                  "--seed", str(seed), "-j", "2"],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                print("%s seed %d: exit %d: %s" % (name, seed, out.returncode, out.stderr))
                return 1
            doc = json.loads(out.stdout)
            for r, (p, v) in enumerate(rows):
                cell = get(doc, p)
                if seed == 1 and not has_exact and cell.get("exact") is not None:
                    print("FAIL %s: %s: qctl prints an exact %s where none is known"
                          % (name, "/".join(p), cell.get("exact")))
                    failed += 1
                if seed == 1 and has_exact:
                    ex = cell.get("exact")
                    if ex is None or abs(ex - v) > 1e-6 * max(abs(v), 1e-9):
                        print("FAIL %s: %s: qctl's exact %s, the reference %.9g"
                              % (name, "/".join(p), ex, v))
                        failed += 1
                if cell.get("ci_low") is not None and cell["ci_low"] <= v <= cell["ci_high"]:
                    covered[r] += 1
                if cell.get("ci_low") is not None and cell["ci_high"] > cell["ci_low"]:
                    half = (cell["ci_high"] - cell["ci_low"]) / 2
                    zs[r].append(((cell["ci_high"] + cell["ci_low"]) / 2 - v) / half)
        nflag = 0
        for r, (p, v) in enumerate(rows):
            lo, hi = wilson(covered[r], seeds)
            frac = covered[r] / seeds
            ok = frac >= minimum
            text, flag = diagnose(zs[r], reps)
            nflag += flag != ""
            print("%-4s %-28s %-36s exact %-10.6g covered %3d/%d = %.3f [%.3f, %.3f] %s%s"
                  % ("ok" if ok else "FAIL", name, "/".join(p[1:]), v, covered[r], seeds, frac,
                     lo, hi, text, " " + flag.upper() if flag else ""))
            failed += not ok
        # the case's metrics pooled (they share seeds, so are correlated:
        # the interval is narrower than the evidence), and how many of
        # them an interval of exactly the nominal 95% would leave below
        # the minimum by chance alone at this many seeds
        k, n = sum(covered), seeds * len(rows)
        lo, hi = wilson(k, n)
        p_below = sum(math.comb(seeds, x) * 0.95 ** x * 0.05 ** (seeds - x)
                      for x in range(seeds + 1) if x / seeds < minimum)
        print("     %-28s pooled over %d metrics: %.3f [%.3f, %.3f]; %d below %.2f, "
              "%.1f expected of an exact 95%% interval; %d named biased or narrow"
              % (name, len(rows), k / n, lo, hi, sum(c / seeds < minimum for c in covered),
                 minimum, p_below * len(rows), nflag))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
