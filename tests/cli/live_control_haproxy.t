# qctl control on a real haproxy: actuators read back, every sensor field,
# refusals, a killed haproxy, parking (tests/live/control_haproxy.sh;
# 127.0.0.1 and $TMP, < 40 s; skipped without haproxy).
needs: haproxy python3 curl
cmd: --version
sh: sh "$DATA/../live/control_haproxy.sh"
