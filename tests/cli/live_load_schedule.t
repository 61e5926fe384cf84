# A rate schedule ending at rate 0 ends the load by itself: 1000/s for
# 20 ms is a Poisson count of mean 20 (seed 1 gives a fixed count), each
# an error as nothing listens, none lost.
cmd: load --target 127.0.0.1:9 --schedule 0:1000,0.02:0 --duration 5 --connections 4 --json
json: arrival str steps:0:1000,0.02:0
json: sent within 5 40
json: ok eq 0
json: timeouts eq 0
sh: sent=$(sed -n 's/^ *"sent": \([0-9]*\),/\1/p' $TMP/stdout); err=$(sed -n 's/^ *"errors": \([0-9]*\),/\1/p' $TMP/stdout); [ "$sent" = "$err" ]
