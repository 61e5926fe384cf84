#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_wc.sh: is the proxy's admission front work-conserving? A
# controller must be invisible until the backends overload: in front of a
# backend that is not overloaded, `qctl proxy` with its defaults and with
# each limiter refuses (almost) nothing and serves what `--limiter none`
# serves, and under an overload its limit falls.
#   bench/bench_wc.sh [QCTL] [SECONDS]
# Needs wrk, curl and python3 (without them, a notice and exit 0).
# 127.0.0.1 only. The counts come from the clients (wrk, qctl load, the
# upload client), never from the proxy's own.
# Every limiter is measured in the same round as `--limiter none`, each on
# a fresh proxy, so a busy host slows them alike (the 2xx/s ratio against
# none is the figure, not the absolute rate). Parts (PARTS=1234):
#  1. a backend that answers at once (`qctl backend --service det:0`),
#     wrk -t1 -cC for SECONDS (default 4) at C = 1, 32, 256 kept-alive
#     connections: 2xx/s, refused (non-2xx) fraction, ratio to none;
#  2. 4 workers of det:0.01 (400/s) at half their capacity: `qctl load`
#     open loop at 200/s for 8 s, C = 1, 32, 256 connections at most;
#  3. 40 concurrent uploads of 8 MiB (bench/upload_client.py, which
#     reads and checks every answer) to the backend of part 1;
#  4. two backends of 4 workers of det:0.01, offered 400/s (50% of the
#     two) for 8 s, one killed after 1 s: refused count;
#  5. the limit series: part 2's backend offered 200/s for 6 s, 1200/s (3x)
#     for 8 s, 200/s for 6 s through the defaults (`--series`, 1 s
#     windows: the limit's least and largest, refused, admitted p99 of the
#     load generator per phase).
set -eu
QCTL=${1:-build/qctl}
DUR=${2:-${DUR:-4}}
PARTS=${PARTS:-12345}
LIMS=${LIMS:-"default fixed maxusers aimd vegas gradient2 envoy admission none"}
command -v wrk >/dev/null || { echo "bench_wc: needs wrk: skipped"; exit 0; }
command -v curl >/dev/null || { echo "bench_wc: needs curl: skipped"; exit 0; }
command -v python3 >/dev/null || { echo "bench_wc: needs python3: skipped"; exit 0; }
T=$(mktemp -d)
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null || :; done; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
part() { case $PARTS in *$1*) return 0 ;; *) return 1 ;; esac; }
waitf() { i=0; while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; }
backend() { # NAME ARGS...: port in $NAME_PORT, pid in $NAME_PID
    n=$1; shift
    rm -f "$T/$n.port"
    "$QCTL" backend --listen 127.0.0.1:0 --port-file "$T/$n.port" "$@" 2>/dev/null &
    eval "${n}_PID=$!"
    PIDS="$PIDS $!"
    waitf "$T/$n.port"
    eval "${n}_PORT=$(cat "$T/$n.port")"
}
proxy() { # LIMITER ARGS...: port in $PPORT, pid in $PPID_
    l=$1; shift
    la=""
    [ "$l" = default ] || la="--limiter $l"
    # admission needs a class: one best-effort class bound to the default wait
    [ "$l" = admission ] && la="$la --class all=1"
    rm -f "$T/p.port"
    # shellcheck disable=SC2086
    "$QCTL" proxy --listen 127.0.0.1:0 --port-file "$T/p.port" $la "$@" 2>>"$T/proxy.err" &
    PPID_=$!
    PIDS="$PIDS $PPID_"
    waitf "$T/p.port"
    PPORT=$(cat "$T/p.port")
}
stop() { kill "$@" 2>/dev/null || :; for p in "$@"; do wait "$p" 2>/dev/null || :; done; }
echo "bench_wc: host load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

# wrk's totals: "ok rate refused_fraction"
wrk_run() { # PORT CONNS
    wrk -t1 -c"$2" -d"${DUR}s" "http://127.0.0.1:$1/" >"$T/w.txt" 2>&1 || :
    awk -v d="$DUR" '/requests in/ { n = $1 } /Non-2xx/ { bad = $NF }
        END { ok = n - bad; printf "%d %.1f %.6f\n", ok, ok / d, n ? bad / n : 0 }' "$T/w.txt"
}

table() { # FILE: rows "conns limiter ok rate refused", ratio to none of the same conns
    awk '{ k = $1 " " $2; r[k] = $4; f[k] = $5; if ($2 == "none") none[$1] = $4; c[$1] = 1; l[$2] = 1; ord[++n] = k }
        END { printf "| conns | limiter | 2xx/s | refused | 2xx/s vs none |\n| --- | --- | --- | --- | --- |\n";
              for (i = 1; i <= n; i++) { split(ord[i], a, " ");
                  x = none[a[1]] > 0 ? sprintf("%.3f", r[ord[i]] / none[a[1]]) : "-"
                  printf "| %s | %s | %.0f | %.3f%% | %s |\n", a[1], a[2], r[ord[i]], 100 * f[ord[i]], x } }' "$1"
}

if part 1; then
    echo
    echo "== 1. a backend that answers at once, wrk -t1 -cC -d${DUR}s"
    backend fb --workers 65536 --service det:0
    : >"$T/p1"
    for c in 1 32 256; do
        for l in $LIMS; do
            proxy "$l" --backend "127.0.0.1:$fb_PORT"
            set -- $(wrk_run "$PPORT" "$c")
            stop "$PPID_"
            echo "$c $l $1 $2 $3" >>"$T/p1"
        done
    done
    table "$T/p1"
    part 3 || stop "$fb_PID"
