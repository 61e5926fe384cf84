# qctl gate: SIGTERM ends the drain at --drain-timeout whatever --interval
# (3600 s), on one and two workers; at once when idle; --check refuses as
# the start does (127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/gate_drain.sh"
