cmd: fit $DATA/captures/bad_magic.pcap
exit: 2
stderr: bad_magic.pcap: not a capture or CSV: unknown magic number 0x00010203
