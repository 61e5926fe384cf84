#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh: the live demonstration, one command, all on 127.0.0.1.
#   examples/live/run.sh [QCTL] [OUTDIR]
# A backend that serves 200 requests/s (2 workers, exp service of mean
# 10 ms) behind qctl proxy; open-loop Poisson load rising in steps to 3x
# that (100, 200, 400, 600 requests/s, 4 s each), once without control
# and once with the MaxUsers integral controller holding 4 requests in
# the backend. Then backend power control: three backends behind delay-JSQ
# (qctl proxy --route djsq), one on at start; the others are started by
# the unpark command (a qctl backend with a 1 s setup) and stopped by the
# park command after 2 s idle, as Poisson load moves 60 -> 400 -> 60
# requests/s (3, 5 and 4 s); the same load on all three always on (jsq) for comparison.
# Writes per-step JSON summaries, the proxy's control series, a table, a
# fleet summary and plots (gnuplot) to OUTDIR (default build/examples/live,
# not a tracked file; the run kept in the repository, examples/live/results,
# was made with this script: OUTDIR examples/live/results updates it).
# It stops at the first failure (a server that does not start, a port in
# use, a load run with no answer or mostly failures, a status it cannot
# read) instead of computing figures from a broken run.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
QCTL=${1:-$here/../../build/qctl}
OUT=${2:-$here/../../build/examples/live}
mkdir -p "$OUT"
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null || :; done' EXIT
die() { echo "run.sh: $*; stopping" >&2; exit 1; }
[ -x "$QCTL" ] || die "no qctl at $QCTL (build it, or pass its path)"
command -v curl >/dev/null || command -v wget >/dev/null || die "neither curl nor wget found"
# waitf FILE PID: wait (5 s at most) for a port file written by process PID
waitf() {
    i=0
    while [ ! -s "$1" ] && [ $i -lt 100 ]; do
        kill -0 "$2" 2>/dev/null || die "process $2 exited before writing $1 (port in use?)"
        sleep 0.05
        i=$((i+1))
    done
    [ -s "$1" ] || die "no $1 after 5 s"
}
# check_load FILE: the load run answered, and mostly not with failures
check_load() {
    sent=$(val "$1" sent) ok=$(val "$1" ok) r503=$(val "$1" refused_503)
    [ -n "$sent" ] && [ -n "$ok" ] || die "$1: no summary from qctl load"
    awk -v s="$sent" -v o="$ok" -v r="${r503:-0}" 'BEGIN { exit !(o > 0 && s - o - r <= 0.5 * s) }' ||
        die "$1: $ok of $sent requests answered (${r503:-0} refused): the run is broken"
}
val() { sed -n "s/^ *\"$2\": \\([-0-9.e]*\\),*\$/\\1/p" "$1" | head -n 1; }

rm -f "$OUT/b.port"
"$QCTL" backend --listen 127.0.0.1:0 --port-file "$OUT/b.port" --service exp:100 --workers 2 &
PIDS="$PIDS $!"
waitf "$OUT/b.port" $!
BP=$(cat "$OUT/b.port")

printf "%-8s %6s %8s %8s %8s %10s %10s\n" run rate sent ok 503 ok_p50 ok_p95 >"$OUT/table.txt"
for run in none maxusers; do
    rm -f "$OUT/p.port"
    "$QCTL" proxy --listen 127.0.0.1:0 --port-file "$OUT/p.port" --backend 127.0.0.1:$BP \
        --limiter $run --limit 4 --reference 4 --gain 0.3 --queue 64 --queue-timeout 10 \
        --interval 0.1 --series "$OUT/series_$run.csv" &
    PP=$!
    waitf "$OUT/p.port" $PP
    : >"$OUT/latency_$run.csv"
    t0=$(date +%s.%N)
    for rate in 100 200 400 600; do
        off=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
        "$QCTL" load --target 127.0.0.1:$(cat "$OUT/p.port") --rate $rate --duration 4 \
            --connections 512 --timeout 60 --series "$OUT/lat_${run}_$rate.csv" \
            --series-interval 0.25 --json >"$OUT/${run}_$rate.json" || :
        check_load "$OUT/${run}_$rate.json"
        # the step's latency series on the run's clock (a step lasts until
        # its last request is answered, past its 4 s when the queue grew)
        awk -F, -v off="$off" 'NR > 1 { printf "%.3f,%s,%s\n", $1 + off, $8, $9 }' \
            "$OUT/lat_${run}_$rate.csv" >>"$OUT/latency_$run.csv"
        f=$OUT/${run}_$rate.json
        printf "%-8s %6s %8s %8s %8s %10.4f %10.4f\n" $run $rate "$(val $f sent)" "$(val $f ok)" \
            "$(val $f refused_503)" "$(val $f ok_p50)" "$(val $f ok_p95)" >>"$OUT/table.txt"
    done
    kill -TERM $PP
    wait $PP
