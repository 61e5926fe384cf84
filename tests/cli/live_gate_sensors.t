# qctl gate: sensors cmd, url, log (rotation, truncation) and the held controller
# (tests/live/gate_sensors.sh; 127.0.0.1, < 15 s).
cmd: --version
sh: sh "$DATA/../live/gate_sensors.sh"
