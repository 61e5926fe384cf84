# UDP replay of a file that does not exist: the message names it.
cmd: load --udp 127.0.0.1:9 --replay $TMP/missing.pcap
exit: 2
stderr: --replay:
stderr: missing.pcap
