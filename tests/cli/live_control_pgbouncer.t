# qctl control on a real pgbouncer's admin console: the pool size read
# back, every SHOW field, md5 login, refusals, a killed pgbouncer
# (tests/live/control_pgbouncer.sh; 127.0.0.1 and $TMP, < 60 s; skipped
# without pgbouncer or psql).
needs: pgbouncer psql python3 curl
cmd: --version
sh: sh "$DATA/../live/control_pgbouncer.sh"
