# Impossible specifications and bad flags: exit 2 naming the flag.
cmd: design --model $DATA/arx_model_first_order.json --settling 10 --overshoot 0.9
exit: 2
stderr: --overshoot: overshoot 0.9 with settling time 10 samples
sh: $QCTL design --model $DATA/arx_model_first_order.json --gains 1,x 2>&1 | grep -q -- "--gains: 'x' is not a number"
sh: $QCTL design 2>&1 | grep -q -- '--model is required'
sh: $QCTL design --model $TMP/none.json 2>&1 | grep -q -- '--model: .*none.json'
sh: $QCTL design --help | grep -q -- '--settling'
