# A mix of users from two models: a valid pcap (tcpdump reads it; the case
# is skipped without tcpdump, and qctl reads back as many packets), the rate close
# to the sum of the users' rates.
cmd: fit $DATA/captures/web.pcap --activity web --out $TMP --quiet
sh: $QCTL fit $DATA/captures/gaming.pcap --activity gaming --out $TMP >/dev/null
sh: $QCTL gen --model $TMP/web.json --model $TMP/gaming.json --users web=20,gaming=5 --duration 10 --seed 4 --output $TMP/mix.pcap --json > $TMP/g.json
sh: grep -q '"packets": [1-9]' $TMP/g.json
sh: n=$(sed -n 's/^  "packets": \([0-9]*\),$/\1/p' $TMP/g.json); $QCTL fit $TMP/mix.pcap --csv $TMP/back.csv --min-packets 1000000000 >/dev/null 2>&1; [ "$(wc -l < $TMP/back.csv)" -eq $((n + 1)) ]
sh: command -v tcpdump >/dev/null || exit 77; n=$(sed -n 's/^  "packets": \([0-9]*\),$/\1/p' $TMP/g.json); [ "$(tcpdump -nn -r $TMP/mix.pcap 2>/dev/null | wc -l)" -eq "$n" ]
sh: awk -F': ' '/"expected_packets_per_second"/{e=$2+0} /^  "packets_per_second"/{g=$2+0} END{exit !(g > 0.85*e && g < 1.15*e)}' $TMP/g.json
