# The sampler's flags of qctl proxy and qctl sim proxy (one cadence,
# whoever runs it): a bad value names its flag, exit 2, before any work.
cmd: proxy --backend 127.0.0.1:9 --sample-least x --check
exit: 2
stderr: qctl: --sample-least: 'x' is not a number (bad character 'x' at column 1)
sh: $QCTL proxy --backend 127.0.0.1:9 --sample-every -1 --check >$TMP/o 2>$TMP/e; [ $? -eq 2 ] && grep -qF -- "--sample-every: '-1' is not a whole number" $TMP/e && [ ! -s $TMP/o ]
sh: $QCTL sim proxy --arrival exp:10 --sample-least 2e9 >$TMP/o 2>$TMP/e; [ $? -eq 2 ] && grep -qF -- '--sample-least: 2e9 is not in 0..1e+09' $TMP/e && [ ! -s $TMP/o ]
sh: $QCTL proxy --backend 127.0.0.1:9 --sample-least 0 --sample-every 4 --check
