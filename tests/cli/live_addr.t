# IPv6 literals and host names: backend, proxy (listener, admin, backend)
# and load on [::1] and "localhost"; every request answered (< 10 s;
# skipped when ::1 cannot be bound).
cmd: --version
sh: sh "$DATA/../live/addr.sh"