fi

if part 2; then
    echo
    echo "== 2. 4 workers of det:0.01 (400/s) offered 200/s open loop for 8 s (qctl load)"
    backend hb --workers 4 --service det:0.01
    : >"$T/p2"
    for c in 1 32 256; do
        for l in $LIMS; do
            proxy "$l" --backend "127.0.0.1:$hb_PORT"
            "$QCTL" load --target "127.0.0.1:$PPORT" --rate 200 --duration 8 --connections "$c" \
                --seed 3 --json >"$T/l.json" 2>/dev/null || :
            stop "$PPID_"
            python3 - "$T/l.json" "$c" "$l" >>"$T/p2" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
# refused: answered 503 (a client that cannot send in time, on one
# connection at 200/s on a busy host, is the generator's, not the proxy's)
print(sys.argv[2], sys.argv[3], j["ok"], "%.1f" % j["throughput_ok"], "%.6f" % (j["refused_503"] / max(1, j["sent"])))
EOF
        done
    done
    table "$T/p2"
    stop "$hb_PID"
fi

if part 3; then
    echo
    echo "== 3. 40 concurrent uploads of 8 MiB (bench/upload_client.py: each answer read whole and checked)"
    [ -n "${fb_PORT:-}" ] || backend fb --workers 65536 --service det:0
    for l in $LIMS; do
        proxy "$l" --backend "127.0.0.1:$fb_PORT"
        python3 "$(dirname "$0")/upload_client.py" 127.0.0.1 "$PPORT" 40 8388608 60 >"$T/u.json" 2>/dev/null || :
        stop "$PPID_"
        python3 -c '
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception:
    print("  %s: the upload client gave no answer" % sys.argv[2]); sys.exit(0)
other = j["uploads"] - j["ok"] - j["refused_503"]
print("  %s: %d of %d answered 2xx, %d refused (503), %d other %s, slowest %.1f s" % (sys.argv[2], j["ok"],
      j["uploads"], j["refused_503"], other, json.dumps({k: v for k, v in j["by_status"].items() if k not in ("200", "503")}), j["slowest"]))' "$T/u.json" "$l"
    done
    stop "$fb_PID"
fi

if part 4; then
    echo
    echo "== 4. two backends of 4 workers of det:0.01, 400/s (50%) for 8 s, one killed at 1 s"
    for l in $LIMS; do
        backend k1 --workers 4 --service det:0.01
        backend k2 --workers 4 --service det:0.01
        proxy "$l" --backend "127.0.0.1:$k1_PORT" --backend "127.0.0.1:$k2_PORT"
        "$QCTL" load --target "127.0.0.1:$PPORT" --rate 400 --duration 8 --connections 256 \
            --seed 5 --json >"$T/k.json" 2>/dev/null &
        lp=$!
        sleep 1
        stop "$k2_PID"
        wait "$lp" || :
        stop "$PPID_" "$k1_PID"
        python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print("  %s: sent %d, 2xx %d, 503 %d, other %d, errors %d, timeouts %d, ok p99 %.0f ms" % (sys.argv[2],
      j["sent"], j["ok"], j["refused_503"], j["other_status"], j["errors"], j["timeouts"], 1e3 * j["latency"]["ok_p99"]))' "$T/k.json" "$l"
    done
fi

if part 5; then
    echo
    echo "== 5. the limit series: 4 workers of det:0.01, 200/s for 6 s, 1200/s for 8 s, 200/s for 6 s (defaults)"
    backend sb --workers 4 --service det:0.01
    proxy default --backend "127.0.0.1:$sb_PORT" --series "$T/series.csv"
    "$QCTL" load --target "127.0.0.1:$PPORT" --schedule 0:200,6:1200,14:200 --duration 20 \
        --connections 256 --seed 9 --json >"$T/s.json" 2>/dev/null || :
    stop "$PPID_" "$sb_PID"
    awk -F, 'NR > 1 && $2 != "nan" { s = int($1); if (!(s in lo) || $2 < lo[s]) lo[s] = $2; if ($2 > hi[s]) hi[s] = $2;
             ref[s] = $6; adm[s] = $5; q[s] = ($4 > q[s] ? $4 : q[s]); if (s > m) m = s }
        END { printf "| second | offered | limit least / largest | waiting at most | admitted | refused |\n| --- | --- | --- | --- | --- | --- |\n";
              pa = 0; pr = 0
              for (s = 0; s <= m; s++) if (s in lo) {
                  printf "| %d | %s | %.1f / %.1f | %d | %d | %d |\n", s, (s >= 6 && s < 14) ? "1200/s" : "200/s",
                      lo[s], hi[s], q[s], adm[s] - pa, ref[s] - pr; pa = adm[s]; pr = ref[s] } }' "$T/series.csv"
    python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print("  load: sent %d, 2xx %d, 503 %d, ok p50 %.0f ms, ok p99 %.0f ms" % (j["sent"], j["ok"], j["refused_503"],
      1e3 * j["latency"]["ok_p50"], 1e3 * j["latency"]["ok_p99"]))' "$T/s.json"
fi
