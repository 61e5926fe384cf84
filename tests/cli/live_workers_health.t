# --workers 2: a backend's passive health is one state for the proxy:
# a dead backend is taken out after --max-fails failures over both
# workers, not per worker (127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/workers_health.sh"
