# qctl fit -j: the families and the multi-start EM's starts on threads
# (each start from its own stream, the best picked in start order), so the
# output is the same bytes with -j 1 and -j 2. 30000 values (the threaded
# path starts at 20000) from a two-component lognormal mixture.
cmd: fit --help
stdout: --jobs N
sh: awk 'BEGIN { srand(7); for (i = 0; i < 30000; i++) { u = rand(); v = rand(); z = sqrt(-2 * log(1 - u)) * cos(6.283185307 * v); print (rand() < 0.6 ? exp(-1 + 0.5 * z) : exp(1.5 + 0.3 * z)) } }' > $TMP/x.txt && $QCTL fit --column $TMP/x.txt -j 1 --json > $TMP/a.json && $QCTL fit --column $TMP/x.txt -j 2 --json > $TMP/b.json && cmp $TMP/a.json $TMP/b.json && grep -q lnmix2 $TMP/a.json
sh: $QCTL fit --column $TMP/x.txt -j 0 2>&1 | grep -q -- '--jobs'
