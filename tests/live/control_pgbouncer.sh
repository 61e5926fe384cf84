#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# control_pgbouncer.sh: qctl control against a real pgbouncer's admin
# console (127.0.0.1 and a UNIX socket in $TMP, < 40 s; no PostgreSQL
# needed: the console answers by itself):
#   actuator: SET default_pool_size switched by steps, read back through
#     SHOW DATABASES (pool_size) by qctl's sensor and by psql; a lowering
#     (SHOW POOLS, then SET) taken, not refused;
#   sensors: every column of SHOW POOLS, SHOW STATS and SHOW DATABASES
#     read by qctl against psql's answer from the same live instance;
#   md5 authentication (a password in the auth file) as well as trust;
#   refusals: SET of a value pgbouncer refuses, an unknown field, a fake
#     server that answers garbage: each refused with a message;
#   a pgbouncer killed mid-run: survived, counted, the setting re-applied
#     to the restarted one.
set -u
. "$(dirname "$0")/lib.sh"
LIVE=$(dirname "$0")
for t in pgbouncer psql python3 curl; do
    command -v $t >/dev/null || { echo "skip: no $t"; exit 77; }
done
# pgbouncer will not run as root: as postgres (or nobody) then
RUN=""
if [ "$(id -u)" = 0 ]; then
    if id postgres >/dev/null 2>&1; then RUN="runuser -u postgres --"; else RUN="runuser -u nobody --"; fi
    chmod 777 "$TMP"
fi
free_port PGB_PORT
free_port PG_DEAD
cat >"$TMP/p.ini" <<INI
[databases]
app = host=127.0.0.1 port=$PG_DEAD dbname=app
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGB_PORT
unix_socket_dir = $TMP
auth_type = md5
auth_file = $TMP/users.txt
admin_users = qctl, qmd5
default_pool_size = 20
pidfile = $TMP/p.pid
logfile = $TMP/pgbouncer.log
INI
# qctl logs in without a password? no: md5 for both; qctl's password in clear
printf '"qctl" "s3cret"\n"qmd5" "md5%s"\n' \
    "$(printf 'otherqmd5' | md5sum | cut -d' ' -f1)" >"$TMP/users.txt"
chmod 644 "$TMP/p.ini" "$TMP/users.txt"
start_pgbouncer() {
    rm -f "$TMP/p.pid"
    $RUN pgbouncer "$TMP/p.ini" 2>"$TMP/pgbouncer.err" &
    PGB_PID=$!
    PIDS="$PIDS $!"
    i=0
    while ! PGPASSWORD=s3cret psql -h 127.0.0.1 -p "$PGB_PORT" -U qctl -d pgbouncer -Atc "SHOW VERSION" \
        >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    [ $i -lt 100 ] || fail "pgbouncer did not start: $(cat "$TMP/pgbouncer.log" "$TMP/pgbouncer.err")"
}
pq() { PGPASSWORD=s3cret psql -h 127.0.0.1 -p "$PGB_PORT" -U qctl -d pgbouncer -AtF, -c "$1"; }
column() { awk -F, -v k="$2" '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i == k) c = i; h = 1; next } { print $c }' "$1"; }
metric() { curl -s --max-time 3 "http://127.0.0.1:$1/metrics" | awk -v k="$2" 'index($0, k " ") == 1 { print $2 }'; }
start_pgbouncer
CI="host=127.0.0.1 port=$PGB_PORT user=qctl password=s3cret"
CIU="host=$TMP port=$PGB_PORT user=qctl password=s3cret"

# -- the pool size, read back
"$QCTL" control --sensor "pgbouncer:$CIU:app:pool_size" --actuator "pgbouncer-pool:$CI" \
    --controller open --excite steps --excite-levels 3,7 --hold 1 --interval 0.4 --duration 2.5 \
    --series "$TMP/s.csv" 2>"$TMP/s.err" || fail "control exit $?"
awk -F, '/^#/ || /^time/ { next }
    { if (pa == 1 && $5 != "" && $5 != prev) bad = 1; if (pa == 1 && $5 != "") k++
      prev = $3; pa = $4 }
    END { if (bad || k < 3) exit 1 }' "$TMP/s.csv" || fail "pool_size not read back: $(cat "$TMP/s.csv" "$TMP/s.err")"
# a lowering (7 -> 3) is SHOW POOLS then 'SET default_pool_size = 3':
# pgbouncer takes both: no apply refused by an answer (late ones, on a
# loaded host, are not pgbouncer's refusal)
! grep "actuator:" "$TMP/s.err" | grep -v "did not finish\|applied again" | grep -q . ||
    fail "an apply refused (SHOW POOLS then SET on a lowering): $(cat "$TMP/s.err")"
last=$(column "$TMP/s.csv" setting | tail -n 1)
got=$(pq "SHOW DATABASES" | awk -F, '$1 == "app" { print $6 }')
[ "$got" = "$last" ] || fail "psql's pool_size $got != $last"

# -- every field of SHOW POOLS, SHOW STATS, SHOW DATABASES
field_value() { # SPEC DURATION
    "$QCTL" control --sensor "pgbouncer:$CI:$1" --actuator "cmd:true" --setting 1 --interval 1 \
        --duration "$2" --series "$TMP/f.csv" --quiet 2>"$TMP/f.err" || fail "field $1: exit $?"
    column "$TMP/f.csv" sensor | head -n 1
}
for show in POOLS STATS DATABASES; do
    key=database
    [ $show = DATABASES ] && key=name
    PGPASSWORD=s3cret psql -h 127.0.0.1 -p "$PGB_PORT" -U qctl -d pgbouncer -AF, -c "SHOW $show" \
        | head -n 2 >"$TMP/show.csv"
    python3 - "$TMP/show.csv" "$key" >"$TMP/fields" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head, first = rows[0], rows[1]
