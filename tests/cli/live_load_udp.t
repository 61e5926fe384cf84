# UDP replay of a trace written by qctl gen: every packet sent, its bytes
# the file's sizes (sum of the CSV's size column).
cmd: fit $DATA/captures/gaming.pcap --activity gaming --out $TMP --quiet
sh: $QCTL gen --model $TMP/gaming.json --users gaming=2 --packets 50 --output $TMP/a.csv >/dev/null
sh: $QCTL load --udp 127.0.0.1:9 --replay $TMP/a.csv --json >$TMP/u.json
sh: grep -q '"packets": 50,' $TMP/u.json && grep -q '"sent": 50,' $TMP/u.json
sh: b=$(awk -F, 'NR > 1 { s += ($2 > 65507 ? 65507 : $2) } END { print s }' $TMP/a.csv); grep -q "\"bytes\": $b," $TMP/u.json
