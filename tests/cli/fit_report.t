# --report draws densities over histograms, Q-Q plots and the copula
# scatter (when gnuplot is installed).
cmd: fit $DATA/captures/gaming.pcap --activity gaming --report $TMP/r
sh: command -v gnuplot >/dev/null || exit 77; for p in gaming_size_density gaming_gap_density gaming_size_qq gaming_gap_qq gaming_copula gaming_copula_lag1; do [ -s $TMP/r/$p.svg ] && [ -s $TMP/r/$p.png ] || exit 1; done
