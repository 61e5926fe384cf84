# SPDX-License-Identifier: GPL-3.0-or-later
"""qctl: queueing simulation, control and traffic models from Python, over
libqctl (the library of the `qctl` command) through cffi.

    import qctl
    r = qctl.sim.queue(arrival="exp:0.9", service="exp:1", customers=10**6, reps=10, seed=1)
    print(r)   # the estimates `qctl sim queue ... --seed 1` prints

Modules: qctl.sim (simulations), qctl.dist (distributions), qctl.control
(PI, MaxUsers, Admission, Limiter). Errors: qctl.QctlError (.code,
.name, the library's message); bad input: qctl.QctlValueError, a
ValueError.
"""
from . import control, dist, mdp, sim, traffic
from ._native import QctlError, QctlShortRunError, QctlValueError

__all__ = ["sim", "dist", "control", "mdp", "traffic", "QctlError", "QctlValueError",
           "QctlShortRunError"]
__version__ = "0.1.0"
