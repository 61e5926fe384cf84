# qctl starts without libpcap (and the eight libraries it brings): it is
# loaded only when a capture is read, which the second check sees happen
# (so the first can fail)
cmd: --version
stdout: qctl
sh: LD_DEBUG=files "$QCTL" sim queue --arrival exp:0.5 --service exp:1 --customers 1000 --json >/dev/null 2>"$TMP/ld"; grep -q 'file=' "$TMP/ld" || exit 77; ! grep -q 'file=libpcap' "$TMP/ld"
sh: LD_DEBUG=files "$QCTL" fit "$DATA/captures/gaming.pcap" 2>&1 >/dev/null | grep -q 'file=libpcap'
