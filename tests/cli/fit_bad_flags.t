cmd: fit $DATA/captures/web.pcap --gap-threshold -1
exit: 2
stderr: --gap-threshold: must be auto, none or a time > 0
sh: $QCTL fit $DATA/captures/web.pcap --families exp,normal 2>&1 | grep -q "unknown family 'normal'"
sh: $QCTL fit 2>&1 | grep -q "a CAPTURE file is required"
sh: $QCTL fit $DATA/captures/web.pcap --split flow --activity nosuch 2>&1 | grep -q "no group named 'nosuch'"
