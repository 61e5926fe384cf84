# 3x overload through `qctl proxy` (MaxUsers control) and without control:
# conservation of requests, 127.0.0.1 only, bounded (< 15 s).
cmd: --version
sh: sh "$DATA/../live/overload.sh"
