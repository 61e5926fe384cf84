# Request bodies and bounds: 413 over --max-body, 100 Continue, 503 over
# --max-connections, and bounded memory with 40 clients sending 8 MB
# bodies at once (127.0.0.1, < 20 s).
cmd: --version
sh: sh "$DATA/../live/bodies.sh"
