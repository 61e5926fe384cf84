# A light load (20% and 50% of one 5 ms backend worker) is let in whole
# by the proxy's defaults: the adaptive reference and CoDel target with
# their light-load floors (127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/light.sh"
