# SPDX-License-Identifier: GPL-3.0-or-later
"""qctl.control: qctl's controllers as objects a Python loop steps.

The same C step objects `qctl sim` and `qctl proxy` run (qctl/controller.h,
qctl/admission.h, qctl/limiter.h): a plant written in Python (a SimPy
model, a real server) measures, calls step(), and applies what it returns.

    pi = qctl.control.PI(kp=0.2, ki=0.5, u_min=1, u_max=100)
    u = pi.step(r=10, y=measured).u

    adm = qctl.control.Admission(bound=0.5, epsilon=0.1)   # admitted class
    p = adm.step(delay=mean_delay, count=completions).priority

    lim = qctl.control.Limiter("maxusers", reference=10, ki=0.5)
    if lim.acquire(): ...; lim.release(latency)            # any thread
    lim.tick(now)                                          # once per interval
"""
import math

import numpy as np

from ._native import bad, check, cstr, error, ffi, lib, new_err

_AW = {"none": 0, "conditional": 1, "backcalc": 2}


class _Act:
    """What a step returned (attributes as the C act struct)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__,
                           ", ".join("%s=%r" % kv for kv in self.__dict__.items()))


class PIAct(_Act):
    pass


class PI:
    """PI (or, with kp = 0, integral) control with actuator limits and
    anti-windup (qc_pi): u(k) = clip(kp e(k) + I(k), u_min, u_max), e = r - y.
    antiwindup is "none", "conditional" (default) or "backcalc"."""

    def __init__(self, kp=0.0, ki=0.1, u_min=0.0, u_max=1.0, u_init=None,
                 antiwindup="conditional", k_aw=1.0):
        if antiwindup not in _AW:
            raise bad("antiwindup: '%s' is not none, conditional or backcalc" % antiwindup)
        p = ffi.new("qc_pi_params *", {
            "kp": kp, "ki": ki, "u_min": u_min, "u_max": u_max,
            "u_init": u_min if u_init is None else u_init, "aw": _AW[antiwindup], "k_aw": k_aw})
        self._c = ffi.new("qc_pi *")
        self._in = ffi.new("qc_pi_sense *")
        self._out = ffi.new("qc_pi_act *")
        err = new_err()
        check(lib.qc_pi_init(self._c, p, err), err)

    def step(self, r, y):
        """One sample: reference r, measurement y; returns .u (to apply),
        .v (asked before saturation), .saturated (-1, 0, +1)."""
        self._in.r, self._in.y = r, y
        rc = lib.qc_pi_step(self._c, self._in, self._out)
        if rc < 0:
            raise error(rc, "PI step: r and y must be finite")
        o = self._out
        return PIAct(u=o.u, v=o.v, saturated=o.saturated)

    @property
    def integral(self):
        return self._c.integ


class MaxUsersAct(_Act):
    pass


class MaxUsers:
    """The MaxUsers controller (qc_mu_ctl): integral/PI control of the
    concurrency limit with the demand hold (the limit is not raised while
    nobody reached it: give peak, the most admitted at once)."""

    def __init__(self, ki=0.5, kp=0.0, u_min=1.0, u_max=1000.0, u_init=None,
                 antiwindup="conditional", k_aw=1.0):
        if antiwindup not in _AW:
            raise bad("antiwindup: '%s' is not none, conditional or backcalc" % antiwindup)
        p = ffi.new("qc_pi_params *", {
            "kp": kp, "ki": ki, "u_min": u_min, "u_max": u_max,
            "u_init": u_min if u_init is None else u_init, "aw": _AW[antiwindup], "k_aw": k_aw})
        self._c = ffi.new("qc_mu_ctl *")
        self._in = ffi.new("qc_mu_ctl_sense *")
        self._out = ffi.new("qc_mu_ctl_act *")
        err = new_err()
        check(lib.qc_mu_ctl_init(self._c, p, err), err)

    def step(self, r, y, peak=math.nan):
        self._in.r, self._in.y, self._in.peak = r, y, peak
        rc = lib.qc_mu_ctl_step(self._c, self._in, self._out)
        if rc < 0:
            raise error(rc, "MaxUsers step: r and y must be finite")
        o = self._out
        return MaxUsersAct(u=o.u, saturated=o.saturated, held=bool(o.held))

    @property
    def limit(self):
        return self._c.u


_ADM_STATE = {0: "candidate", 1: "admitted", 2: "rejected"}
_ADM_EVENT = {0: "none", 1: "track", 2: "grow", 3: "hold", 4: "backoff", 5: "admit",
              6: "reject", 7: "retry"}


class AdmissionAct(_Act):
    pass


class Admission:
    """Delay-tracking admission control of one class (qc_adm): an admitted
    class tracks the target (1 - epsilon) bound with its priority; a
    candidate (admitted=False) grows its priority by slow start and is
    admitted or rejected (docs/admission.md). Any field of qc_adm_params
    may be given by name (gain=, ref_count=, p_init=, ...)."""

    def __init__(self, bound, epsilon=0.1, alpha=20.0, admitted=True, **params):
        p = ffi.new("qc_adm_params *")
        lib.qc_adm_params_init(p, float(bound), float(epsilon), float(alpha), 1 if admitted else 0)
        for k, v in params.items():
            if k in ("bound", "epsilon", "alpha", "admitted") or not hasattr(p, k):
                raise bad("Admission: no parameter '%s'" % k)
            setattr(p, k, v)
        self._c = ffi.new("qc_adm *")
        self._in = ffi.new("qc_adm_sense *")
        self._out = ffi.new("qc_adm_act *")
        self._peer = ffi.new("double[]", lib.QC_ADM_PEERS_MAX)
        err = new_err()
        check(lib.qc_adm_init(self._c, p, err), err)
        self.bound = float(bound)
        self.target = (1 - float(epsilon)) * float(bound)

    def step(self, delay, count, peers=()):
        """One sample: the mean delay of count completions (> 0) since the
        last step, and (for a candidate) the admitted classes' weights.
        Returns .priority (to apply from now on), .state, .event, .target,
        .smoothed. A lost sample (count <= 0, a delay not finite) holds the
        priority and returns event "none"."""
        n = min(len(peers), lib.QC_ADM_PEERS_MAX)
        for i in range(n):
            self._peer[i] = peers[i]
        self._in.delay, self._in.count = delay, count
        self._in.peer, self._in.npeer = (self._peer if n else ffi.NULL), n
        lib.qc_adm_step(self._c, self._in, self._out)
        o = self._out
        return AdmissionAct(priority=o.priority, state=_ADM_STATE[o.state],
                            event=_ADM_EVENT.get(o.event, str(o.event)), target=o.target,
                            smoothed=o.smoothed)

    @property
    def priority(self):
        return self._c.prio

    @property
    def state(self):
        return _ADM_STATE[self._c.state]


class Limiter:
    """The embeddable concurrency limiter (qctl/limiter.h), for a Python
    server. acquire() and release() are lock-free and safe from any thread
    (each is one short C call; the GIL is released during it); tick(now)
    runs the controller, once per control interval, from one thread.
    algo: fixed, maxusers, aimd, vegas, gradient2, envoy, admission; other
    keywords set qc_limiter_config fields (initial_limit, min_limit,
    max_limit, classes, reference, ki, kp, aimd_backoff, aimd_timeout,
    bound (a list), adm_candidates, adm_epsilon, adm_alpha,
    adm_min_completions, be_floor)."""

    OK, DROPPED, IGNORE = 0, 1, 2

    def __init__(self, algo="maxusers", now=0.0, **config):
        err = new_err()
        a = ffi.new("qc_limiter_algo *")
        check(lib.qc_limiter_algo_parse(cstr(algo), a, err), err, "--limiter: ")
        c = ffi.new("qc_limiter_config *")
        lib.qc_limiter_config_init(c, a[0])
        for k, v in config.items():
            if k == "bound":
                if len(v) > lib.QC_LIMITER_CLASSES_MAX:
                    raise bad("bound: at most %d classes" % lib.QC_LIMITER_CLASSES_MAX)
                for i, b in enumerate(v):
                    c.bound[i] = b
            elif k in ("algo",) or not hasattr(c, k):
                raise bad("Limiter: no setting '%s'" % k)
            else:
                setattr(c, k, v)
        out = ffi.new("qc_limiter **")
        check(lib.qc_limiter_new(c, now, out, err), err)
        self._l = ffi.gc(out[0], lib.qc_limiter_free)
        self.algo = algo

    def acquire(self, cls=0):
        """A token (admitted) or None (refused: no slot now). Raises
        qctl.QctlError (EREJECTED) for a class admission control rejected."""
        tok = ffi.new("qc_limiter_token *")
        rc = lib.qc_limiter_acquire(self._l, cls, tok)
        if rc == 0:
            return tok
        if rc == -11:  # QC_LIMITER_REJECTED (QC_EREJECTED)
            raise error(rc, "class %d rejected by admission control" % cls)
        return None

    def release(self, token, latency, outcome=OK):
        lib.qc_limiter_release(self._l, token, latency, outcome)

    def tick(self, now):
        rc = lib.qc_limiter_tick(self._l, now)
        if rc < 0:
            raise error(rc, "tick: the clock went backwards (%g)" % now)

    def observe(self, y):
        lib.qc_limiter_observe(self._l, y)

    def set_reference(self, r):
        lib.qc_limiter_set_reference(self._l, r)

    def set_bound(self, cls, bound):
        err = new_err()
        check(lib.qc_limiter_set_bound(self._l, cls, bound, err), err)

    def weight(self, cls=0):
        return lib.qc_limiter_weight(self._l, cls)

    @property
    def limit(self):
        return int(lib.qc_limiter_limit(self._l))

    def stats(self):
        s = ffi.new("qc_limiter_stats *")
        lib.qc_limiter_get_stats(self._l, s)
        return {"limit": s.limit, "gate": s.gate, "inflight": s.inflight,
                "admitted": s.admitted, "refused": s.refused, "completed": s.completed,
                "dropped": s.dropped, "last_y": s.last_y, "last_rtt": s.last_rtt,
                "class_weight": np.array(list(s.class_weight)),
                "class_state": list(s.class_state), "busy_cycles": s.busy_cycles}
