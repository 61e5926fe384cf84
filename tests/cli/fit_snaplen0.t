# snaplen 0 in the header: read with a warning that says so.
cmd: fit $DATA/captures/bad_snaplen0.pcap --min-packets 10 --json
stderr: snaplen 0
json: capture.packets eq 30
