#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_twin.sh: `qctl proxy` live against `qctl sim proxy` on the same
# parameters: does the simulated twin predict the proxy?
#   bench/bench_twin.sh [QCTL] [SITTINGS]
# Needs python3 (the client, bench/twin_client.py: open loop, Poisson
# instants, kept-alive connections, independent of qctl); without it, a
# notice and exit 0. 127.0.0.1 only. Parts (PARTS=12 by default):
#  1. the table: `qctl backend` with 4 workers, service det:M and exp:1/M
#     (M = SVC_MEAN, default 0.05 s: capacity C = 4/M = 80/s), offered
#     0.5C, C and 3C open loop for DUR s (default 25, the first WARM = 5
#     unmeasured), through `qctl proxy` with its defaults and with
#     --limiter aimd, each row a fresh backend and proxy; then `qctl sim
#     proxy` with the same flags (10 replications of DUR - WARM s after
#     WARM s) on the very instants the client sent at (its schedule, as
#     --arrival trace:FILE): two Poisson draws of 20 s at 40/s differ by
#     3.5% (one standard deviation) in their number of arrivals alone,
#     which would blur a 5% goodput criterion; and on the very service
#     times the backend drew (backend --seed S, sim --service-seed S):
#     at 1x, and under a rule whose state depends on the draws, one run's
#     draws move p50 by a factor of two (the row's last column is the
#     twin on its own draws, its 95% interval). The two quantities the
#     simulation is given from measurements: the overhead, the latency of requests through
#     `qctl proxy --limiter none` to a backend answering at once, at 30/s
#     (no load), measured once per sitting and handed over as
#     --overhead empirical:FILE (the time the proxy, the loopback and the
#     client's host add to an answer; on a host shared with other work it
#     is milliseconds, not microseconds). Less the proxy's own time at
#     that backend (its access log's upstream_time, median), which the
#     second measured quantity carries: the transit, the time a request
#     holds its proxy slot beyond its service, as the proxy's clock sees
#     it (the loopback both ways, the backend's timer and loop):
#     `qctl proxy --limiter fixed --limit 4` to the 4 workers of det:M at
#     a quarter of capacity (so none waits in the backend), its access
#     log's upstream_time less M, once per sitting, handed over as
#     --transit empirical:FILE. At 1x a limit that binds at the workers
#     loses that share of capacity; and it spreads the answers of workers
#     that the simulation would finish at one instant (det service).
#     RUNS live runs per row and sitting (default 4), each on its own
#     seed (client, backend and twin: run r of sitting s seeds s + 100 (r -
#     1)), each with its twin on its own inputs; a row's figures are the
#     means over its runs (each run's goodput, p50, p99, refused), live
#     and simulated. One run is not enough: at 1x (a queue at the edge of
#     stability) two runs on the same inputs that differ only in the
#     host's timing move p50 by 20% (sd), and the twin, whose replications
#     redraw the transit, shows the same spread.
#     Criteria per row: goodput within 5%, admitted p50 and p99 within
#     20% (sim / live), refused fraction within 5 points. SITTINGS
#     sittings (default 3); a row is met when it is met in every sitting.
#  2. two classes under the admission limiter (issue 30's scenario):
#     4 workers at det:0.01 (C = 400/s), gold (bound 0.05 s, path /gold)
#     250/s and silver (bound 0.3 s, /silver) 350/s for 30 s (5 unmeasured),
#     through `qctl proxy --limiter admission --class gold=0.05 --class
#     silver=0.3 --class-prefix gold=/gold --class-prefix silver=/silver`,
#     and the same at 3x (500/s and 700/s); `qctl sim proxy` on the same
#     parameters and the same send instants (per class, trace:FILE):
#     each class's admitted mean and p50 within 20%, refused within 5
#     points.
#     Then the same scenario 5 times slower (det:0.05, C = 80/s; gold 50/s
#     bound 0.25 s, silver 70/s bound 1.5 s), which a Python client can
#     drive on a busy host.
#  3. the class cases with qctl's own client: 4 workers at det:0.01, gold
#     (bound 0.05 s, /gold) and silver (bound 0.3 s, /silver) through
#     `qctl proxy --limiter admission` at its default --limit (the front
#     sets the limit by Little's law), offered open loop by one `qctl load
#     --dump` per class for DUR3 s (default 30, the first WARM s
#     unmeasured): 1x (gold 250/s + silver 350/s), 3x (750 + 1050) and
#     silver a candidate at 300/s beside gold 250/s (CASES3="1x 3x cand");
#     /status polled through each run (queue_standing, each class's
#     late). Then `qctl sim proxy` on the same parameters and the very
#     send instants of the dumps (trace:FILE per class). Per class: the
#     admitted mean delay (the clients' dumps) against its bound, the
#     mean and the refused fraction live against simulated (20% / 5
#     points). Needs curl.
# SERVICE=measured: the simulation's service law is the backend's as
# measured on this host (calibrate_service below) rather than the one the
# backend is given; the table's last column then says what the twin
# misses beyond the backend's own lateness.
# SCALES="1 2 5" (the default) picks the scenarios of part 2.
# NICE=-10 (say) runs the live processes (client, proxy, backend) at that
# niceness: on a host shared with other work a client that falls behind
# measures its own lateness, not the proxy (each run reports the client's
# lateness p99). KEEP=1 keeps the scratch directory and every run's JSON.
set -eu
QCTL=${1:-build/qctl}
SITTINGS=${2:-${SITTINGS:-3}}
PARTS=${PARTS:-12}
DUR=${DUR:-25}
WARM=${WARM:-5}
M=${SVC_MEAN:-0.05}
REPS=${REPS:-10}
RUNS=${RUNS:-4}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=$(command -v python3 || :)
[ -n "$PY" ] || { echo "bench_twin: needs python3: skipped"; exit 0; }
NICE_=""
[ -z "${NICE:-}" ] || NICE_="nice -n $NICE"
CLIENT="$NICE_ $PY $HERE/twin_client.py"
T=$(mktemp -d)
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null || :; done; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
waitf() { i=0; while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; }
start_backend() { # ARGS...: a backend on a free port; its port in $BPORT, pid in $BPID
    rm -f "$T/b.port"
    $NICE_ "$QCTL" backend --listen 127.0.0.1:0 --port-file "$T/b.port" "$@" &
    BPID=$!
    PIDS="$PIDS $BPID"
    waitf "$T/b.port"
    BPORT=$(cat "$T/b.port")
}
start_proxy() { # ARGS...: a proxy in front of $BPORT; port in $PPORT, pid in $PPID_
    rm -f "$T/p.port"
    $NICE_ "$QCTL" proxy --listen 127.0.0.1:0 --port-file "$T/p.port" --backend "127.0.0.1:$BPORT" \
        "$@" 2>>"$T/proxy.err" &
    PPID_=$!
    PIDS="$PIDS $PPID_"
    waitf "$T/p.port"
    PPORT=$(cat "$T/p.port")
}
stop() { kill "$@" 2>/dev/null || :; for p in "$@"; do wait "$p" 2>/dev/null || :; done; }
part() { case $PARTS in *$1*) return 0 ;; *) return 1 ;; esac; }
CAP=$(awk -v m="$M" 'BEGIN { printf "%.10g", 4 / m }')
RATE_EXP=$(awk -v m="$M" 'BEGIN { printf "%.10g", 1 / m }')
echo "bench_twin: host load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

