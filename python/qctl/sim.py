# SPDX-License-Identifier: GPL-3.0-or-later
"""qctl.sim: qctl's simulations from Python.

    r = qctl.sim.queue(arrival="exp:0.9", service="exp:1", customers=10**6, reps=10, seed=1)
    print(r)                       # the table `qctl sim queue` prints
    r["response_time"].value, r["response_time"].ci, r["response_time"].exact
    r.to_dict(); r.to_frame()      # the latter with pandas installed

The arguments are the command's flags (--arrival is arrival=, --series-dt
is series_dt=), checked as the command checks them, with its messages
(ValueError). The same seed gives the same estimates as the command,
digit for digit: both call qc_queue_run on the same parameters.
"""
import math

import numpy as np

from . import dist as _dist
from ._native import bad, check, cstr, ffi, lib, new_err, run_interruptible

_LABELS = ["response time", "waiting time", "number in system", "utilization", "throughput",
           "blocking probability", "response time p50", "response time p95",
           "response time p99"]


def _metric_names():
    return [ffi.string(lib.qc_queue_metric_name(i)).decode() for i in range(lib.QC_QM_COUNT)]


class Estimate:
    """One metric: value (the point estimate), its confidence interval
    (lo, hi, half-width; NaN when there is none), the level, the number n
    of independent values it rests on, and the exact value where a closed
    form exists (NaN otherwise; inf when infinite)."""

    __slots__ = ("name", "label", "value", "lo", "hi", "half", "level", "n", "exact")

    def __init__(self, name, label, ci, exact):
        self.name, self.label = name, label
        self.value, self.lo, self.hi, self.half = ci.mean, ci.lo, ci.hi, ci.half
        self.level, self.n, self.exact = ci.level, int(ci.n), exact

    @property
    def ci(self):
        return (self.lo, self.hi)

    def covers(self, x=None):
        """Whether the interval holds x (default: the exact value)."""
        x = self.exact if x is None else x
        return bool(self.lo <= x <= self.hi)

    def to_dict(self):
        return {"value": self.value, "ci_low": self.lo, "ci_high": self.hi,
                "half_width": self.half, "level": self.level, "n": self.n, "exact": self.exact}

    def __repr__(self):
        return "Estimate(%s=%s, ci=%s%s)" % (
            self.name, _num_words(self.value), _ci_words(self),
            "" if math.isnan(self.exact) else ", exact=%s" % _num_words(self.exact))


