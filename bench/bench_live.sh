#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_live.sh: qctl proxy (control on) against nginx as a reverse proxy,
# both in front of the same qctl backend, driven by wrk in the same run.
#   bench/bench_live.sh [QCTL] [SECONDS]
# Needs wrk and nginx (Debian: wrk, nginx-light). Reports requests/s of
# each, the ratio, and the latency each adds to the backend alone (p50,
# p99 from wrk --latency). One worker each; 127.0.0.1 only.
set -eu
QCTL=${1:-build/qctl}
DUR=${2:-5}
command -v wrk >/dev/null || { echo "bench_live: needs wrk"; exit 0; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "bench_live: needs nginx"; exit 0; }
T=$(mktemp -d)
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null || :; done; rm -rf "$T"' EXIT
waitf() { i=0; while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; }
"$QCTL" backend --listen 127.0.0.1:0 --port-file "$T/b" --service det:0 --workers 100000 &
PIDS="$PIDS $!"
waitf "$T/b"
BP=$(cat "$T/b")
"$QCTL" proxy --listen 127.0.0.1:0 --port-file "$T/p" --backend 127.0.0.1:$BP \
    --limiter gradient2 --max-limit 1000 --limit 200 2>/dev/null &
PIDS="$PIDS $!"
waitf "$T/p"
PP=$(cat "$T/p")
NP=$((BP + 1))
cat >"$T/nginx.conf" <<NG
worker_processes 1;
daemon off;
master_process off;
pid $T/nginx.pid;
error_log $T/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $T; proxy_temp_path $T; fastcgi_temp_path $T;
    uwsgi_temp_path $T; scgi_temp_path $T;
    upstream b { server 127.0.0.1:$BP; keepalive 64; }
    server {
        listen 127.0.0.1:$NP;
        location / { proxy_pass http://b; proxy_http_version 1.1;
                     proxy_set_header Connection ""; }
    }
}
NG
"$NGINX" -p "$T" -c "$T/nginx.conf" &
PIDS="$PIDS $!"
sleep 0.5
run() { # NAME PORT
    wrk -t1 -c32 -d"${DUR}s" --latency "http://127.0.0.1:$2/" >"$T/$1.txt" 2>&1
    rps=$(sed -n 's/^Requests\/sec: *//p' "$T/$1.txt")
    p50=$(awk '$1 == "50%" {print $2}' "$T/$1.txt")
    p99=$(awk '$1 == "99%" {print $2}' "$T/$1.txt")
    printf "%-8s %12s req/s   p50 %10s   p99 %10s\n" "$1" "$rps" "$p50" "$p99"
    eval "rps_$1=$rps"
}
run backend $BP
run nginx $NP
run qctl $PP
awk -v q="$rps_qctl" -v n="$rps_nginx" 'BEGIN { printf "qctl/nginx throughput: %.2f\n", q / n }'
