#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# control_reload.sh: qctl control's --config re-read on SIGHUP and its
# drain, with a program as the actuator (no server needed; < 15 s):
#   the static setting 3 from the file is applied; the file changed to 7
#   and SIGHUP: 7 is applied; a file that does not check (a gain that is
#   not a number): logged, 7 kept, the process alive; the integral
#   controller's reload is bumpless (it goes on from the setting in force);
#   SIGTERM applies --final and exits 0; a log sensor given in the file
#   still reads its log after two reloads and a rotation (the log's path
#   points into the file's words, which a reload must not free while they
#   are in use; with ASAN_OPTIONS=max_free_fill_size=4096 a freed path
#   reads as garbage and the new file is never found).
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "skip: no curl"; exit 77; }
cat >"$TMP/act.sh" <<'SH'
echo "$1" >>"$(dirname "$0")/applied"
SH
conf() { # SETTING [KI]
    printf '{"actuator": "cmd:/bin/sh %s/act.sh {}", "controller": "static", "setting": %s, "interval": 0.2%s}\n' \
        "$TMP" "$1" "${2:+, \"ki\": $2}" >"$TMP/c.json"
}
last() { tail -n 1 "$TMP/applied" 2>/dev/null; }
wait_last() { # VALUE
    i=0
    while [ "$(last)" != "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    [ "$(last)" = "$1" ] || fail "the setting $1 was not applied (last: $(last))"
}
conf 3
"$QCTL" control --config "$TMP/c.json" --final 1 2>"$TMP/r.err" &
P=$!
PIDS="$PIDS $P"
wait_last 3
conf 7
kill -HUP "$P"
wait_last 7
grep -q "SIGHUP: the configuration was read again and taken" "$TMP/r.err" || fail "no reload line"
conf 9 '"x"'
kill -HUP "$P"
sleep 1
kill -0 "$P" || fail "a bad file stopped qctl control"
grep -q "SIGHUP: the configuration was not taken" "$TMP/r.err" || fail "no refusal line: $(cat "$TMP/r.err")"
[ "$(last)" = 7 ] || fail "a bad file changed the setting to $(last)"
kill "$P"
wait "$P" || fail "exit status $?"
[ "$(last)" = 1 ] || fail "--final 1 not applied on drain (last: $(last))"
grep -q "drain: the final setting 1" "$TMP/r.err" || fail "no drain line"

# the integral controller: bumpless across a reload of its reference
echo 10 >"$TMP/y"
rm -f "$TMP/applied"
printf '{"actuator": "cmd:/bin/sh %s/act.sh {}", "controller": "integral", "reference": 10, "ki": 1, "setting": 5, "sensor-cmd": "cat %s/y", "interval": 1}\n' \
    "$TMP" "$TMP" >"$TMP/i.json"
"$QCTL" control --config "$TMP/i.json" --series "$TMP/i.csv" 2>"$TMP/i.err" &
P=$!
PIDS="$PIDS $P"
wait_last 5
# y and the reference change together, just after a tick (the next is a
# second away): a tick between the two writes would see y = 12 against
# r = 10, a step of the controller rather than of the reload (a loaded
# host once fitted one in between at an interval of 0.2 s)
n0=$(wc -l <"$TMP/i.csv")
i=0
while [ "$(wc -l <"$TMP/i.csv")" -eq "$n0" ] && [ $i -lt 50 ]; do sleep 0.05; i=$((i + 1)); done
sed -i 's/"reference": 10/"reference": 12/' "$TMP/i.json"
echo 12 >"$TMP/y"
kill -HUP "$P"
sleep 1.5
kill "$P"; wait "$P" || fail "exit status $?"
# every applied value is 5: no bump at the reload (y = r before and after)
[ "$(sort -u "$TMP/applied")" = 5 ] || fail "the reload bumped the setting: $(sort -u "$TMP/applied" | tr '\n' ' ')"
awk -F, '/^#/ || /^time/ { next } { r[$2]++ } END { exit !(r[10] > 0 && r[12] > 0) }' "$TMP/i.csv" ||
    fail "the reference did not change: $(cat "$TMP/i.csv")"

# a log sensor from the file, through two reloads: its path still read
L=$TMP/s.log
: >"$L"
printf '{"actuator": "cmd:/bin/sh %s/act.sh {}", "controller": "static", "setting": 2, "sensor-log": "%s", "sensor-pattern": "done$", "interval": 0.2}\n' \
    "$TMP" "$L" >"$TMP/l.json"
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_free_fill_size=4096" \
    "$QCTL" control --config "$TMP/l.json" --series "$TMP/l.csv" 2>"$TMP/l.err" &
P=$!
PIDS="$PIDS $P"
sleep 0.6
kill -HUP "$P"; sleep 0.4
kill -HUP "$P"; sleep 0.4
[ "$(grep -c 'SIGHUP: the configuration was read again and taken' "$TMP/l.err")" = 2 ] ||
    fail "two reloads not taken: $(cat "$TMP/l.err")"
# rotated: the sensor must open its path again to read the new file
for i in 1 2; do echo "req $i done" >>"$L"; sleep 0.1; done
mv "$L" "$L.1"
for i in 3 4 5; do echo "req $i done" >>"$L"; sleep 0.1; done
sleep 0.6
kill "$P"; wait "$P" || fail "exit status $? after two reloads: $(cat "$TMP/l.err")"
n=$(awk -F, '/^#/ || /^time/ { next } $5 != "" { s += $5 } END { print s + 0 }' "$TMP/l.csv")
[ "$n" = 5 ] || fail "the log sensor counted $n lines after two reloads, not 5: $(cat "$TMP/l.csv")"
echo ok
