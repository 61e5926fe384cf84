# SPDX-License-Identifier: GPL-3.0-or-later
# haproxy_lib.sh: helpers of the `qctl control` tests on a real haproxy,
# on top of lib.sh: haproxy in $TMP (stats socket $TMP/h.sock, admin
# level, and on 127.0.0.1:$HX_STATS), in front of qctl backends, and a
# client of its runtime API (remote_q.py). Skips (77) without haproxy.
. "${LIVE:-$(dirname "$0")}/lib.sh"
LIVE=${LIVE:-$(dirname "$0")}
command -v haproxy >/dev/null || { echo "skip: no haproxy"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
command -v curl >/dev/null || { echo "skip: no curl"; exit 77; }
# hx_config NSERVERS PORT...: writes $TMP/h.cfg (backend b, leastconn,
# servers s1.. at the given ports, maxconn 10)
hx_config() {
    n=$1; shift
    [ -n "${HX_STATS:-}" ] || free_port HX_STATS
    [ -n "${HX_FRONT:-}" ] || free_port HX_FRONT
    {
        echo "global"
        echo "    stats socket $TMP/h.sock mode 600 level admin"
        echo "    stats socket ipv4@127.0.0.1:$HX_STATS level admin"
        echo "defaults"
        echo "    mode http"
        echo "    timeout connect 2s"
        echo "    timeout client 30s"
        echo "    timeout server 30s"
        echo "    timeout queue 30s"
        echo "frontend f"
        echo "    bind 127.0.0.1:$HX_FRONT"
        echo "    default_backend b"
        echo "backend b"
        echo "    balance leastconn"
        i=1
        for p in "$@"; do
            echo "    server s$i 127.0.0.1:$p maxconn 10"
            i=$((i + 1))
        done
    } >"$TMP/h.cfg"
}
start_haproxy() { # sets HX_PID; waits for the socket
    rm -f "$TMP/h.sock"
    haproxy -f "$TMP/h.cfg" -db 2>"$TMP/haproxy.log" &
    HX_PID=$!
    PIDS="$PIDS $!"
    i=0
    while ! python3 "$LIVE/remote_q.py" haproxy "$TMP/h.sock" "show info" >/dev/null 2>&1 &&
        [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    python3 "$LIVE/remote_q.py" haproxy "$TMP/h.sock" "show info" >/dev/null 2>&1 ||
        fail "haproxy did not start: $(cat "$TMP/haproxy.log")"
}
hx() { python3 "$LIVE/remote_q.py" haproxy "$TMP/h.sock" "$1"; }
# hx_cell SERVER FIELD: a cell of `show stat` for b/SERVER
hx_cell() { python3 "$LIVE/remote_q.py" cell "$TMP/h.sock" "b" "$1" "$2"; }
# column FILE NAME: the values of a CSV column (comment lines skipped)
column() { awk -F, -v k="$2" '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i == k) c = i; h = 1; next } { print $c }' "$1"; }
metric() { curl -s --max-time 3 "http://127.0.0.1:$1/metrics" | awk -v k="$2" 'index($0, k " ") == 1 { print $2 }'; }
start_control() { # NAME ARGS...: qctl control with an admin port; sets NAME_PID, NAME_ADMIN
    c=$1; shift
    rm -f "$TMP/$c.admin"
    "$QCTL" control --admin 127.0.0.1:0 --admin-port-file "$TMP/$c.admin" "$@" 2>"$TMP/$c.err" &
    eval "${c}_PID=$!"
    PIDS="$PIDS $!"
    wait_file "$TMP/$c.admin"
    eval "${c}_ADMIN=$(cat "$TMP/$c.admin")"
}
