# SPDX-License-Identifier: GPL-3.0-or-later
"""qctl.mdp: the removable server's average-cost optimal policy
(`qctl mdp removable`, docs/energy-mdp.md), solved exactly by libqctl.

    s = qctl.mdp.removable(lam=0.5, rates=[0.6, 1], power=[1, 3], setup_rate=0.2)
    s.gain                      # optimal average cost per unit time
    s.switch_on, s.rate         # the policy as arrays over n = 0..N

switch_on[n] (uint8): off with n jobs, 1 = switch on. action[n] (int32):
on with n jobs, the index of the rate served, IDLE (-1) or OFF (-2);
rate[n] (float64): the rate served there (0 when idle or off).
"""
import numpy as np

from ._native import bad, check, ffi, lib, new_err, run_interruptible

IDLE, OFF = -1, -2
_METHOD = {"rvi": 1, "pi": 2, "both": 3}


class RemovableSolution:
    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        return "RemovableSolution(gain=%.10g, N=%d, switch on at n >= %s)" % (
            self.gain, self.nmax, self.threshold)

    def to_dict(self):
        """The solution: its gain with the solver's bounds, the policy
        over n = 0..N (lists) and the exact performance of the optimal
        policy and of each baseline (plain numbers: solved, not
        estimated, so no interval)."""
        return {"gain": self.gain, "gain_pi": self.gain_pi,
                "gain_low": self.gain_low, "gain_high": self.gain_high,
                "policies_agree": self.policies_agree, "rvi_converged": self.rvi_converged,
                "nmax": self.nmax, "states": self.states, "tail_ok": self.tail_ok,
                "threshold": self.threshold,
                "policy": {"switch_on": self.switch_on.tolist(),
                           "action": self.action.tolist(), "rate": self.rate.tolist()},
                "performance": dict(self.performance),
                "baselines": {k: dict(v) for k, v in self.baselines.items()}}

    def to_frame(self):
        """One row per policy, "optimal" first and then each baseline, with
        every performance figure as a column (exact values: there is no
        interval to show); needs pandas."""
        from .sim import _pandas
        pd = _pandas()
        rows = {"optimal": dict(self.performance, average_cost=self.gain)}
        for name, b in self.baselines.items():
            rows[name] = {k: v for k, v in b.items() if k not in ("param_name",)}
        return pd.DataFrame.from_dict(rows, orient="index")


def _perf(p):
    return {"mean_jobs": p.e.mean_jobs, "mean_response": p.e.mean_response,
            "mean_power": p.e.mean_power, "frac_setup": p.e.frac_setup,
            "frac_off": p.frac_off, "frac_idle": p.frac_idle, "frac_serving": p.frac_serving,
            "switch_on_rate": p.switch_on_rate, "throughput": p.throughput,
            "blocking": p.blocking, "holding_cost": p.holding_cost,
            "power_cost": p.power_cost, "switching_cost": p.switching_cost}


