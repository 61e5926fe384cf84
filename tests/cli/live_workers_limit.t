# --workers 2 and 4 share one limiter and one waiting room: at 3x
# overload an independent backend never holds more than --limit
# (127.0.0.1, < 20 s).
cmd: --version
sh: sh "$DATA/../live/workers_limit.sh"
