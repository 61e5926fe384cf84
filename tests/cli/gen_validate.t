# Validation against the gaming capture: the copula model keeps the
# size-gap dependence the independent fitted model cannot (tau -0.43).
cmd: gen --validate $DATA/captures/gaming.pcap --json --seed 3
json: packets eq 891
json: metrics.kendall_size_gap.real within -0.5 -0.35
json: metrics.kendall_size_gap.closer str copula
json: metrics.kendall_size_gap.fitted.value within -0.15 0.15
json: metrics.ks_size.copula.value lt 0.1
json: metrics.hurst.real exists
json: closer_count.copula ge 6