def removable(lam, rates, power, setup_rate, holding=1.0, idle_power=None, setup_power=None,
              off_power=None, switch_cost=None, method="both", tol=None, tail_tol=None,
              levels=None):
    """Solves the removable server's MDP as `qctl mdp removable` does with
    --lambda, --rates, --power, --setup-rate, --holding, --idle-power,
    --setup-power, --off-power, --switch-cost, --method, --tol, --tail-tol,
    --levels; bad values raise ValueError with the command's message."""
    p = ffi.new("qc_removable_params *")
    lib.qc_removable_params_init(p)
    c = p.cost
    c.holding = holding
    rates = [float(x) for x in rates]
    power = [float(x) for x in power]
    if not rates:
        raise bad("--rates: required (a comma-separated list of service rates)")
    if len(rates) > lib.QC_ENERGY_MAX_RATES:
        raise bad("--rates: more than %d values" % lib.QC_ENERGY_MAX_RATES)
    for i, r in enumerate(rates):
        if not r > 0:
            raise bad("--rates: element %d (%g) must be > 0" % (i + 1, r))
        if i and not r > rates[i - 1]:
            raise bad("--rates: rates must increase strictly: element %d (%g) is not above "
                      "element %d (%g)" % (i + 1, r, i, rates[i - 1]))
    if not power:
        raise bad("--power: required (one power figure per rate)")
    if len(power) != len(rates):
        raise bad("--power: %d value%s for %d rate%s; give one per rate" % (
            len(power), "" if len(power) == 1 else "s", len(rates), "" if len(rates) == 1 else "s"))
    c.nrates = len(rates)
    for i in range(len(rates)):
        c.rate[i], c.power[i] = rates[i], power[i]
        if power[i] < 0:
            raise bad("--power: element %d (%g) is negative; costs must be >= 0" % (i + 1, power[i]))
    for flag, field, v in (("--idle-power", "idle_power", idle_power),
                           ("--setup-power", "setup_power", setup_power),
                           ("--off-power", "off_power", off_power),
                           ("--switch-cost", "switch_cost", switch_cost)):
        if v is not None:
            setattr(c, field, float(v))
        if getattr(c, field) < 0:
            raise bad("%s: %g is negative; costs must be >= 0" % (flag, getattr(c, field)))
    if c.holding < 0:
        raise bad("--holding: %g is negative; costs must be >= 0" % c.holding)
    if not c.holding > 0:
        raise bad("--holding: must be > 0: with no cost on waiting, leaving the server off "
                  "forever is optimal and the queue has no steady state")
    c.setup_rate = float(setup_rate)
    if not c.setup_rate > 0:
        raise bad("--setup-rate: must be > 0")
    p.__setattr__("lambda", float(lam))
    if not lam > 0:
        raise bad("--lambda: required and > 0 (the arrival rate)")
    if not lam < rates[-1]:
        raise bad("--lambda: %g >= the fastest rate %g (--rates): the queue is unstable under "
                  "every policy" % (lam, rates[-1]))
    if method not in _METHOD:
        raise bad("--method: '%s' is not rvi, pi or both" % method)
    p.method = _METHOD[method]
    if tol is not None:
        p.tol = tol
    if not (0 < p.tol < 1):
        raise bad("--tol: %g is not in (0, 1)" % p.tol)
    if tail_tol is not None:
        p.tail_tol = tail_tol
    if not (0 <= p.tail_tol < 1):
        raise bad("--tail-tol: %g is not in [0, 1)" % p.tail_tol)
    if levels is not None:
        p.levels = int(levels)

    r = ffi.new("qc_removable_result *")
    err = new_err()
    check(run_interruptible(lib.qc_removable_solve, p, r, err), err, "mdp removable: ")
    try:
        n = int(r.policy.nmax) + 1
        switch_on = np.frombuffer(ffi.buffer(r.policy.switch_on, n), dtype=np.uint8).copy()
        action = np.frombuffer(ffi.buffer(r.policy.on_action, 4 * n), dtype=np.int32).copy()
        rate = np.where(action >= 0, np.array(rates)[np.clip(action, 0, None)], 0.0)
        on = np.nonzero(switch_on)[0]
        baselines = {}
        if r.have_baselines:
            for i in range(4):
                b = r.baseline[i]
                baselines[ffi.string(b.name).decode()] = dict(
                    param_name=ffi.string(b.param_name).decode() if b.param_name else None,
                    param=b.param, **_perf(b.perf),
                    average_cost=b.perf.holding_cost + b.perf.power_cost + b.perf.switching_cost)
        return RemovableSolution(
            gain=r.gain, gain_pi=r.gain_pi, gain_low=r.gain_lo, gain_high=r.gain_hi,
            policies_agree=bool(r.policies_agree), rvi_converged=bool(r.rvi_converged),
            nmax=int(r.nmax), states=int(r.states), tail_ok=bool(r.tail_ok),
            switch_on=switch_on, action=action, rate=rate,
            threshold=int(on[0]) if len(on) else None,
            performance=_perf(r.perf), baselines=baselines)
    finally:
        lib.qc_removable_result_free(r)
