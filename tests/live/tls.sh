#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tls.sh: `qctl proxy --tls-cert --tls-key` (127.0.0.1, self-signed
# certificates made here by openssl req; < 40 s):
#  - openssl s_client negotiates TLS 1.3 with ALPN http/1.1, and TLS 1.2;
#    TLS 1.1 and 1.0 are refused (protocol_version alert), and so is a
#    client whose ALPN list lacks http/1.1 (no_application_protocol);
#  - 2 workers: 4 keep-alive connections x 100 requests whose certificate
#    checks against the one given all answer 200; wrk over HTTPS (when
#    installed) has no socket error and no status but 2xx;
#  - the limiter and the queue as on TCP: 6 requests at once to a 2 s
#    backend through --limiter fixed --limit 2 --queue 0 give 2 x 200 and
#    4 x 503 over TLS and over TCP alike; with a queue all 6 are 200;
#  - a reload (SIGHUP) after the files were replaced serves the new
#    certificate to new connections, while a wrk run across it has no
#    error; a reload with a broken certificate is refused, said on
#    stderr, and the running one keeps serving;
#  - hostile clients: 300 connections of garbage, mutated or cut
#    ClientHellos, plain HTTP or half a handshake then silence are all
#    closed by the proxy (silence by --tls-handshake-timeout 1), counted
#    in qctl_tls_handshakes_total, and the proxy still serves, its
#    resident memory grown by under 16 MB.
set -u
. "$(dirname "$0")/lib.sh"
D=$(dirname "$0")
command -v openssl >/dev/null || { echo "skip: no openssl"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
command -v curl >/dev/null || { echo "skip: no curl"; exit 77; }
mkcert() { # NAME CN: $TMP/NAME.crt and .key, self-signed for localhost and 127.0.0.1
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout "$TMP/$1.key" -out "$TMP/$1.crt" -days 2 -subj "/CN=$2" \
        -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>"$TMP/req.log" ||
        fail "openssl req: $(cat "$TMP/req.log")"
}
sclient() { # PORT ARGS...: openssl s_client's report of one handshake (its
    # standard input held open 2 s: at its end s_client may quit before
    # the handshake's report is printed)
    p=$1; shift
    sleep 2 | openssl s_client -connect "127.0.0.1:$p" -servername localhost "$@" 2>&1
}
mkcert first first
mkcert second renewed
cp "$TMP/first.crt" "$TMP/srv.crt"
cp "$TMP/first.key" "$TMP/srv.key"
start_backend B --service det:0.001 --workers 32
start_proxy --backend 127.0.0.1:$B_PORT --tls-cert "$TMP/srv.crt" --tls-key "$TMP/srv.key" \
    --workers 2 --limiter none --tls-handshake-timeout 1
P=$PROXY_PORT

# versions and ALPN
sclient "$P" -tls1_3 -alpn http/1.1 >"$TMP/s13"
grep -q 'Protocol *: TLSv1.3' "$TMP/s13" || fail "no TLS 1.3: $(cat "$TMP/s13")"
grep -q '^ALPN protocol: http/1.1' "$TMP/s13" || fail "no ALPN http/1.1: $(grep -i alpn "$TMP/s13")"
grep -q 'subject=CN *= *first' "$TMP/s13" || fail "certificate: $(grep subject= "$TMP/s13")"
sclient "$P" -tls1_2 >"$TMP/s12"
grep -q 'Protocol *: TLSv1.2' "$TMP/s12" || fail "no TLS 1.2: $(cat "$TMP/s12")"
for v in tls1_1 tls1; do
    sclient "$P" -$v -cipher 'DEFAULT@SECLEVEL=0' >"$TMP/s_$v"
    grep -q 'alert protocol version' "$TMP/s_$v" || fail "-$v not refused by the server: $(cat "$TMP/s_$v")"
    grep -q 'Cipher is (NONE)' "$TMP/s_$v" || fail "-$v: a cipher was agreed"
done
sclient "$P" -alpn h2 >"$TMP/sh2"
grep -q 'no application protocol' "$TMP/sh2" || fail "ALPN h2 alone not refused: $(cat "$TMP/sh2")"
echo "ok: TLS 1.3 + ALPN http/1.1, TLS 1.2; TLS 1.1, 1.0 and ALPN h2 alone refused"

# requests over TLS, on both workers
python3 "$D/tls_client.py" "$P" 4 100 "$TMP/first.crt" >"$TMP/c.out" 2>"$TMP/c.pyerr" ||
    fail "tls_client: $(cat "$TMP/c.pyerr")"
grep -q '^200=400 other=0 version=TLSv1.3 alpn=http/1.1$' "$TMP/c.out" || fail "tls_client: $(cat "$TMP/c.out")"
if command -v wrk >/dev/null 2>&1; then
    wrk -t2 -c16 -d2s "https://127.0.0.1:$P/" >"$TMP/wrk1" 2>&1 || fail "wrk: $(cat "$TMP/wrk1")"
    grep -q 'Socket errors\|Non-2xx' "$TMP/wrk1" && fail "wrk over TLS: $(cat "$TMP/wrk1")"
    grep -q ' requests in ' "$TMP/wrk1" || fail "wrk: $(cat "$TMP/wrk1")"
    echo "ok: wrk over TLS: $(sed -n 's/^ *\([0-9]* requests in [^,]*\).*/\1/p' "$TMP/wrk1"), no error"
else
    echo "note: wrk not installed, its run over TLS skipped"
fi

# reload: the files replaced, SIGHUP; wrk's connections across it
[ -n "$(command -v wrk)" ] && { wrk -t1 -c8 -d3s "https://127.0.0.1:$P/" >"$TMP/wrk2" 2>&1 & W=$!; } || W=""
sleep 1
cp "$TMP/second.crt" "$TMP/srv.crt"
cp "$TMP/second.key" "$TMP/srv.key"
kill -HUP "$PROXY_PID"
sleep 0.5
sclient "$P" >"$TMP/s2"
grep -q 'subject=CN *= *renewed' "$TMP/s2" || fail "after the reload: $(grep subject= "$TMP/s2")"
grep -q 'SIGHUP: configuration reloaded' "$TMP/proxy.err" || fail "no reload line: $(cat "$TMP/proxy.err")"
echo "garbage" >"$TMP/srv.crt"
kill -HUP "$PROXY_PID"
sleep 0.5
grep -q 'SIGHUP: the new configuration was refused.*--tls-cert' "$TMP/proxy.err" ||
    fail "a broken certificate's reload: $(cat "$TMP/proxy.err")"
sclient "$P" >"$TMP/s3"
grep -q 'subject=CN *= *renewed' "$TMP/s3" || fail "after a refused reload: $(grep subject= "$TMP/s3")"
if [ -n "$W" ]; then
    wait "$W"
    grep -q 'Socket errors\|Non-2xx' "$TMP/wrk2" && fail "wrk across the reloads: $(cat "$TMP/wrk2")"
fi
echo "ok: a reload serves the new certificate; a broken one is refused, the running one stays"

# hostile clients
rss() { sed -n 's/^VmRSS: *\([0-9]*\) kB/\1/p' "/proc/$PROXY_PID/status"; }
base=$(rss)
python3 "$D/tls_hostile.py" "$P" 300 "${SEED:-1}" >"$TMP/h.out" 2>"$TMP/h.pyerr" ||
    fail "hostile: $(cat "$TMP/h.out" "$TMP/h.pyerr")"
grep -q '^ended=300 hung=0$' "$TMP/h.out" || fail "hostile: $(cat "$TMP/h.out")"
peak=$(rss)
python3 "$D/tls_client.py" "$P" 1 10 "$TMP/second.crt" >"$TMP/c2.out" 2>"$TMP/c2.pyerr" ||
    fail "tls_client after the hostile clients: $(cat "$TMP/c2.pyerr")"
grep -q '^200=10 other=0' "$TMP/c2.out" || fail "after the hostile clients: $(cat "$TMP/c2.out")"
curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" >"$TMP/m"
failed=$(sed -n 's/^qctl_tls_handshakes_total{result="failed"} //p' "$TMP/m")
tmo=$(sed -n 's/^qctl_tls_handshakes_total{result="timeout"} //p' "$TMP/m")
done_=$(sed -n 's/^qctl_tls_handshakes_total{result="done"} //p' "$TMP/m")
# 50 of each kind: random bytes, mutated hellos, cut hellos (+ garbage),
# hellos + garbage, plain HTTP fail; the half hellos (50) time out
[ "${failed:-0}" -ge 150 ] || fail "handshakes failed: ${failed:-none} (150 at least)"
[ "${tmo:-0}" -ge 50 ] || fail "handshakes timed out: ${tmo:-none} (50 at least)"
[ $((peak - base)) -lt 16384 ] || fail "RSS grew by $((peak - base)) kB"
echo "ok: 300 hostile clients closed (failed $failed, timed out $tmo, done $done_), RSS +$((peak - base)) kB, still serving"
kill "$PROXY_PID"; wait "$PROXY_PID" || fail "the proxy exited $?"

# the limiter and the queue over TLS as over TCP
start_backend S --service det:2 --workers 16
burst() { # SCHEME: 6 requests at once; prints "200=A 503=R"
    CP=""
    for i in 1 2 3 4 5 6; do
        curl -sk -o /dev/null -w '%{http_code}\n' "$1://127.0.0.1:$PROXY_PORT/b$i" >"$TMP/b$i" &
        CP="$CP $!"
    done
    for p in $CP; do wait "$p"; done
    echo "200=$(cat "$TMP"/b? | grep -c 200) 503=$(cat "$TMP"/b? | grep -c 503)"
}
for mode in https http; do
    if [ $mode = https ]; then tls="--tls-cert $TMP/second.crt --tls-key $TMP/second.key"; else tls=""; fi
    # shellcheck disable=SC2086
    start_proxy --backend 127.0.0.1:$S_PORT --limiter fixed --limit 2 --queue 0 $tls
    r=$(burst $mode)
    [ "$r" = "200=2 503=4" ] || fail "$mode, no queue: $r (2 admitted, 4 refused expected)"
    kill "$PROXY_PID"; wait "$PROXY_PID"
    # shellcheck disable=SC2086
    start_proxy --backend 127.0.0.1:$S_PORT --limiter fixed --limit 2 --queue 10 \
        --queue-timeout 20 --queue-discipline fifo $tls
    r=$(burst $mode)
    [ "$r" = "200=6 503=0" ] || fail "$mode, queue of 10: $r (all 6 answered expected)"
    kill "$PROXY_PID"; wait "$PROXY_PID"
    echo "ok: $mode: limit 2 without a queue 2 x 200 + 4 x 503; with a queue 6 x 200"
done
echo "ok"
