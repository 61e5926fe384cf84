# A rate schedule: 1000/s for 20 ms, then nothing, then a trickle of
# 0.001/s until the 0.1 s bound: a Poisson count of mean 20 (seed 1 gives
# a fixed count), each an error as nothing listens, none lost.
cmd: load --target 127.0.0.1:9 --max-errors 1 --schedule 0:1000,0.02:0,0.03:0.001 --duration 0.1 --connections 4 --json
json: arrival str steps:0:1000,0.02:0,0.03:0.001
json: sent within 5 40
json: ok eq 0
json: timeouts eq 0
sh: sent=$(sed -n 's/^ *"sent": \([0-9]*\),/\1/p' $TMP/stdout); err=$(sed -n 's/^ *"errors": \([0-9]*\),/\1/p' $TMP/stdout); [ "$sent" = "$err" ]
