# Closed loop: throughput against the closed-network law X = N / (R + Z),
# with and without queueing at the backend; sessions; conservation.
cmd: --version
sh: sh "$DATA/../live/closed.sh"
