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
import numbers

import numpy as np

from . import dist as _dist
from ._native import (QctlShortRunError, bad, check, cstr, existing_path, ffi, lib,
                      new_cancel, new_err, run_interruptible)
from .result import (CI_KEYS, Estimate, Result, frame, intervals, is_interval,  # noqa: F401
                     num_words as _num_words, result_doc as _result_doc)


class QueueResult(Result):
    """What qctl.sim.queue returns: the document of `qctl sim queue --json`
    (qctl.result.Result): result["response_time"] an Estimate, result.load,
    result.reps ... its facts, result.series replication 1's number in
    system (numpy arrays) when series_dt was given."""

    def __str__(self):
        """The table `qctl sim queue` prints for the same run."""
        model, run, ms = self.model, self.run, self.metrics
        out = []
        cap = str(model["capacity"]) if model["capacity"] else "unlimited"
        out.append("G/G/c/K queue: arrival %s, service %s, c = %u, K = %s, %s; offered load %.4g"
                   % (model["arrival"], model["service"], model["servers"], cap,
                      "PS" if model["discipline"] == "ps" else "FCFS", model["load"]))
        reps = run["reps"]
        line = "%u replication%s of " % (reps, "s" if reps > 1 else "")
        line += "%d customers" % run["customers"] if "customers" in run else "time %g" % run["time"]
        per = " per replication" if reps > 1 else ""
        wu = run["warmup"]
        if wu["method"] == "mser":
            line += "; warm-up cut by MSER on the %s: %.0f customers, time %.4g%s" % (
                "other replications' mean" if reps > 1 else "run",
                wu["customers_cut"], wu["time_cut"], per)
        else:
            line += "; fixed warm-up: %.0f customers, time %.4g%s" % (
                wu["customers_cut"], wu["time_cut"], per)
        out.append(line)
        bm = run.get("batch_means")
        if bm:
            out.append("CI by batch means: %d batches, %s (von Neumann statistic %.2f)" % (
                bm["batches"],
                "independent by von Neumann's test" if bm["independent"]
                else "NOT independent even at 8 batches: intervals may be too narrow; run longer",
                bm["von_neumann_statistic"]))
        else:
            out.append("CI by replications")
        pr = run.get("precision")
        if pr:
            per_rep = pr["customers_per_replication"]
            if pr["reached"]:
                out.append("precision %g%% reached with %d customers%s (%d simulated in all rounds)"
                           % (100 * pr["relative_half_width"], per_rep * pr["replications"],
                              " in all replications" if pr["replications"] > 1 else "",
                              pr["customers_all_rounds"]))
            else:
                out.append("precision %g%% NOT reached within --max-customers/--max-reps: "
                           "stopped at %u replication%s of %d customers"
                           % (100 * pr["relative_half_width"], pr["replications"],
                              "s" if pr["replications"] > 1 else "", per_rep))
        if run.get("transient"):
            out.append("TRANSIENT, NOT A STEADY STATE: %s" % run["transient"])
        out.append("")
        out.append("%-22s %14s   %-32s %s" % ("metric", "estimate",
                                              "%g%% confidence interval" % (100 * run["confidence"]),
                                              "exact"))
        infinite_reason = None
        for name, m in ms.items():
            d = m._doc
            if math.isinf(m.value):
                est, ci = "infinite", "no mean exists (see below)"
                infinite_reason = d.get("reason")
            elif math.isnan(m.value):
                est, ci = "none", "nothing measured"
            else:
                est = "%.6g" % m.value
                if "rare_events" in d:
                    # as the command: too few blocked (waiting) customers
                    if name == "utilization":
                        ci = "no interval: %d found a server free (<%d)" % (d["rare_events"], 500)
                    else:
                        ci = "no interval: %d %s (<%d)" % (
                            d["rare_events"],
                            "blocked" if name == "blocking_probability" else "waited", 50)
                elif (math.isnan(m.half) and name.startswith("response_time_p")
                      and (bm or reps > 1)):
                    ci = "no interval: run too short"
                elif math.isnan(m.half):
                    ci = "no interval from %d value%s" % (m.n, "" if m.n == 1 else "s")
                else:
                    ci = "[%.6g, %.6g]" % (m.lo, m.hi)
            e = m.exact
            exs = "infinite" if math.isinf(e) else "-" if math.isnan(e) else "%.6g" % e
            out.append("%-22s %14s   %-32s %s" % (_LABELS.get(name, name.replace("_", " ")),
                                                  est, ci, exs))
        if infinite_reason:
            out.append("")
            out.append("No finite mean: %s." % infinite_reason)
        if model["exact_model"]:
            out.append("")
            out.append("exact: %s closed form%s" % (
                model["exact_model"],
                " (means only)" if math.isnan(ms["response_time_p50"].exact) else ""))
        return "\n".join(out)

    def __repr__(self):
        return self.__str__()


# The table's words for a metric where they are not its name's.
_LABELS = {"response_time_p50": "response time p50", "response_time_p95": "response time p95",
           "response_time_p99": "response time p99"}


def ci_dict(ci, exact=None):
    """A qc_ci (or anything with mean, lo, hi, half, level, n) in the one
    interval shape, None for what is not finite; "exact" added when given."""
    f = _finite_or_none
    d = dict(zip(CI_KEYS, (f(ci.mean), f(ci.lo), f(ci.hi), f(ci.half), ci.level, int(ci.n))))
    if exact is not None:
        d["exact"] = exact
    return d


def _json_ci(e):
    """An Estimate as the command's JSON interval (ci_dict)."""
    return ci_dict(e)


def _finite_or_none(x):
    return x if x is not None and math.isfinite(x) else None


def _ci_words(m):
    if math.isnan(m.value):
        return "nothing measured"
    if math.isnan(m.half):
        return "no interval from %d value%s" % (m.n, "" if m.n == 1 else "s")
    return "[%.6g, %.6g]" % (m.lo, m.hi)


