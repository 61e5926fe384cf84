# SPDX-License-Identifier: GPL-3.0-or-later
# report.py OUT K DUR T SETUP IDLE DAY: results.md and index.html of the
# haproxy-energy example: server-seconds (servers not parked, from the
# controller's series), setups, p95 of the response time (qctl load), for
# parking and always-on, beside qctl sim pool's prediction of both.
import csv
import json
import sys

out, K, dur, T, setup, idle, day, bound = sys.argv[1:9]
bound = float(bound)
K, dur = int(K), float(dur)


def series(name):
    rows = [r for r in csv.reader(l for l in open(f"{out}/{name}/series.csv") if not l.startswith("#"))]
    head, rows = rows[0], rows[1:]
    return [dict(zip(head, r)) for r in rows]


def find(d, key):
    if isinstance(d, dict):
        if key in d:
            return d[key]
        for v in d.values():
            r = find(v, key)
            if r is not None:
                return r
    return None


def load_p95(name):
    try:
        d = json.load(open(f"{out}/{name}/load.json"))
    except (OSError, ValueError):
        return None
    v = find(d, "p95")
    return float(v) if v is not None else None


def measured(name):
    s = series(name)
    last = [r for r in s if r["server_seconds"]]
    ss = float(last[-1]["server_seconds"]) if last else None
    t = float(last[-1]["time"]) if last else None
    starts = int(last[-1]["starts"]) if last else None
    return ss, t, starts, load_p95(name), s


def sim(path):
    m = json.load(open(path))["metrics"]
    on = m["servers_on"]["value"] + m["servers_setup"]["value"]
    return on * dur, m["response_time_p95"]["value"], m["switch_ons_per_hour"]["value"] * dur / 3600


a_ss, a_t, _, a_p95, a_rows = measured("always")
p_ss, p_t, p_starts, p_p95, p_rows = measured("park")
s_ss, s_p95, s_starts = sim(f"{out}/sim.json")
r_ss, r_p95, r_starts = sim(f"{out}/sim_route_on.json")
sa_ss, sa_p95, _ = sim(f"{out}/sim_always.json")


def pct(a, b):
    return "-" if a is None or b is None or b == 0 else f"{100 * (a - b) / b:+.1f}%"


def num(x, f="{:.1f}"):
    return "-" if x is None else f.format(x)


saving = None if a_ss is None or p_ss is None else 100 * (1 - p_ss / (a_ss * p_t / a_t))
lines = [
    "# Delay-JSQ parking of haproxy's servers",
    "",
    f"{K} servers (one worker each, exponential service), haproxy `balance leastconn`; "
    f"load curve {day} (from T s on, R requests/s, Poisson) for {dur:.0f} s; threshold T = {T}, "
    f"setup {setup} s, idle wait {idle} s.",
    "",
    "| run | server-seconds | setups | p95 (s) |",
    "| --- | --- | --- | --- |",
    f"| always on (measured) | {num(a_ss)} | 0 | {num(a_p95, '{:.3f}')} |",
    f"| parked (measured) | {num(p_ss)} | {num(p_starts, '{}')} | {num(p_p95, '{:.3f}')} |",
    f"| always on (sim pool, jsq) | {num(sa_ss)} | 0 | {num(sa_p95, '{:.3f}')} |",
    f"| parked (sim pool, djsq) | {num(s_ss)} | {num(s_starts)} | {num(s_p95, '{:.3f}')} |",
    f"| parked (sim pool, djsq --route-on) | {num(r_ss)} | {num(r_starts)} | {num(r_p95, '{:.3f}')} |",
    "",
    f"Saving of server-seconds by parking, measured (always-on scaled to the same length): "
    f"{num(saving)}%; p95 bound {bound:g} s: always on "
    f"{'meets it' if a_p95 is not None and a_p95 <= bound else 'does not meet it'}, parked "
    f"{'meets it' if p_p95 is not None and p_p95 <= bound else 'does not meet it'}.",
    f"Measured against sim pool djsq --route-on (the prediction for this plant): server-seconds "
    f"{pct(p_ss, r_ss)}, p95 {pct(p_p95, r_p95)} (within 20% is the aim); against plain djsq: "
    f"server-seconds {pct(p_ss, s_ss)}, p95 {pct(p_p95, s_p95)}.",
    "",
    "Why --route-on: sim pool's djsq sends the request that turns a server on to that server,",
    "where it waits for the whole setup (and so may the next ones, up to T); haproxy sends",
    "nothing to a server in `maint`, so behind it that request joins the shortest queue of",
    "the servers `ready` (leastconn), and no request ever waits for a setup. --route-on models",
    "exactly that (the servers turned on are the same: a server in setup counts for the",
    "requests that chose it), and plain djsq overstates the p95. The rules still differ in",
    "grain: sim pool decides at each request and switches a server off after its own idle",
    "timer; the live controller decides every 0.5 s from `show stat` (servers needed",
    "ceil(n / T)) and keeps at least one server on.",
]
open(f"{out}/results.md", "w").write("\n".join(lines) + "\n")


def svg(rows, title):
    W, H = 640, 200
    tm = max(float(r["time"]) for r in rows) or 1
    ym = max([float(r["sessions"] or 0) + float(r["queue"] or 0) for r in rows] + [K]) * 1.1
    pts_on = " ".join(f"{W * float(r['time']) / tm:.1f},{H - H * float(r['setting'] or 0) / ym:.1f}" for r in rows)
    pts_n = " ".join(
        f"{W * float(r['time']) / tm:.1f},{H - H * (float(r['sessions'] or 0) + float(r['queue'] or 0)) / ym:.1f}"
        for r in rows)
    return (f"<h3>{title}</h3><svg width='{W}' height='{H}' style='border:1px solid #ccc'>"
            f"<polyline fill='none' stroke='#1565c0' points='{pts_n}'/>"
            f"<polyline fill='none' stroke='#c62828' points='{pts_on}'/>"
            f"<text x='4' y='14' font-size='12'>blue: requests in haproxy, red: servers on (0 to {ym:.0f})</text></svg>")


html = ["<!doctype html><meta charset='utf-8'><title>haproxy parking</title>",
        "<body style='font-family:sans-serif;max-width:760px'><h1>Delay-JSQ parking of haproxy's servers</h1><pre>",
        "\n".join(lines).replace("&", "&amp;").replace("<", "&lt;"), "</pre>",
        svg(a_rows, "always on"), svg(p_rows, "parked"), "</body>"]
open(f"{out}/index.html", "w").write("\n".join(html))
print("\n".join(lines))
