# qctl gate: limit (tests/live/gate_limit.sh; 127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/gate_limit.sh"
