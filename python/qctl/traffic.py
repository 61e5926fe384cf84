# SPDX-License-Identifier: GPL-3.0-or-later
"""qctl.traffic: traffic models (`qctl fit`, `qctl gen`) from Python.

    m = qctl.traffic.fit(t, size, name="gaming")      # numpy arrays of packets
    m = qctl.traffic.load("out/model/gaming.json")    # or a model `qctl fit` wrote
    pk = qctl.traffic.generate(m, users=10, duration=60, seed=1)
    pk["t"], pk["size"], pk["user"], pk["act"], pk["dir"]   # numpy arrays
    qctl.traffic.validate(m, t, size)                  # KS and statistics, both approaches

generate() with the same model, users, duration, approach and seed gives
the packets `qctl gen --output FILE.csv` writes.
"""
import math
import numbers

import numpy as np

from ._native import bad, check, cstr, existing_path, ffi, lib, new_err, run_interruptible

_APPROACH = {"fitted": 0, "copula": 1, "copula-fitted": 2}


def _free_model(m):
    lib.qc_traffic_model_free(m)


def _free_report(r):
    lib.qc_traffic_report_free(r)


class Model:
    """A traffic model of one activity (qc_traffic_model)."""

    def __init__(self, m, report=None):
        self._m = m
        self._rep = report

    @property
    def name(self):
        return ffi.string(self._m.name).decode()

    def rate(self, approach="copula"):
        """Long-run packets per second of one user."""
        return lib.qc_traffic_model_rate(self._m, _approach(approach))

    def mean_size(self, approach="copula"):
        return lib.qc_traffic_model_mean_size(self._m, _approach(approach))

    def save(self, path):
        """Writes the model file `qctl gen --model` reads (atomically)."""
        err = new_err()
        check(lib.qc_traffic_model_save(self._m, self._rep if self._rep is not None else ffi.NULL,
                                        cstr(path), err), err)

    def __repr__(self):
        return "qctl.traffic.Model(%r, %.6g packets/s per user)" % (self.name, self.rate())


def _approach(a):
    if a not in _APPROACH:
        raise bad("--approach: '%s' is not copula, fitted or copula-fitted" % a)
    return _APPROACH[a]


def _packets(t, size):
    ta = np.ascontiguousarray(t, dtype=np.float64)
    sa = np.ascontiguousarray(size, dtype=np.uint32)
    if ta.ndim != 1 or ta.shape != sa.shape:
        raise bad("packets: t and size must be 1-d arrays of one length")
    return ta, sa


def read(path):
    """The IP packets of a capture (pcap, pcapng) or CSV `time,size[,flow]
    [,activity]`, as `qctl fit` reads it: a dict of numpy arrays t
    (seconds since the first packet), size, dir (0 from the initiator),
    flow (an index), proto."""
    tr = ffi.new("qc_trace *")
    err = new_err()
    path = existing_path(path, "capture")
    check(run_interruptible(lib.qc_trace_read, tr, cstr(path), err), err)
    try:
        n = int(tr.n)
        raw = np.frombuffer(ffi.buffer(tr.pkt, n * ffi.sizeof("qc_trace_pkt")), dtype=np.dtype(
            {"names": ["t", "size", "flow", "dir", "proto"],
             "formats": [np.float64, np.uint32, np.uint32, np.uint8, np.uint8],
             "offsets": [ffi.offsetof("qc_trace_pkt", f) for f in ("t", "size", "flow", "dir",
                                                                     "proto")],
             "itemsize": ffi.sizeof("qc_trace_pkt")}), count=n)
        return {k: raw[k].copy() for k in ("t", "size", "flow", "dir", "proto")}
    finally:
        lib.qc_trace_free(tr)


def fit(t, size, dir=None, name="activity", threshold=None):
    """Learns a model from packets: times t (seconds, non-decreasing), sizes
    (bytes), directions dir (0 from the user, 1 towards it; optional).
    threshold: the on/off gap threshold in seconds (None: automatic;
    float('inf'): no on/off)."""
    ta, sa = _packets(t, size)
    da = None
    if dir is not None:
        da = np.ascontiguousarray(dir, dtype=np.uint8)
        if da.shape != ta.shape:
            raise bad("packets: dir must have the length of t")
    o = ffi.new("qc_traffic_fit_params *")
    lib.qc_traffic_fit_params_init(o)
    if threshold is not None:
        o.threshold = float(threshold)
    m = ffi.gc(ffi.new("qc_traffic_model *"), _free_model)
    rep = ffi.gc(ffi.new("qc_traffic_report *"), _free_report)
    err = new_err()
    check(run_interruptible(lib.qc_traffic_fit, m, cstr(name), ffi.from_buffer("double[]", ta),
                            ffi.from_buffer("uint32_t[]", sa),
                            ffi.from_buffer("uint8_t[]", da) if da is not None else ffi.NULL,
                            ta.size, o, rep, err), err, "fit: ")
    return Model(m, rep)


def load(path):
    """A model file written by `qctl fit` (or Model.save)."""
    path = existing_path(path, "--model")
    m = ffi.gc(ffi.new("qc_traffic_model *"), _free_model)
    err = new_err()
    check(lib.qc_traffic_model_load(m, cstr(path), err), err, "--model: ")
    return Model(m)


