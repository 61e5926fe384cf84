# The access log: nginx's combined (beside nginx's own log when nginx is
# installed) and JSON lines, logrotate's create + SIGUSR1 and copytruncate
# without a line lost (127.0.0.1, < 20 s).
needs: curl python3
cmd: --version
sh: sh "$DATA/../live/accesslog.sh"
