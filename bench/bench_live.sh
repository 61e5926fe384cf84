#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_live.sh: qctl proxy against nginx as a reverse proxy, both in front
# of qctl backends, in the same run. 127.0.0.1 only, one worker each.
#   bench/bench_live.sh [QCTL] [SECONDS]
# Needs wrk and nginx (Debian: wrk, nginx-light); without them it prints a
# notice and exits 0. About 100 s in all. Three parts:
#  1. throughput, each server deployed as its package deploys it on this
#     machine -- nginx `worker_processes auto`, haproxy's default threads
#     (one per CPU), `qctl proxy` with its default workers (one per CPU)
#     and default limiter -- and each on one worker beside: wrk -t2 at 64
#     and 256 connections for SECONDS (default 5) through each, the backend
#     answering at once, in interleaved rounds (ROUNDS, default 3: every
#     server once per round, so that a busy host slows all alike); 2xx per
#     second (medians over rounds) and qctl's ratios; then the added p50 at
#     one connection (wrk -t1 -c1, 5 rounds of 1 s in turn, medians of the
#     per-round differences from the backend alone). The load average is
#     printed before and after: a shared host makes these noisy.
#  2. added latency at low load: wrk -t1 -c1 (one request at a time), five
#     rounds of 1 s against the backend alone, through qctl proxy (control
#     on: gradient2) and through nginx in turn; p50 and p99 are medians
#     over rounds, and the added microseconds the medians of the per-round
#     differences from the backend alone. Target: qctl adds under 50 us at
#     p50.
#  3. 3x overload: a backend of capacity C = 400/s (det:0.01, 4 workers)
#     offered 1200/s open loop (Poisson) by qctl load for 10 s, through
#     qctl proxy with the maxusers controller, and through nginx with a
#     static limit_conn (limit_conn_status 503) tuned by hand: a few values
#     tried for 4 s each, the best goodput (ties: lower p95) rerun for 10 s.
#     Reported: goodput (2xx/s), p95 of admitted (2xx) requests measured
#     from their intended send times, refused fraction, and the ratios.
#  4. 3x overload with the default queue: the same backend and offered
#     load, through `qctl proxy` with its defaults (maxusers with the
#     adaptive reference, 128 places, 1 s deadline, codel queue discipline
#     with the adaptive target), and with the fixed settings that were the
#     defaults before (--reference 10 --queue-target 0.05); through nginx limit_conn (503 beyond it, no queue),
#     limits 4, 6, 8 and 12 tried for 4 s each and the best (goodput, then
#     lower p99) rerun; and through haproxy with `maxconn` per server and
#     its queue bounded as qctl's default is (`timeout queue 1s`, 503 when
#     the wait runs out; 503 at once while 128 wait, by an http-request
#     deny on queue(b): haproxy's queue has no length bound of its own, and
#     unbounded it holds more requests than the client has connections),
#     maxconn 4 and 8 tried and the best
#     rerun. Each measured run lasts 10 s. Reported for each: goodput
#     (2xx/s), admitted p50 and p99 (from intended send times), refused
#     fraction, and qctl's ratios against each reference in the same run;
#     for qctl's defaults and nginx's best, the start of the overload apart
#     from the rest (p95 of the 2xx answers of the first second, and the
#     median of the later seconds' p95s).
#     With --workers 2: the defaults, and --limiter fixed --limit 4 in
#     front of tests/live/count_backend.py (0.01 s a request, counting the
#     requests in it at once: the limit held across the workers or not);
#     their admitted p99 against nginx limit_conn's best.
#     haproxy is optional (Debian: haproxy); without it that line is
#     skipped with a notice. About 60 s.
# Parts 1 and 2 need wrk, parts 3 and 4 nginx; a part whose tools are
# missing is skipped with a notice (exit 0).
# PARTS=13 (say) runs some parts only; KEEP=1 keeps the scratch directory.
set -eu
QCTL=${1:-build/qctl}
PARTS=${PARTS:-1234}
DUR=${2:-5}
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "bench_live: needs nginx (Debian: nginx-light): skipped"; exit 0; }
HAPROXY=$(command -v haproxy || echo /usr/sbin/haproxy)
if ! command -v wrk >/dev/null; then
    echo "bench_live: parts 1 and 2 need wrk: skipped"
    PARTS=$(echo "$PARTS" | tr -d 12)
