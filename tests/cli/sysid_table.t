# Without --json: the candidate table and the chosen model; -o writes the
# model, which 'qctl design' reads back.
cmd: sysid --csv $DATA/arx_first_order.csv --holdout 0.25 -o $TMP/m.json
stdout: <- chosen
stdout: AIC = N ln(RSS/N) + 2p
stdout: validation: one-step R^2
file: $TMP/m.json
no-stderr:
sh: $QCTL design --model $TMP/m.json --gains 1 | grep -q 'stable for 0 < K_I'
