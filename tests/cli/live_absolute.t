# An absolute-form target forwarded in origin form with the target's
# authority as Host (RFC 9112 3.2.2) (127.0.0.1, < 10 s).
cmd: --version
needs: python3
sh: sh "$DATA/../live/absolute.sh"
