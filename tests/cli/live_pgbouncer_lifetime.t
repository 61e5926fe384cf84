# qctl control's pgbouncer pool actuator restores the operator's own
# server_lifetime (1234 in pgbouncer.ini), not pgbouncer's default, after
# lowering it to shed server connections over a lowered pool size
# (tests/live/pgbouncer_lifetime.sh: a scratch PostgreSQL cluster and
# pgbouncer on 127.0.0.1; < 20 s; skipped without them).
needs: pgbouncer psql
cmd: --version
sh: sh "$DATA/../live/pgbouncer_lifetime.sh"
