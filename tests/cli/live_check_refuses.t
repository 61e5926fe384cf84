# qctl proxy --check runs the proxy's own validation: every configuration
# the proxy refuses at start, --check refuses with the same message and
# exit status (and a good one passes both). The run is given a port of 0
# and refused configurations never open it (--admin on the address of
# --listen included: the start would find it in use).
cmd: proxy --backend 127.0.0.1:9 --limit 1e12 --check
exit: 2
stderr: proxy: limiter: initial_limit: 1e+12 is outside [1, 1000]
sh: for a in "--limit 1e12" "--min-limit 50 --max-limit 10" "--limiter aimd --limit 5 --min-limit 10" "--limiter maxusers --reference -1" "--limiter admission --class gold=0.5 --epsilon 0.99 --alpha 0" "--route djsq --djsq-threshold 0" "--route djsq --initially-on 5" "--limiter gradient2 --max-limit 5e9" "--listen 127.0.0.1:1 --admin 127.0.0.1:1" "--listen 0.0.0.0:1 --admin 127.0.0.1:1"; do $QCTL proxy --backend 127.0.0.1:9 --listen 127.0.0.1:0 $a --check >/dev/null 2>$TMP/check; c=$?; timeout 20 $QCTL proxy --backend 127.0.0.1:9 --listen 127.0.0.1:0 $a >/dev/null 2>$TMP/run; r=$?; [ "$c" -eq 2 ] && [ "$r" -eq "$c" ] && cmp -s $TMP/check $TMP/run && [ -s $TMP/check ] || { echo "differs for: $a (check $c, run $r)"; cat $TMP/check $TMP/run; exit 1; }; done
sh: $QCTL proxy --backend 127.0.0.1:9 --limiter aimd --limit 20 --min-limit 10 --check >/dev/null
