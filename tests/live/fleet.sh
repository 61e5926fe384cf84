#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# fleet.sh: delay-JSQ power control in qctl proxy on 127.0.0.1. Three
# backends, one on at start; the unpark command starts a `qctl backend`
# with a 0.5 s setup on the backend's fixed port, the park command stops
# it. A load that rises then falls must unpark backends (setup measured
# from the unpark to the first healthy answer, about 0.5 s), park them
# after the idle timer, and answer every request once (2xx or 503).
set -u
. "$(dirname "$0")/lib.sh"
# Free ports for the parked backends (see free_port in lib.sh).
free_port P2 || fail "no free port"
free_port P3 || fail "no free port"
start_backend b1 --service det:0.02 --workers 4 --health /healthz
echo "$b1_PID" >"$TMP/pid$b1_PORT" # parked like the others if the timer picks it
stop_unparked() { for f in "$TMP"/pid*; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done; }
trap 'stop_unparked; cleanup' EXIT
SVC="--service det:0.02 --workers 4 --health /healthz --setup det:0.5"
start_proxy --backend 127.0.0.1:$b1_PORT --backend 127.0.0.1:$P2 --backend 127.0.0.1:$P3 \
    --limiter none --route djsq --djsq-threshold 4 --initially-on 1 --idle-off 1 \
    --health /healthz --health-interval 0.05 --interval 0.05 --series "$TMP/series.csv" \
    --unpark-cmd "'$QCTL' backend --listen {backend} $SVC 2>>'$TMP/b{port}.err' & echo \$! >'$TMP/pid{port}'" \
    --park-cmd "kill \$(cat '$TMP/pid{port}') && rm '$TMP/pid{port}'"
"$QCTL" load --target 127.0.0.1:$PROXY_PORT --schedule 0:30,1.5:450,4.5:30 --duration 6 \
    --connections 256 --timeout 10 --json >"$TMP/load.json" || fail "load failed"
conserved "$TMP/load.json"
# jnum FILE KEY: the number after the last "KEY": in /status (the fleet object is last)
jnum() { sed -n "s/^ *\"$2\": \([-0-9.e]*\),*\$/\1/p" "$1" | tail -n 1; }
# mnum FILE SERIES: the sum of a Prometheus series over its labels
mnum() { awk -v s="$2" 'index($0, s) == 1 { t += $NF } END { printf "%d\n", t }' "$1"; }
within() { awk -v x="$1" -v a="$2" -v b="$3" 'BEGIN { exit !(x >= a && x <= b) }'; }
curl -s "http://127.0.0.1:$ADMIN_PORT/status" >"$TMP/busy.json" || fail "no /status"
unparks=$(jnum "$TMP/busy.json" unparks)
[ "$unparks" -ge 1 ] || fail "the load did not unpark a backend"
[ "$(jnum "$TMP/busy.json" setups)" -ge 1 ] || fail "no setup measured"
# setup: the backend answers 503 for 0.5 s after it starts, which is
# after the unpark; the rest is process start and one probe interval
wm=$(jnum "$TMP/busy.json" setup_mean) wx=$(jnum "$TMP/busy.json" setup_max)
within "$wm" 0.5 1.2 || fail "mean setup $wm s, expected 0.5 to 1.2"
within "$wx" 0.5 1.5 || fail "longest setup $wx s"
# idle: the timer (1 s) parks all but min-on = 1
i=0
while [ $i -lt 60 ]; do
    curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" >"$TMP/metrics.txt"
    grep -q '^qctl_backends{state="off"} 2$' "$TMP/metrics.txt" && break
    sleep 0.1; i=$((i + 1))
done
grep -q '^qctl_backends{state="on"} 1$' "$TMP/metrics.txt" || fail "not parked back to 1 on"
grep -q '^qctl_backends{state="off"} 2$' "$TMP/metrics.txt" || fail "not parked back to 1 on"
[ "$(mnum "$TMP/metrics.txt" qctl_parks_total)" -ge 2 ] || fail "fewer than 2 parks"
[ "$(mnum "$TMP/metrics.txt" qctl_fleet_failures_total)" -eq 0 ] || fail "an un/park command failed"
[ "$(ls "$TMP"/pid* | wc -l)" -eq 1 ] || fail "the park command did not stop the parked backends"
# conservation: what the backends answered is what the load got 2xx, the
# rest was refused (503) while waiting for a setup
ok=$(num "$TMP/load.json" ok) r=$(num "$TMP/load.json" refused_503)
ans=$(mnum "$TMP/metrics.txt" qctl_backend_answered_total)
wr=$(mnum "$TMP/metrics.txt" qctl_setup_refused_total)
[ "$ans" -eq "$ok" ] || fail "backends answered $ans, the load got $ok"
[ "$wr" -le "$r" ] || fail "$wr refused at setup but the load saw $r 503s"
[ "$(mnum "$TMP/metrics.txt" qctl_backend_failed_total)" -eq 0 ] || fail "backend failures"
kill -TERM "$PROXY_PID"
wait "$PROXY_PID" || fail "proxy exit status"
awk -F, 'NR > 1 && $9 > 0 { w = 1 } END { exit !w }' "$TMP/series.csv" ||
    fail "no backend in setup in the series"
echo ok
