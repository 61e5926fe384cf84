# qctl gen --validate -j: the realisations on threads, each from its own
# seed (S + k), read back in order, so the summary is the same bytes with
# -j 1, -j 2 and -j 3 (5 realisations: a thread takes two or more), in
# JSON and as text; and the same as the model fitted with -j 1.
cmd: gen --help
stdout: --jobs N
sh: $QCTL gen --validate $DATA/captures/gaming.pcap --seed 3 --realisations 5 --json -j 1 > $TMP/a.json && $QCTL gen --validate $DATA/captures/gaming.pcap --seed 3 --realisations 5 --json -j 2 > $TMP/b.json && cmp $TMP/a.json $TMP/b.json && grep -q '"realisations": 5' $TMP/a.json
sh: $QCTL gen --validate $DATA/captures/gaming.pcap --seed 3 --realisations 5 -j 1 > $TMP/a.txt && $QCTL gen --validate $DATA/captures/gaming.pcap --seed 3 --realisations 5 -j 3 > $TMP/c.txt && cmp $TMP/a.txt $TMP/c.txt
sh: $QCTL gen --validate $DATA/captures/gaming.pcap -j 0 2>&1 | grep -q -- '--jobs'
