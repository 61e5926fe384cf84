#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_live_cost.sh: what a proxied request costs qctl proxy and nginx,
# counted rather than timed, so that a busy host does not change it:
# instructions per request (valgrind --tool=callgrind, user space with
# the C library, counters zeroed after a warm-up and dumped after a run)
# and system calls per request (strace -c -f), each proxy on one worker
# (qctl --workers 1 with its default limiter; nginx master_process off,
# worker_processes 1, upstream keepalive 64), in front of the same qctl
# backend answering at once, loaded by wrk -t1 -cC for D seconds.
#   bench/bench_live_cost.sh [QCTL]      (C=16 D=4 by default)
# Needs valgrind, strace, wrk and nginx; a missing one: a notice, exit 0.
set -u
Q=${1:-build/qctl}
C=${C:-16} D=${D:-4}
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
# shellcheck disable=SC2034 # lib.sh's messages name the bench
BENCH=bench_live_cost
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_needs valgrind callgrind_control strace wrk python3
[ -x "$NGINX" ] || { echo "bench_live_cost: needs nginx: skipped"; exit 0; }
bench_start
NP=$(port)
mkdir -p "$T/n"
cat >"$T/n.conf" <<CONF
worker_processes 1; daemon off; master_process off;
pid $T/n/nginx.pid; error_log $T/n/error.log;
events { worker_connections 4096; }
http { access_log off;
  client_body_temp_path $T/n; proxy_temp_path $T/n; fastcgi_temp_path $T/n;
  uwsgi_temp_path $T/n; scgi_temp_path $T/n;
  upstream b { server 127.0.0.1:$BP; keepalive 64; }
  server { listen 127.0.0.1:$NP;
    location / { proxy_pass http://b; proxy_http_version 1.1; proxy_set_header Connection ""; } } }
CONF
requests() { awk '/requests in/ { print $1 }' "$1"; }
# NAME PORT CMD...: instructions per request under callgrind
instr() {
    n=$1 p=$2; shift 2
    callgrind_run "$T/cg.$n" "$T/$n.wrk" "$C" "$D" "$p" "$@"
    ir=$(cg_total "$CG_FILE")
    eval "ir_$n=\$(awk -v a=\$ir -v r=\$(requests \"\$T/\$n.wrk\") 'BEGIN { printf \"%.0f\", a / r }')"
}
# NAME PORT CMD...: system calls per request under strace -c -f
calls() {
    n=$1 p=$2; shift 2
    "$@" 2>/dev/null &
    s=$!
    waitport "$p"
    wrk -t1 -c"$C" -d1s "http://127.0.0.1:$p/" >/dev/null 2>&1
    strace -c -f -p $s -o "$T/$n.st" 2>/dev/null &
    st=$!
    sleep 0.5
    wrk -t1 -c"$C" -d"${D}s" "http://127.0.0.1:$p/" >"$T/$n.swrk" 2>&1
    kill -INT $st; wait $st 2>/dev/null
    kill $s; wait $s 2>/dev/null
    r=$(requests "$T/$n.swrk")
    eval "sc_$n=\"\$(awk -v r=$r 'NR > 2 && \$4 ~ /^[0-9]+\$/ && \$NF != \"total\" { s += \$4 }
        END { printf \"%.2f\", s / r }' \"\$T/\$n.st\")\""
    eval "top_$n=\"\$(awk -v r=$r 'NR > 2 && \$4 ~ /^[0-9]+\$/ && \$4 / r >= 0.05 && \$NF != \"total\" {
        printf \"%s %.2f  \", \$NF, \$4 / r }' \"\$T/\$n.st\")\""
}
QP=$(port)
echo "== a proxied request's cost, one worker each: wrk -t1 -c$C -d${D}s, backend det:0"
instr qctl "$QP" "$Q" proxy --listen 127.0.0.1:"$QP" --backend 127.0.0.1:"$BP" --workers 1
instr nginx "$NP" "$NGINX" -p "$T/n" -c "$T/n.conf"
calls qctl "$QP" "$Q" proxy --listen 127.0.0.1:"$QP" --backend 127.0.0.1:"$BP" --workers 1
calls nginx "$NP" "$NGINX" -p "$T/n" -c "$T/n.conf"
printf '   %-6s %7s instructions/request   %5s system calls/request (%s)\n' \
    qctl "$ir_qctl" "$sc_qctl" "$top_qctl" nginx "$ir_nginx" "$sc_nginx" "$top_nginx"
awk -v a="$ir_qctl" -v b="$ir_nginx" -v c="$sc_qctl" -v d="$sc_nginx" 'BEGIN {
    printf "   qctl/nginx: instructions %.2f, system calls %.2f\n", a / b, c / d }'
