#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# room_timer.sh: the waiting room's deadlines, timed by one timer per
# worker (proxy.c, "the waiting room's timer"), refuse each waiting
# request at its own deadline. One slot (--limiter fixed --limit 1, one
# worker) held 2 s by a slow backend; five requests arrive 0.15 s apart
# and wait with a 0.3 s deadline (fifo): each is answered 503 0.3 s after
# it came (at most 0.9 s here, well before the slot frees at 2 s), so the
# timer was armed again after each expiry, and /metrics counts the five
# as reason="deadline" (127.0.0.1, < 5 s).
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || exit 77
start_backend b --service det:2 --workers 4
start_proxy --backend 127.0.0.1:$b_PORT --workers 1 --limiter fixed --limit 1 \
    --queue-discipline fifo --queue-timeout 0.3
U="http://127.0.0.1:$PROXY_PORT/"
curl -s -o /dev/null --max-time 10 "$U" &
first=$!
sleep 0.2
pids=""
i=0
while [ $i -lt 5 ]; do
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' --max-time 10 "$U" >"$TMP/w.$i" &
    pids="$pids $!"
    sleep 0.15
    i=$((i + 1))
done
for p in $pids; do wait "$p"; done
wait "$first"
cat "$TMP"/w.*
n=$(cat "$TMP"/w.* | awk '$1 == 503 && $2 >= 0.25 && $2 <= 0.9' | wc -l)
[ "$n" -eq 5 ] || fail "$n of 5 waiting requests refused 0.3 s after they came: $(cat "$TMP"/w.* | tr '\n' ' ')"
d=$(curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" | sed -n 's/^qctl_refused_reason_total{reason="deadline"} //p')
[ "$d" = 5 ] || fail "refused by deadline: '$d', not 5"
echo ok