def generate(models, users=1, duration=None, packets=None, seed=1, approach="copula",
             no_phase=False):
    """Packets of `users` users of each model (a Model or a list, with an
    int or a list of counts) in time order, until duration seconds or
    `packets` packets: a dict of numpy arrays t, size, user, act (the
    model's index), dir."""
    if isinstance(models, Model):
        models = [models]
    if isinstance(users, numbers.Integral):
        users = [users] * len(models)
    if len(users) != len(models) or not models:
        raise bad("--users: one count per model")
    if not duration and not packets:
        raise bad("gen: give --duration or --packets")
    o = ffi.new("qc_traffic_gen_params *")
    lib.qc_traffic_gen_params_init(o)
    o.approach = _approach(approach)
    o.seed = _whole("--seed", seed)
    o.duration = float(duration or 0)
    o.packets = _whole("--packets", packets or 0)
    o.no_phase = 1 if no_phase else 0
    mp = ffi.new("qc_traffic_model *[]", [m._m for m in models])
    ua = ffi.new("uint32_t[]", [_whole("--users", u) for u in users])
    err = new_err()
    g = lib.qc_traffic_gen_alloc(mp, ua, len(models), o, err)
    if g == ffi.NULL:
        check(err.code or -2, err, "gen: ")  # -2: QC_ENOMEM
    g = ffi.gc(g, lib.qc_traffic_gen_free)
    chunks = []
    cap = 1 << 16
    while True:
        c = {"t": np.empty(cap, np.float64), "size": np.empty(cap, np.uint32),
             "user": np.empty(cap, np.uint32), "act": np.empty(cap, np.uint16),
             "dir": np.empty(cap, np.uint8)}
        n = run_interruptible(lib.qcpy_traffic_fill, g, ffi.from_buffer("double[]", c["t"]),
                              ffi.from_buffer("uint32_t[]", c["size"]),
                              ffi.from_buffer("uint32_t[]", c["user"]),
                              ffi.from_buffer("uint16_t[]", c["act"]),
                              ffi.from_buffer("uint8_t[]", c["dir"]), cap)
        chunks.append({k: v[:n] for k, v in c.items()})
        if n < cap:
            break
        cap = min(cap * 2, 1 << 22)
    return {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}


def _whole(flag, v):
    """A non-negative whole number: a Python int or any numpy integer."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral) or v < 0:
        raise bad("%s: '%s' is not a whole number >= 0" % (flag, v))
    return int(v)


def _stats(s):
    h = s.hurst
    return {"packets": int(s.n), "duration": s.duration, "rate": s.rate,
            "mean_size": s.mean_size, "tau_size_gap": s.tau_sg, "tau_size_lag1": s.tau_ss,
            "tau_gap_lag1": s.tau_gg, "hurst": h if math.isfinite(h) else None,
            "hurst_note": None if math.isfinite(h) else
            "no Hurst exponent: too few packets or too short a span to estimate one"}


def join_segments(t, segment_gap=3600.0):
    """The packet times t (seconds, non-decreasing) with every gap longer
    than segment_gap removed, the segments joined end to end, as `qctl fit`
    and `qctl gen --validate` see a capture (qc_traffic_join_segments, on
    the same nanosecond grid). Returns (times from 0, number of segments)."""
    ta = np.ascontiguousarray(t, dtype=np.float64)
    if ta.ndim != 1:
        raise bad("packets: t must be a 1-d array")
    if not segment_gap > 0:
        raise bad("--segment-gap: %s is not > 0" % segment_gap)
    if ta.size and not np.all(np.isfinite(ta)):
        raise bad("packets: t has a value that is not a finite number")
    if ta.size > 1 and np.any(np.diff(ta) < 0):
        raise bad("packets: t must be non-decreasing")
    ns = np.ascontiguousarray(np.rint((ta - (ta[0] if ta.size else 0)) * 1e9), dtype=np.int64)
    out = np.empty(ta.size, dtype=np.float64)
    nseg = ffi.new("size_t *")
    lib.qc_traffic_join_segments(ffi.from_buffer("int64_t[]", ns), ta.size, float(segment_gap),
                                 ffi.from_buffer("double[]", out), nseg)
    return out, int(nseg[0])


def validate(model, t, size, seed=1, segment_gap=None):
    """Generates as many packets as the capture holds with the fitted and
    the copula approach and compares each with it: two-sample KS of sizes
    and gaps (D and p-value) and the statistics of each sequence.
    As `qctl gen --validate`, gaps longer than segment_gap (default: the
    model's, else one hour) are removed first, the capture's segments
    joined end to end; out["segments"] says how many there were. A Hurst
    exponent that cannot be estimated is None, with out[...]["hurst_note"]
    saying why."""
    ta, sa = _packets(t, size)
    gap = segment_gap if segment_gap is not None else (
        model._m.segment_gap if model._m.segment_gap > 0 else 3600.0)
    tj, nseg = join_segments(ta, gap)
    seed = _whole("seed", seed)
    v = ffi.new("qc_traffic_validation *")
    err = new_err()
    check(run_interruptible(lib.qc_traffic_validate, model._m, ffi.from_buffer("double[]", tj),
                            ffi.from_buffer("uint32_t[]", sa), tj.size, seed, v, err),
          err, "validate: ")
    try:
        out = {"real": _stats(v.real), "segments": nseg, "segment_gap": float(gap)}
        for i, name in enumerate(("fitted", "copula")):
            out[name] = dict(_stats(v.gen[i]), ks_size=v.ks_size[i], p_size=v.p_size[i],
                             ks_gap=v.ks_gap[i], p_gap=v.p_gap[i])
        return out
    finally:
        lib.qc_traffic_validation_free(v)
