# The mix of gen_mix.t is a capture Wireshark's reader accepts (skipped
# without tshark).
needs: tshark
cmd: fit $DATA/captures/web.pcap --activity web --out $TMP --quiet
sh: $QCTL fit $DATA/captures/gaming.pcap --activity gaming --out $TMP >/dev/null
sh: $QCTL gen --model $TMP/web.json --model $TMP/gaming.json --users web=20,gaming=5 --duration 10 --seed 4 --output $TMP/mix.pcap --json > $TMP/g.json
sh: tshark -r $TMP/mix.pcap -c 100 >/dev/null 2>&1
