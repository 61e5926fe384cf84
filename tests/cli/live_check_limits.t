# qctl proxy --check refuses the limits the proxy itself refuses, with the
# proxy's own message and exit 2: an initial limit outside [min, max] and
# a least limit above the largest (these passed --check when it did not
# run the proxy's validation).
cmd: proxy --backend 127.0.0.1:9 --min-limit 50 --max-limit 10 --check
exit: 2
stderr: proxy: limiter: max_limit: 10 must be > min_limit 50
sh: $QCTL proxy --backend 127.0.0.1:9 --limit 1e12 --check >$TMP/o 2>$TMP/e; [ $? -eq 2 ] && grep -qF 'proxy: limiter: initial_limit: 1e+12 is outside [1, 1000]' $TMP/e && [ ! -s $TMP/o ]