fi
T=$(mktemp -d)
PIDS=""
# Under set -e a failing command ends the script; the trap says so, so
# that a run never stops with nothing said (a server that did not start
# within waitf's 30 s on a host at load 40 once ended it silently).
trap 'rc=$?; for p in $PIDS; do kill $p 2>/dev/null || :; done; [ -n "${KEEP:-}" ] || rm -rf "$T"
      [ $rc = 0 ] || echo "bench_live: stopped early (status $rc): see the message above" >&2' EXIT
waitf() { # FILE: waits up to 30 s for a server to write it; fails loudly
    i=0; while [ ! -s "$1" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
    [ -s "$1" ] || { echo "bench_live: ${1##*/} not written within 30 s: a server did not start" >&2; return 1; }
}
backend() { # NAME ARGS...: a backend on a free port, its port in $NAME.port
    name=$1; shift
    rm -f "$T/$name.port" # (a name used before must not find the old port)
    "$QCTL" backend --listen 127.0.0.1:0 --port-file "$T/$name.port" "$@" &
    PIDS="$PIDS $!"
    waitf "$T/$name.port"
}
proxy() { # NAME BACKEND_PORT ARGS...
    name=$1 bp=$2; shift 2
    rm -f "$T/$name.port" # (a name used before must not find the old port)
    "$QCTL" proxy --listen 127.0.0.1:0 --port-file "$T/$name.port" --backend 127.0.0.1:$bp \
        "$@" 2>/dev/null &
    PIDS="$PIDS $!"
    eval "${name}_PID=$!"
    waitf "$T/$name.port"
}
nginx_conf() { # NAME PORT BACKEND_PORT [LIMIT [WORKERS [SSL]]]: writes $T/NAME.conf
    # WORKERS: none, one worker and no master; else nginx as its package
    # runs it (a master and WORKERS workers: auto, one per CPU). SSL 1:
    # listen over TLS with $T/tls.crt and $T/tls.key (TLS 1.2 and 1.3).
    lim=${4:-} nw=${5:-} ssl=${6:-0}
    mkdir -p "$T/$1"
    {
        if [ -n "$nw" ]; then echo "worker_processes $nw; daemon off;"
        else echo "worker_processes 1; daemon off; master_process off;"; fi
        echo "pid $T/$1/nginx.pid; error_log $T/$1/error.log;"
        echo "events { worker_connections 4096; }"
        echo "http {"
        echo "    access_log off;"
        echo "    client_body_temp_path $T/$1; proxy_temp_path $T/$1; fastcgi_temp_path $T/$1;"
        echo "    uwsgi_temp_path $T/$1; scgi_temp_path $T/$1;"
        echo "    upstream b { server 127.0.0.1:$3; keepalive 64; }"
        [ -n "$lim" ] && echo "    limit_conn_zone \$binary_remote_addr zone=c:1m;"
        echo "    server {"
        if [ "$ssl" = 1 ]; then
            echo "        listen 127.0.0.1:$2 ssl;"
            echo "        ssl_certificate $T/tls.crt; ssl_certificate_key $T/tls.key;"
            echo "        ssl_protocols TLSv1.2 TLSv1.3;"
        else
            echo "        listen 127.0.0.1:$2;"
        fi
        [ -n "$lim" ] && echo "        limit_conn c $lim; limit_conn_status 503;"
        echo "        location / { proxy_pass http://b; proxy_http_version 1.1;"
        echo "                     proxy_set_header Connection \"\"; }"
        echo "    }"
        echo "}"
    } >"$T/$1.conf"
}
nginx_start() { # NAME
    "$NGINX" -p "$T/$1" -c "$T/$1.conf" 2>>"$T/nginx.err" &
    eval "${1}_PID=$!"
    PIDS="$PIDS $!"
    sleep 0.3
}
free_port() { # a port nothing listens on now (the kernel's choice, released)
    "$QCTL" backend --listen 127.0.0.1:0 --port-file "$T/fp" >/dev/null &
    fp=$!
    waitf "$T/fp" || { kill $fp 2>/dev/null || :; return 1; }
    cat "$T/fp"
    kill $fp 2>/dev/null || :  # (it may have gone already: no reason to stop)
    wait $fp 2>/dev/null || :
    rm -f "$T/fp"
}
us() { # a wrk duration (123.45us, 1.20ms, 1.00s) in microseconds
    echo "$1" | awk '{ v = $1 + 0; if ($1 ~ /us$/) f = 1; else if ($1 ~ /ms$/) f = 1e3;
                      else if ($1 ~ /s$/) f = 1e6; else f = 1; printf "%.1f", v * f }'
}

