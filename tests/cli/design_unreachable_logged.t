# The reach computed by the simulation travels with the data: the series
# header carries it (222.42, the logged RIS's closed form at the largest RIS
# the plant holds), sysid puts it in the model, and design refuses a
# reference of 260 in the sensor's units (below X D / 2 = 300, above the
# reach) with the bound, exit 2, while 200 is accepted.
cmd: sim maxusers --controller open --maxusers 375 --excite prbs --amplitude 50 --hold 4 --duration 36000 --seed 6 --series $TMP/id.csv --quiet
sh: $QCTL sysid --csv $TMP/id.csv --columns time,maxusers,ris --skip 30 --orders 1..1 --delays 0..0 --sensor-csv $TMP/id.csv --sensor-columns time,ris,ris_logged -o $TMP/m.json >/dev/null && $JCHECK $TMP/m.json sensor.max within 222.41 222.43
sh: $QCTL design --model $TMP/m.json --reference 260 --sensor-reference >/dev/null 2>$TMP/err; test $? -eq 2 && grep -q 'is not reachable: the sensor cannot read more than 222.42' $TMP/err
sh: $QCTL design --model $TMP/m.json --reference 200 --sensor-reference >/dev/null
