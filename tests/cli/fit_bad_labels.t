cmd: fit $DATA/captures/web.pcap --labels $DATA/captures/bad.labels
exit: 2
stderr: bad.labels:3: unknown term 'prot'