part() { case $PARTS in *$1*) return 0 ;; *) return 1 ;; esac; }
if part 1 || part 2; then
backend fast --service det:0 --workers 65536
FP=$(cat "$T/fast.port")
proxy qfast "$FP" --limiter gradient2 --max-limit 1000 --limit 200
QP=$(cat "$T/qfast.port")
NP=$(free_port)
nginx_conf nfast "$NP" "$FP"
nginx_start nfast
run() { # NAME PORT
    wrk -t1 -c32 -d"${DUR}s" --latency "http://127.0.0.1:$2/" >"$T/$1.txt" 2>&1
    rps=$(sed -n 's/^Requests\/sec: *//p' "$T/$1.txt")
    p50=$(awk '$1 == "50%" {print $2}' "$T/$1.txt")
    p99=$(awk '$1 == "99%" {print $2}' "$T/$1.txt")
    printf "%-8s %12s req/s   p50 %10s   p99 %10s\n" "$1" "$rps" "$p50" "$p99"
    eval "rps_$1=$rps"
}
if part 1; then
ROUNDS=${ROUNDS:-3}
echo "== throughput, as deployed: wrk -t2 -d${DUR}s, backend det:0, $ROUNDS interleaved rounds"
echo "   $(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# nginx as its package runs it (a master, worker_processes auto) and on one worker
nginx_auto() { nginx_conf "$1" "$2" "$3" "" "$4"; } # NAME PORT BACKEND_PORT WORKERS
NA=$(free_port); nginx_auto nauto "$NA" "$FP" auto; nginx_start nauto
N1=$(free_port); nginx_auto n1 "$N1" "$FP" 1; nginx_start n1
# haproxy as its package runs it: no nbthread (one thread per CPU), and on one thread
ha_plain() { # NAME PORT BACKEND_PORT THREADS_LINE
    cat >"$T/$1.cfg" <<CFG
global
    maxconn 4096
$4
defaults
    mode http
    timeout connect 1s
    timeout client 30s
    timeout server 30s
    option http-keep-alive
frontend f
    bind 127.0.0.1:$2
    default_backend b
backend b
    http-reuse always
    server s1 127.0.0.1:$3
CFG
    "$HAPROXY" -f "$T/$1.cfg" -db 2>>"$T/haproxy.err" &
    eval "${1}_PID=$!"
    PIDS="$PIDS $!"
    sleep 0.3
}
servers="nginx:$NA nginx1:$N1"
if [ -x "$HAPROXY" ]; then
    HA=$(free_port); ha_plain hauto "$HA" "$FP" ""
    H1=$(free_port); ha_plain h1 "$H1" "$FP" "    nbthread 1"
    servers="$servers haproxy:$HA haproxy1:$H1"
else
    echo "haproxy not installed (Debian: haproxy): its rows skipped"
