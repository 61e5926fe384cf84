# `qctl proxy --route djsq` when switching a backend on fails, hangs or
# takes longer than the requests may wait: reported, left off, requests
# answered by the backend that is on or 503, none lost (127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/fleet_failures.sh"
