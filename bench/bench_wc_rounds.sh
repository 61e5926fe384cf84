#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_wc_rounds.sh: every limiter kind of the proxy against `--limiter
# none` in interleaved short rounds (a busy host slows neighbouring runs
# alike; the order turns each round), each on a fresh proxy in front of a
# backend that answers at once, wrk -t1 -cC -d1s; prints per connection
# count and kind the medians of 2xx over the rounds, the median of the
# per-round ratio kind / none with every ratio, and the kind's non-2xx.
# With UPLOADS=N (0: none) each round then sends N concurrent uploads of
# USIZE bytes (default 8 MiB) through a fresh proxy of each kind
# (bench/upload_client.py: each answer read whole) and prints, per kind,
# the uploads answered 2xx over all rounds.
#   bench/bench_wc_rounds.sh [QCTL] [ROUNDS]   (CONNS="32 256",
#   LIMS="default fixed maxusers aimd vegas gradient2 envoy admission none")
# Run it at nice -n -10 on a shared host. Needs wrk and python3.
set -u
Q=${1:-build/qctl}
R=${2:-10}
CONNS=${CONNS:-"32 256"}
LIMS=${LIMS:-"default fixed maxusers aimd vegas gradient2 envoy admission none"}
UPLOADS=${UPLOADS:-0}
USIZE=${USIZE:-8388608}
UP="$(dirname "$0")/upload_client.py"
command -v wrk >/dev/null || { echo "bench_wc_rounds: needs wrk: skipped"; exit 0; }
command -v python3 >/dev/null || { echo "bench_wc_rounds: needs python3: skipped"; exit 0; }
T=$(mktemp -d)
PIDS=""
# shellcheck disable=SC2154
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; rm -rf "$T"' EXIT
"$Q" backend --listen 127.0.0.1:0 --port-file "$T/b.port" --service det:0 --workers 65536 2>/dev/null &
PIDS=$!
i=0; while [ ! -s "$T/b.port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
B=$(cat "$T/b.port")
echo "bench_wc_rounds: host load $(cut -d' ' -f1-3 /proc/loadavg) at the start"
: >"$T/rows"
for c in $CONNS; do
    r=1
    while [ $r -le "$R" ]; do
        # the kinds in turn, each round starting one further on
        order=$(echo $LIMS | awk -v r="$r" '{ for (i = 0; i < NF; i++) printf "%s ", $(1 + (i + r) % NF) }')
        for l in $order; do
            la=""
            [ "$l" = default ] || la="--limiter $l"
            # admission needs a class: one class bound to the default wait
            [ "$l" = admission ] && la="$la --class all=1"
            rm -f "$T/p.port"
            # shellcheck disable=SC2086
            "$Q" proxy --listen 127.0.0.1:0 --port-file "$T/p.port" --backend "127.0.0.1:$B" $la 2>/dev/null &
            pp=$!
            i=0; while [ ! -s "$T/p.port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
            wrk -t1 -c"$c" -d1s "http://127.0.0.1:$(cat "$T/p.port")/" >"$T/w" 2>&1
            kill $pp; wait $pp 2>/dev/null
            awk -v c="$c" -v l="$l" -v r="$r" '/requests in/ { n = $1 } /Non-2xx/ { b = $NF }
                END { print c, r, l, n - b, b + 0 }' "$T/w" >>"$T/rows"
        done
        r=$((r + 1))
    done
done
start_proxy_kind() { # KIND: a fresh proxy on $PP (its pid $pp)
    la=""
    [ "$1" = default ] || la="--limiter $1"
    [ "$1" = admission ] && la="$la --class all=1"
    rm -f "$T/p.port"
    # shellcheck disable=SC2086
    "$Q" proxy --listen 127.0.0.1:0 --port-file "$T/p.port" --backend "127.0.0.1:$B" \
        --max-body 16777216 $la 2>/dev/null &
    pp=$!
    i=0; while [ ! -s "$T/p.port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    PP=$(cat "$T/p.port")
}
: >"$T/urows"
if [ "$UPLOADS" -gt 0 ]; then
    r=1
    while [ $r -le "$R" ]; do
        for l in $LIMS; do
            start_proxy_kind "$l"
            python3 "$UP" 127.0.0.1 "$PP" "$UPLOADS" "$USIZE" 60 >"$T/u.json" 2>/dev/null || :
            kill $pp; wait $pp 2>/dev/null
            python3 -c 'import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception:
    j = {"uploads": 0, "ok": 0, "refused_503": 0}
print(sys.argv[2], sys.argv[3], j["uploads"], j["ok"], j["refused_503"])' "$T/u.json" "$l" "$r" >>"$T/urows"
        done
        r=$((r + 1))
    done
fi
echo "bench_wc_rounds: host load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
python3 - "$T/rows" "$T/urows" "$UPLOADS" "$USIZE" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
for c in dict.fromkeys(r[0] for r in rows):
    d = {}
    for cc, r, l, ok, bad in rows:
        if cc == c:
            d.setdefault(r, {})[l] = (int(ok), int(bad))
    kinds = list(dict.fromkeys(l for cc, r, l, ok, bad in rows if cc == c and l != "none"))
    for k in kinds:
        both = [v for v in d.values() if k in v and "none" in v and v["none"][0] > 0]
        if not both:
            print("  %s conns, %s: no round with none" % (c, k)); continue
        ratios = sorted(v[k][0] / v["none"][0] for v in both)
        ok = sum(v[k][0] for v in both); bad = sum(v[k][1] for v in both)
        print("  %s conns, %s, %d rounds: 2xx median %d, none %d; ratio median %.3f (%s); non-2xx %d of %d (%.3f%%)"
              % (c, k, len(both), st.median(v[k][0] for v in both), st.median(v["none"][0] for v in both),
                 st.median(ratios), " ".join("%.2f" % x for x in ratios), bad, ok + bad, 100.0 * bad / max(1, ok + bad)))
urows = [l.split() for l in open(sys.argv[2])]
if urows:
    print("  uploads: %s concurrent of %s bytes a round" % (sys.argv[3], sys.argv[4]))
for k in dict.fromkeys(r[0] for r in urows):
    mine = [r for r in urows if r[0] == k]
    n = sum(int(r[2]) for r in mine); ok = sum(int(r[3]) for r in mine); ref = sum(int(r[4]) for r in mine)
    print("  uploads, %s, %d rounds: %d of %d answered 2xx, %d refused 503, %d otherwise (per round: %s)"
          % (k, len(mine), ok, n, ref, n - ok - ref, " ".join(r[3] for r in mine)))
PY