# The upstream_time of each line of the proxy's JSON access log FILE,
# less SUB (clamped at 0), one a line.
upstream() { # FILE SUB
    "$PY" -c 'import json, sys
for l in open(sys.argv[1]):
    u = json.loads(l).get("upstream_time")
    if u is not None:
        print("%.9f" % max(0.0, u - float(sys.argv[2])))' "$1" "$2"
}
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }

# The overhead: latencies through the proxy without a limiter to a
# backend that answers at once, at no load, less the proxy's median time
# at that backend (the transit carries it). Then the transit.
calibrate() { # OUTFILE TRANSITFILE
    start_backend --workers 65536 --service det:0
    rm -f "$T/alog0"
    start_proxy --limiter none --access-log "$T/alog0" --access-log-format json
    $CLIENT "127.0.0.1:$PPORT" --class all=/:30 --duration 12 --warmup 2 --seed 99 \
        --dump "$1.raw" >"$1.json"
    stop "$PPID_" "$BPID"
    upstream "$T/alog0" 0 >"$1.up"
    m0=$(median "$1.up")
    awk -v m="$m0" '{ x = $1 - m; print (x > 0 ? x : 0) }' "$1.raw" >"$1"
    start_backend --workers 4 --service "det:$M"
    rm -f "$T/alog1"
    start_proxy --limiter fixed --limit 4 --access-log "$T/alog1" --access-log-format json
    r=$(awk -v c="$CAP" 'BEGIN { printf "%.10g", c / 4 }')
    $CLIENT "127.0.0.1:$PPORT" --class all=/:"$r" --duration 11 --warmup 1 --seed 96 >/dev/null
    stop "$PPID_" "$BPID"
    upstream "$T/alog1" "$M" >"$2"
    echo "  sitting $s: transit median $(median "$2") s (n $(wc -l <"$2")), at det:0 $m0 s"
}

