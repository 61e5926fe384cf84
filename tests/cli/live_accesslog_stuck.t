# A stuck access-log file (a FIFO nobody reads) does not stall the proxy:
# lines beyond --access-log-buffer are dropped, counted and warned of
# (127.0.0.1, < 20 s).
needs: curl python3 mkfifo
cmd: --version
sh: sh "$DATA/../live/accesslog_stuck.sh"
