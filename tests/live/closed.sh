#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# closed.sh: qctl load's closed loop against `qctl backend --service det:D
# --workers W`: N users with exponential think times Z.
#
# Each user's time from the start to its last answer is exactly the sum
# of its think times and response times (a request is due when its think
# time ends and its latency counts from then), so N x elapsed =
# n (R + Z) + the users' unfinished last cycles, and the throughput
# X = n / elapsed obeys X = N / (R + Z) (R, Z the measured means) up to
# those: at most one cycle (~40 ms here) per user over a run of ~3 s, so
# X (R + Z) / N lies in [0.95, 1.01].
# With W = 2 the server saturates (N/(D+Z) = 267/s > W/D = 200/s) and R
# must exceed D by queueing (R ~ N/X - Z = 20 ms = 2D; asserted > 1.5 D).
# With W = 64 there is no queueing: R = D + loopback and timer overheads.
# Those overheads grow with the host's load (7 ms on a busy 2-core host),
# and they are the same in both runs, so the test of "no queueing" is the
# difference: R(W = 2) - R(W = 64) is the queueing of the saturated run,
# about D, asserted above D / 2.
# Sessions: K = 3 requests then an off time; the accounting still holds.
set -u
. "$(dirname "$0")/lib.sh"
get() { sed -n "s/^ *\"$2\": \([-0-9.e]*\),*\$/\1/p" "$1" | head -n 1; }
check_law() { # FILE LO HI D: X (R + Z) / N within [LO, HI]; with D, X (D + Z) / N
    X=$(get "$1" throughput) R=$(get "$1" mean) Z=$(get "$1" think_mean)
    v=$(awk -v x="$X" -v r="$R" -v z="$Z" -v d="${4:-}" 'BEGIN { printf "%.4f", x * ((d == "" ? r : d) + z) / 8 }')
    echo "  X $X/s, R $R s, Z $Z s: ratio $v"
    awk -v v="$v" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }' || fail "ratio $v not in [$2, $3]"
}
start_backend b --service det:0.01 --workers 2
"$QCTL" load --target 127.0.0.1:$b_PORT --users 8 --think exp:50 --requests 600 \
    --json >"$TMP/sat.json" || fail "load failed"
conserved "$TMP/sat.json"
check_law "$TMP/sat.json" 0.95 1.01
awk -v r="$R" 'BEGIN { exit !(r > 0.015) }' || fail "no queueing: R $R"
R_SAT=$R
kill "$b_PID"; wait "$b_PID"
start_backend w --service det:0.01 --workers 64
"$QCTL" load --target 127.0.0.1:$w_PORT --users 8 --think exp:50 --requests 600 \
    --json >"$TMP/free.json" || fail "load failed"
conserved "$TMP/free.json"
check_law "$TMP/free.json" 0.95 1.01
echo "  queueing R(W=2) - R(W=64) = $R_SAT - $R"
awk -v a="$R_SAT" -v b="$R" 'BEGIN { exit !(a - b > 0.005) }' || fail "R $R_SAT at W = 2 is not D / 2 above R $R at W = 64"
"$QCTL" load --target 127.0.0.1:$w_PORT --users 4 --think det:0.002 --session det:3 \
    --off exp:20 --duration 1 --series "$TMP/s.csv" --series-interval 0.25 \
    --json >"$TMP/sess.json" || fail "load failed"
conserved "$TMP/sess.json"
[ "$(num "$TMP/sess.json" sent)" -gt 40 ] || fail "too few session requests"
# the series: a header, 4 full intervals and a partial one; its counts
# add up to the summary's
head -n 1 "$TMP/s.csv" | grep -q '^time,sent,answered,ok,refused,errors,p50,p95,ok_p95$' || fail "series header"
rows=$(($(wc -l <"$TMP/s.csv") - 1))
[ "$rows" -ge 4 ] && [ "$rows" -le 6 ] || fail "$rows series rows"
sums=$(awk -F, 'NR > 1 { s += $2; a += $3; o += $4 } END { print s, a, o }' "$TMP/s.csv")
[ "$sums" = "$(num "$TMP/sess.json" sent) $(num "$TMP/sess.json" answered) $(num "$TMP/sess.json" ok)" ] ||
    fail "series sums $sums"
echo ok
