# qctl fit on the loopback web capture: idle think times found (threshold
# between the 30 ms object gaps and the 0.44 s shortest think time), a
# model file written, families ranked by BIC with intervals.
cmd: fit $DATA/captures/web.pcap --activity web --out $TMP/m --json
json: capture.packets eq 1668
json: capture.flows eq 45
json: groups.0.name str web
json: groups.0.packets eq 1668
json: groups.0.sessions eq 8
json: groups.0.model.onoff.method str auto
json: groups.0.model.onoff.threshold within 0.03 0.44
json: groups.0.model.transport.protocol str tcp
json: groups.0.model.size.criterion str bic
json: groups.0.model.size.candidates.0.ci_method exists
json: groups.0.model.gap.candidates.0.bic exists
json: groups.0.model.dependence.size_gap.kendall exists
file: $TMP/m/web.json
sh: grep -q '"format": "qctl-traffic-model"' $TMP/m/web.json
no-stderr:
