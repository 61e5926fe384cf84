# qctl proxy streams a 64 MiB request body to a slow backend with a small
# peak RSS (backpressure), and chunked and kept-alive uploads whole
# (127.0.0.1, < 20 s).
cmd: --version
sh: sh "$DATA/../live/upload.sh"
