# Admin token and read-only mode, the raised file limit, the drain
# deadline and a second signal (127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/admin_drain.sh"