fi
proxy qauto "$FP"
proxy q1 "$FP" --workers 1
servers="$servers qctl:$(cat "$T/qauto.port") qctl1:$(cat "$T/q1.port")"
ok_rate() { # FILE: 2xx (and 3xx) per second of a wrk run
    awk '/requests in/ { n = $1; d = $4; sub(/s,?$/, "", d) } /Non-2xx/ { bad = $NF }
         END { if (d > 0) printf "%.0f", (n - bad) / d; else print 0 }' "$1"
}
median() { echo "$@" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END {
    printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for c in 64 256; do
    for s in $servers; do eval "r_${s%%:*}_$c=''"; done
    r=1
    while [ $r -le "$ROUNDS" ]; do
        for s in $servers; do
            wrk -t2 -c$c -d"${DUR}s" "http://127.0.0.1:${s#*:}/" >"$T/w.txt" 2>&1 || :
            eval "r_${s%%:*}_$c=\"\$r_${s%%:*}_$c $(ok_rate "$T/w.txt")\""
        done
        r=$((r + 1))
    done
    echo "-- $c connections: 2xx/s, median of $ROUNDS rounds (each round's values)"
    for s in $servers; do
        n=${s%%:*}
        eval "v=\$r_${n}_$c"
        eval "m_${n}_$c=$(median $v)"
        eval "printf '   %-9s %9s   (%s)\n' $n \$m_${n}_$c \"\$v\""
    done
    for pair in qctl:nginx qctl:haproxy qctl1:nginx1 qctl1:haproxy1; do
        a=${pair%%:*} b=${pair#*:}
        eval "x=\${m_${a}_$c:-} y=\${m_${b}_$c:-}"
        [ -n "$x" ] && [ -n "$y" ] && awk -v x="$x" -v y="$y" -v a="$a" -v b="$b" 'BEGIN {
            if (y > 0) printf "   %s/%s: %.2f\n", a, b, x / y }'
    done
done
echo "-- added latency at 1 connection: wrk -t1 -c1, 5 rounds of 1 s in turn, medians (us)"
wrk1p50() { wrk -t1 -c1 -d1s --latency "http://127.0.0.1:$1/" >"$T/l.txt" 2>&1 || :
    us "$(awk '$1 == "50%" {print $2}' "$T/l.txt")"; }
for s in $servers; do eval "d_${s%%:*}=''"; done
for i in 1 2 3 4 5; do
    base=$(wrk1p50 "$FP")
    for s in $servers; do
        v=$(wrk1p50 "${s#*:}")
        eval "d_${s%%:*}=\"\$d_${s%%:*} $(awk -v a="$v" -v b="$base" 'BEGIN { print a - b }')\""
    done
done
for s in $servers; do
    n=${s%%:*}
    eval "printf '   %-9s +%s us at p50\n' $n \"\$(median \$d_$n)\""
done
echo "   load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# part 1's servers stopped: the later parts measure on a host without them
kill $nauto_PID $n1_PID $qauto_PID $q1_PID ${hauto_PID:-} ${h1_PID:-} 2>/dev/null || :
fi

if part 2; then
echo "== added latency at low load: wrk -t1 -c1, 5 rounds of 1 s each in turn, medians"
# Rounds alternate backend, qctl, nginx so that a busy host slows all three
# alike; the added latency is the median over rounds of the difference
# from the backend alone in the same round.
median() { echo "$@" | tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END {
    printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
wrk1() { # PORT: prints "p50 p99" in us of a 1 s run
    wrk -t1 -c1 -d1s --latency "http://127.0.0.1:$1/" >"$T/l.txt" 2>&1
    echo "$(us "$(awk '$1 == "50%" {print $2}' "$T/l.txt")")" \
        "$(us "$(awk '$1 == "99%" {print $2}' "$T/l.txt")")"
}
b50="" b99="" q50="" q99="" n50="" n99="" dq50="" dq99="" dn50="" dn99=""
for i in 1 2 3 4 5; do
    set -- $(wrk1 "$FP") $(wrk1 "$QP") $(wrk1 "$NP")
    b50="$b50 $1" b99="$b99 $2" q50="$q50 $3" q99="$q99 $4" n50="$n50 $5" n99="$n99 $6"
    dq50="$dq50 $(awk -v a="$3" -v b="$1" 'BEGIN { print a - b }')"
    dq99="$dq99 $(awk -v a="$4" -v b="$2" 'BEGIN { print a - b }')"
    dn50="$dn50 $(awk -v a="$5" -v b="$1" 'BEGIN { print a - b }')"
    dn99="$dn99 $(awk -v a="$6" -v b="$2" 'BEGIN { print a - b }')"
done
printf "%-8s p50 %7s us   p99 %8s us\n" backend "$(median $b50)" "$(median $b99)"
printf "%-8s p50 %7s us   p99 %8s us   added: p50 %6s us, p99 %8s us\n" qctl \
    "$(median $q50)" "$(median $q99)" "$(median $dq50)" "$(median $dq99)"
printf "%-8s p50 %7s us   p99 %8s us   added: p50 %6s us, p99 %8s us\n" nginx \
    "$(median $n50)" "$(median $n99)" "$(median $dn50)" "$(median $dn99)"
awk -v d="$(median $dq50)" 'BEGIN {
    printf "qctl adds %.1f us at p50 (target < 50): %s\n", d, d < 50 ? "met" : "NOT met" }'
fi
kill $qfast_PID $nfast_PID 2>/dev/null || :
fi

# ---- 5. throughput over TLS ---------------------------------------------
# qctl proxy --tls-cert beside nginx `listen ... ssl`, the same self-signed
# certificate (ECDSA P-256, made here by openssl req) and TLS 1.2/1.3
# only, both in front of the same backend (det:0); each on one worker and
# as deployed (nginx worker_processes auto, qctl's default workers); wrk
# -t2 -c64 over HTTPS (keep-alive: a handshake per connection) for
# SECONDS in interleaved rounds (ROUNDS, default 3), plus each on one
# worker over plain HTTP in the same rounds for what TLS costs. 2xx/s,
# medians over rounds, and qctl's ratios. Runs with the default parts or
# PARTS containing 5; needs wrk and openssl.
case $PARTS in 1234 | 12 | *5*) tls_part=1 ;; *) tls_part=0 ;; esac
if [ $tls_part = 1 ] && command -v openssl >/dev/null && command -v wrk >/dev/null; then
ROUNDS=${ROUNDS:-3}
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$T/tls.key" \
    -out "$T/tls.crt" -days 2 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
backend tfast --service det:0 --workers 65536
TB=$(cat "$T/tfast.port")
tls_nginx() { nginx_conf "$1" "$2" "$TB" "" "$3" "$4"; nginx_start "$1"; } # NAME PORT WORKERS SSL
tls_ok_rate() { # FILE: 2xx per second of a wrk run (none when wrk saw socket errors: said)
    awk '/requests in/ { n = $1; d = $4; sub(/s,?$/, "", d) } /Non-2xx/ { bad = $NF }
         /Socket errors/ { err = 1 }
         END { if (d > 0 && !err) printf "%.0f", (n - bad) / d; else print "errors" }' "$1"
}
tls_median() { echo "$@" | tr ' ' '\n' | grep -v '^$' | grep -v errors | sort -g | awk '{ v[NR] = $1 }
    END { if (NR == 0) print "none"; else printf "%.0f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
p=$(free_port); tls_nginx tn1 "$p" 1 1; tservers="nginx-tls1:https:$p"
p=$(free_port); tls_nginx tnauto "$p" auto 1; tservers="$tservers nginx-tls:https:$p"
p=$(free_port); tls_nginx tnplain "$p" 1 0; tservers="$tservers nginx1-plain:http:$p"
proxy tq1 "$TB" --workers 1 --tls-cert "$T/tls.crt" --tls-key "$T/tls.key"
tservers="$tservers qctl-tls1:https:$(cat "$T/tq1.port")"
proxy tqauto "$TB" --tls-cert "$T/tls.crt" --tls-key "$T/tls.key"
tservers="$tservers qctl-tls:https:$(cat "$T/tqauto.port")"
proxy tqplain "$TB" --workers 1
tservers="$tservers qctl1-plain:http:$(cat "$T/tqplain.port")"
echo "== throughput over TLS: wrk -t2 -c64 -d${DUR}s over HTTPS, backend det:0, $ROUNDS interleaved rounds"
echo "   $(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $tservers; do eval "t_$(echo "${s%%:*}" | tr -- - _)=''"; done
r=1
while [ $r -le "$ROUNDS" ]; do
    for s in $tservers; do
        n=$(echo "${s%%:*}" | tr -- - _) rest=${s#*:}
        wrk -t2 -c64 -d"${DUR}s" "${rest%%:*}://127.0.0.1:${rest#*:}/" >"$T/tw.txt" 2>&1 || :
        eval "t_$n=\"\$t_$n $(tls_ok_rate "$T/tw.txt")\""
    done
    r=$((r + 1))
done
echo "-- 2xx/s, median of $ROUNDS rounds (each round's values)"
for s in $tservers; do
    n=$(echo "${s%%:*}" | tr -- - _)
    eval "v=\$t_$n"
    eval "tm_$n=$(tls_median $v)"
    eval "printf '   %-13s %9s   (%s)\n' ${s%%:*} \$tm_$n \"\$v\""
done
for pair in qctl_tls1:nginx_tls1 qctl_tls:nginx_tls qctl_tls1:qctl1_plain nginx_tls1:nginx1_plain; do
    a=${pair%%:*} b=${pair#*:}
    eval "x=\$tm_$a y=\$tm_$b"
    awk -v x="$x" -v y="$y" -v a="$a" -v b="$b" 'BEGIN {
        if (x + 0 > 0 && y + 0 > 0) printf "   %s/%s: %.2f\n", a, b, x / y;
        else printf "   %s/%s: no ratio (a run had errors or no answer)\n", a, b }'
done
echo "   load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
kill $tn1_PID $tnauto_PID $tnplain_PID $tq1_PID $tqauto_PID $tqplain_PID 2>/dev/null || :
elif [ $tls_part = 1 ]; then
    echo "bench_live: the TLS part needs openssl and wrk: skipped"
fi
part 3 || part 4 || exit 0
backend slow --service det:0.01 --workers 4
SP=$(cat "$T/slow.port")
over() { # NAME PORT SECONDS: qctl load's JSON in $T/NAME.json; sets g_, p50_, p95_, p99_, ref_ NAME
    "$QCTL" load --target 127.0.0.1:$2 --rate 1200 --duration "$3" --connections 512 \
        --timeout 5 --seed 7 --max-errors 1 --series "$T/$1.series" --json >"$T/$1.json"
    j() { sed -n "s/^ *\"$1\": \([-0-9.e]*\),*\$/\1/p" "$T/$2.json" | head -n 1; }
    eval "g_$1=$(awk -v ok="$(j ok "$1")" -v e="$(j elapsed "$1")" 'BEGIN { printf "%.1f", ok / e }')"
    for q in 50 95 99; do
        eval "p${q}_$1=$(awk -v x="$(j ok_p$q "$1")" 'BEGIN { printf "%.1f", x * 1e3 }')"
    done
    eval "ref_$1=$(awk -v r="$(j refused_503 "$1")" -v s="$(j sent "$1")" 'BEGIN { printf "%.3f", r / s }')"
    eval "oth_$1=$(($(j other_status "$1") + $(j errors "$1") + $(j timeouts "$1")))"
}
if part 3; then
echo "== 3x overload: backend det:0.01 x 4 workers (C = 400/s), 1200/s Poisson for 10 s"
show() { # NAME LABEL
    eval "printf '%-34s goodput %7.1f/s   admitted p95 %7.1f ms   refused %5.3f   other/errors %s\n' \
        \"\$2\" \$g_$1 \$p95_$1 \$ref_$1 \$oth_$1"
}
proxy qover "$SP" --limiter maxusers --reference 6 --interval 0.05 --queue 0 \
    --queue-timeout 0.01
over qctl "$(cat "$T/qover.port")" 10
show qctl "qctl proxy (maxusers, ref 6, no queue)"
kill $qover_PID 2>/dev/null || :
best="" bestg=0 bestp=0
for lim in 4 6 8; do
    port=$(free_port)
    nginx_conf "nl$lim" "$port" "$SP" "$lim"
    nginx_start "nl$lim"
    over "try$lim" "$port" 4
    show "try$lim" "  nginx limit_conn $lim (4 s trial)"
    eval "g=\$g_try$lim p=\$p95_try$lim"
    if awk -v g="$g" -v p="$p" -v bg="$bestg" -v bp="$bestp" \
        'BEGIN { exit !(g > bg * 1.01 || (g > bg * 0.99 && p < bp)) }'; then
        best=$lim bestg=$g bestp=$p
    fi
    eval "kill \$nl${lim}_PID" 2>/dev/null || :
done
port=$(free_port)
nginx_conf nbest "$port" "$SP" "$best"
nginx_start nbest
over nginx "$port" 10
show nginx "nginx limit_conn $best (best tried)"
awk -v gq="$g_qctl" -v gn="$g_nginx" -v pq="$p95_qctl" -v pn="$p95_nginx" 'BEGIN {
    printf "qctl/nginx under 3x overload: goodput %.2f, admitted p95 %.2f\n", gq / gn, pq / pn }'
kill $nbest_PID 2>/dev/null || :
fi

part 4 || exit 0
echo "== 3x overload, default queue: backend det:0.01 x 4 workers (C = 400/s), 1200/s Poisson"
show4() { # NAME LABEL
    eval "printf '%-36s goodput %6.1f/s  admitted p50 %7.1f ms  p99 %7.1f ms  refused %5.3f  other %s\n' \
        \"\$2\" \$g_$1 \$p50_$1 \$p99_$1 \$ref_$1 \$oth_$1"
}
# better NAME: is NAME's goodput higher than the best so far (1% margin), or as
# high with a lower p99? then it becomes the best
better() {
    eval "g=\$g_$1 p=\$p99_$1"
    awk -v g="$g" -v p="$p" -v bg="$bestg" -v bp="$bestp" \
        'BEGIN { exit !(g > bg * 1.01 || (g > bg * 0.99 && p < bp)) }' || return 1
    bestg=$g bestp=$p
}
proxy qdef "$SP"
over qdef "$(cat "$T/qdef.port")" 10
show4 qdef "qctl proxy (defaults)"
kill $qdef_PID 2>/dev/null || :
proxy qfix "$SP" --reference 10 --queue-target 0.05
over qfix "$(cat "$T/qfix.port")" 10
show4 qfix "qctl proxy (--reference 10 --queue-target 0.05)"
kill $qfix_PID 2>/dev/null || :
# two workers (one front, one limiter over both): with the defaults before
# the same backend, and with a fixed limit of 4 before a backend
# independent of qctl (tests/live/count_backend.py: each request answered
# after 0.01 s, as many at once as come, the most at once counted), so
# that C = 4 / 0.01 = 400/s again and the backend itself says whether
# the limit held across the workers
proxy qw2 "$SP" --workers 2
over qw2 "$(cat "$T/qw2.port")" 10
show4 qw2 "qctl proxy --workers 2 (defaults)"
kill $qw2_PID 2>/dev/null || :
CB=$(dirname "$0")/../tests/live/count_backend.py
if command -v python3 >/dev/null && [ -f "$CB" ]; then
    python3 "$CB" "$T/count.port" "$T/count.sum" 0.01 2>/dev/null &
    cb_PID=$!
    PIDS="$PIDS $cb_PID"
    waitf "$T/count.port"
    proxy qw2l "$(cat "$T/count.port")" --workers 2 --limiter fixed --limit 4
    over qw2l "$(cat "$T/qw2l.port")" 10
    show4 qw2l "qctl proxy --workers 2 --limit 4 (count)"
    kill $qw2l_PID 2>/dev/null || :
    kill -TERM $cb_PID 2>/dev/null || :
    wait $cb_PID 2>/dev/null || :
    waitf "$T/count.sum"
    cmax=$(sed -n 's/.*max_inflight \([0-9]*\).*/\1/p' "$T/count.sum")
    echo "  the independent backend: $(cat "$T/count.sum"); the limit 4 over 2 workers" \
        "$( [ "${cmax:-99}" -le 4 ] && echo held || echo NOT held)"
fi
best="" bestg=0 bestp=0
for lim in 4 6 8 12; do
    port=$(free_port)
    nginx_conf "n4l$lim" "$port" "$SP" "$lim"
    nginx_start "n4l$lim"
    over "n4try$lim" "$port" 4
    show4 "n4try$lim" "  nginx limit_conn $lim (4 s trial)"
    better "n4try$lim" && best=$lim
    eval "kill \$n4l${lim}_PID" 2>/dev/null || :
done
port=$(free_port)
nginx_conf n4best "$port" "$SP" "$best"
nginx_start n4best
over n4 "$port" 10
show4 n4 "nginx limit_conn $best (best tried)"
kill $n4best_PID 2>/dev/null || :
ratio() { # NAME LABEL: qctl's ratios against NAME (in words when NAME admitted nothing)
    eval "awk -v gq=\$g_qdef -v g=\$g_$1 -v a=\$p50_qdef -v b=\$p50_$1 -v c=\$p99_qdef -v d=\$p99_$1" \
        "'BEGIN { if (!(g > 0 && b > 0 && d > 0)) printf \"qctl/%s: no ratio, no request admitted through it\\n\", \"$2\";
                 else printf \"qctl/%s: goodput %.2f, admitted p50 %.2f, p99 %.2f\\n\", \"$2\", gq / g, a / b, c / d }'"
}
ratio n4 "nginx limit_conn $best"
# the start of an overload apart from the rest: the p95 of the 2xx answers
# of the run's first second, and the median of the later seconds' p95s
transient() { # NAME LABEL
    awk -F, -v l="$2" 'NR > 1 && $NF != "" { n++; v[n] = $NF * 1e3 }
        END { if (n < 3) { printf "%s: too few seconds with 2xx answers to tell the start apart\n", l; exit }
              m = n - 1; for (i = 2; i <= n; i++) w[i - 1] = v[i]
              for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (w[j] < w[i]) { t = w[i]; w[i] = w[j]; w[j] = t }
              med = m % 2 ? w[(m + 1) / 2] : (w[m / 2] + w[m / 2 + 1]) / 2
              printf "%-36s 2xx p95 first second %6.1f ms, later seconds (median of %d) %6.1f ms\n", l, v[1], m, med }' "$T/$1.series"
}
transient qdef "qctl proxy (defaults)"
transient n4 "nginx limit_conn $best"
awk -v c="$p99_qdef" -v d="$p99_n4" 'BEGIN { if (d > 0)
    printf "admitted p99 within 2x of nginx limit_conn: %s (%.2f)\n", c <= 2 * d ? "met" : "NOT met", c / d }'
for w in qw2 qw2l; do
    eval "c=\${p99_$w:-}"
    [ -n "$c" ] && awk -v c="$c" -v d="$p99_n4" -v w="$w" 'BEGIN { if (d > 0)
        printf "%s: admitted p99 within 2x of nginx limit_conn: %s (%.2f)\n", w == "qw2" ? "2 workers, defaults" : "2 workers, limit 4", c <= 2 * d ? "met" : "NOT met", c / d }'
done
if [ -x "$HAPROXY" ]; then
haproxy_conf() { # NAME PORT BACKEND_PORT MAXCONN: writes $T/NAME.cfg
    cat >"$T/$1.cfg" <<CFG
global
    maxconn 4096
    nbthread 1
defaults
    mode http
    timeout connect 1s
    timeout client 30s
    timeout server 30s
    timeout queue 1s
    option http-keep-alive
frontend f
    bind 127.0.0.1:$2
    http-request deny deny_status 503 if { queue(b) ge 128 }
    default_backend b
backend b
    server s1 127.0.0.1:$3 maxconn $4
CFG
}
haproxy_start() { # NAME
    "$HAPROXY" -f "$T/$1.cfg" -db 2>>"$T/haproxy.err" &
    eval "${1}_PID=$!"
    PIDS="$PIDS $!"
    sleep 0.3
}
best="" bestg=0 bestp=0
for mc in 4 8; do
    port=$(free_port)
    haproxy_conf "h4m$mc" "$port" "$SP" "$mc"
    haproxy_start "h4m$mc"
    over "h4try$mc" "$port" 4
    show4 "h4try$mc" "  haproxy maxconn $mc (4 s trial)"
    better "h4try$mc" && best=$mc
    eval "kill \$h4m${mc}_PID" 2>/dev/null || :
done
port=$(free_port)
haproxy_conf h4best "$port" "$SP" "$best"
haproxy_start h4best
over h4 "$port" 10
show4 h4 "haproxy maxconn $best, queue 1 s (best)"
kill $h4best_PID 2>/dev/null || :
ratio h4 "haproxy maxconn $best"
else
    echo "haproxy not installed (Debian: haproxy): its comparison skipped"
fi