def num(v):
    try:
        float(v)
        return v
    except ValueError:
        return "-"  # empty or text: no value expected
for h, v in zip(head, first):
    print(first[head.index(sys.argv[2])], h, num(v))
PY
    n=0
    while read -r db field value; do
        [ "$field" = "$key" ] && continue
        [ $show = POOLS ] && [ "$field" = user ] && continue
        case $field in *[!a-z0-9_]*) continue ;; esac
        n=$((n + 1))
        got=$(field_value "$db:$field" 0.3)
        case $value in
        -) [ -z "$got" ] || fail "SHOW $show $field ('$value') gave $got" ;;
        *)  [ -n "$got" ] || got=$(field_value "$db:$field" 1)
            case $field in
            total_*|avg_*|cl_active|sv_*|maxwait*|current_connections) [ -n "$got" ] || fail "SHOW $show $field: no value" ;;
            *) [ "$got" = "$value" ] || fail "SHOW $show $field: qctl $got, psql $value" ;;
            esac ;;
        esac
    done <"$TMP/fields"
    [ $n -ge 5 ] || fail "SHOW $show: only $n fields"
done

# -- md5 with a stored md5 password
"$QCTL" control --sensor "pgbouncer:host=127.0.0.1 port=$PGB_PORT user=qmd5 password=other:app:pool_size" \
    --actuator cmd:true --setting 1 --interval 1 --duration 0.5 --series "$TMP/m.csv" 2>"$TMP/m.err"
[ -n "$(column "$TMP/m.csv" sensor | head -n 1)" ] || fail "md5 login: $(cat "$TMP/m.err")"
"$QCTL" control --sensor "pgbouncer:host=127.0.0.1 port=$PGB_PORT user=qmd5 password=wrong:app:pool_size" \
    --actuator cmd:true --setting 1 --interval 1 --duration 0.5 --series "$TMP/m.csv" 2>"$TMP/m.err"
grep -q "the server refused" "$TMP/m.err" || fail "a wrong password: $(cat "$TMP/m.err")"

# -- refusals: a value pgbouncer refuses (SET default_pool_size = -5 is
# below qctl's range: the actuator clamps to 1; use an unknown field and a
# fake server instead), each with a message
"$QCTL" control --sensor "pgbouncer:$CI:app:no_such_field" --actuator cmd:true --setting 1 \
    --interval 1 --duration 0.5 2>"$TMP/u.err"
grep -q "not a column" "$TMP/u.err" || fail "unknown field: $(cat "$TMP/u.err")"
printf 'garbage, not the PostgreSQL protocol\n' >"$TMP/garbage"
free_port FAKE_PORT
python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
open(sys.argv[3], "w").write("up")
data = open(sys.argv[2], "rb").read()
while True:
    c, _ = s.accept(); c.settimeout(2)
    try:
        c.recv(4096); c.sendall(data)
    except OSError:
        pass
    c.close()' "$FAKE_PORT" "$TMP/garbage" "$TMP/fake.ready" &
PIDS="$PIDS $!"
wait_file "$TMP/fake.ready"
"$QCTL" control --sensor "pgbouncer:port=$FAKE_PORT:app:cl_active" --actuator "pgbouncer-pool:port=$FAKE_PORT" \
    --controller integral --reference 3 --setting 5 --interval 1 --duration 1.5 --series "$TMP/g.csv" 2>"$TMP/g.err"
grep -q "malformed\|closed before" "$TMP/g.err" || fail "garbage: $(cat "$TMP/g.err")"
[ "$(column "$TMP/g.csv" setting | sort -u)" = 5 ] || fail "the controller moved on garbage"

# -- pgbouncer killed mid-run
rm -f "$TMP/k.admin"
"$QCTL" control --sensor "pgbouncer:$CI:app:pool_size" --actuator "pgbouncer-pool:$CI" \
    --controller static --setting 4 --interval 0.25 --admin 127.0.0.1:0 \
    --admin-port-file "$TMP/k.admin" --series "$TMP/k.csv" 2>"$TMP/k.err" &
K=$!
PIDS="$PIDS $K"
wait_file "$TMP/k.admin"
A=$(cat "$TMP/k.admin")
sleep 1
[ "$(pq 'SHOW DATABASES' | awk -F, '$1 == "app" { print $6 }')" = 4 ] || fail "pool size 4 not applied"
# pgbouncer itself (under runuser, $PGB_PID is runuser's): by its pid file
kill -9 "$(cat "$TMP/p.pid")"; wait "$PGB_PID" 2>/dev/null
sleep 2
kill -0 "$K" || fail "qctl control died with pgbouncer"
[ "$(metric "$A" qctl_control_sensor_missing_total)" -ge 4 ] || fail "missing not counted"
[ "$(metric "$A" qctl_control_actuator_refused_total)" -ge 4 ] || fail "refused not counted"
start_pgbouncer
sleep 1.5
[ "$(pq 'SHOW DATABASES' | awk -F, '$1 == "app" { print $6 }')" = 4 ] || fail "not re-applied after the restart"
kill "$K"; wait "$K" || fail "control exit $?"
grep -q "answering again" "$TMP/k.err" || fail "no recovery line: $(cat "$TMP/k.err")"
echo ok
