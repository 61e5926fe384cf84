# A real capture (netflix.pcap, nDPI test suite; see tests/data/captures/README.md):
# over 10 realisations both approaches keep the capture's packet rate
# within 15% and its mean packet size within 10%.
cmd: gen --validate $DATA/captures/netflix.pcap --json --realisations 10
json: realisations eq 10
json: metrics.packets_per_second.fitted.value near metrics.packets_per_second.real 0.15
json: metrics.packets_per_second.copula.value near metrics.packets_per_second.real 0.15
json: metrics.mean_size.fitted.value near metrics.mean_size.real 0.10
json: metrics.mean_size.copula.value near metrics.mean_size.real 0.10