# The backend's own service on this host (SERVICE=measured): latencies
# straight to `qctl backend --workers 4 --service SPEC` at 10% of its
# capacity, less the median latency straight to a backend that answers at
# once (the client's and the loopback's share, which --overhead already
# carries): what its timer sleeps on a busy host, late, rather than SPEC.
calibrate_service() { # SPEC OUTFILE
    start_backend --workers 65536 --service det:0
    $CLIENT "127.0.0.1:$BPORT" --class all=/:30 --duration 8 --warmup 1 --seed 98 \
        --dump "$2.zero" >/dev/null
    stop "$BPID"
    start_backend --workers 4 --service "$1"
    r=$(awk -v c="$CAP" 'BEGIN { printf "%.10g", c / 10 }')
    $CLIENT "127.0.0.1:$BPORT" --class all=/:"$r" --duration 20 --warmup 1 --seed 97 \
        --dump "$2.raw" >/dev/null
    stop "$BPID"
    m0=$(median "$2.zero")
    awk -v m="$m0" '{ x = $1 - m; print (x > 0 ? x : 0) }' "$2.raw" >"$2"
}

if part 1; then
    ROWS="$T/rows.jsonl"
    : >"$ROWS"
    s=1
    while [ "$s" -le "$SITTINGS" ]; do
        calibrate "$T/overhead$s.txt" "$T/transit$s.txt"
        for svc in det exp; do
            if [ "$svc" = det ]; then spec="det:$M"; else spec="exp:$RATE_EXP"; fi
            simspec=$spec
            targs="--transit empirical:$T/transit$s.txt"
            ssd=$s # the backend's seed: the twin serves its very draws
            if [ "${SERVICE:-}" = measured ]; then
                ssd=0
                calibrate_service "$spec" "$T/svc_$svc$s.txt"
                simspec="empirical:$T/svc_$svc$s.txt"
                targs="" # the measured law has the backend's lateness
            fi
            for lim in default aimd; do
                if [ "$lim" = aimd ]; then largs="--limiter aimd"; else largs=""; fi
                for x in 0.5 1 3; do
                  rate=$(awk -v c="$CAP" -v x="$x" 'BEGIN { printf "%.10g", c * x }')
                  r=1
                  while [ "$r" -le "$RUNS" ]; do
                    rs=$((s + 100 * (r - 1)))
                    [ "$ssd" = 0 ] || ssd=$rs
                    start_backend --workers 4 --service "$spec" --seed "$rs"
                    # shellcheck disable=SC2086
                    start_proxy $largs
                    $CLIENT "127.0.0.1:$PPORT" --class all=/:"$rate" --duration "$DUR" \
                        --warmup "$WARM" --seed "$rs" --schedule "$T/sched" >"$T/live.json"
                    stop "$PPID_" "$BPID"
                    # shellcheck disable=SC2086
                    "$QCTL" sim proxy --workers 4 --service "$simspec" $largs --arrival "trace:$T/sched.all" \
                        --overhead "empirical:$T/overhead$s.txt" $targs --time "$((DUR - WARM))" \
                        --warmup "$WARM" --reps "$REPS" --seed "$rs" --service-seed "$ssd" \
                        --quiet --json >"$T/sim.json"
                    # the same with each replication's own service draws:
                    # how far one backend run can fall from another
                    # shellcheck disable=SC2086
                    "$QCTL" sim proxy --workers 4 --service "$simspec" $largs --arrival "trace:$T/sched.all" \
                        --overhead "empirical:$T/overhead$s.txt" $targs --time "$((DUR - WARM))" \
                        --warmup "$WARM" --reps "$REPS" --seed "$rs" --quiet --json >"$T/simfree.json"
                    "$PY" - "$T/live.json" "$T/sim.json" "$s" "$svc" "$lim" "$x" "$T/simfree.json" \
                        "$(cut -d' ' -f1 /proc/loadavg)" "$r" >>"$ROWS" <<'EOF'
