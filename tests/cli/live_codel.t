# The default queue discipline at 3x overload: the standing queue is shed
# and admitted requests do not wait the whole deadline (127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/codel.sh"
