# A pcapng file whose two interfaces are Ethernet (packets with three
# stacked VLAN tags) and Linux cooked (nanosecond timestamps): libpcap
# refuses it; qctl reads every packet.
cmd: fit $DATA/../../fuzz/seeds/pcap/mixed_links.pcapng
exit: 2
stdout: 6 IP packets in 1 flows over 0.0075 s
stderr: no group has enough packets
