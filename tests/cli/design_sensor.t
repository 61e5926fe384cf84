# With the logged-RIS sensor in the loop (a third pole and a direct term)
# K_I = 5 is no longer stable: the stable range shrinks from 6.085 to 4.495.
cmd: design --model $DATA/arx_model.json --gains 5 --json
json: loops.0.root_locus.0.max_modulus lt 1
json: loops.1.root_locus.0.max_modulus gt 1
json: loops.1.stable_range.hi within 4.4949 4.4951
json: loops.1.order eq 3
json: sensor.delay eq -1
sh: $QCTL design --model $DATA/arx_model.json --no-sensor --json | grep -q '"sensor": null'
