# Impossible specifications and bad flags: exit 2 naming the flag.
cmd: design --model $DATA/arx_model_first_order.json --settling 10 --overshoot 0.9
exit: 2
stderr: --overshoot: overshoot 0.9 with settling time 10 samples
sh: $QCTL design --model $DATA/arx_model_first_order.json --gains 1,x 2>&1 | grep -q -- "--gains: 'x' is not a number"
sh: $QCTL design 2>&1 | grep -q -- '--model: a model file is required'
sh: $QCTL design --model $TMP/none.json 2>&1 | grep -q -- '--model: .*none.json'
sh: $QCTL design --help | grep -q -- '--settling'
# The library's check names the parameters' field; the command says the
# flag whose row points at that field (flags.h, CLI_AT).
sh: $QCTL design --model $DATA/arx_model_first_order.json --u-min 5 --u-max 3 2>&1 | grep -qF 'design: --u-min: 5 is not below the upper limit 3'
sh: $QCTL design --model $DATA/arx_model_first_order.json --from 3 2>&1 | grep -qF 'design: --from: needs a reference'
sh: $QCTL design --model $DATA/arx_model_first_order.json --law intgral 2>&1 | grep -qF "did you mean 'integral'?"
