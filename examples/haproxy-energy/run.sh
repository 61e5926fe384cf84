#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh [QCTL]: delay-JSQ parking of haproxy's servers by `qctl control
# --controller park` under a daily load curve, against every server always
# on, beside `qctl sim pool --policy djsq`'s prediction for the same
# parameters (see README.md). About 4.5 minutes; results in results/.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
Q=${1:-$ROOT/build/qctl}
[ -x "$Q" ] || { echo "qctl not built: run make first" >&2; exit 1; }
command -v haproxy >/dev/null || { echo "haproxy is not installed (apt-get install haproxy)"; exit 0; }
K=${K:-4}                 # servers
MU=${MU:-5}               # service rate of one server (exp), per second
T=${T:-2}                 # delay-JSQ threshold
SETUP=${SETUP:-2}         # setup time, s
IDLE=${IDLE:-5}           # idle wait, s
DAY=${DAY:-0:1,20:3,35:12,65:3,85:1}  # the load curve: from T s on, R requests/s
BOUND=${BOUND:-1.5}      # the p95 bound both runs are held to, s
DUR=${DUR:-120}
OUT=${OUT:-$HERE/results}
tmp=$(mktemp -d)
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
mkdir -p "$OUT"
FREE_PORT_DIR=$tmp QCTL=$Q
. "$ROOT/scripts/free_port.sh"
free_port FRONT
S=$tmp/h.sock
{
    echo "global"
    echo "    stats socket $S mode 600 level admin"
    echo "defaults"
    echo "    mode http"
    echo "    timeout connect 5s"
    echo "    timeout client 60s"
    echo "    timeout server 60s"
    echo "    timeout queue 60s"
    echo "frontend f"
    echo "    bind 127.0.0.1:$FRONT"
    echo "    default_backend b"
    echo "backend b"
    echo "    balance leastconn"
} >"$tmp/h.cfg"
i=1
while [ $i -le "$K" ]; do
    # one worker a server: its own FCFS queue, as each server of sim pool
    "$Q" backend --listen 127.0.0.1:0 --port-file "$tmp/b$i.port" --workers 1 \
        --service "exp:$MU" --seed "$i" 2>"$tmp/b$i.err" &
    PIDS="$PIDS $!"
    j=0; while [ ! -s "$tmp/b$i.port" ] && [ $j -lt 100 ]; do sleep 0.1; j=$((j + 1)); done
    echo "    server s$i 127.0.0.1:$(cat "$tmp/b$i.port")" >>"$tmp/h.cfg"
    i=$((i + 1))
done
haproxy -f "$tmp/h.cfg" -db 2>"$tmp/haproxy.err" &
PIDS="$PIDS $!"
j=0; while [ ! -S "$S" ] && [ $j -lt 100 ]; do sleep 0.1; j=$((j + 1)); done
# run NAME MIN_ON: the load curve through haproxy, the fleet parked by qctl
run() {
    mkdir -p "$OUT/$1"
    "$Q" control --actuator "haproxy-park:$S:b" --controller park --min-on "$2" --threshold "$T" \
        --setup "$SETUP" --idle-wait "$IDLE" --interval 0.5 --duration "$DUR" \
        --series "$OUT/$1/series.csv" --quiet &
    cpid=$!
    "$Q" load --target "127.0.0.1:$FRONT" --schedule "$DAY" --duration "$DUR" --seed 3 --json \
        >"$OUT/$1/load.json" 2>"$tmp/load.err" || true
    wait "$cpid"
    sleep 2
}
echo "1. every server always on ($DUR s)"
run always "$K"
echo "2. delay-JSQ parking, T = $T, setup $SETUP s, idle wait $IDLE s ($DUR s)"
run park 1
echo "3. qctl sim pool, the same parameters"
"$Q" sim pool --servers "$K" --policy djsq --threshold "$T" --arrival "steps:$DAY" \
    --service "exp:$MU" --setup-time "det:$SETUP" --idle-timer "$IDLE" --time "$DUR" --warmup 0 \
    --reps 20 --json --quiet >"$OUT/sim.json"
# the same behind a balancer over the servers ON only, as haproxy routes:
# a request never waits for a setup (the prediction the run is held to)
"$Q" sim pool --servers "$K" --policy djsq --route-on --threshold "$T" --arrival "steps:$DAY" \
    --service "exp:$MU" --setup-time "det:$SETUP" --idle-timer "$IDLE" --time "$DUR" --warmup 0 \
    --reps 20 --json --quiet >"$OUT/sim_route_on.json"
"$Q" sim pool --servers "$K" --policy jsq --arrival "steps:$DAY" --service "exp:$MU" \
    --time "$DUR" --warmup 0 --reps 20 --json --quiet >"$OUT/sim_always.json"
python3 "$HERE/report.py" "$OUT" "$K" "$DUR" "$T" "$SETUP" "$IDLE" "$DAY" "$BOUND"
echo "results: $OUT/results.md, $OUT/index.html"