done
cat "$OUT/table.txt"
if command -v gnuplot >/dev/null; then
    gnuplot <<GP
set datafile separator ","
set terminal svg size 900,1000
set output "$OUT/control.svg"
set multiplot layout 3,1
set key outside
set ylabel "requests"
set title "MaxUsers integral control (reference 4 in the backend; load 100, 200, 400, 600/s, 4 s each)"
plot "$OUT/series_maxusers.csv" every ::1 using 1:2 with lines title "limit", \
     "$OUT/series_maxusers.csv" every ::1 using 1:7 with lines title "in backend, measured", \
     4 with lines dt 2 title "reference", \
     "$OUT/series_maxusers.csv" every ::1 using 1:4 with lines title "proxy queue"
set title "no control: the same load"
plot "$OUT/series_none.csv" every ::1 using 1:3 with lines title "in flight"
set title "p95 latency per 0.25 s, from each request's intended send time"
set xlabel "time (s)"
set ylabel "seconds"
set logscale y
plot "$OUT/latency_none.csv" using 1:2 with lines title "no control", \
     "$OUT/latency_maxusers.csv" using 1:3 with lines title "maxusers, admitted (2xx)", \
     "$OUT/latency_maxusers.csv" using 1:2 with lines dt 2 title "maxusers, all answers (503 included)"
unset multiplot
GP
    echo "plot: $OUT/control.svg"
fi

# ---- backend power control: delay-JSQ with parking --------------------
# three free ports below the ephemeral range (see scripts/free_port.sh)
FREE_PORT_DIR=$OUT
. "$here/../../scripts/free_port.sh"
PORTS=""
for k in 1 2 3; do
    free_port port
    PORTS="$PORTS $port"
done
set -- $PORTS
BK="--backend 127.0.0.1:$1 --backend 127.0.0.1:$2 --backend 127.0.0.1:$3"
SVC="--service exp:100 --workers 2 --health /healthz"
start_on() { # PORT: a backend already on, as the unpark command would leave it
    "$QCTL" backend --listen 127.0.0.1:$1 $SVC &
    echo $! >"$OUT/pid$1"
    PIDS="$PIDS $!"
    sleep 0.2
    kill -0 $! 2>/dev/null || die "the backend on port $1 did not start (port in use?)"
}
stop_all() { for f in "$OUT"/pid*; do [ -f "$f" ] && { kill "$(cat "$f")" 2>/dev/null || :; }; rm -f "$f"; done; }
trap 'stop_all; for p in $PIDS; do kill $p 2>/dev/null || :; done' EXIT
SCHED=0:60,3:400,8:60
for run in djsq jsq; do
    stop_all
    set -- $PORTS
    if [ $run = djsq ]; then
        start_on $1
        FLEET="--route djsq --djsq-threshold 4 --initially-on 1 --idle-off 2"
        set -- --unpark-cmd "'$QCTL' backend --listen {backend} $SVC --setup det:1 & echo \$! >'$OUT/pid{port}'" \
            --park-cmd "kill \$(cat '$OUT/pid{port}') && rm '$OUT/pid{port}'"
    else
        start_on $1; start_on $2; start_on $3
        FLEET="--route jsq"
        set --
    fi
    sleep 0.3
    rm -f "$OUT/p.port" "$OUT/a.port"
    "$QCTL" proxy --listen 127.0.0.1:0 --port-file "$OUT/p.port" --admin 127.0.0.1:0 \
        --admin-port-file "$OUT/a.port" $BK --limiter none --queue-timeout 5 --interval 0.1 \
        $FLEET --health /healthz --health-interval 0.05 --series "$OUT/series_fleet_$run.csv" \
        "$@" &
    PP=$!
    waitf "$OUT/p.port" $PP
    waitf "$OUT/a.port" $PP
    "$QCTL" load --target 127.0.0.1:$(cat "$OUT/p.port") --schedule $SCHED --duration 12 \
        --connections 512 --timeout 30 --json >"$OUT/fleet_$run.json" || :
    check_load "$OUT/fleet_$run.json"
    curl -sf "http://127.0.0.1:$(cat "$OUT/a.port")/status" >"$OUT/fleet_status_$run.json" 2>/dev/null ||
        wget -qO "$OUT/fleet_status_$run.json" "http://127.0.0.1:$(cat "$OUT/a.port")/status" ||
        die "cannot read the proxy's /status"
    grep -q '"powered_seconds"' "$OUT/fleet_status_$run.json" ||
        die "$OUT/fleet_status_$run.json: no powered_seconds"
    kill -TERM $PP
    wait $PP
