# A real capture (1kxun.pcap, nDPI test suite; see tests/data/captures/README.md):
# over 10 realisations both approaches keep the capture's packet rate
# within 15% and its mean packet size within 10%.
cmd: gen --validate $DATA/captures/1kxun.pcap --json --realisations 10
json: realisations eq 10
json: metrics.packets_per_second.fitted.value near metrics.packets_per_second.real 0.15
json: metrics.packets_per_second.copula.value near metrics.packets_per_second.real 0.15
json: metrics.mean_size.fitted.value near metrics.mean_size.real 0.10
json: metrics.mean_size.copula.value near metrics.mean_size.real 0.10
# Two captures 5.8 years apart: split into segments, the rate that of the
# segments (about 10 packets/s, not 1e-5).
json: segments eq 2
json: metrics.packets_per_second.real gt 1
stderr: 2 segments
