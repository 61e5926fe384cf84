# qctl proxy from a --config file with the admission limiter: classes by
# path prefix and header, per-class counts and histograms, a bound changed
# at run time on the admin listener (127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/classes.sh"
