# Without --json a table is printed; --plot draws with gnuplot when installed.
cmd: sim pool --servers 5 --policy jsq-off --idle-timer 2 --arrival exp:2 --customers 20000 --reps 3 --plot $TMP/p --output $TMP/s.json --quiet
stdout: switch-ons per hour
stdout: mean power (W)
stdout: idle timer 2
file: $TMP/s.json
sh: command -v gnuplot >/dev/null || exit 77; [ -s $TMP/p/servers.svg ] && [ -s $TMP/p/response_time_ccdf.png ] && [ -s $TMP/p/pool_series.csv ]
