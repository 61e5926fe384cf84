# qctl gate: integral and open-loop PRBS control of a real plant
# (tests/live/gate_control.sh; 127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/gate_control.sh"
