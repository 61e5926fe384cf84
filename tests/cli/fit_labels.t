# A label file splits the capture into activities by time range.
cmd: fit $DATA/captures/web.pcap --labels $DATA/captures/web_time.labels --out $TMP --json
json: groups.0.name str early
json: groups.1.name str late
file: $TMP/early.json
file: $TMP/late.json
sh: $QCTL fit $DATA/captures/web.pcap --split flow --min-packets 30 --json | grep -q '"name": "tcp 127.0.0.1:'
