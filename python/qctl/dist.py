# SPDX-License-Identifier: GPL-3.0-or-later
"""qctl.dist: qctl's distributions (the specs every command takes).

    d = qctl.dist.parse("lognormal:0,1")
    x = d.sample(10**6, seed=1)         # numpy array, filled in place by C
    d.mean, d.var, d.cdf(x), d.quantile([0.5, 0.99])

Samples come from qctl's xoshiro256** streams: seed and stream name one
stream (qctl.Rng), so a given (seed, stream) gives the same numbers in
every run; an Rng object passed as rng= continues its stream from call
to call. libqctl has no density function, so there is no pdf here.
"""
import numbers

import numpy as np

from ._native import bad, check, cstr, ffi, lib, new_err


class Rng:
    """One of qctl's random streams: xoshiro256** seeded from (seed, stream),
    as qc_rng_init. Successive draws through it continue the stream."""

    def __init__(self, seed=1, stream=0):
        whole = (lambda v: isinstance(v, numbers.Integral)
                 and not isinstance(v, (bool, np.bool_)) and v >= 0)
        if not whole(seed) or not whole(stream):
            raise bad("seed and stream must be non-negative integers")
        seed, stream = int(seed), int(stream)
        self._r = ffi.new("qc_rng *")
        lib.qc_rng_init(self._r, seed, stream)
        self.seed, self.stream = seed, stream


class Dist:
    """A parsed distribution spec (qc_dist). Build with parse() or
    empirical()."""

    def __init__(self, spec, _d=None):
        self._d = _d
        self.spec = spec

    @property
    def canonical(self):
        """The canonical spec (qc_dist_format)."""
        buf = ffi.new("char[]", 320)
        lib.qc_dist_format(self._d, buf, 320)
        return ffi.string(buf).decode()

    @property
    def mean(self):
        return lib.qc_dist_mean(self._d)

    @property
    def var(self):
        return lib.qc_dist_var(self._d)

    def cdf(self, x):
        """P(X <= x), elementwise for an array."""
        return _vectorize(lambda v: lib.qc_dist_cdf(self._d, v), x)

    def quantile(self, q):
        """The q-quantile, elementwise for an array (q in [0, 1])."""
        qa = np.asarray(q, dtype=float)
        if np.any((qa < 0) | (qa > 1)) or np.any(np.isnan(qa)):
            raise bad("quantile: q must be in [0, 1]")
        return _vectorize(lambda v: lib.qc_dist_quantile(self._d, v), q)

    def sample(self, n, seed=1, stream=0, rng=None):
        """n draws as a float64 numpy array, written by C into the array's
        own buffer (no copy). Give rng= (a qctl.dist.Rng) to continue a
        stream across calls; else a fresh stream (seed, stream)."""
        if not isinstance(n, (int, np.integer)) or n < 0:
            raise bad("sample: n must be a non-negative integer")
        r = rng if rng is not None else Rng(seed, stream)
        out = np.empty(int(n), dtype=np.float64)
        if n:
            lib.qcpy_dist_sample(self._d, r._r, ffi.from_buffer("double[]", out), int(n))
        return out

    def __repr__(self):
        return "qctl.dist.parse(%r)" % self.spec

    def __str__(self):
        return self.canonical


def _free(d):
    lib.qc_dist_free(d)


def _vectorize(f, x):
    if np.isscalar(x):
        return f(float(x))
    xa = np.asarray(x, dtype=float)
    out = np.empty(xa.shape)
    flat, of = xa.ravel(), out.ravel()
    for i in range(flat.size):
        of[i] = f(flat[i])
    return out


def parse(spec, field=None):
    """Parses a spec ("exp:1", "lognormal:0,1", ...). A malformed one raises
    ValueError (qctl.QctlValueError) with libqctl's message, prefixed by
    "FIELD: " when field is given (as the command does with its flag)."""
    if isinstance(spec, Dist):
        return spec
    if not isinstance(spec, str):
        raise bad("%sa distribution spec must be a string such as 'exp:1'"
                  % (field + ": " if field else ""))
    d = ffi.gc(ffi.new("qc_dist *"), _free)
    err = new_err()
    check(lib.qc_dist_parse(d, cstr(spec), err), err, field + ": " if field else "")
    return Dist(spec, d)


def empirical(x):
    """The empirical distribution of the samples x (any sequence of numbers)."""
    xa = np.ascontiguousarray(x, dtype=np.float64)
    d = ffi.gc(ffi.new("qc_dist *"), _free)
    err = new_err()
    check(lib.qc_dist_empirical(d, ffi.from_buffer("double[]", xa), xa.size, err), err)
    return Dist("empirical:<%d samples>" % xa.size, d)
