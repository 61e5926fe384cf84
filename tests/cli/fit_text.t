# The text report names the capture, the on/off split and the ranked fits.
cmd: fit $DATA/captures/video.pcap --activity video
stdout: video.pcap: pcap (ethernet), 1095 IP packets in 1 flows
stdout: == video: 1095 packets, tcp
stdout: on/off: threshold
stdout: size (
stdout: dependence (Kendall tau / Spearman rho)