import json, sys
live, sim, free = (json.load(open(f)) for f in sys.argv[1:3] + sys.argv[7:8])
a, m, fm = live["all"], sim["metrics"], free["metrics"]
v = lambda k: m[k]["value"] if m[k] else None
iv = lambda k: [fm[k]["ci_low"], fm[k]["ci_high"]] if fm[k] and "ci_low" in fm[k] else None
print(json.dumps({"sitting": int(sys.argv[3]), "run": int(sys.argv[9]), "service": sys.argv[4], "limiter": sys.argv[5],
                  "load": float(sys.argv[6]), "live": a, "lateness_p99": live["lateness_p99"],
                  "lateness_max": live["lateness_max"], "loadavg": float(sys.argv[8]),
                  "sim": {"goodput": v("goodput"), "p50": v("latency_p50"),
                          "p99": v("latency_p99"), "refused": v("refused")},
                  "free": {"goodput": iv("goodput"), "p50": iv("latency_p50"),
                           "refused": iv("refused")}}))
EOF
                    tail -n 1 "$ROWS" | "$PY" -c '
import json, sys
r = json.loads(sys.stdin.read()); a, s = r["live"], r["sim"]
f = lambda x: "-" if x is None else "%.4g" % x
print("  sitting %d %s %-7s %.1fx run %d: live goodput %s p50 %s p99 %s refused %s | sim %s %s %s %s"
      % (r["sitting"], r["service"], r["limiter"], r["load"], r["run"], f(a["goodput"]), f(a["p50"]),
         f(a["p99"]), f(a["refused"]), f(s["goodput"]), f(s["p50"]), f(s["p99"]), f(s["refused"])))'
                    r=$((r + 1))
                  done
                done
            done
        done
        s=$((s + 1))
    done
    "$PY" - "$ROWS" <<'EOF'
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
# a row of a sitting: the means over its runs
def mean(xs):
    return None if not xs or any(x is None for x in xs) else sum(xs) / len(xs)
rows, by = [], {}
for r in runs:
    by.setdefault((r["sitting"], r["service"], r["limiter"], r["load"]), []).append(r)
for (st, svc, lim, load), rr in by.items():
    agg = lambda side: {k: mean([x[side][k] for x in rr]) for k in ("goodput", "p50", "p99", "refused")}
    p50s = [x["live"]["p50"] for x in rr if x["live"]["p50"] is not None]
    rows.append({"sitting": st, "service": svc, "limiter": lim, "load": load, "live": agg("live"),
                 "sim": agg("sim"), "runs": len(rr), "live_p50": [min(p50s), max(p50s)] if p50s else None,
                 "lateness_p99": max(x["lateness_p99"] for x in rr),
                 "loadavg": max(x["loadavg"] for x in rr), "free": rr[0].get("free", {})})
def ratio(s, l):
    return None if s is None or l is None or l == 0 else s / l
def crit(r):
    a, s = r["live"], r["sim"]
    g, p50, p99 = ratio(s["goodput"], a["goodput"]), ratio(s["p50"], a["p50"]), ratio(s["p99"], a["p99"])
    dref = None if s["refused"] is None or a["refused"] is None else s["refused"] - a["refused"]
    ok = {"goodput": g is not None and abs(g - 1) <= 0.05,
          "p50": p50 is not None and abs(p50 - 1) <= 0.20,
          "p99": p99 is not None and abs(p99 - 1) <= 0.20,
          "refused": dref is not None and abs(dref) <= 0.05}
    return g, p50, p99, dref, ok
