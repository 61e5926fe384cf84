# "-" as standard output and input, as Unix tools read it: gen --output -
# writes the same capture as to a file (its summary on stderr), fit reads
# a capture from standard input (and names it "-"), gen reads a model,
# proxy and gate read --config from standard input, --series - and
# --port-file - write to standard output; no file named "-" is made.
cmd: fit $DATA/captures/gaming.pcap --activity gaming --out $TMP --quiet
sh: cd $TMP && $QCTL gen --model $TMP/gaming.json --users gaming=3 --packets 500 --seed 7 --output - >$TMP/a.pcap 2>$TMP/a.err && $QCTL gen --model $TMP/gaming.json --users gaming=3 --packets 500 --seed 7 --output $TMP/b.pcap >/dev/null && cmp $TMP/a.pcap $TMP/b.pcap && grep -q '^-: 500 packets' $TMP/a.err && [ ! -e $TMP/- ]
sh: $QCTL fit - --activity gaming --quiet --json <$DATA/captures/gaming.pcap >$TMP/fit.json && $JCHECK $TMP/fit.json capture.file str - && $QCTL fit $DATA/captures/gaming.pcap --activity gaming --quiet --json >$TMP/fit2.json && [ "$(grep -c packets $TMP/fit.json)" -eq "$(grep -c packets $TMP/fit2.json)" ] && [ "$(grep '"packets"' $TMP/fit.json | head -1)" = "$(grep '"packets"' $TMP/fit2.json | head -1)" ]
sh: $QCTL gen --model - --users gaming=3 --packets 500 --seed 7 --output $TMP/c.csv <$TMP/gaming.json >/dev/null && $QCTL gen --model $TMP/gaming.json --users gaming=3 --packets 500 --seed 7 --output $TMP/d.csv >/dev/null && cmp $TMP/c.csv $TMP/d.csv
sh: printf '{"backend": ["127.0.0.1:1"], "limit": 7}' | $QCTL proxy --config - --check | grep -q '"limit": 7'
sh: printf '{"backend": "127.0.0.1:1", "limit": 3, "idle-timeout": 5}' | $QCTL gate --config - --check | grep -q '"idle-timeout": 5'
sh: $QCTL gen --model - --model - --users gaming=1 --packets 5 --output $TMP/e.csv <$TMP/gaming.json 2>$TMP/twice.err; [ $? -eq 2 ] && grep -q 'standard input is already read' $TMP/twice.err
sh: $QCTL fit - --activity gaming </dev/null 2>$TMP/empty.err; [ $? -eq 2 ] && grep -q 'standard input is empty' $TMP/empty.err
