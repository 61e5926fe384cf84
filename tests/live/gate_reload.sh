#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gate_reload.sh: `qctl gate --config` reloaded by SIGHUP (127.0.0.1,
# about 5 s):
#  - 6 sessions that hold 3 s at a static limit of 3: 3 connected, 3
#    waiting; the file's limit raised to 6 and SIGHUP: the 3 waiting get
#    in at once (6 connected well before the first 3 end), /status says
#    limit 6 and 1 reload, and all 6 sessions are served (none closed by
#    the reload).
#  - a file that does not check (a limit that is not a number) and one
#    that changes --interval: refused with their message on stderr, the
#    limit stays 6 and the gate keeps serving.
set -u
. "$(dirname "$0")/gate_lib.sh"
start_echo e
conf() { # LIMIT [INTERVAL]
    printf '{"backend": "127.0.0.1:%s", "limit": %s, "queue": 20, "queue-timeout": 15, "interval": %s}\n' \
        "$e_PORT" "$1" "${2:-0.1}" >"$TMP/g.json"
}
status_field() { curl -s "http://127.0.0.1:$g_ADMIN/status" | tr -d ' \n' | sed -n "s/.*\"$1\":\\([0-9]*\\).*/\\1/p"; }
conf 3
start_gate g --config "$TMP/g.json" --log-format json
[ "$(status_field limit)" = 3 ] || fail "limit $(status_field limit) at start"
client sessions $g_PORT 6 3 >"$TMP/s.out" &
cp=$!
wait_connected $g_ADMIN 3
t0=$(date +%s.%N)
conf 6
kill -HUP "$g_PID"
wait_connected $g_ADMIN 6
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 2) }' ||
    fail "the waiting sessions got in only after $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s"
[ "$(status_field limit)" = 6 ] || fail "limit $(status_field limit) after the reload, not 6"
[ "$(status_field reloads)" = 1 ] || fail "reloads $(status_field reloads), not 1"
grep -q "SIGHUP: configuration reloaded (limit 6)" "$TMP/g.err" || fail "no reload line"
wait $cp
[ "$(cat "$TMP/s.out")" = "ok 6 closed 0" ] || fail "sessions across the reload: $(cat "$TMP/s.out")"
printf '{"backend": "127.0.0.1:%s", "limit": "many"}\n' "$e_PORT" >"$TMP/g.json"
kill -HUP "$g_PID"
sleep 0.5 # the gate reads the file when the signal's turn comes in its loop
conf 8 0.5
kill -HUP "$g_PID"
sleep 0.3
kill -0 "$g_PID" || fail "a bad file stopped the gate"
grep -q "SIGHUP: the new configuration was refused, the running one stays: --limit: 'many'" "$TMP/g.err" ||
    fail "no refusal of the bad file: $(cat "$TMP/g.err")"
grep -q "refused, the running one stays: --interval cannot change while the gate runs" "$TMP/g.err" ||
    fail "no refusal of the new interval: $(cat "$TMP/g.err")"
[ "$(status_field limit)" = 6 ] || fail "a refused reload changed the limit to $(status_field limit)"
[ "$(status_field reloads_refused)" = 2 ] || fail "reloads_refused $(status_field reloads_refused)"
[ "$(client sessions $g_PORT 2 0)" = "ok 2 closed 0" ] || fail "the gate does not serve after the refusals"
kill "$g_PID"
wait "$g_PID" || fail "the gate exited $?"
# --log-format json: every line an object with time, level, program, msg
python3 -c '
import json, sys
ls = [json.loads(l) for l in open(sys.argv[1])]
assert len(ls) >= 3 and all(set(l) == {"time", "level", "program", "msg"} for l in ls), ls
assert [l["level"] for l in ls if "refused" in l["msg"]] == ["error", "error"], ls
' "$TMP/g.err" || fail "the gate's JSON log: $(cat "$TMP/g.err")"
echo "ok"