f = lambda x, fmt="%.3g": "-" if x is None else fmt % x
print()
print("| sitting | service | limiter | load | goodput live / sim (ratio) | p50 ms live / sim (ratio) "
      "| p99 ms live / sim (ratio) | refused live / sim (points) | met | live runs' p50 ms "
      "| host load, client late p99 ms | own draws (run 1): goodput, p50 ms, refused (95%) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
def span(x, k=1, fmt="%.0f"):
    return "-" if not x else (fmt + "-" + fmt) % (k * x[0], k * x[1])
met = {}
for r in rows:
    a, s = r["live"], r["sim"]
    g, p50, p99, dref, ok = crit(r)
    key = (r["service"], r["limiter"], r["load"])
    met.setdefault(key, []).append(all(ok.values()))
    miss = [k for k, v in ok.items() if not v]
    ms = lambda x: None if x is None else 1e3 * x
    fr = r.get("free", {})
    print("| %d | %s | %s | %gx | %s / %s (%s) | %s / %s (%s) | %s / %s (%s) | %s / %s (%s) | %s "
          "| %s | %s, %s | %s, %s, %s |" % (
        r["sitting"], r["service"], r["limiter"], r["load"],
        f(a["goodput"], "%.1f"), f(s["goodput"], "%.1f"), f(g, "%.3f"),
        f(ms(a["p50"]), "%.1f"), f(ms(s["p50"]), "%.1f"), f(p50, "%.2f"),
        f(ms(a["p99"]), "%.1f"), f(ms(s["p99"]), "%.1f"), f(p99, "%.2f"),
        f(None if a["refused"] is None else 100 * a["refused"], "%.1f%%"),
        f(None if s["refused"] is None else 100 * s["refused"], "%.1f%%"),
        f(None if dref is None else 100 * dref, "%+.1f"),
        "yes" if not miss else "no: " + ", ".join(miss), span(r.get("live_p50"), 1e3),
        f(r.get("loadavg"), "%.0f"), f(ms(r.get("lateness_p99")), "%.1f"),
        span(fr.get("goodput"), 1, "%.1f"), span(fr.get("p50"), 1e3), span(fr.get("refused"), 100)))
print()
n_ok = sum(all(v) for v in met.values())
print("rows met in every sitting: %d of %d" % (n_ok, len(met)))
for k, v in met.items():
    if not all(v):
        print("  missed: %s %s %gx in %d of %d sittings" % (k[0], k[1], k[2], v.count(False), len(v)))
EOF
fi

if part 2; then
    echo
    for scale in ${SCALES:-1 2 5}; do
        case $scale in
            1) g=250 sv=350 d=0.01 bg=0.05 bs=0.3 ;;
            2) g=500 sv=700 d=0.01 bg=0.05 bs=0.3 ;;
            5) g=50 sv=70 d=0.05 bg=0.25 bs=1.5 ;;
        esac
        echo "two classes under the admission limiter, 4 workers of det:$d, gold $g/s (bound $bg s), silver $sv/s (bound $bs s), 30 s:"
        start_backend --workers 4 --service det:$d
        start_proxy --limiter admission --class gold=$bg --class silver=$bs \
            --class-prefix gold=/gold --class-prefix silver=/silver
        $CLIENT "127.0.0.1:$PPORT" --class gold=/gold:$g --class silver=/silver:$sv \
            --duration 30 --warmup 5 --seed 7 --schedule "$T/two$scale" >"$T/two_live$scale.json"
        stop "$PPID_" "$BPID"
        "$QCTL" sim proxy --workers 4 --service det:$d --limiter admission \
            --class gold=$bg --class silver=$bs --class-arrival "gold=trace:$T/two$scale.gold" \
            --class-arrival "silver=trace:$T/two$scale.silver" --time 25 --warmup 5 --reps "$REPS" --quiet \
            --json >"$T/two_sim$scale.json"
        "$PY" - "$T/two_live$scale.json" "$T/two_sim$scale.json" "$g" "$sv" "$d" <<'EOF'