done
stop_all
# powered server-seconds (on + setup + parking) over the run, p95
pw() { sed -n 's/^ *"powered_seconds": \([-0-9.e]*\),*$/\1/p' "$1" | tail -n 1; }
{
    printf "%-16s %8s %8s %8s %10s %10s\n" fleet sent ok 503 p95 powered_s
    for run in djsq jsq; do
        f=$OUT/fleet_$run.json
        printf "%-16s %8s %8s %8s %10.4f %10.1f\n" "$run" "$(val $f sent)" "$(val $f ok)" \
            "$(val $f refused_503)" "$(val $f p95)" "$(pw "$OUT/fleet_status_$run.json")"
    done
    d=$(pw "$OUT/fleet_status_djsq.json") j=$(pw "$OUT/fleet_status_jsq.json")
    awk -v d="$d" -v j="$j" 'BEGIN { if (j > 0) printf "parking: %.1f server-seconds powered vs %.1f all on (%.0f%% saved)\n", d, j, 100 * (1 - d / j) }'
    w=$(sed -n 's/^ *"setup_mean": \([-0-9.e]*\),*$/\1/p' "$OUT/fleet_status_djsq.json")
    u=$(sed -n 's/^ *"unparks": \([0-9]*\),*$/\1/p' "$OUT/fleet_status_djsq.json" | tail -n 1)
    [ -n "$w" ] && w=$(printf "%.3f" "$w")
    echo "djsq: $u unparks, mean setup ${w:-none} s (unpark to first healthy answer)"
} | tee "$OUT/fleet.txt"
if command -v gnuplot >/dev/null; then
    # offered load per 0.5 s from the series' cumulative admitted count
    awk -F, 'NR > 1 { if (NR % 5 == 2) { if (t0 != "") print $1 "," ($5 - a0) / ($1 - t0) "," $8 "," $9 "," $10 "," $11; t0 = $1; a0 = $5 } }' \
        "$OUT/series_fleet_djsq.csv" >"$OUT/fleet_plot.csv"
    gnuplot <<GP
set datafile separator ","
set terminal svg size 900,650
set output "$OUT/fleet.svg"
set multiplot layout 2,1 title "delay-JSQ with parking: offered load and backend states"
set key outside
set ylabel "requests/s"
plot "$OUT/fleet_plot.csv" using 1:2 with lines lw 2 title "offered load"
set xlabel "time (s)"
set ylabel "backends"
set yrange [-0.2:3.4]
set ytics 1
plot "$OUT/fleet_plot.csv" using 1:3 with steps lw 2 title "on", \
     "$OUT/fleet_plot.csv" using 1:4 with steps lw 2 title "setup", \
     "$OUT/fleet_plot.csv" using 1:5 with steps lw 2 title "off", \
     "$OUT/fleet_plot.csv" using 1:6 with steps title "parking"
unset multiplot
GP
    echo "plot: $OUT/fleet.svg"
fi
