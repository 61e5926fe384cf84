# SPDX-License-Identifier: GPL-3.0-or-later
"""qctl.result: one result object for every model, built from the schema.

The library writes a run's result as JSON (qctl/results.h), the document
`qctl ... --json` prints; Python parses that same text and builds its
objects from the document's keys, with no list of fields per model:

    r.to_dict()          the command's document
    r["response_time"]   an Estimate: a metric, or any interval at a dotted path
    r.load, r.reps       a fact, looked up in the document's sections
    r.to_frame()         every interval, one row each (pandas)

An interval is recognised by its keys (CI_KEYS), wherever it sits:

    {"value", "ci_low", "ci_high", "half_width", "level", "n"}

plus "exact" where a closed form gives the figure, and on a run too short
to support it "reason" (its ends null) or "unreliable".
"""
import json
import math

# The one interval shape of every command's JSON (qc_json_ci_new) and of
# every result object here.
CI_KEYS = ("value", "ci_low", "ci_high", "half_width", "level", "n")

# The sections of a document where a fact (r.load, r.reps) is looked up,
# in this order, after its top level.
_SECTIONS = ("model", "run", "summary", "cost")


def is_interval(v):
    return isinstance(v, dict) and all(k in v for k in CI_KEYS)


def intervals(d, path=""):
    """Every interval in a document, as (dotted path, interval) in document
    order: the schema, not a list of fields per model. A list item is
    named by its "name" or "policy" where it has one."""
    if is_interval(d):
        yield path, d
        return
    if isinstance(d, dict):
        items = d.items()
    elif isinstance(d, list):
        items = ((v.get("name", v.get("policy", i)) if isinstance(v, dict) else i, v)
                 for i, v in enumerate(d))
    else:
        return
    for k, v in items:
        yield from intervals(v, "%s.%s" % (path, k) if path else str(k))


def _pandas():
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("to_frame needs pandas (apt-get install python3-pandas); "
                          "to_dict() needs nothing") from e
    return pd


def _row_name(path):
    """A metric's row is its name (metrics.response_time -> response_time);
    any other interval keeps its dotted path."""
    return path[len("metrics."):] if path.startswith("metrics.") else path


def frame(d):
    """A pandas DataFrame of every interval in a document: one row per
    figure (a metric by its name, any other by its dotted path), the
    interval's keys as columns (exact where known), None as NaN."""
    pd = _pandas()
    rows = {_row_name(p): {k: (math.nan if v.get(k) is None else v.get(k))
                           for k in CI_KEYS + ("exact",) if k in v}
            for p, v in intervals(d)}
    cols = list(CI_KEYS) + (["exact"] if any("exact" in v for v in rows.values()) else [])
    return pd.DataFrame.from_dict(rows, orient="index", columns=cols)


def _real(x):
    """A number of the document as a float: null is NaN (no figure), and
    an "infinite" marker is read by the caller."""
    return math.nan if x is None else float(x)


def num_words(x):
    """A number as qctl prints it: never 'nan'."""
    if math.isnan(x):
        return "none"
    if math.isinf(x):
        return "infinite" if x > 0 else "-infinite"
    return "%.6g" % x


