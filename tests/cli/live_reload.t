# qctl proxy reloaded 20 times (SIGHUP, POST /reload) under at least 2000
# requests/s: no connection refused, nothing lost, the new limit in
# /status each time; bad files refused with their message (127.0.0.1,
# about 15 s).
needs: curl wrk
cmd: --version
sh: sh "$DATA/../live/reload.sh"
