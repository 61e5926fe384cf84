# A capture's packet times drive the queue (--arrival trace:CAPTURE).
cmd: sim queue --arrival trace:$DATA/captures/gaming.pcap --service exp:500 --customers 800 --warmup 0 --json
json: run.measured_customers eq 800
json: model.arrival_canonical str 'trace:<891 arrivals>'
json: metrics.utilization.value within 0.01 0.5
