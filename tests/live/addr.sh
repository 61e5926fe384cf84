#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# addr.sh: the address forms every live command takes: an IPv4 literal, a
# bracketed IPv6 literal and a host name (resolved once at start). The
# backend and the proxy listen on [::1], the proxy's admin on [::1] (a
# loopback address: taken without --admin-public), load targets [::1] and
# "localhost"; every request is answered by the backend through the proxy.
# Skipped (77) when ::1 cannot be bound.
set -u
. "$(dirname "$0")/lib.sh"
# can ::1 be bound here? (a container may have IPv6 off)
"$QCTL" backend --listen '[::1]:0' --port-file "$TMP/v6probe.port" 2>"$TMP/v6probe.log" &
probe=$!
i=0
while [ ! -s "$TMP/v6probe.port" ] && kill -0 $probe 2>/dev/null && [ $i -lt 100 ]; do
    sleep 0.05; i=$((i + 1))
done
if [ ! -s "$TMP/v6probe.port" ]; then
    kill $probe 2>/dev/null; wait $probe 2>/dev/null
    echo "::1 cannot be bound here: skipped"; exit 77
fi
kill $probe; wait $probe 2>/dev/null

# the backend on [::1], the proxy's listener and admin on [::1]
rm -f "$TMP/b.port"
"$QCTL" backend --listen '[::1]:0' --port-file "$TMP/b.port" --service det:0.001 2>"$TMP/b.err" &
PIDS="$PIDS $!"
wait_file "$TMP/b.port"
B=$(cat "$TMP/b.port")
"$QCTL" proxy --listen '[::1]:0' --port-file "$TMP/proxy.port" \
    --admin '[::1]:0' --admin-port-file "$TMP/admin.port" --backend "[::1]:$B" 2>"$TMP/proxy.err" &
PIDS="$PIDS $!"
wait_file "$TMP/proxy.port"
wait_file "$TMP/admin.port"
P=$(cat "$TMP/proxy.port") A=$(cat "$TMP/admin.port")
"$QCTL" load --target "[::1]:$P" --rate 200 --requests 100 --json >"$TMP/v6.json" ||
    fail "qctl load --target [::1]:$P failed"
conserved "$TMP/v6.json"
[ "$(num "$TMP/v6.json" ok)" -eq 100 ] || fail "through [::1]: $(num "$TMP/v6.json" ok) of 100 answered 2xx"
# the admin answers on ::1
out=$(timeout 2 bash -c 'exec 3<>/dev/tcp/::1/$0; printf "GET /status HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n" >&3; cat <&3' "$A")
echo "$out" | grep -q '^HTTP/1.1 200' || fail "admin on [::1] did not answer /status: $out"

# a host name: "localhost" resolves to a loopback address; an IPv4
# backend and proxy reached by name
start_backend b4 --service det:0.001
"$QCTL" proxy --listen localhost:0 --port-file "$TMP/p4.port" \
    --admin localhost:0 --admin-port-file "$TMP/a4.port" --backend "localhost:$b4_PORT" 2>"$TMP/p4.err" &
PIDS="$PIDS $!"
wait_file "$TMP/p4.port"
P4=$(cat "$TMP/p4.port")
"$QCTL" load --target "localhost:$P4" --rate 200 --requests 100 --json >"$TMP/name.json" ||
    fail "qctl load --target localhost:$P4 failed"
conserved "$TMP/name.json"
[ "$(num "$TMP/name.json" ok)" -eq 100 ] || fail "through localhost: $(num "$TMP/name.json" ok) of 100 answered 2xx"
exit 0
