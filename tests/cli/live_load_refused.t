# Nothing listens on the target: every request is an error, none lost.
cmd: load --target 127.0.0.1:9 --max-errors 1 --rate 1000 --requests 20 --connections 4 --json
json: sent eq 20
json: errors eq 20
json: ok eq 0
json: timeouts eq 0
