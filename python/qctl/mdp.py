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
from .result import Result, _pandas, result_doc as _result_doc

IDLE, OFF = -1, -2
_METHOD = {"rvi": 1, "pi": 2, "both": 3}


class RemovableSolution(Result):
    """What qctl.mdp.removable returns: the document of `qctl mdp removable
    --json` (qctl.result.Result: s.gain, s.to_dict(), ...), and the policy
    over n = 0..N as numpy arrays (switch_on, action, rate)."""

    def __repr__(self):
        return "RemovableSolution(gain=%.10g, N=%d, switch on at n >= %s)" % (
            self.gain, self.nmax, self.threshold)

    nmax = property(lambda self: self.truncation["N"])
    states = property(lambda self: self.truncation["states"])
    tail_ok = property(lambda self: self.truncation["tail_ok"])
    threshold = property(lambda self: self.structure["threshold_n"])
    policies_agree = property(
        lambda self: self.solver.get("agreement", {}).get("agree", True))

    @property
    def baselines(self):
        """Each simple policy's exact performance by its name (the
        document's comparison after the optimal policy)."""
        return {c["policy"]: c for c in self.comparison[1:]}

    def to_frame(self):
        """One row per policy of the document's comparison, "optimal"
        first and then each baseline, every figure a column (exact values:
        no interval); needs pandas."""
        pd = _pandas()
        rows = {("optimal" if i == 0 else c["policy"]): {k: v for k, v in c.items()
                                                         if k != "policy"}
                for i, c in enumerate(self.comparison)}
        return pd.DataFrame.from_dict(rows, orient="index")


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
        doc = _result_doc(lib.qc_removable_result_json(p, r, 1.0, 0.0), "mdp removable")
        return RemovableSolution(doc, switch_on=switch_on, action=action, rate=rate)
    finally:
        lib.qc_removable_result_free(r)
