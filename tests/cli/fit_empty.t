# A capture with a header and no packets: nothing usable, exit 2.
cmd: fit $DATA/captures/bad_empty.pcap
exit: 2
stderr: bad_empty.pcap: no packets