def _int(flag, v, lo=0):
    """A whole number in [0, 2^53]: a Python int, any numpy integer
    (np.int64(2)), or a float that is whole; never a bool."""
    if isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)):
        v = int(v)
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
          max_customers=None, max_reps=None, series_dt=None, allow_short=False):
    """Simulates the G/G/c/K queue as `qctl sim queue` does with the same
    flags (see its --help): arrival and service are specs (or qctl.dist
    objects for service), capacity None is unlimited, customers defaults
    to 100000 unless time= is given. Returns a QueueResult. Bad arguments
    raise ValueError with the command's message; an unstable queue
    (offered load >= 1, no capacity) raises qctl.QctlError (EUNSTABLE).
    series_dt > 0 records the number in system of replication 1 in bins of
    that width: result.series is then a dict of numpy arrays t (end of
    the bin), mean (time average over the bin), n (number at its end).
    A run too short to support its intervals raises QctlShortRunError
    (the command's exit status 1), its .result with the intervals
    withheld; allow_short=True (--allow-short) returns them marked
    unreliable.
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
    cancel = new_cancel()
    p.cancel = cancel
    rc = run_interruptible(lib.qc_queue_run, p, res, err, cancel=cancel)
    check(rc, err, "sim queue: ")
    try:
        ex = ffi.new("qc_queue_exact *")
        lib.qc_queue_exact_values(p, ex)
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
        specs = [ffi.new("char[]", cstr(x)) for x in (arrival, service_spec)]
        o = ffi.new("qc_queue_json_opts *")
        o.arrival, o.service = specs
        o.allow_short = bool(allow_short)
        doc = _result_doc(lib.qc_queue_result_json(p, res, ex, o, 0.0), "sim queue")
        r = QueueResult(doc, series=series)
        return _short_verdict(r, doc["run"]["interval_support"], "sim queue")
    finally:
        lib.qc_queue_result_free(res)


class PoolResult(Result):
    """What qctl.sim.pool returns: the document of `qctl sim pool --json`
    (qctl.result.Result; the pool has no closed form in general, so no
    metric has an exact value); with compare=True, result.comparison maps
    each policy to its metrics (Estimates by name)."""

    # the metrics of --compare's rows, as the command writes them
    COMPARED = ("average_cost", "holding_cost", "mean_power", "setup_cost", "response_time",
                "response_time_p95", "servers_on", "switch_ons_per_hour")

    def to_dict(self):
        d = self._doc
        if self.comparison is not None:
            d = dict(d)
            d["comparison"] = [
                dict({"policy": pol}, **{k: _json_ci(m[k]) for k in self.COMPARED})
                for pol, m in self.comparison.items()]
        return d

    def __repr__(self):
        m = self.model
        lines = ["pool of %d servers, %s; arrival %s, service %s, setup %s; load %.4g"
                 % (m["servers"], m["policy"], m["arrival"], m["service"], m["setup_time"],
                    m["load"])]
        for e in self.metrics.values():
            lines.append("%-24s %14s   %s" % (e.name, _num_words(e.value), _ci_words(e)))
        return "\n".join(lines)


def pool(servers, arrival, service="exp:1", setup_time="exp:0.1", policy="djsq", threshold=4,
         idle_timer=0.0, customers=None, time=None, warmup="auto", reps=10, seed=1,
         confidence=0.95, holding=1.0, busy_power=240.0, idle_power=180.0, setup_power=240.0,
         off_power=0.0, switch_cost=0.0, price=1.0, compare=False, allow_short=False):
    """Simulates K removable servers as `qctl sim pool` does with the same
    flags (idle_timer=math.inf or "inf": never switch off). Returns a
    PoolResult; bad arguments raise ValueError with the command's message.
    compare=True is --compare: every other policy runs on the same input
    and seed, and result.comparison maps each policy's name (the run's
    own first, then the library's order) to its metrics (Estimates by
    name); to_dict()["comparison"] is the command's JSON array. A run
    too short for its intervals: as qctl.sim.queue (allow_short)."""
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
        p.warmup_mode = lib.QC_WARMUP_MSER5
    else:
        p.warmup_mode = lib.QC_WARMUP_FIXED
        p.warmup = _num("--warmup", warmup)
        if p.warmup < 0 or (p.horizon == 0 and p.warmup != math.floor(p.warmup)):
            raise bad("--warmup: '%s' must be 'auto' or a non-negative %s"
                      % (warmup, "whole number of customers" if p.horizon == 0 else "time"))
    c = p.cost
    c.holding, c.switch_cost = watts[0], watts[5]
    c.power[0], c.idle_power = watts[1] * watts[6], watts[2] * watts[6]
    c.setup_power, c.off_power = watts[3] * watts[6], watts[4] * watts[6]

    if not isinstance(arrival, str):
        raise bad("--arrival: a spec such as 'exp:0.9' (a string)")
    arr = ffi.new("qc_arrivals *")
    check(lib.qc_arrivals_parse(arr, cstr(arrival), err), err, "--arrival: ")
    arr = ffi.gc(arr, lib.qc_arrivals_free)
    svc = _dist.parse(service, "--service")
    wup = _dist.parse(setup_time, "--setup-time")
    p.arrival, p.service, p.setup = arr, svc._d, wup._d
    if p.customers == 0 and p.horizon == 0:
        p.customers = 100000  # (a trace:FILE run measures the whole trace in the command)
    if p.warmup_mode == lib.QC_WARMUP_FIXED:
        length = p.horizon if p.horizon > 0 else float(p.customers)
        unit = "s" if p.horizon > 0 else "customers"
        if p.warmup > length:
            raise bad("--warmup: a warm-up of %g %s is longer than the %g %s measured after it; "
                      "lengthen the run or give --force" % (p.warmup, unit, length, unit))

    res = ffi.new("qc_pool_result *")
    cancel = new_cancel()
    p.cancel = cancel
    check(run_interruptible(lib.qc_pool_run, p, res, err, cancel=cancel), err, "sim pool: ")
    try:
        comparison = None
        if compare:
            cmp = ffi.new("qc_pool_comparison *")
            check(run_interruptible(lib.qc_pool_compare, p, cmp, err, cancel=cancel), err,
                  "sim pool: --compare: ")
            try:
                comparison = {_policy_name(p.policy): _pool_metrics(res)}
                for i in range(cmp.n):
                    comparison[_policy_name(cmp.policy[i])] = _pool_metrics(cmp.result[i])
            finally:
                lib.qc_pool_comparison_free(cmp)
        specs = [ffi.new("char[]", cstr(x)) for x in (arrival, svc.spec, wup.spec)]
        o = ffi.new("qc_pool_json_opts *")
        o.arrival, o.service, o.setup = specs
        o.price = watts[6]
        o.allow_short = bool(allow_short)
        for i in range(4):
            o.watts[i] = watts[1 + i]
        doc = _result_doc(lib.qc_pool_result_json(p, res, o, 0.0), "sim pool")
        r = PoolResult(doc, comparison=comparison)
        return _short_verdict(r, doc["run"]["interval_support"], "sim pool")
    finally:
        lib.qc_pool_result_free(res)


def _policy_name(pol):
    return ffi.string(lib.qc_pool_policy_name(pol)).decode()


def _pool_metrics(res):
    metrics = {}
    for i in range(lib.QC_PM_COUNT):
        name = ffi.string(lib.qc_pool_metric_name(i)).decode()
        metrics[name] = Estimate(name, name.replace("_", " "), res.metric[i], math.nan)
    return metrics


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


# ---- whether a run supports its intervals (the commands' --allow-short) ---------------

def _short_verdict(result, sup, cmd):
    """The command's exit status 1 for a run too short for its intervals
    (without allow_short): QctlShortRunError with the command's message,
    carrying the result (intervals withheld)."""
    if not sup["supported"] and not sup["allowed_short"]:
        raise QctlShortRunError("%s: the run is too short for its intervals: %s "
                                "(allow_short=True keeps them marked unreliable)"
                                % (cmd, sup["reason"]), result)
    return result


# ---- the whole MaxUsers run: `qctl sim maxusers` --------------------------------------

def _struct_array(ptr, n, ctype, fields, ints=()):
    """n C structs at ptr as a dict of numpy arrays (copies), one per field
    (double, or uint64 for those in ints)."""
    if n == 0:
        return {f: np.zeros(0) for f in fields}
    size = ffi.sizeof(ctype)
    fmt = [np.uint64 if f in ints else np.float64 for f in fields]
    dt = np.dtype({"names": list(fields), "formats": fmt,
                   "offsets": [ffi.offsetof(ctype, f) for f in fields], "itemsize": size})
    raw = np.frombuffer(ffi.buffer(ptr, n * size), dtype=dt, count=n)
    return {f: raw[f].copy() for f in fields}


def _sched(flag, spec):
    pts = ffi.new("qc_sched_point[64]")
    n = ffi.new("size_t *")
    err = new_err()
    if not isinstance(spec, str):
        spec = str(spec)
    check(lib.qc_sched_parse(cstr(spec), pts, 64, n, err), err, flag + ": ")
    return pts, int(n[0])


def _choice(flag, v, names, words):
    if v not in names:
        raise bad("%s: '%s' is not %s" % (flag, v, words))
    return names[v]


_MU_SERIES = ("maxusers", "ris", "ris_now", "ris_logged", "throughput", "response",
              "connected", "waiting")


class MaxUsersResult(Result):
    """What qctl.sim.maxusers returns: the document of `qctl sim maxusers
    --json` (qctl.result.Result: run, interval_support, steps, summary);
    steps (the document's, each with the per-replication values in
    settling, overshoot and sse: numpy arrays over replications), series
    (the first replication's `--series` CSV as numpy arrays: time,
    reference, maxusers, ris, ris_now, ris_logged, throughput, response,
    connected, waiting; one row per sample instant k = 0..n),
    logged_ris_bound; to_frame() every interval (each step's and the
    summary's: an open-loop run, with no steps, still has its fractions
    saturated and held)."""

    @property
    def steps(self):
        return [dict(st, **{k: v[i] for k, v in self.rep_values.items()})
                for i, st in enumerate(self._doc["steps"])]

    def __repr__(self):
        run = self.run
        lines = ["MaxUsers server: %d users, %s control, %d replication%s"
                 % (run["population"], run["controller"], run["reps"],
                    "" if run["reps"] == 1 else "s")]
        for st in self._doc["steps"]:
            lines.append("  step to %g at t=%g: settling %s s, overshoot %s%%, "
                         "steady-state error %s" % (
                             st["reference"], st["t_start"], _num_words(_nan(st["settling_time"])),
                             _num_words(_nan(st["overshoot_percent"])),
                             _num_words(_nan(st["steady_state_error"]))))
        s = self.summary
        lines.append("  saturated %.1f%%, held %.1f%%; throughput %s RPC/s" % (
            100 * _nan(s["fraction_saturated"]), 100 * _nan(s["fraction_held"]),
            _num_words(_nan(s["throughput"]))))
        return "\n".join(lines)


def _nan(x):
    return math.nan if x is None else x


def maxusers(population=1000, threads=4, discipline="ps", think="exp:0.2", service="exp:2.5",
             session="exp:0.0008333", off="exp:0.0016667", retry="det:30", interval=60.0,
             maxusers_max=None, controller="integral", ki=0.1, kp=0.0, antiwindup="conditional",
             kaw=1.0, sensor="true", sensor_gain=1.0, sensor_offset=0.0, reference="325",
             maxusers="375", excite=None, amplitude=50.0, hold=3, duration=14400.0,
             warmup=0.0, band=None, seed=1, reps=1, confidence=0.95, jobs=None,
             allow_short=False):
    """Runs `qctl sim maxusers` with the same flags (reference and
    maxusers are schedules: a number or "V@T,V@T,..."; excite prbs,
    uniform or steps with controller="open"): the closed-population
    server under integral or PI control of its MaxUsers, or open loop.
    Replications run on `jobs` threads (default: the online cores; the
    result is the same for any number). Returns a MaxUsersResult; bad
    arguments raise ValueError with the command's message. A run too short
    for its intervals over replications (qc_mu_run_support: the verdict of
    the command, in result.interval_support) raises QctlShortRunError, as
    the command exits 1; allow_short=True (--allow-short) returns it with
    its intervals marked "unreliable". A reference
    the logged sensor cannot read gives the command's warning
    (warnings.warn). Ctrl-C stops the run (KeyboardInterrupt)."""
    import os
    import warnings
    p = ffi.new("qc_mu_run_params *")
    lib.qc_maxusers_params_init(ffi.addressof(p, "plant"))
    pl = p.plant
    pl.population = _int("--population", population)
    pl.threads = _int("--threads", threads)
    pl.discipline = _choice("--discipline", discipline, {"ps": lib.QC_PS, "fcfs": lib.QC_FCFS},
                            "ps or fcfs")
    pl.interval = _num("--interval", interval)
    umax = -1.0 if maxusers_max is None else _num("--maxusers-max", maxusers_max)
    if controller == "integral":
        p.closed_loop = 1
    elif controller == "pi":
        p.closed_loop = 1
    elif controller == "open":
        p.closed_loop = 0
    else:
        raise bad("--controller: '%s' is not integral, pi or open" % controller)
    ki_arg, kp_arg = ki, kp  # as given, for the messages
    ki = _num("--ki", ki)
    if not (0 < ki <= 1e6):
        raise bad("--ki: %s is not in (0, 1e6]: a gain <= 0 is no control or positive "
                  "feedback (--controller open runs without one), a larger one moves "
                  "MaxUsers across any population in one interval ('qctl design' gives "
                  "stable gains)" % ki_arg)
    kp = _num("--kp", kp)
    if not (0 <= kp <= 1e6):
        raise bad("--kp: %s is not in [0, 1e6]" % kp_arg)
    if controller == "integral":
        kp = 0.0
    aw = _choice("--antiwindup", antiwindup,
                 {"none": lib.QC_AW_NONE, "conditional": lib.QC_AW_CONDITIONAL,
                  "backcalc": lib.QC_AW_BACKCALC}, "none, conditional or backcalc")
    kaw = _num("--kaw", kaw)
    p.sensor = _choice("--sensor", sensor, {"true": lib.QC_SENSOR_TRUE,
                                            "logged": lib.QC_SENSOR_LOGGED}, "true or logged")
    p.sensor_gain = _num("--sensor-gain", sensor_gain)
    p.sensor_offset = _num("--sensor-offset", sensor_offset)
    if excite is not None:
        p.excite = _choice("--excite", excite, {"prbs": lib.QC_EXCITE_PRBS,
                                                "uniform": lib.QC_EXCITE_UNIFORM,
                                                "steps": lib.QC_EXCITE_STEPS},
                           "prbs, uniform or steps")
    p.excite_amp = _num("--amplitude", amplitude)
    p.excite_hold = _int("--hold", hold)
    p.duration = _num("--duration", duration)
    p.warmup = _num("--warmup", warmup)
    if band is not None:
        p.band = _num("--band", band)
        if not (0 < p.band < 1):
            raise bad("--band: %g is not in (0, 1)" % p.band)
    pl.seed = _int("--seed", seed)
    reps = _int("--reps", reps)
    if not 1 <= reps <= 1000:
        raise bad("--reps: %s is not in 1..1000" % reps)
    level = _num("--confidence", confidence)
    if not 0 < level < 1:
        raise bad("--confidence: %s is not in (0, 1)" % confidence)
    jobs = (os.cpu_count() or 1) if jobs is None else _int("--jobs", jobs)
    if not p.excite_amp >= 0:
        raise bad("--amplitude: must be >= 0")
    if not p.sensor_gain > 0:
        raise bad("--sensor-gain: must be > 0")
    if p.excite != lib.QC_EXCITE_NONE and p.closed_loop:
        raise bad("--excite: only with --controller open")
    refs, nref = _sched("--reference", reference)
    mus, nmu = _sched("--maxusers", maxusers)
    dists = [_dist.parse(think, "--think"), _dist.parse(service, "--service"),
             _dist.parse(session, "--session"), _dist.parse(off, "--off"),
             _dist.parse(retry, "--retry")]
    pl.think, pl.service, pl.session, pl.off, pl.retry = [d._d for d in dists]
    pl.maxusers_max = umax
    top = umax if umax >= 0 else float(pl.population)
    for i in range(nref):
        if not refs[i].v > 0 or refs[i].v > top:
            raise bad("--reference: %g is not reachable: RIS cannot exceed MaxUsers' limit %g "
                      "(nor be <= 0)" % (refs[i].v, top))
    p.ref, p.nref, p.input, p.ninput = refs, nref, mus, nmu
    pi = p.pi
    pi.kp, pi.ki, pi.u_min, pi.u_max = kp, ki, 0.0, top
    pi.u_init = mus[0].v if mus[0].v < top else top
    pi.aw, pi.k_aw = aw, kaw
    bound = lib.qc_mu_logged_bound(ffi.addressof(p, "plant"))
    sg = p.sensor_gain if p.sensor_gain > 0 else 1.0
    ref_m, unreachable = [], []
    for i in range(nref if p.closed_loop else 0):
        ref_m.append(p.sensor_offset + sg * refs[i].v)
        unreachable.append(p.sensor == lib.QC_SENSOR_LOGGED and not ref_m[i] < bound)
        if unreachable[i]:
            warnings.warn(
                "--reference %g is %g on the logged sensor, which cannot read more than %g "
                "(its closed form at the largest RIS the plant holds): unreachable; the "
                "controller will raise MaxUsers until it no longer binds, and the true RIS "
                "will be far above the reference" % (refs[i].v, ref_m[i], bound))

    cancel = new_cancel()
    p.cancel = cancel
    out = ffi.new("qc_mu_run_result[]", reps)
    failed = ffi.new("unsigned *")
    err = new_err()
    try:
        rc = run_interruptible(lib.qcpy_mu_run_reps, p, reps, jobs, out, failed, err,
                               cancel=cancel)
        check(rc, err, "sim maxusers: replication %d: " % failed[0])
        # the replications' step metrics, as the command gathers them
        nsteps = max(int(out[k].nsteps) for k in range(reps))
        st = ffi.new("qc_mu_rep_stats *")
        cols = {f: ffi.new("double[]", max(1, nsteps * reps))
                for f in ("settling", "overshoot", "sse")}
        fracs = [ffi.new("double[]", reps) for _ in range(2)]
        st.settling, st.overshoot, st.sse = cols["settling"], cols["overshoot"], cols["sse"]
        st.sat, st.held = fracs
        st.reps, st.level, st.bound = reps, level, bound
        for i, (m, u) in enumerate(zip(ref_m, unreachable)):
            st.ref_m[i], st.unreachable[i] = m, int(u)
        for k in range(reps):
            lib.qc_mu_rep_stats_add(st, k, ffi.addressof(out, k))
        why = ffi.new("char[512]")
        sup = ffi.new("qc_result_support *")
        sup.short_run = lib.qc_mu_run_support(p, ffi.addressof(out, 0), st.settling, st.nsteps,
                                              reps, why, 512)
        sup.why, sup.allow_short, sup.precision_met = why, bool(allow_short), 1
        ctl = ffi.new("char[]", cstr(controller))
        doc = _result_doc(lib.qc_mu_result_json(p, ffi.addressof(out, 0), st, ctl, sup),
                          "sim maxusers")
        n = int(st.nsteps)
        rep_values = {f: np.frombuffer(ffi.buffer(c, 8 * n * reps), dtype=np.float64)
                      .reshape(n, reps).copy() for f, c in cols.items()}
        r = MaxUsersResult(doc, rep_values=rep_values, series=_mu_series(p, out[0], refs, nref),
                           logged_ris_bound=bound)
        return _short_verdict(r, doc["interval_support"], "sim maxusers")
    finally:
        for i in range(reps):
            lib.qc_mu_run_result_free(ffi.addressof(out, i))


def _mu_series(p, r0, refs, nref):
    """Replication 1's series (the command's --series CSV) as numpy arrays."""
    n = int(r0.n)
    # the series: row k = 0 is the initial measurement y(0), rows 1..n the samples
    cols = _struct_array(r0.samples, n, "qc_maxusers_sample", _MU_SERIES + ("completed",),
                         ints=("completed",))
    init = r0.initial
    dt = p.plant.interval
    series = {"time": np.arange(n + 1, dtype=np.float64) * dt}
    series["reference"] = np.array([lib.qc_sched_at(refs, nref, k * dt) if p.closed_loop
                                    else math.nan for k in range(n + 1)])
    series["maxusers"] = np.append(cols["maxusers"], r0.u_next)
    for f in _MU_SERIES[1:]:
        series[f] = np.insert(cols[f], 0, getattr(init, f))
    done = np.insert(cols["completed"], 0, float(init.completed))
    series["response"] = np.where(done > 0, series["response"], math.nan)
    return series


# ---- the multiclass admission run: `qctl sim admission` ------------------------------

_POLICIES_ALL = ("autonomic", "static", "utilization", "gradient2", "vegas", "envoy", "aimd")


class AdmissionResult(Result):
    """What qctl.sim.admission returns: the document of `qctl sim admission
    --json` (qctl.result.Result); r[policy] (or r.policies[policy]) a dict
    with "classes" (by class name, each the document's class: delay,
    admitted_delay, worst_excursion, expected_worst_excursion,
    throughput, shed, priority, admit_time as intervals or None, offered,
    admitted, rejected, undecided) and "summary"; series (one policy and
    series=True: replication 1 per busy cycle with a sample, as numpy
    arrays: t, limit, and per class delay, priority, weight, state)."""

    @property
    def policies(self):
        d = self._doc
        each = d["policies"] if "policies" in d else [d]
        return {v["policy"]: {"classes": {c["name"]: c for c in v["classes"]},
                              "summary": v["summary"]} for v in each}

    def __getitem__(self, policy):
        return self.policies[policy]

    def __repr__(self):
        pols = self.policies
        lines = ["sim admission: %s; %d replications of time %g" % (
            ", ".join(pols), self.run["reps"], self.run["time"])]
        for pol, v in pols.items():
            for c in v["classes"].values():
                dl = c["admitted_delay"] or c["delay"]
                lines.append("  %-11s %-12s %-11s delay %s (bound %s), admitted in %d/%d" % (
                    pol, c["name"], c["role"], _num_words(_nan(dl["value"] if dl else None)),
                    "-" if c["bound"] is None else "%g" % c["bound"], c["admitted"],
                    self.run["reps"]))
        return "\n".join(lines)


def admission(scenario, policy="autonomic", discipline=None, epsilon=None, alpha=None,
              gain=None, min_completions=None, u_max=None, time=None, warmup=None, window=None,
              reps=None, seed=None, confidence=None, series=False, jobs=None, name=None,
              allow_short=False):
    """Runs `qctl sim admission` with the same flags. scenario: the
    scenario as Python dicts and lists (the JSON file's content, e.g.
    {"classes": [{"name": "gold", "arrival": "exp:0.2", "service": "exp:1",
    "bound": 2.0}, ...], "time": 200000}), checked by the library as the
    file is (messages name `name`, default "scenario"), or the path of a
    scenario file. policy: one of autonomic, static, utilization,
    gradient2, vegas, envoy, aimd, or "all" (every one on the same random
    numbers). Returns an AdmissionResult; bad arguments raise ValueError
    with the command's message. A run too short for its intervals over
    replications (qc_mc_run_support: the verdict of the command, in
    result.interval_support) raises QctlShortRunError, as the command
    exits 1; allow_short=True (--allow-short) returns it with its
    intervals marked "unreliable". Ctrl-C stops the run (KeyboardInterrupt)."""
    import json as _json
    import os
    p = ffi.new("qc_mc_run_params *")
    lib.qc_mc_run_params_init(p)
    err = new_err()
    if policy == "all":
        pols = list(_POLICIES_ALL)
        if series:
            raise bad("--policy all: --series and --plot need a single policy")
    else:
        if not isinstance(policy, str) or policy not in _POLICIES_ALL:
            raise bad("--policy: '%s' is not autonomic, static, utilization, gradient2, vegas, "
                      "envoy, aimd or all" % policy)
        pols = [policy]
    if gain is not None:
        p.adm.gain = _num("--gain", gain)
    if min_completions is not None:
        p.min_completions = _int("--min-completions", min_completions)
    if u_max is not None:
        p.u_max = _num("--u-max", u_max)
    if reps is not None:
        p.reps = _int("--reps", reps)
    if seed is not None:
        p.seed = _int("--seed", seed)
    if confidence is not None:
        p.level = _num("--confidence", confidence)
    p.jobs = (os.cpu_count() or 1) if jobs is None else _int("--jobs", jobs)
    eps = None if epsilon is None else _num("--epsilon", epsilon)
    alp = None if alpha is None else _num("--alpha", alpha)
    if eps is not None and eps < 0:
        raise bad("--epsilon: %g is negative; it must be in [0, 1)" % eps)
    if eps is not None and not eps < 1:
        raise bad("--epsilon: %g must be < 1" % eps)
    if alp is not None and not alp > 0:
        raise bad("--alpha: %g must be > 0 (larger is a gentler slow start)" % alp)
    if p.reps < 1:
        raise bad("--reps: must be >= 1")
    if p.min_completions < 1:
        raise bad("--min-completions: must be >= 1")
    horizon = None if time is None else _num("--time", time)
    warm = None if warmup is None else _num("--warmup", warmup)
    win = None if window is None else _num("--window", window)

    sc = ffi.new("qc_mc_scenario *")
    if isinstance(scenario, (str, os.PathLike)):
        label = existing_path(scenario, "scenario")
        rc = lib.qc_mc_scenario_load(sc, cstr(label), err)
    else:
        label = name or "scenario"
        try:
            text = _json.dumps(scenario, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise bad("%s: not a JSON scenario: %s" % (label, e)) from None
        rc = lib.qc_mc_scenario_parse(sc, cstr(text), cstr(label), err)
    check(rc, err)
    sc = ffi.gc(sc, lib.qc_mc_scenario_free)
    sdisc = ffi.string(sc.discipline).decode() if sc.discipline != ffi.NULL else None
    dname = discipline if discipline is not None else sdisc if sdisc is not None else "dps"
    d = ffi.new("qc_mc_discipline *")
    if lib.qc_mc_discipline_parse(cstr(dname), d, ffi.NULL) != 0:
        raise bad("%s: '%s' is not dps, dps-job or weighted"
                  % ("--discipline" if discipline is not None else label, dname))
    p.discipline = d[0]

    def pick(ours, theirs, default):
        return ours if ours is not None else theirs if not math.isnan(theirs) else default
    p.adm.epsilon = pick(eps, sc.epsilon, 0.1)
    p.adm.alpha = pick(alp, sc.alpha, 20.0)
    p.horizon = pick(horizon, sc.time, 1e5)
    p.warmup = pick(warm, sc.warmup, p.horizon / 10)
    p.window = pick(win, sc.window, (p.horizon - p.warmup) / 20)
    lib.qc_mc_scenario_apply(sc, p)
    p.series = 1 if series else 0
    cancel = new_cancel()
    p.cancel = cancel

    results, enums = [], []
    try:
        for pol in pols:
            q = ffi.new("qc_mc_run_params *", p[0])
            v = ffi.new("qc_mc_policy *")
            lib.qc_mc_policy_parse(cstr(pol), v, ffi.NULL)
            q.policy = v[0]
            enums.append(v[0])
            res = ffi.new("qc_mc_run_result *")
            rc = run_interruptible(lib.qc_mc_run, q, res, err, cancel=cancel)
            check(rc, err, label + ": ")
            results.append(res)
        # the runs side by side, as the command holds them, and its verdict
        # on their intervals (the first short policy says why)
        n = len(results)
        runs = ffi.new("qc_mc_run_result[]", n)
        for i, res in enumerate(results):
            runs[i] = res[0]
        pol_arr = ffi.new("qc_mc_policy[]", enums)
        why = ffi.new("char[512]")
        sup = ffi.new("qc_result_support *")
        sup.short_run = lib.qc_mc_run_support(p, runs, pol_arr, n, why, 512)
        sup.why, sup.allow_short, sup.precision_met = why, bool(allow_short), 1
        q = ffi.new("qc_mc_run_params *", p[0])
        q.policy = enums[0]
        path = ffi.new("char[]", cstr(label))
        doc = _result_doc(lib.qc_mc_result_json(q, sc, path, runs, pol_arr, n, sup, 0.0),
                          "sim admission")
        r = AdmissionResult(doc, series=_mc_series(p, sc, results[0]))
        return _short_verdict(r, doc["interval_support"], "sim admission")
    finally:
        for res in results:
            lib.qc_mc_run_result_free(res)


def _mc_series(p, sc, r0):
    """Replication 1's series of the first policy (p.series), as numpy
    arrays: t, limit, and per class delay, priority, weight, state."""
    names = [ffi.string(sc.cls[k].c.name).decode() for k in range(int(sc.n))]
    series = None
    if p.series:
        m = int(r0.series_len)
        rows = [r0.series[i] for i in range(m)]
        series = {"t": np.array([w.t for w in rows]),
                  "limit": np.array([w.limit for w in rows])}
        for k, nm in enumerate(names):
            series[nm] = {
                "delay": np.array([w.delay[k] for w in rows]),
                "priority": np.array([w.priority[k] for w in rows]),
                "weight": np.array([w.weight[k] for w in rows]),
                "state": [ffi.string(lib.qc_adm_state_name(w.state[k])).decode() for w in rows]}
    return series


class NetworkResult:
    """What qctl.sim.network returns: r.stations[station][class][metric]
    and r.end_to_end[class][metric] (class "all": every class), each an
    Estimate whose exact is the product form / MVA / closed form value
    (NaN where theory gives none), and the run's facts. With
    analytic=True nothing is simulated: value is NaN and exact holds the
    solution; bounds[class] = {"throughput": (lo, hi), "response_time":
    (lo, hi)} where there is no exact form but balanced job bounds."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def to_dict(self):
        return {"command": "sim network", "exact_method": self.exact_method,
                "no_exact_because": self.no_exact_because,
                "stations": {s: {c: {m: e.to_dict() for m, e in ms.items()}
                                 for c, ms in cs.items()}
                             for s, cs in self.stations.items()},
                "end_to_end": {c: {m: e.to_dict() for m, e in ms.items()}
                               for c, ms in self.end_to_end.items()}}

    def __repr__(self):
        return "NetworkResult(%d stations, %d classes, exact: %s)" % (
            len(self.stations), len(self.end_to_end) - 1, self.exact_method or "none")