class Estimate:
    """One figure: value (the point estimate), its confidence interval
    (lo, hi, half-width; NaN when there is none), the level, the number n
    of independent values it rests on, and the exact value where a closed
    form exists (NaN otherwise; inf when infinite). reason says why an
    interval is missing; unreliable marks one a short run kept."""

    __slots__ = ("name", "label", "value", "lo", "hi", "half", "level", "n", "exact",
                 "reason", "unreliable", "_doc")

    def __init__(self, name, label, ci, exact):
        """From a qc_ci (or anything with mean, lo, hi, half, level, n)."""
        self.name, self.label = name, label
        self.value, self.lo, self.hi, self.half = ci.mean, ci.lo, ci.hi, ci.half
        self.level, self.n, self.exact = ci.level, int(ci.n), exact
        self.reason, self.unreliable, self._doc = None, False, None

    @classmethod
    def from_json(cls, name, d, label=None):
        """From an interval of a document (is_interval(d))."""
        e = cls.__new__(cls)
        e.name, e.label = name, label if label is not None else name.replace("_", " ")
        e.value = math.inf if d.get("infinite") else _real(d["value"])
        e.lo, e.hi, e.half = _real(d["ci_low"]), _real(d["ci_high"]), _real(d["half_width"])
        e.level, e.n = _real(d["level"]), int(d["n"] or 0)
        e.exact = math.inf if d.get("exact_infinite") else _real(d.get("exact"))
        e.reason, e.unreliable, e._doc = d.get("reason"), bool(d.get("unreliable")), d
        return e

    @property
    def ci(self):
        return (self.lo, self.hi)

    # the qc_ci name, so that a function reading a qc_ci reads an Estimate
    mean = property(lambda self: self.value)

    def covers(self, x=None):
        """Whether the interval holds x (default: the exact value)."""
        x = self.exact if x is None else x
        return bool(self.lo <= x <= self.hi)

    def to_dict(self):
        """The interval as the document holds it (None for what is not
        finite), "exact" included."""
        if self._doc is not None:
            return dict(self._doc)
        f = _finite_or_none
        return dict(zip(CI_KEYS + ("exact",), (f(self.value), f(self.lo), f(self.hi),
                                               f(self.half), self.level, self.n,
                                               f(self.exact))))

    def __repr__(self):
        if math.isnan(self.value):
            ci = "nothing measured"
        elif math.isnan(self.half):
            ci = "no interval from %d value%s" % (self.n, "" if self.n == 1 else "s")
        else:
            ci = "[%.6g, %.6g]" % (self.lo, self.hi)
        return "Estimate(%s=%s, ci=%s%s)" % (
            self.name, num_words(self.value), ci,
            "" if math.isnan(self.exact) else ", exact=%s" % num_words(self.exact))


def _finite_or_none(x):
    return x if x is not None and math.isfinite(x) else None


def result_doc(json_ptr, what):
    """The library's JSON of a result (a json_t * of qctl/results.h,
    released here) as a Python document."""
    from ._native import ffi, lib
    text = lib.qcpy_result_text(json_ptr)
    if text == ffi.NULL:
        raise MemoryError("%s: out of memory writing the result" % what)
    try:
        return json.loads(ffi.string(text).decode())
    finally:
        lib.qc_result_text_free(text)


class Result:
    """A run's result, built from its document (the command's --json).

    r[name]: the Estimate of a metric (the document's "metrics"), or of
    the interval at a dotted path ("summary.fraction_held_ci");
    r.metrics: the metrics by name; r.NAME: a fact from the document's
    top level or its sections (model, run, summary, cost); to_dict():
    the document; to_frame(): every interval, a row each."""

    def __init__(self, doc, **extra):
        self.__dict__["_doc"] = doc
        self.__dict__.update(extra)
        ms = doc.get("metrics") if isinstance(doc, dict) else None
        self.__dict__["metrics"] = {k: Estimate.from_json(k, v) for k, v in ms.items()
                                    if is_interval(v)} if isinstance(ms, dict) else {}

    @classmethod
    def from_text(cls, text, **extra):
        return cls(json.loads(text), **extra)

    def __getattr__(self, name):
        doc = self.__dict__.get("_doc")  # absent while copy or pickle rebuilds one
        if name.startswith("__") or doc is None:
            raise AttributeError(name)
        if isinstance(doc, dict):
            if name in doc:
                return doc[name]
            for s in _SECTIONS:
                sec = doc.get(s)
                if isinstance(sec, dict) and name in sec:
                    return sec[name]
        raise AttributeError(name)

    def __setattr__(self, name, value):
        self.__dict__[name] = value

    def __getitem__(self, name):
        if name in self.metrics:
            return self.metrics[name]
        for path, v in intervals(self._doc):
            if path == name:
                return Estimate.from_json(path.rsplit(".", 1)[-1], v)
        raise KeyError(name)

    def __iter__(self):
        return iter(self.metrics.values())

    def intervals(self):
        """Every interval of the document as (dotted path, Estimate)."""
        return [(p, Estimate.from_json(p.rsplit(".", 1)[-1], v))
                for p, v in intervals(self._doc)]

    def to_dict(self):
        """The document, as the command writes it for the same run."""
        return self._doc

    def to_frame(self):
        """Every interval of the document as a pandas DataFrame, one row
        each (a metric by its name, any other interval by its dotted
        path); needs pandas (Debian's python3-pandas)."""
        return frame(self.to_dict())

    def __repr__(self):
        lines = ["%s result" % (self._doc.get("command", "qctl")
                               if isinstance(self._doc, dict) else "qctl")]
        for p, e in self.intervals():
            lines.append("%-40s %s" % (_row_name(p), e))
        return "\n".join(lines)
