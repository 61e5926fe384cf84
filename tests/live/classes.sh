#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# classes.sh: qctl proxy with the admission limiter, started from a
# --config file: classes by path prefix (longest wins) and by header, the
# rest best effort; every request answered once; the proxy's per-class
# counts and latency histograms agree with each load generator's; a class
# bound changed at run time on the admin listener (200 with the new value,
# 404/400 with a message for a bad one) shows from the next interval on.
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "skip: curl not found (scripts/deps.sh --test)"; exit 77; }
start_backend b --service det:0.002 --workers 4
cat >"$TMP/proxy.json" <<JSON
{
  "backend": ["127.0.0.1:$b_PORT"],
  "limiter": "admission",
  "limit": 4,
  "class": ["gold=0.05", "silver=0.2"],
  "class-prefix": ["silver=/api", "gold=/api/gold"],
  "class-header": "X-Class",
  "candidate": "silver",
  "interval": 0.05,
  "queue-timeout": 2
}
JSON
start_proxy --config "$TMP/proxy.json"
T=127.0.0.1:$PROXY_PORT
"$QCTL" load --target $T --path /api/gold/x --rate 100 --requests 150 --json >"$TMP/g.json" &
G=$!
"$QCTL" load --target $T --path /other --header "X-Class: silver" --rate 100 --requests 150 \
    --json >"$TMP/s.json" &
S=$!
"$QCTL" load --target $T --path /api/x --rate 100 --requests 150 --json >"$TMP/s2.json" &
S2=$!
"$QCTL" load --target $T --path /web --header "X-Class: bronze" --rate 100 --requests 150 \
    --json >"$TMP/w.json" &
W=$!
wait $G || fail "load g"; wait $S || fail "load s"; wait $S2 || fail "load s2"; wait $W || fail "load w"
for f in g s s2 w; do conserved "$TMP/$f.json"; done
A=http://127.0.0.1:$ADMIN_PORT
curl -s "$A/metrics" >"$TMP/metrics" || fail "metrics"
m() { sed -n "s/^$1 //p" "$TMP/metrics"; }
gok=$(num "$TMP/g.json" ok) sok=$(($(num "$TMP/s.json" ok) + $(num "$TMP/s2.json" ok)))
wok=$(num "$TMP/w.json" ok)
[ "$(m 'qctl_answered_total{class="gold"}')" -eq "$gok" ] || fail "gold answered != $gok"
[ "$(m 'qctl_answered_total{class="silver"}')" -eq "$sok" ] || fail "silver answered != $sok"
[ "$(m 'qctl_answered_total{class="best-effort"}')" -eq "$wok" ] || fail "best effort != $wok"
[ "$(m 'qctl_latency_seconds_count{class="gold"}')" -eq "$gok" ] || fail "gold histogram count"
[ "$(m 'qctl_latency_seconds_bucket{class="silver",le="+Inf"}')" -eq "$sok" ] || fail "silver +Inf"
grep -q '^qctl_class_state{class="silver",state="candidate"} 1' "$TMP/metrics" ||
    grep -q '^qctl_class_state{class="silver",state="admitted"} 1' "$TMP/metrics" ||
    fail "silver neither candidate nor admitted"
# a bound at run time
auth=$(admin_auth)
out=$(curl -s -w ' %{http_code}' -H "$auth" -X POST "$A/bound?class=gold&value=0.125")
[ "$out" = "gold 0.125
 200" ] || fail "POST /bound answered '$out'"
out=$(curl -s -w '%{http_code}' -H "$auth" -X POST "$A/bound?class=bronze&value=1")
case $out in *"no bounded class 'bronze'"*404) ;; *) fail "unknown class: '$out'" ;; esac
out=$(curl -s -w '%{http_code}' -H "$auth" -X POST "$A/bound?class=best-effort&value=1")
case $out in *404) ;; *) fail "best effort has no bound: '$out'" ;; esac
out=$(curl -s -w '%{http_code}' -H "$auth" -X POST "$A/bound?class=gold&value=-3")
case $out in *"value=SECONDS"*400) ;; *) fail "bad value: '$out'" ;; esac
out=$(curl -s -w '%{http_code}' -H "$auth" -X POST "$A/reference?value=x")
case $out in *400) ;; *) fail "bad reference: '$out'" ;; esac
i=0
until curl -s "$A/metrics" | grep -q '^qctl_class_bound_seconds{class="gold"} 0.125$'; do
    i=$((i + 1)); [ $i -lt 50 ] || fail "the new bound never took effect"; sleep 0.05
done
curl -s "$A/metrics" | grep -q '^qctl_class_bound_seconds{class="silver"} 0.2$' || fail "silver moved"
kill -TERM "$PROXY_PID"; wait "$PROXY_PID" || fail "proxy exit status"
echo ok
