# `qctl proxy` with a backend killed mid-run and a SIGTERM drain under
# load: every request answered once, nothing hangs (127.0.0.1, < 15 s).
cmd: --version
sh: sh "$DATA/../live/failures.sh"
