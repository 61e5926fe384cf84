# Close-delimited responses of an HTTP/1.0 backend: re-framed as chunked
# for a kept-alive HTTP/1.1 client, whole and at once; closed for an
# HTTP/1.0 client (127.0.0.1, < 5 s).
cmd: --version
sh: sh "$DATA/../live/close_delimited.sh"