import json, sys
live, sim = (json.load(open(f)) for f in sys.argv[1:3])
print("  offered %.2gx capacity; client lateness p99 %.3g s; goodput live %.1f/s, sim %.1f/s"
      % ((int(sys.argv[3]) + int(sys.argv[4])) * float(sys.argv[5]) / 4, live["lateness_p99"],
         live["all"]["goodput"], sim["metrics"]["goodput"]["value"]))
print("  | class | mean ms live / sim (ratio) | p50 ms live / sim (ratio) | refused live / sim (points) | met |")
print("  | --- | --- | --- | --- | --- |")
for k, c in enumerate(sim["classes"]):
    a = live["classes"][c["name"]]
    sm, s50, sr = (c[x]["value"] if c[x] else None for x in ("latency", "latency_p50", "refused"))
    rm = None if sm is None or not a["mean"] else sm / a["mean"]
    r50 = None if s50 is None or not a["p50"] else s50 / a["p50"]
    dr = None if sr is None or a["refused"] is None else sr - a["refused"]
    ok = [rm is not None and abs(rm - 1) <= 0.2, r50 is not None and abs(r50 - 1) <= 0.2,
          dr is not None and abs(dr) <= 0.05]
    f = lambda x, k, fmt: "-" if x is None else fmt % (k * x)
    print("  | %s | %s / %s (%s) | %s / %s (%s) | %s / %s (%s) | %s |" % (
        c["name"], f(a["mean"], 1e3, "%.1f"), f(sm, 1e3, "%.1f"), f(rm, 1, "%.2f"),
        f(a["p50"], 1e3, "%.1f"), f(s50, 1e3, "%.1f"), f(r50, 1, "%.2f"),
        f(a["refused"], 100, "%.1f%%"), f(sr, 100, "%.1f%%"), f(dr, 100, "%+.1f"),
        "yes" if all(ok) else "no"))
EOF
    done
fi

if part 3; then
    echo
    D3=${DUR3:-30}
    CASES3=${CASES3:-"1x 3x cand"}
    command -v curl >/dev/null || { echo "part 3 needs curl: skipped"; CASES3=""; }
    for case3 in $CASES3; do
        cand=""
        case $case3 in
            1x) g=250 sv=350 ;;
            3x) g=750 sv=1050 ;;
            cand) g=250 sv=300 cand="--candidate silver" ;;
            *) echo "bench_twin: CASES3: $case3 is not 1x, 3x or cand" >&2; exit 2 ;;
        esac
        load0=$(cut -d' ' -f1 /proc/loadavg)
        start_backend --workers 4 --service det:0.01
        rm -f "$T/a.port"
        # shellcheck disable=SC2086
        start_proxy --admin 127.0.0.1:0 --admin-port-file "$T/a.port" --admin-no-token \
            --limiter admission --class gold=0.05 --class silver=0.3 $cand \
            --class-prefix gold=/gold --class-prefix silver=/silver
        waitf "$T/a.port"
        APORT=$(cat "$T/a.port")
        $NICE_ "$QCTL" load --target "127.0.0.1:$PPORT" --path /gold --rate "$g" --duration "$D3" \
            --connections 512 --seed 11 --max-errors 1 --dump "$T/c3_gold" --quiet --json >"$T/c3_gold.json" &
        LG=$!
        $NICE_ "$QCTL" load --target "127.0.0.1:$PPORT" --path /silver --rate "$sv" --duration "$D3" \
            --connections 1024 --seed 12 --max-errors 1 --dump "$T/c3_silver" --quiet --json >"$T/c3_silver.json" &
        LS=$!
        : >"$T/c3_status"
        i=0
        while kill -0 "$LG" 2>/dev/null && [ $i -lt $((D3 * 4)) ]; do
            curl -s "http://127.0.0.1:$APORT/status" | tr -d '\n' >>"$T/c3_status" && echo >>"$T/c3_status"
            sleep 0.25
            i=$((i + 1))
        done
        wait "$LG" || :
        wait "$LS" || :
        curl -s "http://127.0.0.1:$APORT/status" | tr -d '\n' >>"$T/c3_status" && echo >>"$T/c3_status"
        stop "$PPID_" "$BPID"
        for c in gold silver; do # the send instants, for the twin
            awk '!/^#/ { print $2 }' "$T/c3_$c" >"$T/c3_$c.trace"
        done
        # shellcheck disable=SC2086
        "$QCTL" sim proxy --workers 4 --service det:0.01 --limiter admission \
            --class gold=0.05 --class silver=0.3 $cand --class-arrival "gold=trace:$T/c3_gold.trace" \
            --class-arrival "silver=trace:$T/c3_silver.trace" --time "$((D3 - WARM))" --warmup "$WARM" \
            --reps "$REPS" --quiet --json >"$T/c3_sim.json"
        echo "class case $case3: gold $g/s (bound 0.05 s), silver $sv/s (bound 0.3 s)${cand:+, silver a candidate}, $D3 s; host load $load0 -> $(cut -d' ' -f1 /proc/loadavg)"
        "$PY" - "$T" "$WARM" <<'EOF'
