# --workers 2: the series, /metrics and /status count every worker's
# requests: their admitted totals equal the 2xx of 400 requests
# (127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/workers_series.sh"
