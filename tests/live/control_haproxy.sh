#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# control_haproxy.sh: qctl control against a real haproxy (127.0.0.1 and a
# UNIX socket in $TMP, < 40 s):
#   actuators: maxconn (UNIX socket) and weight (TCP socket) switched by
#     steps, each setting read back through haproxy's own `show stat`
#     (slim, weight) by qctl's sensor at the next interval and by the
#     test's own client;
#   sensors: every column of `show stat` on a server row read by qctl
#     against the test's own parse of the same live instance (equal where
#     the cell is a number and does not move by itself, missing where it
#     is empty or text); `show info` too;
#   refusals: a server haproxy does not have is refused with haproxy's
#     message, every interval, counted; a fake socket that answers garbage
#     is refused with a message (no sample, the controller held);
#   a haproxy killed mid-run: qctl lives on, counts the missing samples and
#     refused applies, logs the outage once, and re-applies its setting to
#     the restarted haproxy (read back);
#   park: two of three servers parked (MAINT) at the start, all back to
#     ready on drain.
set -u
. "$(dirname "$0")/haproxy_lib.sh"
start_backend b1 --service det:0.01
start_backend b2 --service det:0.01
start_backend b3 --service det:0.01
hx_config 3 "$b1_PORT" "$b2_PORT" "$b3_PORT"
start_haproxy
S=$TMP/h.sock

# -- maxconn over the UNIX socket: the setting read back at the next sample
"$QCTL" control --sensor "haproxy:$S:b/s1:slim" --actuator "haproxy-maxconn:$S:b/s1" \
    --controller open --excite steps --excite-levels 3,8 --hold 1 --interval 0.4 \
    --duration 2.5 --series "$TMP/m.csv" 2>"$TMP/m.err" || fail "control exit $?"
# each sample reads the setting applied at the row before (a row whose
# apply or sample came late on a loaded host compares nothing)
readback='/^#/ || /^time/ { next }
    { if (pa == 1 && $5 != "" && $5 != prev) bad = 1; if (pa == 1 && $5 != "") k++
      prev = $3; pa = $4 }
    END { if (bad || k < 3) exit 1 }'
awk -F, "$readback" "$TMP/m.csv" || fail "maxconn not read back: $(cat "$TMP/m.csv")"
last=$(column "$TMP/m.csv" setting | tail -n 1)
[ "$(hx_cell s1 slim)" = "$last" ] || fail "show stat slim $(hx_cell s1 slim) != $last"

# -- weight over TCP
"$QCTL" control --sensor "haproxy:127.0.0.1:$HX_STATS:b/s2:weight" \
    --actuator "haproxy-weight:127.0.0.1:$HX_STATS:b/s2" --controller open --excite steps \
    --excite-levels 10,200 --hold 1 --interval 0.4 --duration 2.5 --series "$TMP/w.csv" \
    2>"$TMP/w.err" || fail "control exit $?"
awk -F, "$readback" "$TMP/w.csv" || fail "weight not read back: $(cat "$TMP/w.csv")"

# -- every field of a server row and of show info
python3 "$LIVE/remote_q.py" cells "$S" b s1 >"$TMP/cells"
moving=" lastchg downtime lastsess last_chk qtime ctime rtime ttime "
# field_value FIELD DURATION: qctl's first sample of FIELD
field_value() {
    "$QCTL" control --sensor "haproxy:$S:b/s1:$1" --actuator "cmd:true" --setting 1 \
        --interval 1 --duration "$2" --series "$TMP/f.csv" --quiet 2>"$TMP/f.err" ||
        fail "control on field $1: exit $?"
    column "$TMP/f.csv" sensor | head -n 1
}
while read -r field value; do
    got=$(field_value "$field" 0.05)
    # a sample later than 50 ms (a loaded machine) is missing: once more, longer
    case $value in -) ;; *) [ -n "$got" ] || got=$(field_value "$field" 1) ;; esac
    case $value in
    -) [ -z "$got" ] || fail "field $field ('$value') gave a value $got" ;;
    *)
        case $moving in *" $field "*) [ -n "$got" ] || fail "field $field gave no value" ;;
        *) [ "$got" = "$value" ] || fail "field $field: qctl $got, haproxy $value" ;;
        esac ;;
    esac
done <"$TMP/cells"
[ "$(wc -l <"$TMP/cells")" -gt 60 ] || fail "show stat has few columns: $(cat "$TMP/cells")"
"$QCTL" control --sensor "haproxy:$S:info:Maxconn+Nbthread" --actuator "cmd:true" --setting 1 \
    --interval 1 --duration 0.15 --series "$TMP/i.csv" --quiet || fail "show info"
mc=$(hx "show info" | awk -F': ' '$1 == "Maxconn" { m = $2 } $1 == "Nbthread" { t = $2 } END { print m + t }')
[ "$(column "$TMP/i.csv" sensor | head -n 1)" = "$mc" ] || fail "show info: $(cat "$TMP/i.csv")"

