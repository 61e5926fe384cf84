# `qctl proxy --workers 2` and `--workers 4` at 3x overload under a fixed
# limit: an independent count in the backend never exceeds the limit.
# 127.0.0.1 only, bounded (< 20 s).
cmd: --version
sh: sh "$DATA/../live/workers_limit.sh"
