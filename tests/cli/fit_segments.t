# A capture holding two captures 5.8 years apart: fit splits it into two
# segments, warns, and the model's rate is that of the segments.
cmd: fit $DATA/captures/1kxun.pcap --json
stderr: 2 segments: 1 gap over 3600 s
json: groups.0.model.source.segments eq 2
json: groups.0.model.packets_per_second.source within 9 10.5
json: groups.0.model.packets_per_second.fitted near groups.0.model.packets_per_second.source 0.03
json: groups.0.model.packets_per_second.copula near groups.0.model.packets_per_second.source 0.03