import json, sys
T, warm = sys.argv[1], float(sys.argv[2])
sim = json.load(open(T + "/c3_sim.json"))
bounds = {"gold": 0.05, "silver": 0.3}
polls = []
for l in open(T + "/c3_status"):
    try:
        polls.append(json.loads(l))
    except ValueError:
        pass
standing = sum(1 for p in polls if p.get("queue_standing"))
last = polls[-1] if polls else {}
late = {c.get("name"): c.get("late") for c in last.get("classes", [])}
state = {c.get("name"): c.get("state") for c in last.get("classes", [])}
lims = [p["limit"] for p in polls if isinstance(p.get("limit"), (int, float))]
print("  /status polled %d times: queue_standing true in %d; let in past a deadline (late, s): %s; limit %s"
      % (len(polls), standing, ", ".join("%s %s" % (k, late.get(k)) for k in bounds),
         "%.3g-%.3g, last %.3g" % (min(lims), max(lims), lims[-1]) if lims else "-"))
print("  | class | state live / sim rejected | bound ms | live mean ms (n) | below bound | sim mean ms (ratio) | refused live / sim (points) | met |")
print("  | --- | --- | --- | --- | --- | --- | --- | --- |")
for c in sim["classes"]:
    name = c["name"]
    if name not in bounds:
        continue
    rows = [l.split() for l in open(T + "/c3_" + name) if not l.startswith("#")]
    rows = [(float(r[1]), float(r[2]), int(r[3])) for r in rows if float(r[1]) >= warm]
    ok = [r[1] for r in rows if 200 <= r[2] < 300]
    ref = sum(1 for r in rows if r[2] == 503)
    lm = sum(ok) / len(ok) if ok else None
    lr = ref / len(rows) if rows else None
    sm = c["latency"]["value"] if c["latency"] else None
    sr = c["refused"]["value"] if c["refused"] else None
    rm = None if sm is None or not lm else sm / lm
    dr = None if sr is None or lr is None else sr - lr
    # claim (i) is on the admitted classes: a class rejected (live, and in
    # every replication of the twin) has no admitted mean to hold
    rej = state.get(name) == "rejected" and c.get("rejected_in_reps") == sim["run"].get("reps", -1)
    below = (lm is not None and lm < bounds[name]) or (rej and not ok)
    okp = dr is not None and abs(dr) <= 0.05 and ((rm is not None and abs(rm - 1) <= 0.2) or (rej and sm is None))
    f = lambda x, k, fmt: "-" if x is None else fmt % (k * x)
    print("  | %s | %s / %s of %s | %g | %s (%d) | %s | %s (%s) | %s / %s (%s) | %s |" % (
        name, state.get(name), c.get("rejected_in_reps"), sim["run"].get("reps"), 1e3 * bounds[name], f(lm, 1e3, "%.1f"), len(ok), ("n/a: rejected" if rej and not ok else "yes") if below else "NO",
        f(sm, 1e3, "%.1f"), f(rm, 1, "%.2f"), f(lr, 100, "%.1f%%"), f(sr, 100, "%.1f%%"),
        f(dr, 100, "%+.1f"), "yes" if below and okp else "no"))
EOF
    done
fi
