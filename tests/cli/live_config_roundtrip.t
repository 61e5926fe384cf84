# The configuration qctl proxy --check prints loads back with --config and
# gives the same --check output (defaults, repeated flags and the limiter's
# resolved values included).
cmd: proxy --config "$DATA/proxy_config/good.json" --check --route djsq --idle-off 30 --warmup-timeout 20
json: setup-timeout eq 20
json: route str djsq
json: epsilon eq 0.1
sh: cp "$TMP/stdout" "$TMP/c.json" && $QCTL proxy --config "$TMP/c.json" --check >"$TMP/again" && cmp "$TMP/c.json" "$TMP/again"
sh: $QCTL proxy --backend 127.0.0.1:9 --limiter aimd --check >"$TMP/a.json" && $QCTL proxy --config "$TMP/a.json" --check | cmp - "$TMP/a.json"