# -- refused: no such server; the controller held, each interval counted
"$QCTL" control --actuator "haproxy-maxconn:$S:b/nosuch" --controller static --setting 5 \
    --interval 0.1 --duration 0.55 --series "$TMP/r.csv" 2>"$TMP/r.err" || fail "exit $?"
grep -q "No such server" "$TMP/r.err" || fail "no message: $(cat "$TMP/r.err")"
[ "$(grep -c 'No such server' "$TMP/r.err")" = 1 ] || fail "the refusal logged more than once"
[ "$(column "$TMP/r.csv" applied | sort -u)" = 0 ] || fail "a refused apply counted applied"
n=$(grep -vc '^#\|^time' "$TMP/r.csv")
[ "$(column "$TMP/r.csv" refused | tail -n 1)" = "$n" ] || fail "refusals not counted: $(cat "$TMP/r.csv")"

# -- a malformed answer: refused with a message, the controller held
printf 'hello, this is not haproxy\n' >"$TMP/garbage"
python3 "$LIVE/remote_q.py" fake "$TMP/fake.sock" "$TMP/garbage" 2>/dev/null &
PIDS="$PIDS $!"
i=0
while [ ! -S "$TMP/fake.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
"$QCTL" control --sensor "haproxy:$TMP/fake.sock:b/s1:scur" --actuator "cmd:true" \
    --controller integral --reference 5 --ki 1 --setting 7 --interval 1 --duration 2.5 \
    --series "$TMP/g.csv" 2>"$TMP/g.err" || fail "exit $?"
grep -q "does not start with its header" "$TMP/g.err" || fail "no message: $(cat "$TMP/g.err")"
[ "$(column "$TMP/g.csv" setting | sort -u)" = 7 ] || fail "the controller moved: $(cat "$TMP/g.csv")"
[ "$(column "$TMP/g.csv" held | sort -u)" = 1 ] || fail "not held"

# -- haproxy killed mid-run, then back
start_control k --sensor "haproxy:$S:b/s3:scur" --actuator "haproxy-maxconn:$S:b/s3" \
    --controller static --setting 4 --interval 0.2 --series "$TMP/k.csv"
sleep 1
[ "$(hx_cell s3 slim)" = 4 ] || fail "maxconn 4 not applied"
kill -9 "$HX_PID"; wait "$HX_PID" 2>/dev/null
sleep 2
kill -0 "$k_PID" || fail "qctl control died with haproxy"
miss=$(metric "$k_ADMIN" qctl_control_sensor_missing_total)
ref=$(metric "$k_ADMIN" qctl_control_actuator_refused_total)
[ "$miss" -ge 5 ] || fail "missing samples not counted ($miss)"
[ "$ref" -ge 1 ] || fail "refused applies not counted ($ref)"
start_haproxy
sleep 1
[ "$(hx_cell s3 slim)" = 4 ] || fail "the setting not re-applied after the restart ($(hx_cell s3 slim))"
kill "$k_PID"; wait "$k_PID" || fail "control exit $?"
# the outage logged when it starts and ends, not every interval (a
# loaded machine may make a sample late after the restart: a second one)
lines=$(grep -c 'sensor: ' "$TMP/k.err")
[ "$lines" -ge 2 ] && [ "$lines" -le 4 ] && [ "$miss" -ge 5 ] || fail "outage log: $(cat "$TMP/k.err")"
grep -q "sensor: answering again after" "$TMP/k.err" || fail "no recovery line: $(cat "$TMP/k.err")"
# one row an interval, never more: a dead server does not make the loop spin
awk -F, '/^#/ || /^time/ { next } n++ && $1 - prev < 0.1 { bad = 1 } { prev = $1 } END { exit bad }' \
    "$TMP/k.csv" || fail "rows closer than half an interval: $(cat "$TMP/k.csv")"

# -- park: 1 of 3 on at the start, every server ready after the drain
start_control p --actuator "haproxy-park:$S:b" --controller park --min-on 1 --threshold 4 \
    --setup 1 --idle-wait 2 --interval 0.2 --series "$TMP/p.csv"
sleep 1.5
# a server without health checks shows "no check" when ready
case $(hx_cell s1 status) in UP|"no check") ;; *) fail "s1 not up: $(hx_cell s1 status)" ;; esac
[ "$(hx_cell s2 status)" = MAINT ] || fail "s2 not parked: $(hx_cell s2 status)"
[ "$(hx_cell s3 status)" = MAINT ] || fail "s3 not parked: $(hx_cell s3 status)"
[ "$(metric "$p_ADMIN" qctl_control_servers_on)" = 1 ] || fail "servers on"
kill "$p_PID"; wait "$p_PID" || fail "control exit $?"
for s in s1 s2 s3; do
    case $(hx_cell $s status) in UP|"no check") ;; *) fail "$s not back to ready after the drain: $(hx_cell $s status)" ;; esac
done
echo "ok"
