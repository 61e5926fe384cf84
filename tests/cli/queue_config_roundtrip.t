# sim queue --check prints the effective flags (defaults resolved) as JSON;
# fed back through --config it prints the same, and a run from the file
# is byte-identical to the run from the same flags on the command line.
cmd: sim queue --config "$DATA/sim_config/queue.json" --check
json: arrival str exp:0.9
json: customers eq 20000
json: warmup str auto
json: confidence eq 0.95
no-stderr:
sh: cp "$TMP/stdout" "$TMP/c.json" && $QCTL sim queue --config "$TMP/c.json" --check | cmp - "$TMP/c.json"
# (3 x 20000 at load 0.9 is short for its intervals: --allow-short, exit 0)
sh: $QCTL sim queue --config "$DATA/sim_config/queue.json" --quiet --allow-short >"$TMP/a" && $QCTL sim queue --arrival exp:0.9 --service erlang:2,2 --customers 20000 --reps 3 --seed 7 --quiet --allow-short >"$TMP/b" && cmp "$TMP/a" "$TMP/b"
sh: $QCTL sim queue --config "$DATA/sim_config/queue.json" --seed 8 --check | grep -q '"seed": 8'
