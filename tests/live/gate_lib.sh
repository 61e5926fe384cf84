# SPDX-License-Identifier: GPL-3.0-or-later
# gate_lib.sh: helpers of the gate tests, on top of lib.sh: a TCP echo
# backend and qctl gate on ephemeral 127.0.0.1 ports.
. "${LIVE:-$(dirname "$0")}/lib.sh"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
command -v curl >/dev/null || { echo "skip: no curl"; exit 77; }
LIVE=${LIVE:-$(dirname "$0")}
start_echo() { # NAME: sets ${NAME}_PORT, ${NAME}_PID; $TMP/NAME.max: most connections at once
    rm -f "$TMP/$1.port" "$TMP/$1.max"
    python3 "$LIVE/tcp_echo.py" "$TMP/$1.port" "$TMP/$1.max" 2>"$TMP/$1.pyerr" &
    eval "${1}_PID=$!"
    PIDS="$PIDS $!"
    wait_file "$TMP/$1.port"
    eval "${1}_PORT=$(cat "$TMP/$1.port")"
}
start_gate() { # NAME ARGS...: sets ${NAME}_PORT, ${NAME}_ADMIN, ${NAME}_PID
    g=$1; shift
    rm -f "$TMP/$g.port" "$TMP/$g.admin"
    "$QCTL" gate --listen 127.0.0.1:0 --port-file "$TMP/$g.port" --admin 127.0.0.1:0 \
        --admin-port-file "$TMP/$g.admin" "$@" 2>"$TMP/$g.err" &
    eval "${g}_PID=$!"
    PIDS="$PIDS $!"
    wait_file "$TMP/$g.port"
    wait_file "$TMP/$g.admin"
    eval "${g}_PORT=$(cat "$TMP/$g.port")"
    eval "${g}_ADMIN=$(cat "$TMP/$g.admin")"
}
client() { python3 "$LIVE/gate_client.py" "$@"; }
# metric ADMINPORT NAME: the value of a /metrics line starting with NAME
metric() { curl -s --max-time 3 "http://127.0.0.1:$1/metrics" | awk -v k="$2" 'index($0, k " ") == 1 { print $2 }'; }
# column FILE NAME: the values of a CSV column (comment lines skipped)
column() { awk -F, -v k="$2" '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i == k) c = i; h = 1; next } { print $c }' "$1"; }
# wait_connected ADMINPORT N [-ge]: wait up to 100 polls for N sessions
# connected (with -ge: at least N)
wait_connected() {
    wc_i=0 wc_op=${3:--eq}
    while ! [ "$(metric $1 'qctl_gate_sessions{state="connected"}')" $wc_op "$2" ] && [ $wc_i -lt 100 ]; do
        sleep 0.05; wc_i=$((wc_i + 1))
    done
    [ "$(metric $1 'qctl_gate_sessions{state="connected"}')" $wc_op "$2" ] || fail "never $2 sessions connected"
}
