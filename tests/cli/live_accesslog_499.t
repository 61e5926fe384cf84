# The access log's line for a request whose client left first: 499, as
# nginx logs it, in combined and JSON (127.0.0.1, < 15 s).
needs: curl python3
cmd: --version
sh: sh "$DATA/../live/accesslog_499.sh"
