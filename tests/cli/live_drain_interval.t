# The drain ends at --drain-timeout whatever --interval (20 s, 1e300 s),
# and at once when idle (127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/drain_interval.sh"
