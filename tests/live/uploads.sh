#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# uploads.sh: 40 concurrent 8 MiB uploads through the proxy with each
# limiter kind are all answered 2xx: a body is read whole before its
# request enters the front (proxy_client.c, body_buffer), so an upload
# holds no slot and no place in the waiting room while its client sends
# it. A fixed limit of 4 makes the point sharp: held from the head, only
# 4 uploads would move at a time and the rest pass their wait in the room.
# Counts come from the upload client (bench/upload_client.py: each answer
# read whole), not from the proxy. KINDS overrides the list.
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || exit 77
UP="$(dirname "$0")/../../bench/upload_client.py"
[ -f "$UP" ] || exit 77
start_backend b --service det:0 --workers 65536
KINDS=${KINDS:-fixed default maxusers aimd vegas gradient2 envoy admission}
for k in $KINDS; do
    la=""
    case $k in
    default) ;;
    fixed) la="--limiter fixed" ;;
    admission) la="--limiter admission --class all=1" ;;
    *) la="--limiter $k" ;;
    esac
    # shellcheck disable=SC2086
    start_proxy --backend 127.0.0.1:$b_PORT $la ${EXTRA:-}
    python3 "$UP" 127.0.0.1 "$PROXY_PORT" 40 8388608 60 >"$TMP/u.json" 2>"$TMP/u.err" ||
        fail "$k: the upload client failed: $(tail -n 2 "$TMP/u.err")"
    set -- $(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(j["ok"], j["refused_503"])' "$TMP/u.json")
    ok=${1:-0} ref=${2:-?}
    echo "$k: $ok of 40 answered 2xx, $ref refused (503)"
    kill "$PROXY_PID"; wait "$PROXY_PID"
    [ "$ok" = 40 ] || [ -n "${NOFAIL:-}" ] || fail "$k: $ok of 40 uploads answered 2xx ($(cat "$TMP/u.json"))"
done
echo ok