def network(file, customers=None, time=None, warmup="auto", reps=1, seed=1, confidence=0.95,
            precision=None, max_reps=None, jobs=1, analytic=False):
    """Simulates the network of queues in file (JSON, docs/networks.md) as
    `qctl sim network FILE` does with the same flags, and solves it
    exactly where theory allows. Bad files or arguments raise ValueError
    with the command's message (naming the file and field)."""
    err = new_err()
    net = ffi.new("qc_network *")
    check(lib.qc_network_load(net, cstr(str(file)), err), err, "")
    net = ffi.gc(net, lib.qc_network_free)
    p = ffi.new("qc_network_params *")
    lib.qc_network_params_init(p)
    p.net = net
    if customers is not None:
        p.customers = _int("--customers", customers, 2 * lib.QC_NET_CHUNKS)
    if time is not None:
        p.horizon = _num("--time", time)
    if p.customers == 0 and p.horizon == 0:
        p.customers = 100000
    p.reps = _int("--reps", reps, 1)
    p.seed = _int("--seed", seed)
    p.level = _num("--confidence", confidence)
    p.jobs = _int("--jobs", jobs, 1)
    if precision is not None:
        p.precision = _num("--precision", precision)
        if not (0 < p.precision < 1) or p.reps < 2:
            raise bad("--precision: a relative half-width in (0, 1), with reps >= 2")
    if max_reps is not None:
        p.max_reps = _int("--max-reps", max_reps, 1)
    if warmup in ("auto", "mser", "mser5"):
        p.warmup_mode = lib.QC_WARMUP_MSER5
    else:
        p.warmup_mode = lib.QC_WARMUP_FIXED
        p.warmup = _num("--warmup", warmup)
    res = ffi.new("qc_network_result *")
    simulated = not analytic
    if simulated:
        cancel = new_cancel()
        p.cancel = cancel
        rc = run_interruptible(lib.qc_network_run, p, res, err, cancel=cancel)
        check(rc, err, "sim network: ")
    ex = ffi.new("qc_network_exact *")
    try:
        check(lib.qc_network_exact_solve(net, ex, err), err, "sim network: ")
        S, C = net.nst, net.ncl
        cls = [ffi.string(net.cl[k].name).decode() for k in range(C)] + ["all"]
        nan_ci = ffi.new("qc_ci *", {"mean": math.nan, "half": math.nan, "lo": math.nan,
                                     "hi": math.nan, "level": p.level, "n": 0})
        stations = {}
        for i in range(S):
            sname = ffi.string(net.st[i].name).decode()
            stations[sname] = {}
            for k in range(C + 1):
                row = i * (C + 1) + k
                ms = {}
                for m in range(lib.QC_NM_COUNT):
                    name = ffi.string(lib.qc_net_metric_name(m)).decode()
                    x = row * lib.QC_NM_COUNT + m
                    ci = res.station[x] if simulated else nan_ci[0]
                    ms[name] = Estimate(name, name.replace("_", " "), ci, ex.station[x])
                stations[sname][cls[k]] = ms
        e2e, bounds = {}, {}
        for k in range(C + 1):
            ms = {}
            for m in range(lib.QC_NE_COUNT):
                name = ffi.string(lib.qc_net_e2e_name(m)).decode()
                x = k * lib.QC_NE_COUNT + m
                ci = res.e2e[x] if simulated else nan_ci[0]
                ms[name] = Estimate(name, name.replace("_", " "), ci, ex.e2e[x])
                if not math.isnan(ex.e2e_lo[x]):
                    bounds.setdefault(cls[k], {})[name] = (ex.e2e_lo[x], ex.e2e_hi[x])
            e2e[cls[k]] = ms
        return NetworkResult(
            file=str(file), stations=stations, end_to_end=e2e, bounds=bounds,
            exact_method=ffi.string(ex.method).decode() or None,
            no_exact_because=ffi.string(ex.why_not).decode() or None,
            simulated=simulated, reps=int(res.reps) if simulated else 0,
            ci_method=ffi.string(res.ci_method).decode() if simulated else None,
            transient=bool(res.transient) if simulated else False,
            transient_reason=ffi.string(res.transient_reason).decode() if simulated else "",
            maxusers_mean_limit=res.ctl_limit_mean if simulated and net.front >= 0 else None,
            response_behind_front=res.ctl_behind_mean if simulated and net.front >= 0 else None,
            events=int(res.events) if simulated else 0)
    finally:
        lib.qc_network_exact_free(ex)
        if simulated:
            lib.qc_network_result_free(res)


