#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_wc_rounds.sh: the proxy's defaults against `--limiter none` in
# interleaved short rounds (a busy host slows neighbouring runs alike;
# the order alternates each round), each on a fresh proxy in front of a
# backend that answers at once, wrk -t1 -cC -d1s; prints per connection
# count the medians of 2xx over the rounds, the median of the per-round
# ratio default / none with every ratio, and the defaults' non-2xx.
#   bench/bench_wc_rounds.sh [QCTL] [ROUNDS]   (CONNS="32 256")
# Run it at nice -n -10 on a shared host. Needs wrk and python3.
set -u
Q=${1:-build/qctl}
R=${2:-10}
CONNS=${CONNS:-"32 256"}
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
        if [ $((r % 2)) = 1 ]; then order="default none"; else order="none default"; fi
        for l in $order; do
            la=""
            [ "$l" = default ] || la="--limiter none"
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
echo "bench_wc_rounds: host load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
python3 - "$T/rows" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
for c in dict.fromkeys(r[0] for r in rows):
    d = {}
    for cc, r, l, ok, bad in rows:
        if cc == c:
            d.setdefault(r, {})[l] = (int(ok), int(bad))
    both = [v for v in d.values() if "default" in v and "none" in v and v["none"][0] > 0]
    if not both:
        print("  %s conns: no round with both" % c); continue
    ratios = sorted(v["default"][0] / v["none"][0] for v in both)
    ok = sum(v["default"][0] for v in both); bad = sum(v["default"][1] for v in both)
    print("  %s conns, %d rounds: 2xx median default %d, none %d; ratio median %.3f (%s); defaults non-2xx %d of %d (%.2f%%)"
          % (c, len(both), st.median(v["default"][0] for v in both), st.median(v["none"][0] for v in both),
             st.median(ratios), " ".join("%.2f" % x for x in ratios), bad, ok + bad, 100.0 * bad / max(1, ok + bad)))
PY
