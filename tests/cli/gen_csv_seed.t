# CSV output; the same --seed gives the same file, another seed another.
cmd: fit $DATA/captures/gaming.pcap --activity gaming --out $TMP --quiet
sh: $QCTL gen --model $TMP/gaming.json --users gaming=3 --packets 500 --seed 7 --output $TMP/a.csv >/dev/null
sh: $QCTL gen --model $TMP/gaming.json --users gaming=3 --packets 500 --seed 7 --output $TMP/b.csv >/dev/null
sh: $QCTL gen --model $TMP/gaming.json --users gaming=3 --packets 500 --seed 8 --output $TMP/c.csv >/dev/null
sh: [ "$(wc -l < $TMP/a.csv)" -eq 501 ] && head -1 $TMP/a.csv | grep -q '^time,size,flow,activity$'
sh: cmp -s $TMP/a.csv $TMP/b.csv && ! cmp -s $TMP/a.csv $TMP/c.csv
