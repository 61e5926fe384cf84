# --tls-cert whose file is no certificate: refused before anything runs,
# naming the flag and the file.
cmd: proxy --backend 127.0.0.1:9 --tls-cert $DATA/../cli/live_tls_bad.t --tls-key $DATA/../cli/live_tls_bad.t --check
exit: 2
stderr: --tls-cert:
stderr: not a readable PEM certificate
