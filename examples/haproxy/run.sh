#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh [QCTL]: MaxUsers on haproxy's maxconn, driven from outside by
# `qctl control` (see README.md). About 4 minutes; results in results/.
#   1. identification: maxconn of the one server switched by a PRBS, the
#      requests in haproxy's backend (qcur+scur) sampled each second;
#      `qctl sysid` fits an ARX model;
#   2. design: `qctl design` gives the stable range of K_I and predicts a
#      low gain (settles) and a high one (saturates, oscillates);
#   3. closed loops at both gains toward the reference, and haproxy with a
#      hand-set maxconn beside them;
#   4. results/results.md and results/index.html.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
Q=${1:-$ROOT/build/qctl}
[ -x "$Q" ] || { echo "qctl not built: run make first" >&2; exit 1; }
command -v haproxy >/dev/null || { echo "haproxy is not installed (apt-get install haproxy)"; exit 0; }
USERS=${USERS:-100}      # closed population of users
THINK=${THINK:-1}        # mean think time, s
SERVICE=${SERVICE:-0.2}  # mean service time, s, one request per maxconn slot
REF=${REF:-50}           # the requests in haproxy to hold
T_ID=${T_ID:-60}         # identification, s
T_LOOP=${T_LOOP:-45}     # each closed loop, s
OUT=${OUT:-$HERE/results}
tmp=$(mktemp -d)
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
mkdir -p "$OUT"
FREE_PORT_DIR=$tmp QCTL=$Q
. "$ROOT/scripts/free_port.sh"
free_port FRONT
# the server: 64 workers, so that maxconn (not the workers) is the limit
"$Q" backend --listen 127.0.0.1:0 --port-file "$tmp/b.port" --workers 64 \
    --service "exp:$(awk -v s="$SERVICE" 'BEGIN { print 1 / s }')" 2>"$tmp/backend.err" &
PIDS="$PIDS $!"
i=0; while [ ! -s "$tmp/b.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
S=$tmp/h.sock
cat >"$tmp/h.cfg" <<CFG
global
    stats socket $S mode 600 level admin
    maxconn 4096
defaults
    mode http
    timeout connect 5s
    timeout client 120s
    timeout server 120s
    timeout queue 120s
frontend f
    bind 127.0.0.1:$FRONT
    default_backend b
backend b
    balance leastconn
    server s1 127.0.0.1:$(cat "$tmp/b.port") maxconn 8
CFG
haproxy -f "$tmp/h.cfg" -db 2>"$tmp/haproxy.err" &
PIDS="$PIDS $!"
i=0; while [ ! -S "$S" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
SENSOR="haproxy:$S:b:qcur+scur"
ACT="haproxy-maxconn:$S:b/s1"
# run NAME SECONDS CONTROL-FLAGS...: the users and qctl control together
run() {
    name=$1 secs=$2; shift 2
    mkdir -p "$OUT/$name"
    "$Q" control --sensor "$SENSOR" --actuator "$ACT" --interval 1 --duration "$secs" \
        --series "$OUT/$name/series.csv" --quiet "$@" &
    cpid=$!
    "$Q" load --target "127.0.0.1:$FRONT" --users "$USERS" --think "exp:$(awk -v z="$THINK" 'BEGIN { print 1 / z }')" \
        --duration "$secs" --seed 7 >"$OUT/$name/load.json" 2>"$tmp/load.err" || true
    wait "$cpid"
    # settle: let the last requests finish before the next run
    sleep 3
}
echo "1. identification: PRBS on maxconn (6, 14) for $T_ID s"
run ident "$T_ID" --controller open --excite prbs --excite-levels 6,14 --hold 3 --setting 10 \
    --control-from 10
# a sample missing (late on a loaded host: the controller held) takes the
# one before it, counted; sysid needs every row
awk -F, '/^#/ || /^time/ { print; next } { if ($5 == "") { $5 = last; miss++ } else last = $5; print }
    END { print miss + 0 > "/dev/stderr" }' OFS=, "$OUT/ident/series.csv" >"$tmp/ident.csv" 2>"$tmp/miss"
echo "   $(cat "$tmp/miss") samples missing in the identification (each the one before it)"
"$Q" sysid --csv "$tmp/ident.csv" --columns time,setting,sensor --skip 12 --orders 1..2 \
    -o "$OUT/model.json" --report "$OUT/sysid" >"$OUT/sysid.txt"
r2=$(sed -n 's/^ *estimation: R^2 = \([0-9.]*\).*/\1/p' "$OUT/sysid.txt" | head -n 1)
val=$(sed -n 's/^ *validation: one-step R^2 = \([0-9.]*\).*/\1/p' "$OUT/sysid.txt" | head -n 1)
echo "   R^2 $r2 (validation $val)"
echo "2. design"
"$Q" design --model "$OUT/model.json" --law integral >"$OUT/design_range.txt"
range=$(sed -n 's/.*stable for \(.*\)$/\1/p' "$OUT/design_range.txt" | head -n 1)
# the stable range's bound (K_I is negative: more maxconn, fewer in haproxy)
bound=$(sed -n 's/.*stable for [^0-9-]*\(-*[0-9.e+-]*\) < K_I < \(-*[0-9.e+-]*\).*/\1 \2/p' "$OUT/design_range.txt" | head -n 1)
lo_end=${bound% *} hi_end=${bound#* }
edge=$(awk -v a="$lo_end" -v b="$hi_end" 'BEGIN { print (a + 0 != 0) ? a : b }')
klo=$(awk -v e="$edge" 'BEGIN { printf "%.4g", 0.25 * e }')
khi=$(awk -v e="$edge" 'BEGIN { printf "%.4g", 3 * e }')
echo "   stable: $range; low gain $klo, high gain $khi"
"$Q" design --model "$OUT/model.json" --law integral --gains "$klo,$khi" --reference "$REF" \
    --u-min 1 --u-max 64 --report "$OUT/design" >"$OUT/design.txt" || true
# the same without the fit's noise: the low gain's settling, in seconds
"$Q" design --model "$OUT/model.json" --law integral --gains "$klo" --reference "$REF" \
    --u-min 1 --u-max 64 --noise-reps 0 >"$OUT/design_noiseless.txt" || true
echo "3. closed loops toward $REF (and a hand-set maxconn)"
# the loop closes after 5 s at maxconn 10 (the users' first requests in)
# qctl control closes the loop only on the identified gain (--model):
# finite, negative (more maxconn, fewer requests in haproxy), its interval
# clear of 0, of K_I's sign
run low "$T_LOOP" --controller integral --reference "$REF" --ki "$klo" --setting 10 --control-from 5 \
    --min-setting 1 --max-setting 64 --model "$OUT/model.json" --gain-sign negative
run high "$T_LOOP" --controller integral --reference "$REF" --ki "$khi" --setting 10 --control-from 5 \
    --min-setting 1 --max-setting 64 --model "$OUT/model.json" --gain-sign negative
run hand "$T_LOOP" --controller static --setting 10
sh "$HERE/report.sh" "$OUT" "$REF" "$klo" "$khi" "$r2" "$val"
echo "results: $OUT/results.md, $OUT/index.html"
