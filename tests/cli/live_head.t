# A HEAD response has no body: qctl backend and qctl proxy end it at its
# head and keep both connections for the next request (127.0.0.1, < 5 s).
cmd: --version
sh: sh "$DATA/../live/head.sh"
