# Bad model files and flags: exit 2 with the file and what is wrong.
cmd: gen --model $DATA/captures/bad_magic.pcap --duration 1 --output $TMP/x.pcap
exit: 2
stderr: bad_magic.pcap:1:
sh: $QCTL gen --duration 1 --output $TMP/x.pcap 2>&1 | grep -q -- "--model: a model file is required"
sh: echo '{"format":"qctl-traffic-model","version":1,"activity":"x","forward_fraction":2}' > $TMP/m.json; $QCTL gen --model $TMP/m.json --duration 1 --output $TMP/x.pcap 2>&1 | grep -q "field 'forward_fraction': must be in"
sh: $QCTL fit $DATA/captures/gaming.pcap --activity g --out $TMP --quiet >/dev/null && $QCTL gen --model $TMP/g.json --users web=3 --duration 1 --output $TMP/x.pcap 2>&1 | grep -q "no model for activity 'web'"
sh: $QCTL gen --model $TMP/g.json --output $TMP/x.pcap 2>&1 | grep -q -- "--duration: give a duration or a number of packets"
sh: ! [ -e $TMP/x.pcap ]
