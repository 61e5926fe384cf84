#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""twin_client.py: an open-loop HTTP/1.1 client independent of qctl, for
bench_twin.sh: it measures `qctl proxy` as a user's own traffic would.

Requests are sent at the instants of a Poisson process per class (drawn in
advance from --seed), whatever the answers: a request whose instant comes
takes an idle kept-alive connection or opens a new one, so a slow answer
never delays the next send (open loop). Each request's latency runs from
its intended instant to the end of its answer, so the client's own lateness
counts against it rather than hiding the server's. Bounded in time: the
sends stop at --duration, and answers are awaited --grace seconds more.

    twin_client.py HOST:PORT --class NAME=PATH:RATE ... --duration 25 --warmup 5

prints one JSON object: per class and in all, over the requests sent in
[warmup, duration): sent, answered, 2xx, 503, other, goodput (2xx per
second, answered in the window), refused (503 / answered), the 2xx
latencies' p50, p95, p99 and
mean; and the client's lateness (p99 and max, seconds) so that a client
that could not keep up is seen.
"""
import argparse
import asyncio
import json
import math
import random
import sys
import time


def quantile(xs, q):
    if not xs:
        return None
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


class Conn(asyncio.Protocol):
    """One kept-alive connection: one request at a time, its answer parsed
    as it arrives (status line, Content-Length or chunked body)."""

    def __init__(self, pool):
        self.pool = pool
        self.tr = None
        self.buf = b""
        self.fut = None
        self.closed = False

    def connection_made(self, tr):
        self.tr = tr

    def connection_lost(self, exc):
        self.closed = True
        if self.fut and not self.fut.done():
            self.fut.set_result(-1)

    def send(self, req):
        self.fut = asyncio.get_running_loop().create_future()
        self.buf = b""
        self.tr.write(req)
        return self.fut

    def data_received(self, data):
        self.buf += data
        head_end = self.buf.find(b"\r\n\r\n")
        if head_end < 0 or self.fut is None or self.fut.done():
            return
        head = self.buf[:head_end].decode("latin-1").split("\r\n")
        try:
            status = int(head[0].split()[1])
        except (IndexError, ValueError):
            self.tr.close()
            return
        length, close, chunked = 0, False, False
        for h in head[1:]:
            k, _, v = h.partition(":")
            k, v = k.strip().lower(), v.strip().lower()
            if k == "content-length":
                length = int(v)
            elif k == "connection" and v == "close":
                close = True
            elif k == "transfer-encoding" and "chunked" in v:
                chunked = True
        body = self.buf[head_end + 4:]
        if chunked:
            if not body.endswith(b"0\r\n\r\n"):
                return
        elif len(body) < length:
            return
        fut, self.fut = self.fut, None
        if close:
            self.tr.close()
        else:
            self.pool.idle.append(self)
        fut.set_result(status)


class Pool:
    """Idle kept-alive connections to one server."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.idle = []
        self.opened = 0

    async def get(self):
        while self.idle:
            c = self.idle.pop()
            if not c.closed:
                return c
        self.opened += 1
        loop = asyncio.get_running_loop()
        _, c = await loop.create_connection(lambda: Conn(self), self.host, self.port)
        return c


async def one(pool, path, host):
    """Sends GET path and waits for the answer: its status, or -1 on error."""
    try:
        c = await pool.get()
        return await c.send(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, host)).encode())
    except OSError:
        return -1


async def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("target", help="HOST:PORT")
    ap.add_argument("--class", dest="classes", action="append", required=True,
                    help="NAME=PATH:RATE (requests per second)")
    ap.add_argument("--duration", type=float, default=25)
    ap.add_argument("--warmup", type=float, default=5)
    ap.add_argument("--grace", type=float, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dump", help="also write the measured 2xx latencies (s), one a line")
    ap.add_argument("--schedule", help="write each class's send instants (s) to "
                    "SCHEDULE.NAME, one a line, before sending: a trace for `qctl sim proxy "
                    "--arrival trace:FILE`, the same arrivals the live run gets")
    a = ap.parse_args()
    host, _, port = a.target.rpartition(":")
    rng = random.Random(a.seed)
    sched = []
    names = []
    for spec in a.classes:
        name, _, rest = spec.partition("=")
        path, _, rate = rest.rpartition(":")
        rate = float(rate)
        names.append(name)
        t = rng.expovariate(rate)
        while t < a.duration:
            sched.append((t, name, path))
            t += rng.expovariate(rate)
    sched.sort()
    if a.schedule:
        for n in names:
            with open("%s.%s" % (a.schedule, n), "w") as fp:
                for t, name, _ in sched:
                    if name == n:
                        fp.write("%.9f\n" % t)
    pool = Pool(host, int(port))
    results = []  # (class, t_intended, status, latency)
    late = []
    loop = asyncio.get_running_loop()
    t0 = loop.time() + 0.2

    async def fire(t, name, path):
        status = await one(pool, path, host)
        end = loop.time() - t0
        results.append((name, t, status, end - t, end))

    tasks = []
    for t, name, path in sched:
        delay = t0 + t - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        late.append(max(0.0, loop.time() - (t0 + t)))
        tasks.append(asyncio.ensure_future(fire(t, name, path)))
    done, pending = await asyncio.wait(tasks, timeout=a.grace) if tasks else (set(), set())
    for p in pending:
        p.cancel()
    window = a.duration - a.warmup
    out = {"duration": a.duration, "warmup": a.warmup, "window": window,
           "connections_opened": pool.opened, "unanswered": len(pending),
           "lateness_p99": quantile(late, 0.99), "lateness_max": max(late) if late else None,
           "classes": {}}

    def summary(rows):
        meas = [x for x in rows if x[1] >= a.warmup]
        ok = [x[3] for x in meas if 200 <= x[2] < 300]
        # goodput: 2xx answers given in the window, whenever sent (as the
        # simulation counts it), not those sent in it, which would count
        # the backlog of the window's start served after its end
        good = sum(1 for x in rows if 200 <= x[2] < 300 and a.warmup <= x[4] < a.duration)
        r503 = sum(1 for x in meas if x[2] == 503)
        other = sum(1 for x in meas if not (200 <= x[2] < 300) and x[2] != 503)
        answered = len(ok) + r503 + other
        return {"sent": len(meas), "answered": answered, "ok": len(ok), "refused_503": r503,
                "other": other, "goodput": good / window,
                "refused": r503 / answered if answered else None,
                "p50": quantile(ok, 0.5), "p95": quantile(ok, 0.95), "p99": quantile(ok, 0.99),
                "mean": sum(ok) / len(ok) if ok else None}

    for n in names:
        out["classes"][n] = summary([x for x in results if x[0] == n])
    out["all"] = summary(results)
    if a.dump:
        with open(a.dump, "w") as fp:
            for x in results:
                if x[1] >= a.warmup and 200 <= x[2] < 300:
                    fp.write("%.9f\n" % x[3])
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    asyncio.run(main())
