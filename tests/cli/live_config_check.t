# qctl proxy --config FILE --check: the file's keys are the proxy's flags,
# validated by the same parser; the effective configuration is printed as
# JSON (defaults filled in) and the proxy does not start.
cmd: proxy --config "$DATA/proxy_config/good.json" --check
json: limiter str admission
json: limit eq 4
json: backend.1 str 127.0.0.1:9002
json: class.1 str silver=0.2
json: class-prefix.0 str gold=/api/gold
json: candidate.0 str silver
json: interval eq 0.05
json: queue eq 1024
json: epsilon eq 0.1
no-stderr:
