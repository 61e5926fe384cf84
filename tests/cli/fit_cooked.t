# Linux cooked v2 (the "any" device) and pcapng read like Ethernet pcap.
cmd: fit $DATA/captures/gaming_sll2.pcap --json --min-packets 10
json: capture.link str linux-sll2
json: capture.packets eq 71
json: groups.0.model.transport.protocol str udp
sh: $QCTL fit $DATA/captures/gaming.pcapng --json --min-packets 10 | grep -q '"format": "pcapng"'
sh: $QCTL fit $DATA/captures/gaming_sll.pcap --json --min-packets 10 | grep -q '"link": "linux-sll"'
