#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh: the live demonstration, one command, all on 127.0.0.1.
#   examples/live/run.sh [QCTL] [OUTDIR]
# A backend that serves 200 requests/s (2 workers, exp service of mean
# 10 ms) behind qctl proxy; open-loop Poisson load rising in steps to 3x
# that (100, 200, 400, 600 requests/s, 4 s each), once without control
# and once with the MaxUsers integral controller holding 4 requests in
# the backend. Writes per-step JSON summaries, the proxy's control series,
# a table, and plots (gnuplot) to OUTDIR (default examples/live/results).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
QCTL=${1:-$here/../../build/qctl}
OUT=${2:-$here/results}
mkdir -p "$OUT"
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null || :; done' EXIT
waitf() { i=0; while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; }
val() { sed -n "s/^ *\"$2\": \\([-0-9.e]*\\),*\$/\\1/p" "$1" | head -n 1; }

rm -f "$OUT/b.port"
"$QCTL" backend --listen 127.0.0.1:0 --port-file "$OUT/b.port" --service exp:100 --workers 2 &
PIDS="$PIDS $!"
waitf "$OUT/b.port"
BP=$(cat "$OUT/b.port")

printf "%-8s %6s %8s %8s %8s %10s %10s\n" run rate sent ok 503 ok_p50 ok_p95 >"$OUT/table.txt"
for run in none maxusers; do
    rm -f "$OUT/p.port"
    "$QCTL" proxy --listen 127.0.0.1:0 --port-file "$OUT/p.port" --backend 127.0.0.1:$BP \
        --limiter $run --limit 4 --reference 4 --gain 0.3 --queue 64 --queue-timeout 10 \
        --interval 0.1 --series "$OUT/series_$run.csv" &
    PP=$!
    waitf "$OUT/p.port"
    for rate in 100 200 400 600; do
        "$QCTL" load --target 127.0.0.1:$(cat "$OUT/p.port") --rate $rate --duration 4 \
            --connections 512 --timeout 60 --json >"$OUT/${run}_$rate.json"
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
set terminal svg size 900,500
set output "$OUT/control.svg"
set key outside
set xlabel "time (s)"
set ylabel "requests"
plot "$OUT/series_maxusers.csv" every ::1 using 1:2 with lines title "limit (maxusers)", \
     "$OUT/series_maxusers.csv" every ::1 using 1:7 with lines title "in backend, measured", \
     "$OUT/series_maxusers.csv" every ::1 using 1:4 with lines title "proxy queue", \
     "$OUT/series_none.csv" every ::1 using 1:3 with lines title "in flight, no control"
GP
    echo "plot: $OUT/control.svg"
fi
