# X-Forwarded-For, X-Forwarded-Proto, Forwarded (RFC 7239) and
# X-Request-Id, each by its flag, as an echoing backend sees them
# (127.0.0.1, < 5 s).
needs: curl python3
cmd: --version
sh: sh "$DATA/../live/forwarded.sh"
