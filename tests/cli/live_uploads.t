# 40 concurrent 512 KiB uploads to a backend that answers at once, through
# a fixed limit of 4: all answered 2xx, each upload's
# slot lent while its body moves (127.0.0.1, a few seconds idle).
cmd: --version
sh: sh "$DATA/../live/uploads.sh"
