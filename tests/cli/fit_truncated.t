# A capture cut inside a record: what precedes it is used, and the
# warning says where reading stopped and why; exit 0.
cmd: fit $DATA/captures/bad_truncated.pcap --min-packets 10 --json
stderr: stopped at record 41 (byte offset 4351)
stderr: truncated
json: capture.packets eq 40
json: capture.warnings.0 exists