class QueueResult:
    """What qctl.sim.queue returns: the estimates by metric name
    (result["response_time"], or result.metrics) and the run's facts."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __getitem__(self, name):
        return self.metrics[name]

    def __iter__(self):
        return iter(self.metrics.values())

    def to_dict(self):
        """The summary, with the fields of `qctl sim queue --json`'s model,
        run and metrics that a Python user reads."""
        return {
            "command": "sim queue",
            "model": {"arrival": self.arrival, "service": self.service,
                      "arrival_canonical": self.arrival_canonical,
                      "service_canonical": self.service_canonical,
                      "servers": self.servers, "capacity": self.capacity,
                      "discipline": self.discipline, "load": self.load,
                      "exact_model": self.exact_model},
            "run": {"customers": self.customers, "time": self.time, "reps": self.reps,
                    "seed": self.seed, "confidence": self.level, "ci_method": self.ci_method,
                    "warmup": {"method": self.warmup_method,
                               "customers_cut": self.warmup_customers,
                               "time_cut": self.warmup_time,
                               "chunks_cut": self.warmup_chunks},
                    "batches": self.batches, "transient": self.transient_reason or None,
                    "measured_customers": self.measured, "events": self.events,
                    "simulated_time": self.sim_time},
            "metrics": {k: v.to_dict() for k, v in self.metrics.items()},
        }

    def to_frame(self):
        """The metrics as a pandas DataFrame, one row per metric (needs
        pandas: Debian's python3-pandas)."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("to_frame needs pandas (apt-get install python3-pandas); "
                              "to_dict() needs nothing") from e
        rows = {k: v.to_dict() for k, v in self.metrics.items()}
        return pd.DataFrame.from_dict(rows, orient="index")

    def __str__(self):
        """The table `qctl sim queue` prints for the same run."""
        out = []
        cap = str(self.capacity) if self.capacity else "unlimited"
        out.append("G/G/c/K queue: arrival %s, service %s, c = %u, K = %s, %s; offered load %.4g"
                   % (self.arrival, self.service, self.servers, cap,
                      "PS" if self.discipline == "ps" else "FCFS", self.load))
        line = "%u replication%s of " % (self.reps, "s" if self.reps > 1 else "")
        if self.time is None:
            line += "%d customers" % self.customers
        else:
            line += "time %g" % self.time
        per = " per replication" if self.reps > 1 else ""
        if self.warmup_method == "mser":
            line += "; warm-up cut by MSER on the %s: %.0f customers, time %.4g%s" % (
                "other replications' mean" if self.reps > 1 else "run",
                self.warmup_customers, self.warmup_time, per)
        else:
            line += "; fixed warm-up: %.0f customers, time %.4g%s" % (
                self.warmup_customers, self.warmup_time, per)
        out.append(line)
        if self.batches:
            out.append("CI by batch means: %d batches, %s (von Neumann statistic %.2f)" % (
                self.batches,
                "independent by von Neumann's test" if self.batches_independent
                else "NOT independent even at 8 batches: intervals may be too narrow; run longer",
                self.von_neumann))
        else:
            out.append("CI by replications")
        if self.precision:
            if self.precision_met:
                out.append("precision %g%% reached with %d customers%s (%d simulated in all rounds)"
                           % (100 * self.precision, self.customers * self.reps,
                              " in all replications" if self.reps > 1 else "",
                              self.total_customers))
            else:
                out.append("precision %g%% NOT reached within --max-customers/--max-reps: "
                           "stopped at %u replication%s of %d customers"
                           % (100 * self.precision, self.reps, "s" if self.reps > 1 else "",
                              self.customers))
        if self.transient:
            out.append("TRANSIENT, NOT A STEADY STATE: %s" % self.transient_reason)
        out.append("")
        out.append("%-22s %14s   %-32s %s" % ("metric", "estimate",
                                              "%g%% confidence interval" % (100 * self.level),
                                              "exact"))
        for m in self.metrics.values():
            if math.isinf(m.value):
                est, ci = "infinite", "no mean exists (see below)"
            elif math.isnan(m.value):
                est, ci = "none", "nothing measured"
            else:
                est = "%.6g" % m.value
                if math.isnan(m.half):
                    ci = "no interval from %d value%s" % (m.n, "" if m.n == 1 else "s")
                else:
                    ci = "[%.6g, %.6g]" % (m.lo, m.hi)
            e = m.exact
            exs = "infinite" if math.isinf(e) else "-" if math.isnan(e) else "%.6g" % e
            out.append("%-22s %14s   %-32s %s" % (m.label, est, ci, exs))
        if self.infinite_reason:
            out.append("")
            out.append("No finite mean: %s." % self.infinite_reason)
        if self.exact_model:
            out.append("")
            out.append("exact: %s closed form%s" % (
                self.exact_model,
                " (means only)" if math.isnan(list(self.metrics.values())[6].exact) else ""))
        return "\n".join(out)

    def __repr__(self):
        return self.__str__()


def _num_words(x):
    """A number as qctl prints it: never 'nan'."""
    if math.isnan(x):
        return "none"
    if math.isinf(x):
        return "infinite" if x > 0 else "-infinite"
    return "%.6g" % x


def _ci_words(m):
    if math.isnan(m.value):
        return "nothing measured"
    if math.isnan(m.half):
        return "no interval from %d value%s" % (m.n, "" if m.n == 1 else "s")
    return "[%.6g, %.6g]" % (m.lo, m.hi)


def _int(flag, v, lo=0):
    if isinstance(v, bool) or not isinstance(v, int):
        if isinstance(v, float) and v.is_integer() and 0 <= v <= 2 ** 53:
            v = int(v)
        else:
            raise bad("%s: '%s' is not a whole number in [0, 2^53]" % (flag, v))
    if v < 0 or v > 2 ** 53:
        raise bad("%s: '%s' is not a whole number in [0, 2^53]" % (flag, v))
    return v


