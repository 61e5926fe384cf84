# One of two backends killed at 50% of their load: the proxy's defaults
# refuse nothing of a load the survivor carries at its capacity
# (127.0.0.1, < 15 s).
cmd: --version
sh: sh "$DATA/../live/killed_backend.sh"
