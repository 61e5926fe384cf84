# Malformed and hostile HTTP against `qctl proxy` and `qctl backend`:
# 400 or a closed connection, and both keep serving (127.0.0.1, < 15 s).
cmd: --version
sh: sh "$DATA/../live/malformed.sh"