def _num(flag, v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise bad("%s: '%s' is not a number" % (flag, v)) from None
    if not math.isfinite(x):
        raise bad("%s: '%s' is not a finite number" % (flag, v))
    return x


def queue(arrival, service, servers=1, capacity=None, discipline="fcfs", customers=None,
          time=None, warmup="auto", reps=1, seed=1, confidence=0.95, precision=None,
          max_customers=None, max_reps=None, series_dt=None):
    """Simulates the G/G/c/K queue as `qctl sim queue` does with the same
    flags (see its --help): arrival and service are specs (or qctl.dist
    objects for service), capacity None is unlimited, customers defaults
    to 100000 unless time= is given. Returns a QueueResult. Bad arguments
    raise ValueError with the command's message; an unstable queue
    (offered load >= 1, no capacity) raises qctl.QctlError (EUNSTABLE).
    series_dt > 0 records the number in system of replication 1 in bins of
    that width: result.series is then a dict of numpy arrays t (end of
    the bin), mean (time average over the bin), n (number at its end).
    The GIL is released while it runs; Ctrl-C interrupts the wait."""
    p = ffi.new("qc_queue_params *")
    lib.qc_queue_params_init(p)
    p.servers = _int("--servers", servers)
    if capacity is not None and capacity not in ("inf", "unlimited"):
        p.capacity = _int("--capacity", capacity)
        if p.capacity == 0:
            raise bad("--capacity: must be at least the number of servers (or 'inf')")
    if discipline == "fcfs":
        p.discipline = lib.QC_FCFS
    elif discipline == "ps":
        p.discipline = lib.QC_PS
    else:
        raise bad("--discipline: '%s' is not fcfs or ps" % discipline)
    if customers is not None:
        p.customers = _int("--customers", customers)
        if p.customers == 0:
            raise bad("--customers: must be at least 1 (or give --time for a run in time)")
    if time is not None:
        p.horizon = _num("--time", time)
    p.reps = _int("--reps", reps)
    p.seed = _int("--seed", seed)
    p.level = _num("--confidence", confidence)
    if precision is not None:
        p.precision = _num("--precision", precision)
        if not (0 < p.precision < 1):
            raise bad("--precision: %s is not a relative half-width in (0, 1), e.g. 0.01"
                      % precision)
    if max_customers is not None:
        p.max_customers = _int("--max-customers", max_customers)
    if max_reps is not None:
        p.max_reps = _int("--max-reps", max_reps)
    if p.customers == 0 and p.horizon == 0:
        p.customers = 100000
    if (p.max_customers or p.max_reps) and p.precision == 0:
        raise bad("--%s: only with --precision"
                  % ("max-customers" if p.max_customers else "max-reps"))
    if p.precision > 0:
        if p.horizon > 0:
            raise bad("--precision: needs the run length in customers (--customers), not --time")
        if p.max_customers == 0:
            p.max_customers = 1000000000
        if p.max_reps == 0:
            p.max_reps = 10000
        if p.max_reps < p.reps:
            raise bad("--max-reps: %u is fewer than the %u replications of --reps"
                      % (p.max_reps, p.reps))
        if p.max_customers < p.customers * p.reps:
            raise bad("--max-customers: %d is fewer than the first round's %d"
                      % (p.max_customers, p.customers * p.reps))
    if p.horizon < 0:
        raise bad("--time: must be > 0")
    if series_dt is not None:
        p.series_dt = _num("--series-dt", series_dt)
        if not p.series_dt > 0:
            raise bad("--series-dt: must be > 0")
    if warmup in ("auto", "mser", "mser5"):
        p.warmup_mode = lib.QC_WARMUP_MSER5
    else:
        p.warmup_mode = lib.QC_WARMUP_FIXED
        p.warmup = _num("--warmup", warmup)
        if p.warmup < 0 or (p.customers and p.warmup != math.floor(p.warmup)):
            raise bad("--warmup: '%s' must be 'auto' or a non-negative %s"
                      % (warmup, "whole number of customers" if p.customers else "time"))
        length = float(p.customers) if p.customers else p.horizon
        unit = "customers" if p.customers else "s"
        if p.warmup > length:
            raise bad("--warmup: a warm-up of %g %s is longer than the %g %s measured after it; "
                      "lengthen the run or give --force" % (p.warmup, unit, length, unit))

    err = new_err()
    if not isinstance(arrival, str):
        raise bad("--arrival: a spec such as 'exp:0.9' (a string)")
    arr = ffi.new("qc_arrivals *")
    check(lib.qc_arrivals_parse(arr, cstr(arrival), err), err, "--arrival: ")
    arr = ffi.gc(arr, lib.qc_arrivals_free)
    svc = _dist.parse(service, "--service")
    service_spec = svc.spec
    p.arrivals = arr
    p.service = svc._d

    res = ffi.new("qc_queue_result *")
    rc = run_interruptible(lib.qc_queue_run, p, res, err)
    check(rc, err, "sim queue: ")
    try:
        ex = ffi.new("qc_queue_exact *")
        lib.qc_queue_exact_values(p, ex)
        names = _metric_names()
        metrics = {}
        for i, name in enumerate(names):
            metrics[name] = Estimate(name, _LABELS[i], res.metric[i], ex.value[i])
        series = None
        if p.series_dt > 0:
            k = int(res.series_len)
            size = ffi.sizeof("qc_series_point")
            dt = np.dtype({"names": ["t", "mean", "n"],
                           "formats": [np.float64, np.float64, np.uint32],
                           "offsets": [ffi.offsetof("qc_series_point", f)
                                       for f in ("t", "mean", "n")],
                           "itemsize": size})
            raw = np.frombuffer(ffi.buffer(res.series, k * size), dtype=dt, count=k) if k \
                else np.zeros(0, dtype=dt)
            series = {f: raw[f].copy() for f in ("t", "mean", "n")}
        buf = ffi.new("char[]", 1024)
        lib.qc_arrivals_format(arr, buf, 1024)
        arrival_canonical = ffi.string(buf).decode()
        return QueueResult(
            arrival=arrival, service=service_spec, arrival_canonical=arrival_canonical,
            service_canonical=svc.canonical, servers=p.servers,
            capacity=int(p.capacity) or None,
            discipline="ps" if p.discipline == lib.QC_PS else "fcfs",
            load=res.load, exact_model=ffi.string(ex.model).decode() or None,
            customers=int(res.customers) if p.customers else None,
            time=p.horizon if not p.customers else None, reps=res.reps, seed=int(p.seed),
            level=p.level, ci_method=ffi.string(res.ci_method).decode(),
            warmup_method="mser" if p.warmup_mode == lib.QC_WARMUP_MSER5 else "fixed",
            warmup_customers=res.warmup_customers, warmup_time=res.warmup_time,
            warmup_chunks=res.warmup_chunks, batches=int(res.batches),
            batches_independent=bool(res.batches_independent), von_neumann=res.von_neumann,
            precision=p.precision, precision_met=bool(res.precision_met),
            total_customers=int(res.total_customers),
            transient=bool(res.transient),
            transient_reason=ffi.string(res.transient_reason).decode(),
            infinite_reason=ffi.string(res.infinite_reason).decode(),
            measured=int(res.measured), events=int(res.events), sim_time=res.sim_time,
            series=series, metrics=metrics)
    finally:
        lib.qc_queue_result_free(res)


class PoolResult:
    """What qctl.sim.pool returns: r[name] per metric (an Estimate; exact
    is NaN: the pool has no closed form in general) and the run's facts."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __getitem__(self, name):
        return self.metrics[name]

    def to_dict(self):
        return {"command": "sim pool",
                "model": {"servers": self.servers, "policy": self.policy,
                          "arrival": self.arrival, "service": self.service,
                          "setup_time": self.setup_time, "load": self.load},
                "run": {"reps": self.reps, "seed": self.seed, "ci_method": self.ci_method,
                        "measured_customers": self.measured, "events": self.events},
                "metrics": {k: v.to_dict() for k, v in self.metrics.items()}}

    def to_frame(self):
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("to_frame needs pandas (apt-get install python3-pandas)") from e
        return pd.DataFrame.from_dict({k: v.to_dict() for k, v in self.metrics.items()},
                                      orient="index")

    def __repr__(self):
        lines = ["pool of %d servers, %s; arrival %s, service %s, setup %s; load %.4g"
                 % (self.servers, self.policy, self.arrival, self.service, self.setup_time,
                    self.load)]
        for m in self.metrics.values():
            lines.append("%-24s %14s   %s" % (m.name, _num_words(m.value), _ci_words(m)))
        return "\n".join(lines)


def pool(servers, arrival, service="exp:1", setup_time="exp:0.1", policy="djsq", threshold=4,
         idle_timer=0.0, customers=None, time=None, warmup="auto", reps=10, seed=1,
         confidence=0.95, holding=1.0, busy_power=240.0, idle_power=180.0, setup_power=240.0,
         off_power=0.0, switch_cost=0.0, price=1.0):
    """Simulates K removable servers as `qctl sim pool` does with the same
    flags (idle_timer=math.inf or "inf": never switch off). Returns a
    PoolResult; bad arguments raise ValueError with the command's message."""
    p = ffi.new("qc_pool_params *")
    lib.qc_pool_params_init(p)
    p.servers = _int("--servers", servers)
    if not 1 <= p.servers <= lib.QC_POOL_MAX_SERVERS:
        raise bad("--servers: K = %s is not in [1, %d]" % (servers, lib.QC_POOL_MAX_SERVERS))
    err = new_err()
    pol = ffi.new("qc_pool_policy *")
    check(lib.qc_pool_policy_parse(cstr(policy), pol, err), err, "--policy: ")
    p.policy = pol[0]
    p.threshold = _int("--threshold", threshold)
    if p.threshold < 1:
        raise bad("--threshold: T = %s; it must be >= 1 (a job joins a non-empty queue "
                  "only while that queue, with it, holds at most T jobs)" % threshold)
    if idle_timer in ("inf", "never") or idle_timer == math.inf:
        p.idle_timer = math.inf
    else:
        p.idle_timer = _num("--idle-timer", idle_timer)
        if p.idle_timer < 0:
            raise bad("--idle-timer: '%s' is negative" % idle_timer)
    if customers is not None:
        p.customers = _int("--customers", customers)
        if p.customers == 0:
            raise bad("--customers: must be at least 1 (or give --time for a run in time)")
    if time is not None:
        p.horizon = _num("--time", time)
        if not p.horizon > 0:
            raise bad("--time: '%s' must be > 0" % time)
    p.reps = _int("--reps", reps)
    if p.reps < 1:
        raise bad("--reps: must be >= 1")
    p.seed = _int("--seed", seed)
    p.level = _num("--confidence", confidence)
    if not 0 < p.level < 1:
        raise bad("--confidence: '%s' is not in (0, 1)" % confidence)
    watts = []
    for flag, v in (("--holding", holding), ("--busy-power", busy_power),
                    ("--idle-power", idle_power), ("--setup-power", setup_power),
                    ("--off-power", off_power), ("--switch-cost", switch_cost),
                    ("--price", price)):
        x = _num(flag, v)
        if x < 0:
            raise bad("%s: '%s' is negative" % (flag, v))
        watts.append(x)
    if p.customers > 0 and p.horizon > 0:
        raise bad("sim pool: give --customers or --time, not both")
    if warmup == "auto":
        p.transient_mode = lib.QC_POOL_TRANSIENT_AUTO
    else:
        p.transient_mode = lib.QC_POOL_TRANSIENT_FIXED
        p.transient = _num("--warmup", warmup)
        if p.transient < 0 or (p.horizon == 0 and p.transient != math.floor(p.transient)):
            raise bad("--warmup: '%s' must be 'auto' or a non-negative %s"
                      % (warmup, "whole number of customers" if p.horizon == 0 else "time"))
    c = p.cost
    c.holding, c.switch_cost = watts[0], watts[5]
    c.power[0], c.idle_power = watts[1] * watts[6], watts[2] * watts[6]
    c.warm_power, c.off_power = watts[3] * watts[6], watts[4] * watts[6]

    if not isinstance(arrival, str):
        raise bad("--arrival: a spec such as 'exp:0.9' (a string)")
    arr = ffi.new("qc_arrivals *")
    check(lib.qc_arrivals_parse(arr, cstr(arrival), err), err, "--arrival: ")
    arr = ffi.gc(arr, lib.qc_arrivals_free)
    svc = _dist.parse(service, "--service")
    wup = _dist.parse(setup_time, "--setup-time")
    p.arrival, p.service, p.warmup = arr, svc._d, wup._d
    if p.customers == 0 and p.horizon == 0:
        p.customers = 100000  # (a trace:FILE run measures the whole trace in the command)
    if p.transient_mode == lib.QC_POOL_TRANSIENT_FIXED:
        length = p.horizon if p.horizon > 0 else float(p.customers)
        unit = "s" if p.horizon > 0 else "customers"
        if p.transient > length:
            raise bad("--warmup: a warm-up of %g %s is longer than the %g %s measured after it; "
                      "lengthen the run or give --force" % (p.transient, unit, length, unit))

    res = ffi.new("qc_pool_result *")
    check(run_interruptible(lib.qc_pool_run, p, res, err), err, "sim pool: ")
    try:
        metrics = {}
        for i in range(lib.QC_PM_COUNT):
            name = ffi.string(lib.qc_pool_metric_name(i)).decode()
            metrics[name] = Estimate(name, name.replace("_", " "), res.metric[i], math.nan)
        return PoolResult(
            servers=p.servers, policy=ffi.string(lib.qc_pool_policy_name(p.policy)).decode(),
            arrival=arrival, service=svc.spec, setup_time=wup.spec, load=res.load,
            reps=p.reps, seed=int(p.seed), ci_method=ffi.string(res.ci_method).decode(),
            warmup_customers=res.transient_customers, warmup_time=res.transient_time,
            measured=int(res.measured), events=int(res.events), sim_time=res.sim_time,
            metrics=metrics)
    finally:
        lib.qc_pool_result_free(res)


class MaxUsersPlant:
    """The closed-population server of `qctl sim maxusers` (qctl/maxusers.h)
    as a plant a Python loop steps: step(maxusers) simulates one control
    interval with that MaxUsers and returns its sample (a dict: t,
    maxusers, ris, ris_now, ris_logged, throughput, response, connected,
    connected_peak, waiting, completed, connects). Drive it with
    qctl.control.MaxUsers, or with a controller of your own. Defaults are
    the command's (think exp:0.2, service exp:2.5, session exp:0.0008333,
    off exp:0.0016667, retry det:30, interval 60)."""

    def __init__(self, population=1000, threads=4, think="exp:0.2", service="exp:2.5",
                 session="exp:0.0008333", off="exp:0.0016667", retry="det:30",
                 interval=60.0, discipline="ps", maxusers_max=None, maxusers_init=None,
                 seed=1, rep=0):
        p = ffi.new("qc_maxusers_params *")
        lib.qc_maxusers_params_init(p)
        p.population = _int("--population", population)
        p.threads = _int("--threads", threads)
        if discipline not in ("fcfs", "ps"):
            raise bad("--discipline: '%s' is not fcfs or ps" % discipline)
        p.discipline = lib.QC_PS if discipline == "ps" else lib.QC_FCFS
        self._d = [_dist.parse(think, "--think"), _dist.parse(service, "--service"),
                   _dist.parse(session, "--session"), _dist.parse(off, "--off"),
                   _dist.parse(retry, "--retry")]
        p.think, p.service, p.session, p.off, p.retry = [d._d for d in self._d]
        p.interval = _num("--interval", interval)
        if maxusers_max is not None:
            p.maxusers_max = _num("--maxusers-max", maxusers_max)
        if maxusers_init is not None:
            p.maxusers_init = _num("--maxusers-init", maxusers_init)
        p.seed = _int("--seed", seed)
        p.rep = _int("rep", rep)
        err = new_err()
        m = lib.qc_maxusers_alloc(p, err)
        if m == ffi.NULL:
            check(err.code or -1, err, "sim maxusers: ")
        self._m = ffi.gc(m, lib.qc_maxusers_free)
        self._p = p
        self._out = ffi.new("qc_maxusers_sample *")

    def step(self, maxusers):
        rc = lib.qc_maxusers_step(self._m, float(maxusers), self._out)
        if rc < 0:
            raise bad("maxusers: %r is not a usable limit" % maxusers)
        o = self._out
        return {k: getattr(o, k) for k in ("t", "maxusers", "ris", "ris_now", "ris_logged",
                                           "throughput", "response", "connected",
                                           "connected_peak", "waiting", "completed",
                                           "connects")}
