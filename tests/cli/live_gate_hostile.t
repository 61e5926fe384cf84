# qctl gate: hostile clients (tests/live/gate_hostile.sh; 127.0.0.1, < 15 s).
cmd: --version
sh: sh "$DATA/../live/gate_hostile.sh"
