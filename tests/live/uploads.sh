#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# uploads.sh: concurrent uploads through the proxy are all answered 2xx
# while the backend is not overloaded: a body is read whole before its
# request enters the front (proxy_client.c, body_buffer), and while it is
# carried on to its backend its slot is lent to the next request
# (qc_front_carry): a body on its way is the network's work, not the
# backend's (nor is the backend's reading of it: the slot is taken back
# at the response's first byte). A fixed limit of 4 is the sharpest case:
# held from the head, 4 uploads would move at a time and the rest pass
# their 1 s deadline in the room (tests/unit/control/test_front_wc.c
# shows the same without lending: 36 of 40 refused). Counts come from the
# upload client (bench/upload_client.py: each answer read whole), not
# from the proxy. Short by default (40 of 512 KiB, over the 256 KiB from which a body is carried, the fixed limit alone: the one that binds); N, SIZE,
# KINDS and QT override (bench/bench_wc.sh part 3 runs 40 of 8 MiB with
# every kind).
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || exit 77
UP="$(dirname "$0")/../../bench/upload_client.py"
[ -f "$UP" ] || exit 77
N=${N:-40}
SIZE=${SIZE:-524288}
QT=${QT:-1}
start_backend b --service det:0 --workers 65536
KINDS=${KINDS:-fixed}
for k in $KINDS; do
    la=""
    case $k in
    default) ;;
    fixed) la="--limiter fixed --limit 4" ;;
    admission) la="--limiter admission --class all=1" ;;
    *) la="--limiter $k" ;;
    esac
    # shellcheck disable=SC2086,SC2154
    start_proxy --backend 127.0.0.1:$b_PORT --queue-timeout "$QT" $la ${EXTRA:-}
    python3 "$UP" 127.0.0.1 "$PROXY_PORT" "$N" "$SIZE" 60 >"$TMP/u.json" 2>"$TMP/u.err" ||
        fail "$k: the upload client failed: $(tail -n 2 "$TMP/u.err")"
    # shellcheck disable=SC2046
    set -- $(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(j["ok"], j["refused_503"], j["slowest"])' "$TMP/u.json")
    ok=${1:-0} ref=${2:-?}
    echo "$k: $ok of $N answered 2xx, $ref refused (503), slowest ${3:-?} s"
    kill "$PROXY_PID"; wait "$PROXY_PID"
    [ "$ok" = "$N" ] || [ -n "${NOFAIL:-}" ] || fail "$k: $ok of $N uploads answered 2xx ($(cat "$TMP/u.json"))"
done
echo ok
