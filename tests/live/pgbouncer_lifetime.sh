#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# pgbouncer_lifetime.sh: the pool actuator lowers pgbouncer's
# server_lifetime to shed server connections over a lowered pool size,
# and gives the operator's own value back at the end (not pgbouncer's
# default). A scratch PostgreSQL cluster (127.0.0.1, sockets in $TMP,
# durability off), pgbouncer in session mode with server_lifetime = 1234,
# six sessions holding six server connections, then `qctl control` with
# a static pool size of 2: SHOW CONFIG must show the lowered value while
# it runs and 1234 after it stops. < 20 s.
set -u
. "$(dirname "$0")/lib.sh"
for t in pgbouncer psql; do
    command -v $t >/dev/null || { echo "skip: no $t"; exit 77; }
done
B=""
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5 -n -r); do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { B=$d; break; }
done
[ -n "$B" ] || { echo "skip: no PostgreSQL server (initdb, pg_ctl)"; exit 77; }
RUN=""
if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || { echo "skip: no user postgres to run the server as"; exit 77; }
    RUN="runuser -u postgres --"
    chmod 777 "$TMP"
fi
PG=$TMP/pg
mkdir -p "$PG" && chmod 777 "$PG"
$RUN "$B/initdb" -D "$PG/data" -U postgres -A trust --no-sync -E UTF8 >"$TMP/initdb.txt" 2>&1 ||
    fail "initdb: $(tail -n 5 "$TMP/initdb.txt")"
free_port PG_PORT
cat >>"$PG/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG'
fsync = off
synchronous_commit = off
shared_buffers = 16MB
CONF
pg_started=""
stop_pg() { [ -n "$pg_started" ] && $RUN "$B/pg_ctl" -D "$PG/data" -m immediate -w stop >/dev/null 2>&1; }
trap 'stop_pg; cleanup' EXIT
$RUN "$B/pg_ctl" -D "$PG/data" -l "$PG/server.log" -w -t 30 start >/dev/null 2>&1 ||
    fail "PostgreSQL did not start: $(tail -n 5 "$PG/server.log")"
pg_started=1
free_port PGB_PORT
cat >"$TMP/p.ini" <<INI
[databases]
app = host=127.0.0.1 port=$PG_PORT dbname=postgres user=postgres
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGB_PORT
unix_socket_dir = $TMP
auth_type = trust
auth_file = $TMP/users.txt
admin_users = qctl
pool_mode = session
default_pool_size = 10
server_lifetime = 1234
pidfile = $TMP/p.pid
logfile = $TMP/pgbouncer.log
INI
printf '"qctl" ""\n"postgres" ""\n' >"$TMP/users.txt"
chmod 644 "$TMP/p.ini" "$TMP/users.txt"
$RUN pgbouncer "$TMP/p.ini" 2>"$TMP/pgbouncer.err" &
PIDS="$PIDS $!"
pq() { psql -h 127.0.0.1 -p "$PGB_PORT" -U qctl -d pgbouncer -AtF, -c "$1" 2>/dev/null; }
lifetime() { pq "SHOW CONFIG" | awk -F, '$1 == "server_lifetime" { print $2 }'; }
i=0
while [ -z "$(lifetime)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(lifetime)" = 1234 ] || fail "pgbouncer's server_lifetime is '$(lifetime)', not 1234"
# six sessions, each holding a server connection for 8 s
for k in 1 2 3 4 5 6; do
    psql -h 127.0.0.1 -p "$PGB_PORT" -U postgres -d app -Atc "select pg_sleep(8)" >/dev/null 2>&1 &
    PIDS="$PIDS $!"
done
i=0
sv() { pq "SHOW POOLS" | awk -F, '$1 == "app" { s += $7 + $8 } END { print s + 0 }'; }
while [ "$(sv)" -lt 6 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(sv)" -ge 6 ] || fail "six server connections never opened: $(pq 'SHOW POOLS')"
CI="host=127.0.0.1 port=$PGB_PORT user=qctl"
"$QCTL" control --sensor "pgbouncer:$CI:app:sv_active" --actuator "pgbouncer-pool:$CI" \
    --controller static --setting 2 --interval 0.5 --duration 3 2>"$TMP/c.err" &
C=$!
i=0 low=""
while kill -0 $C 2>/dev/null && [ $i -lt 60 ]; do
    v=$(lifetime)
    case $v in ''|1234) ;; *) low=$v ;; esac
    sleep 0.1; i=$((i + 1))
done
wait $C || fail "control exit $?: $(cat "$TMP/c.err")"
[ -n "$low" ] || fail "server_lifetime never lowered while 6 server connections were over a pool of 2"
awk -v v="$low" 'BEGIN { exit !(v + 0 > 0 && v + 0 < 1234) }' || fail "lowered to '$low'?"
got=$(lifetime)
[ "$got" = 1234 ] || fail "server_lifetime after the run is '$got', not the operator's 1234 (lowered to $low)"
grep -q "server_lifetime back to 1234" "$TMP/c.err" || fail "no drain line restoring 1234: $(cat "$TMP/c.err")"
echo "ok: lowered to $low while running, 1234 after"
