#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gate_sensors.sh: qctl gate's sensors and the held controller.
#   cmd: 'cat FILE' read each interval; while FILE is missing (cat fails)
#        every sample is missing and the integral controller holds its
#        first limit (8); with 12 against a reference of 10 (K_I = 1) it
#        steps down by 2 a row to --min-limit; a command slower than the
#        interval is killed and counted missing.
#   url: a Prometheus text metric with labels, served by python3.
#   log: matching lines counted per interval across a rotation and a
#        truncation; a group's numbers summed (127.0.0.1, < 15 s).
set -u
. "$(dirname "$0")/gate_lib.sh"
start_echo e
B=127.0.0.1:$e_PORT
# -- cmd, and the controller held on missing samples
start_gate c --backend $B --controller integral --reference 10 --ki 1 --limit 8 \
    --min-limit 1 --max-limit 20 --interval 0.1 --sensor-cmd "cat $TMP/y" --series "$TMP/c.csv"
sleep 0.8
[ "$(metric $c_ADMIN qctl_gate_limit)" = 8 ] || fail "the limit moved without a sample"
curl -s --max-time 3 "http://127.0.0.1:$c_ADMIN/metrics" >"$TMP/m"
miss=$(awk '$1 == "qctl_gate_sensor_missing_total" { print $2 }' "$TMP/m")
held=$(awk '$1 == "qctl_gate_holds_total{reason=\"missing_sample\"}" { print $2 }' "$TMP/m")
[ "$miss" -ge 3 ] || fail "missing samples not counted ($miss)"
[ "$held" = "$miss" ] || fail "holds for missing samples ($held) != missing samples ($miss)"
echo 'y = 12 sessions' >"$TMP/y"
i=0
while [ "$(metric $c_ADMIN qctl_gate_limit)" != 1 ] && [ $i -lt 60 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(metric $c_ADMIN qctl_gate_limit)" = 1 ] || fail "the controller did not step down to 1"
kill "$c_PID"; wait "$c_PID" || fail "gate exit status $?"
# the series: missing rows have no sensor value and keep the limit of the
# row before (8 before the first sample: a loaded machine can make a later
# sample late too); the rows with a sample step it 6, 4, 2, 1
awk -F, '/^#/ || /^time/ { next }
    $11 == "" { if ($3 != (n ? last : 8)) bad = 1; if (!n) m++ }
    $11 != "" { if ($11 != 12) bad = 1; v[n++] = $3 }
    { last = $3 }
    END { if (bad || m < 3 || v[0] != 6 || v[1] != 4 || v[2] != 2 || v[3] != 1) exit 1 }' \
    "$TMP/c.csv" || fail "series: $(grep -v "^#" "$TMP/c.csv" | head -n 30)"
# a command slower than the interval: killed, missing
start_gate s --backend $B --limit 4 --interval 0.1 --sensor-cmd "sleep 5"
sleep 0.8
[ "$(metric $s_ADMIN qctl_gate_sensor_missing_total)" -ge 3 ] || fail "a late command not counted"
curl -s --max-time 3 "http://127.0.0.1:$s_ADMIN/metrics" >"$TMP/m"
[ "$(awk '$1 == "qctl_gate_sensor_samples_total" { print $2 }' "$TMP/m")" = \
    "$(awk '$1 == "qctl_gate_sensor_missing_total" { print $2 }' "$TMP/m")" ] ||
    fail "a late command gave a sample"
kids=$(pgrep -P "$s_PID" 2>/dev/null)
kill "$s_PID"; wait "$s_PID" || fail "gate exit status $?"
for k in $kids; do kill -0 "$k" 2>/dev/null && fail "the sensor command $k outlived the gate"; done

# -- url
mkdir "$TMP/www"
printf '# HELP x a metric\n# TYPE x gauge\nother_metric 3\nactive_sessions{db="a b}",state="active"} 4.5\nactive_sessions_total 9\n' \
    >"$TMP/www/metrics"
(cd "$TMP/www" && exec python3 -u -m http.server --bind 127.0.0.1 0 >"$TMP/http.out" 2>"$TMP/http.pyerr") &
PIDS="$PIDS $!"
i=0
while ! grep -q 'port' "$TMP/http.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
hp=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$TMP/http.out" | head -n 1)
[ -n "$hp" ] || fail "no HTTP server"
start_gate u --backend $B --limit 4 --interval 0.2 --sensor-url "http://127.0.0.1:$hp/metrics" \
    --sensor-metric active_sessions
i=0
while [ -z "$(metric $u_ADMIN qctl_gate_sensor_value)" ] && [ $i -lt 60 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(metric $u_ADMIN qctl_gate_sensor_value)" = 4.5 ] || fail "url metric: $(metric $u_ADMIN qctl_gate_sensor_value)"
kill "$u_PID"; wait "$u_PID"

# -- log: counting across rotation and truncation
L=$TMP/app.log
echo "old line done" >"$L"
start_gate l --backend $B --limit 4 --interval 0.1 --sensor-log "$L" --sensor-pattern 'done$' \
    --series "$TMP/l.csv"
sleep 0.3
printf 'a done\nb done\nc not\nd done\ne done\nf done\n' >>"$L" # 5
sleep 0.4
mv "$L" "$L.1"
printf 'g done\nh done\n' >>"$L.1" # 2, written to the old file after the rename
printf 'i done\nj done\nk done\nl done\n' >"$L" # 4
sleep 0.4
: >"$L"
sleep 0.3
printf 'm done\nn done\no done\n' >>"$L" # 3, after the truncation
sleep 0.4
kill "$l_PID"; wait "$l_PID"
total=$(column "$TMP/l.csv" sensor | awk '{ s += $1 } END { print s }')
[ "$total" = 14 ] || fail "log: $total matching lines counted, not 14"
# a group: its numbers summed
echo start >"$TMP/d.log"
start_gate d --backend $B --limit 4 --interval 0.1 --sensor-log "$TMP/d.log" \
    --sensor-pattern 'duration: ([0-9.]+) ms' --sensor-scale 0.001 --series "$TMP/d.csv"
sleep 0.3
printf 'LOG: duration: 250.5 ms\nLOG: duration: 749.5 ms\nLOG: other\n' >>"$TMP/d.log"
sleep 0.4
kill "$d_PID"; wait "$d_PID"
total=$(column "$TMP/d.csv" sensor | awk '{ s += $1 } END { print s }')
[ "$total" = 1 ] || fail "log group sum: $total, not 1 (1000 ms x 0.001)"
echo ok
