# qctl proxy streams a 64 MiB response with a small peak RSS, applies
# backpressure to a slow reader, passes chunked bodies through verbatim
# (127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/stream.sh"
