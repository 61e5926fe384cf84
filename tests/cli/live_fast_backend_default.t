# The proxy's defaults (MaxUsers, CoDel) refuse under 0.1% of 256 and of
# 32 closed-loop clients in front of a backend that answers at once, on a
# host loaded by others (a stall of the host is waited out, not shed:
# qctl/front.h) (127.0.0.1, < 15 s).
cmd: --version
sh: sh "$DATA/../live/fast_backend.sh"
