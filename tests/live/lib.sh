# SPDX-License-Identifier: GPL-3.0-or-later
# lib.sh: helpers of the live tests: start qctl's backend and proxy on
# ephemeral 127.0.0.1 ports, and stop what was started (by pid).
# Needs QCTL and TMP in the environment (run_cli_test.sh exports them).
PIDS=""
cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do wait "$p" 2>/dev/null; done
    # a sanitizer build reports leaks and errors on the servers' stderr
    if cat "$TMP"/*.err 2>/dev/null | grep -q 'Sanitizer\|runtime error'; then
        echo "FAIL: sanitizer report from a server:"
        cat "$TMP"/*.err
        exit 1
    fi
}
trap cleanup EXIT
wait_file() { # FILE [SECONDS]: wait up to SECONDS (default 5) for it to appear
    i=0
    wf_n=$((${2:-5} * 20))
    while [ ! -s "$1" ] && [ $i -lt $wf_n ]; do sleep 0.05; i=$((i + 1)); done
    [ -s "$1" ] || { echo "FAIL: $1 never appeared"; exit 1; }
}
start_backend() { # NAME ARGS...: sets ${NAME}_PORT and ${NAME}_PID
    name=$1; shift
    rm -f "$TMP/$name.port"
    "$QCTL" backend --listen 127.0.0.1:0 --port-file "$TMP/$name.port" "$@" 2>"$TMP/$name.err" &
    eval "${name}_PID=$!"
    PIDS="$PIDS $!"
    wait_file "$TMP/$name.port"
    eval "${name}_PORT=$(cat "$TMP/$name.port")"
}
# (the admin token made at start is in $TMP/admin.token: admin_auth)
start_proxy() { # ARGS...: sets PROXY_PORT, ADMIN_PORT, PROXY_PID
    rm -f "$TMP/proxy.port" "$TMP/admin.port"
    rm -f "$TMP/admin.token"
    "$QCTL" proxy --listen 127.0.0.1:0 --port-file "$TMP/proxy.port" \
        --admin 127.0.0.1:0 --admin-port-file "$TMP/admin.port" \
        --admin-token-out "$TMP/admin.token" "$@" 2>"$TMP/proxy.err" &
    PROXY_PID=$!
    PIDS="$PIDS $!"
    wait_file "$TMP/proxy.port"
    wait_file "$TMP/admin.port"
    PROXY_PORT=$(cat "$TMP/proxy.port")
    ADMIN_PORT=$(cat "$TMP/admin.port")
}
# admin_auth: the header that carries the admin token of start_proxy
admin_auth() { wait_file "$TMP/admin.token"; echo "Authorization: Bearer $(cat "$TMP/admin.token")"; }
# free_port VAR: a free port for a backend started later on a fixed port
. "$(dirname "$0")/../../scripts/free_port.sh"
# num FILE KEY: the integer value of "KEY": in qctl load's JSON summary
num() { sed -n "s/^ *\"$2\": \([0-9]*\),*\$/\1/p" "$1" | head -n 1; }
fail() { echo "FAIL: $*"; for f in "$TMP"/*.err; do echo "--- $f"; tail -n 5 "$f"; done; exit 1; }
# conserved FILE: every request sent was answered 2xx or 503 (or, with
# ALLOW_OTHER=1, another status such as a 502); none lost or timed out
conserved() {
    sent=$(num "$1" sent) ok=$(num "$1" ok) r=$(num "$1" refused_503)
    other=$(num "$1" other_status) err=$(num "$1" errors) to=$(num "$1" timeouts)
    [ -n "$sent" ] && [ "$sent" -gt 0 ] || fail "no requests sent"
    [ "$err" -eq 0 ] || fail "$err connection errors"
    [ "$to" -eq 0 ] || fail "$to requests never answered"
    [ "${ALLOW_OTHER:-0}" -eq 1 ] || [ "$other" -eq 0 ] || fail "$other unexpected statuses"
    [ $((ok + r + other)) -eq "$sent" ] || fail "sent $sent != ok $ok + 503 $r + other $other"
}
# The access-log tests (accesslog.sh, accesslog_499.sh) compare qctl's
# lines with nginx's combined format (ALOG_COMBINED, a regex) and with
# nginx's own log in front of the same backend (start_nginx_log).
ALOG_COMBINED='^[^ ]+ - [^ ]+ \[[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4}\] "([^"\\]|\\.)*" [0-9]{3} [0-9]+ "([^"\\]|\\.)*" "([^"\\]|\\.)*"$'
# alog_notime FILE: its lines with the time left out
alog_notime() { sed 's/ \[[^]]*\] / [] /' "$1"; }
# start_nginx_log PORT: nginx on $NG in front of 127.0.0.1:PORT, logging
# combined to $TMP/ng/access.log; returns once it answers, the lines of
# that wait counted in NG_WARM
start_nginx_log() {
    free_port NG
    mkdir -p "$TMP/ng"
    cat >"$TMP/ng/nginx.conf" <<NG
daemon off;
worker_processes 1;
pid $TMP/ng/nginx.pid;
error_log $TMP/ng/error.log;
events { worker_connections 64; }
http {
    access_log $TMP/ng/access.log combined;
    client_body_temp_path $TMP/ng/body; proxy_temp_path $TMP/ng/proxy;
    fastcgi_temp_path $TMP/ng/fcgi; uwsgi_temp_path $TMP/ng/uwsgi; scgi_temp_path $TMP/ng/scgi;
    server {
        listen 127.0.0.1:$NG;
        location / { proxy_pass http://127.0.0.1:$1; proxy_http_version 1.1; }
    }
}
NG
    nginx -p "$TMP/ng" -c "$TMP/ng/nginx.conf" 2>"$TMP/ng.err" &
    PIDS="$PIDS $!"
    i=0
    while ! curl -s -o /dev/null "http://127.0.0.1:$NG/warm" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.2
    NG_WARM=$(wc -l <"$TMP/ng/access.log")
}
