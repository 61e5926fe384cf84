# sim pool, maxusers and admission: --check output loads back with
# --config to the same output; old flag names are accepted in a file.
cmd: sim pool --servers 3 --arrival exp:2 --idle-timer 0.1 --warm-power 200 --check
json: setup-power eq 200
json: idle-timer str 0.1
json: policy str djsq
sh: cp "$TMP/stdout" "$TMP/c.json" && $QCTL sim pool --config "$TMP/c.json" --check | cmp - "$TMP/c.json"
sh: $QCTL sim maxusers --controller pi --kp 0.05 --reference 300@0,350@1800 --check >"$TMP/m.json" && $QCTL sim maxusers --config "$TMP/m.json" --check | cmp - "$TMP/m.json"
sh: $QCTL sim admission --scenario "$DATA/../../examples/admission/admissible.json" --check >"$TMP/a.json" && $QCTL sim admission --config "$TMP/a.json" --check | cmp - "$TMP/a.json"
sh: echo '{"servers": 2, "arrival": "exp:1", "transient": 100}' >"$TMP/old.json" && $QCTL sim pool --config "$TMP/old.json" --check 2>"$TMP/e" | grep -q '"warmup": "100"' && grep -q 'transient is deprecated' "$TMP/e"
