# libpcap is loaded when a capture is first read; when it cannot be, the
# read fails naming the library and the loader's reason, exit 1 (the
# machine's fault, not the input's)
env: QCTL_LIBPCAP=/nonexistent/libpcap.so.0.8
cmd: fit $DATA/captures/gaming.pcap
exit: 1
stderr: gaming.pcap: reading a capture needs libpcap, which did not load
stderr: /nonexistent/libpcap.so.0.8
