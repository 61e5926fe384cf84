cmd: gen --validate $DATA/captures/video.pcap --plot $TMP/v
stdout: closer to the capture (distance intervals apart): copula on
sh: command -v gnuplot >/dev/null || exit 77; [ -s $TMP/v/variance_time.svg ] && [ -s $TMP/v/acf_counts.png ] && [ -s $TMP/v/gap_cdf.svg ]