class ProxyResult:
    """What qctl.sim.proxy returns: r[name] per metric over all classes (an
    Estimate: offered, goodput, latency, latency_p50/p95/p99, wait,
    refused, refused_full/deadline/standing/rejected; exact is NaN),
    r.classes[name][metric] per class, r.limit and r.utilization, r.series
    (replication 1: t, limit, inflight, waiting; a numpy array, or None)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __getitem__(self, name):
        return self.metrics[name]

    def to_dict(self):
        d = {"command": "sim proxy",
             "model": {"backends": self.backends, "workers": self.workers,
                       "service": self.service, "limiter": self.limiter,
                       "load": _finite_or_none(self.load)},
             "run": {"time": self.time, "reps": self.reps, "seed": self.seed,
                     "measured_customers": self.requests, "events": self.events},
             "metrics": {k: _json_ci(v) if not math.isnan(v.value) else None
                         for k, v in self.metrics.items()},
             "limit": _json_ci(self.limit) if not math.isnan(self.limit.value) else None,
             "utilization": _json_ci(self.utilization),
             "classes": []}
        for name, m in self.classes.items():
            c = {k: _json_ci(v) if not math.isnan(v.value) else None for k, v in m.items()}
            c["name"] = name
            d["classes"].append(c)
        return d

    def __repr__(self):
        lines = ["simulated proxy: limiter %s; %d backend(s) x %d workers, service %s"
                 % (self.limiter, self.backends, self.workers, self.service)]
        for name, m in self.classes.items():
            lines.append("class %s" % name)
            for e in m.values():
                lines.append("  %-22s %14s   %s" % (e.name, _num_words(e.value), _ci_words(e)))
        lines.append("%-24s %14s   %s" % ("limit", _num_words(self.limit.value),
                                          _ci_words(self.limit)))
        return "\n".join(lines)


def _psim_metrics(row):
    out = {}
    for i in range(lib.QC_PSIM_NMETRICS):
        name = ffi.string(lib.qc_psim_metric_name(i)).decode()
        out[name] = Estimate(name, name.replace("_", " "), row[i], math.nan)
    return out


def proxy(arrival=None, users=None, think=None, classes=None, backends=1, workers=1,
          service="exp:100", route="jsq", djsq_threshold=4, overhead=None, transit=None,
          limiter="maxusers",
          limit=None, min_limit=None, max_limit=None, reference=None, gain=None,
          aimd_backoff=None, aimd_timeout=None, interval=0.1, queue=1024, queue_timeout=1.0,
          queue_discipline="codel", queue_target=0.0, sample_every=0, sample_least=32,
          epsilon=None,
          alpha=None, min_completions=None, time=60.0, warmup=5.0, reps=10, seed=1,
          confidence=0.95, series_dt=None, jobs=1, service_seed=0):
    """Simulates `qctl proxy` in front of backends as `qctl sim proxy` does
    with the same flags: the same seed gives the same figures. Clients:
    arrival= (open loop) or users= and think= (closed loop) for one class,
    or classes=[{"name": ..., "bound": ..., "arrival": ... | "users": ...,
    "think": ..., "service": ..., "candidate": bool}, ...] (--class
    NAME=BOUND with its --class-* flags). limiter="none" runs no limiter.
    service_seed=S (--service-seed): every replication serves the service
    times `qctl backend --seed S` draws. Returns a ProxyResult; bad
    arguments raise ValueError."""
    p = ffi.new("qc_psim_params *")
    lib.qc_psim_params_init(p)
    err = new_err()
    keep = []  # the specs the parameters point to, alive until the run ends
    p.backends = _int("--backends", backends)
    p.workers = _int("--workers", workers)
    rt = ffi.new("qc_psim_route *")
    check(lib.qc_psim_route_parse(cstr(route), rt, err), err, "--route: ")
    p.route = rt[0]
    p.threshold = _int("--djsq-threshold", djsq_threshold)
    svc = _dist.parse(service, "--service")
    keep.append(svc)
    p.service = svc._d
    p.service_seed = _int("--service-seed", service_seed)
    if overhead is not None:
        ov = _dist.parse(overhead, "--overhead")
        keep.append(ov)
        p.overhead = ov._d
    if transit is not None:
        tr = _dist.parse(transit, "--transit")
        keep.append(tr)
        p.transit = tr._d
    if limiter == "none":
        p.control = 0
    else:
        algo = ffi.new("qc_limiter_algo *")
        check(lib.qc_limiter_algo_parse(cstr(limiter), algo, err), err, "--limiter: ")
        p.control = 1
        lib.qc_limiter_params_init(ffi.addressof(p, "limiter"), algo[0])
    lp = p.limiter
    for flag, v, field in (("--limit", limit, "initial_limit"), ("--min-limit", min_limit, "min_limit"),
                           ("--max-limit", max_limit, "max_limit"),
                           ("--reference", reference, "reference"), ("--gain", gain, "ki"),
                           ("--aimd-backoff", aimd_backoff, "aimd_backoff"),
                           ("--aimd-timeout", aimd_timeout, "aimd_timeout"),
                           ("--epsilon", epsilon, "adm_epsilon"), ("--alpha", alpha, "adm_alpha")):
        if v is not None:
            setattr(lp, field, _num(flag, v))
    if min_completions is not None:
        lp.adm_min_completions = _int("--min-completions", min_completions)
    p.interval = _num("--interval", interval)
    p.queue = _int("--queue", queue)
    p.queue_timeout = _num("--queue-timeout", queue_timeout)
    disc = ffi.new("qc_psim_discipline *")
    check(lib.qc_psim_discipline_parse(cstr(queue_discipline), disc, err), err,
          "--queue-discipline: ")
    p.discipline = disc[0]
    p.queue_target = _num("--queue-target", queue_target)
    p.sample_every = _int("--sample-every", sample_every)
    p.sample_least = _int("--sample-least", sample_least)
    if classes is None:
        if (arrival is None) == (users is None):
            raise bad("sim proxy: give --arrival SPEC (open loop) or --users N (closed loop), "
                      "one of them")
        classes = [{"name": "all", "bound": 0, "arrival": arrival, "users": users,
                    "think": think}]
    elif arrival is not None or users is not None or think is not None:
        raise bad("sim proxy: with --class, give each class's clients by --class-arrival or "
                  "--class-users (not --arrival, --users, --think)")
    if not 1 <= len(classes) <= lib.QC_PSIM_CLASSES_MAX:
        raise bad("--class: 1 to %d classes" % lib.QC_PSIM_CLASSES_MAX)
    if p.control and lp.algo == lib.QC_LIMITER_ADMISSION and classes[0].get("name") == "all" \
            and len(classes) == 1 and arrival is not None:
        raise bad("sim proxy: --limiter admission needs at least one --class NAME=BOUND")
    p.nclasses = len(classes)
    names = []
    for k, c in enumerate(classes):
        cl = p.cls[k]
        name = ffi.new("char[]", str(c.get("name", "class%d" % k)).encode())
        keep.append(name)
        names.append(ffi.string(name).decode())
        cl.name = name
        cl.bound = _num("--class", c.get("bound", 0))
        if c.get("arrival") is not None:
            a = ffi.new("qc_arrivals *")
            check(lib.qc_arrivals_parse(a, cstr(c["arrival"]), err), err, "--class-arrival: ")
            a = ffi.gc(a, lib.qc_arrivals_free)
            keep.append(a)
            cl.arrival = a
        if c.get("users") is not None:
            cl.users = _int("--class-users", c["users"])
        if c.get("think") is not None:
            t = _dist.parse(c["think"], "--class-think")
            keep.append(t)
            cl.think = t._d
        if c.get("service") is not None:
            s = _dist.parse(c["service"], "--class-service")
            keep.append(s)
            cl.service = s._d
        cl.candidate = 1 if c.get("candidate") else 0
    p.horizon = _num("--time", time)
    p.warmup = _num("--warmup", warmup)
    p.reps = _int("--reps", reps)
    p.seed = _int("--seed", seed)
    p.level = _num("--confidence", confidence)
    if series_dt is not None:
        p.series_dt = _num("--series-dt", series_dt)
    p.jobs = _int("--jobs", jobs)
    res = ffi.new("qc_psim_result *")
    cancel = new_cancel()
    p.cancel = cancel
    check(run_interruptible(lib.qc_psim_run, p, res, err, cancel=cancel), err, "sim proxy: ")
    try:
        series = None
        if res.series_len:
            series = np.array([(res.series[i].t, res.series[i].limit, res.series[i].inflight,
                                res.series[i].waiting) for i in range(res.series_len)])
        return ProxyResult(
            backends=p.backends, workers=p.workers, service=svc.spec,
            limiter=limiter, load=res.offered_load, time=p.horizon, reps=p.reps,
            seed=int(p.seed), requests=int(res.requests), events=int(res.events),
            metrics=_psim_metrics(res.all),
            classes={names[k]: _psim_metrics(res.cls[k]) for k in range(p.nclasses)},
            limit=Estimate("limit", "limit", res.limit, math.nan),
            utilization=Estimate("utilization", "workers busy", res.utilization, math.nan),
            rejected={names[k]: int(res.rejected[k]) for k in range(p.nclasses)},
            series=series)
    finally:
        lib.qc_psim_result_free(res)
        del keep
