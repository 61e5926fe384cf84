# --admin on the address of --listen (the same port; the same address or
# the wildcard one) is refused by --check as by the start, with the same
# message and exit status 2, for qctl proxy and qctl gate: the start
# would otherwise find the port in use after --check said yes. Port 1 is
# never opened: the configuration is refused before any bind.
cmd: proxy --backend 127.0.0.1:9 --listen 127.0.0.1:1 --admin 127.0.0.1:1 --check
exit: 2
stderr: proxy: --admin: '127.0.0.1:1' is the address of --listen ('127.0.0.1:1')
sh: for c in "proxy --backend 127.0.0.1:9" "gate --backend 127.0.0.1:9 --limit 4"; do for a in "--listen 127.0.0.1:1 --admin 127.0.0.1:1" "--listen 0.0.0.0:1 --admin 127.0.0.1:1"; do $QCTL $c $a --check >/dev/null 2>$TMP/check; k=$?; timeout 20 $QCTL $c $a >/dev/null 2>$TMP/run; r=$?; [ "$k" -eq 2 ] && [ "$r" -eq 2 ] && cmp -s $TMP/check $TMP/run && grep -q "is the address of --listen" $TMP/check || { echo "differs for: $c $a (check $k, run $r)"; cat $TMP/check $TMP/run; exit 1; }; done; done
sh: $QCTL gate --backend 127.0.0.1:9 --limit 4 --listen 127.0.0.1:0 --admin 127.0.0.1:0 --check >/dev/null
