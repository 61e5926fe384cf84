# --plot draws SVG and PNG with gnuplot when it is installed (else a notice).
cmd: sim queue --arrival exp:0.8 --service exp:1 --customers 20000 --plot $TMP/p --quiet
sh: command -v gnuplot >/dev/null || exit 77; [ -s $TMP/p/number_in_system.svg ] && [ -s $TMP/p/response_time_hist.png ] && grep -q '<svg' $TMP/p/response_time_hist.svg
