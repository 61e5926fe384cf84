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
    tok = lim.acquire()                                    # a Token, or None
    if tok: ...; lim.release(tok, latency)                 # any thread
    lim.tick(now)                                          # once per interval
"""
import math
import numbers

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


class Token:
    """An admitted request (qc_limiter_token): .cls, .inflight (in flight
    when admitted, itself included) and .live (True until released), as
    Python values; Limiter.release takes it back."""

    __slots__ = ("_t",)

    def __init__(self, t):
        self._t = t

    @property
    def cls(self):
        return int(self._t.cls)

    @property
    def inflight(self):
        return int(self._t.inflight)

    @property
    def live(self):
        return bool(self._t.live)

    def __repr__(self):
        return "qctl.control.Token(cls=%d, inflight=%d, %s)" % (
            self.cls, self.inflight, "live" if self.live else "released")


def _whole(flag, v):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral) or v < 0:
        raise bad("%s: '%s' is not a whole number >= 0" % (flag, v))
    return int(v)


class Limiter:
    """The embeddable concurrency limiter (qctl/limiter.h), for a Python
    server. acquire() and release() are lock-free and safe from any thread
    (each is one short C call; the GIL is released during it); tick(now)
    runs the controller, once per control interval, from one thread.
    algo: fixed, maxusers, aimd, vegas, gradient2, envoy, admission; other
    keywords set qc_limiter_params fields (initial_limit, min_limit,
    max_limit, classes, reference, ki, kp, aimd_backoff, aimd_timeout,
    bound (a list), adm_candidates, adm_epsilon, adm_alpha,
    adm_min_completions, be_floor)."""

    OK, DROPPED, IGNORE = 0, 1, 2

    def __init__(self, algo="maxusers", now=0.0, **config):
        err = new_err()
        a = ffi.new("qc_limiter_algo *")
        check(lib.qc_limiter_algo_parse(cstr(algo), a, err), err, "--limiter: ")
        c = ffi.new("qc_limiter_params *")
        lib.qc_limiter_params_init(c, a[0])
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
        l = lib.qc_limiter_alloc(c, now, err)
        if l == ffi.NULL:
            check(err.code or -2, err)  # -2: QC_ENOMEM
        self._l = ffi.gc(l, lib.qc_limiter_free)
        self.algo = algo

    def acquire(self, cls=0):
        """A Token (admitted) or None (refused: no slot now). Raises
        qctl.QctlError (EREJECTED) for a class admission control rejected."""
        cls = _whole("cls", cls)
        tok = ffi.new("qc_limiter_token *")
        rc = lib.qc_limiter_acquire(self._l, cls, tok)
        if rc == 0:
            return Token(tok)
        if rc == -11:  # QC_LIMITER_REJECTED (QC_EREJECTED)
            raise error(rc, "class %d rejected by admission control" % cls)
        return None

    def release(self, token, latency, outcome=OK):
        """Gives back a Token from acquire after `latency` seconds
        (outcome OK, DROPPED or IGNORE). Releasing twice is a no-op."""
        if not isinstance(token, Token):
            raise bad("release: the token must be what acquire() returned, not %r"
                      % type(token).__name__)
        lib.qc_limiter_release(self._l, token._t, float(latency), int(outcome))

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


# ---- identification and design ------------------------------------------

class ArxModel:
    """An ARX model y(k+1) = sum a_i y(k-i+1) + sum b_j u(k-d-j+1), in
    offsets from the operating point (u0, y0) (qctl/arx.h). Returned by
    arx_fit (with the fit's statistics) or built from coefficients."""

    def __init__(self, a, b, delay=0, u0=0.0, y0=0.0, dt=0.0):
        if len(a) > lib.QC_ARX_MAX_ORDER or not 1 <= len(b) <= lib.QC_ARX_MAX_ORDER:
            raise bad("ARX model: na <= %d and 1 <= nb <= %d" % (lib.QC_ARX_MAX_ORDER,
                                                               lib.QC_ARX_MAX_ORDER))
        if not -1 <= delay <= lib.QC_ARX_MAX_DELAY:
            raise bad("ARX model: delay %d is not in [-1, %d]" % (delay, lib.QC_ARX_MAX_DELAY))
        self._m = ffi.new("qc_arx_model *")
        m = self._m
        m.na, m.nb, m.delay, m.u0, m.y0, m.dt = len(a), len(b), delay, u0, y0, dt
        for i, v in enumerate(a):
            m.a[i] = v
        for j, v in enumerate(b):
            m.b[j] = v

    @classmethod
    def _from(cls, m):
        self = cls.__new__(cls)
        self._m = ffi.new("qc_arx_model *", m[0] if isinstance(m, ffi.CData) and
                          ffi.typeof(m).kind == "pointer" else m)
        return self

    a = property(lambda s: np.array([s._m.a[i] for i in range(s._m.na)]))
    b = property(lambda s: np.array([s._m.b[j] for j in range(s._m.nb)]))
    delay = property(lambda s: s._m.delay)
    u0 = property(lambda s: s._m.u0)
    y0 = property(lambda s: s._m.y0)
    dt = property(lambda s: s._m.dt)

    @property
    def dc_gain(self):
        return lib.qc_arx_dc_gain(self._m)

    def predict(self, u, y, start=0):
        """One-step-ahead predictions and the free simulation over samples
        [start, n) (absolute units), as numpy arrays (NaN before)."""
        ua = np.ascontiguousarray(u, dtype=np.float64)
        ya = np.ascontiguousarray(y, dtype=np.float64)
        if ua.shape != ya.shape or ua.ndim != 1:
            raise bad("predict: u and y must be 1-d arrays of one length")
        y1 = np.empty_like(ya)
        ys = np.empty_like(ya)
        lib.qc_arx_predict(self._m, ffi.from_buffer("double[]", ua),
                           ffi.from_buffer("double[]", ya), ua.size, start,
                           ffi.from_buffer("double[]", y1), ffi.from_buffer("double[]", ys))
        return y1, ys

    def __repr__(self):
        return "ArxModel(a=%s, b=%s, delay=%d, u0=%g, y0=%g)" % (
            list(self.a), list(self.b), self.delay, self.u0, self.y0)


class ArxFit(ArxModel):
    """The chosen model of arx_fit with the fit: se_a, se_b, sigma2, r2,
    aic, bic, dc_gain_se, val_r2 (one step ahead on the held-out part),
    val_fit (percent, free simulation), candidates (a list of dicts)."""


def arx_fit(u, y, na=(1, 3), nb=(1, 3), delay=(0, 2), tied=True, criterion="aic",
            holdout=0.3, demean=True, u0=0.0, y0=0.0, dt=0.0):
    """Identifies an ARX model of y driven by u (numpy arrays, absolute
    units) as `qctl sysid` does: every (na, nb, d) in the ranges, least
    squares on common rows, the best by AIC or BIC, validated on the last
    `holdout` of the data. Returns an ArxFit."""
    ua = np.ascontiguousarray(u, dtype=np.float64)
    ya = np.ascontiguousarray(y, dtype=np.float64)
    if ua.ndim != 1 or ua.shape != ya.shape:
        raise bad("sysid: u and y must be 1-d arrays of one length")
    if criterion not in ("aic", "bic"):
        raise bad("--criterion: '%s' is not aic or bic" % criterion)
    o = ffi.new("qc_arx_params *")
    lib.qc_arx_params_init(o)
    o.na_min, o.na_max = na
    o.nb_min, o.nb_max = nb
    o.d_min, o.d_max = delay
    o.tied = 1 if tied else 0
    o.criterion = 0 if criterion == "aic" else 1
    o.holdout, o.demean, o.u0, o.y0, o.dt = holdout, 1 if demean else 0, u0, y0, dt
    err = new_err()
    w = lib.qc_arx_alloc(max(ua.size, 4), err)
    if w == ffi.NULL:
        check(-2, err)
    try:
        r = ffi.new("qc_arx_result *")
        check(lib.qc_arx_fit(w, ffi.from_buffer("double[]", ua), ffi.from_buffer("double[]", ya),
                             ua.size, o, r, err), err, "sysid: ")
    finally:
        lib.qc_arx_free(w)
    f = ArxFit._from(ffi.addressof(r, "model"))
    f.__class__ = ArxFit
    m = r.model
    f.se_a = np.array([r.se_a[i] for i in range(m.na)])
    f.se_b = np.array([r.se_b[j] for j in range(m.nb)])
    f.sigma2, f.r2, f.aic, f.bic = r.sigma2, r.r2, r.aic, r.bic
    f.rss, f.rows, f.n_est, f.n_val = r.rss, int(r.rows), int(r.n_est), int(r.n_val)
    f.val_r2, f.val_fit = r.val_r2, r.val_fit
    f.dc_gain_se = lib.qc_arx_dc_gain_se(r)
    f.candidates = [dict(na=c.na, nb=c.nb, delay=c.delay, usable=bool(c.usable), rss=c.rss,
                         sigma2=c.sigma2, r2=c.r2, aic=c.aic, bic=c.bic)
                    for c in (r.cand[i] for i in range(r.ncand))]
    return f


class Poles:
    def __init__(self, p):
        self.kp, self.ki = p.kp, p.ki
        self.poles = np.array([complex(p.re[i], p.im[i]) for i in range(p.n)])
        self.max_modulus, self.settling, self.overshoot = p.max_modulus, p.settling, p.overshoot
        self.dominant = complex(p.dom_re, p.dom_im)
        self.stable = bool(p.stable)

    def __repr__(self):
        return "Poles(kp=%g, ki=%g, max_modulus=%.6g, stable=%s)" % (
            self.kp, self.ki, self.max_modulus, self.stable)


class Design:
    """Controller design on a plant (and optional sensor) ARX model, as
    `qctl design` does: poles at given gains, the stable range of K_I, and
    integral or PI gains by pole placement for a settling time (samples)
    and an overshoot."""

    def __init__(self, plant, sensor=None):
        err = new_err()
        w = lib.qc_design_alloc(plant._m, sensor._m if sensor is not None else ffi.NULL, err)
        if w == ffi.NULL:
            check(err.code or -1, err, "design: ")
        self._w = ffi.gc(w, lib.qc_design_free)
        self.plant, self.sensor = plant, sensor

    @property
    def loop_gain(self):
        return lib.qc_design_loop_gain(self._w)

    def poles(self, kp, ki):
        out = ffi.new("qc_design_poles *")
        err = new_err()
        check(lib.qc_design_poles_at(self._w, kp, ki, out, err), err, "design: ")
        return Poles(out)

    def stable_range(self, kp=0.0):
        """(lo, hi) of K_I keeping the loop stable at K_P = kp, and every
        stable interval the scan found."""
        out = ffi.new("qc_design_range *")
        err = new_err()
        check(lib.qc_design_stable_range(self._w, kp, out, err), err, "design: ")
        return (out.lo, out.hi), [(out.ilo[i], out.ihi[i]) for i in range(out.n)]

    def _design(self, f, settling, overshoot):
        spec = ffi.new("qc_design_spec *", {"settling": settling, "overshoot": overshoot})
        out = ffi.new("qc_design_result *")
        err = new_err()
        check(f(self._w, spec, out, err), err, "design: ")
        return _Act(kp=out.kp, ki=out.ki, target=complex(out.target_re, out.target_im),
                    exact=bool(out.exact), dominant=bool(out.dominant), poles=Poles(out.poles))

    def integral(self, settling, overshoot=0.0):
        return self._design(lib.qc_design_integral, settling, overshoot)

    def pi(self, settling, overshoot=0.0):
        return self._design(lib.qc_design_pi, settling, overshoot)
