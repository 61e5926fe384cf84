# Protocol answers as RFC 9112 and nginx give them (400, 405, 414, 431,
# 501, 505), hop-by-hop headers not forwarded, responses with many header
# fields (127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/protocol.sh"
