# Flags on the command line override a --config file's keys, a repeated
# flag (--backend) as a whole.
cmd: proxy --config "$DATA/proxy_config/good.json" --check --limit 8 --backend 127.0.0.1:7000 --alpha 40
json: limit eq 8
json: alpha eq 40
json: backend.0 str 127.0.0.1:7000
sh: ! grep -q "127.0.0.1:900" "$TMP/stdout"
json: class.0 str gold=0.05
