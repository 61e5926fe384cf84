# --tls-cert without --tls-key: refused naming both.
cmd: proxy --backend 127.0.0.1:9 --tls-cert cert.pem --check
exit: 2
stderr: --tls-cert without --tls-key
